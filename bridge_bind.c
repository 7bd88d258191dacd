/*
** bridge_bind.c: binding. The parameter array and arena Go writes a statement's
** values into, and the one pass that binds them all.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

int bridge_reserve(bridge_conn *c, int nargs, sqlite3_int64 arena) {
  if (nargs > c->args_cap) {
    bridge_arg *a = (bridge_arg *)realloc(c->args, (size_t)nargs * sizeof(bridge_arg));
    if (!a) return SQLITE_NOMEM;
    c->args = a;
    c->args_cap = nargs;
  }
  if (arena > c->arena_cap) {
    char *p = (char *)realloc(c->arena, (size_t)arena);
    if (!p) return SQLITE_NOMEM;
    c->arena = p;
    c->arena_cap = arena;
  }
  return SQLITE_OK;
}

/* Frees the parameter array and arena once bound, when they have grown past
** BRIDGE_KEEP_ARGS and BRIDGE_KEEP_ARENA bytes. */
static void bridge_trim_params(bridge_conn *c) {
  if ((size_t)c->args_cap * sizeof(bridge_arg) > BRIDGE_KEEP_ARGS) {
    free(c->args);
    c->args = 0;
    c->args_cap = 0;
  }
  if (c->arena_cap > BRIDGE_KEEP_ARENA) {
    free(c->arena);
    c->arena = 0;
    c->arena_cap = 0;
  }
}

/* Binds c->args[0:nparam]. Values SQLite does not take (after a failure) are freed
** here, so an owned buffer is never leaked. */
static int bridge_bind_args(bridge_stmt *s) {
  bridge_arg *a = s->conn->args;
  int i, rc = SQLITE_OK;
  s->bound = 0;
  if (s->nparam > s->conn->args_cap) return SQLITE_MISUSE; /* Go wrote no arguments */
  for (i = 0; i < s->nparam; i++) {
    bridge_arg *v = &a[i];
    void (*del)(void *) = v->own ? free : SQLITE_TRANSIENT;
    if (rc != SQLITE_OK) {
      if (v->own) free((void *)v->v.p);
      continue;
    }
    if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) s->bound += v->n;
    switch (v->type) {
    case SQLITE_INTEGER: rc = sqlite3_bind_int64(s->stmt, i + 1, v->v.i); break;
    case SQLITE_FLOAT: rc = sqlite3_bind_double(s->stmt, i + 1, v->v.f); break;
    case SQLITE_TEXT: /* An empty string must not be bound from a NULL pointer: that binds NULL. */
      rc = sqlite3_bind_text64(s->stmt, i + 1, v->n ? (const char *)v->v.p : "", (sqlite3_uint64)v->n, v->n ? del : SQLITE_STATIC, SQLITE_UTF8);
      if (!v->n && v->own) free((void *)v->v.p);
      break;
    case SQLITE_BLOB:
      /* A zero-length BLOB must not be bound from a NULL pointer: that binds NULL. */
      rc = sqlite3_bind_blob64(s->stmt, i + 1, v->n ? v->v.p : (const void *)"", (sqlite3_uint64)v->n, v->n ? del : SQLITE_STATIC);
      if (!v->n && v->own) free((void *)v->v.p);
      break;
    case BRIDGE_ZEROBLOB: rc = sqlite3_bind_zeroblob64(s->stmt, i + 1, (sqlite3_uint64)v->v.i); break;
    default: rc = sqlite3_bind_null(s->stmt, i + 1); break;
    }
  }
  return rc;
}

static int bridge_bind(bridge_stmt *s) {
  int rc = bridge_bind_args(s);
  bridge_trim_params(s->conn);
  return rc;
}

#endif /* BRIDGE_TU */
