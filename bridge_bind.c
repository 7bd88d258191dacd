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

/* Statements whose plan depends on a bound value (a LIKE or GLOB pattern,
** LIMIT, a column compared with a partial index's constant, STAT4's
** estimates) are compiled again by SQLite at their next step whenever such a
** parameter is bound anew, even to the value it holds (vdbeUnbind; only
** sqlite3_bind_int64 compares), and whenever sqlite3_clear_bindings runs.
** That is the point when the value changed: the new plan may be better. Run
** again with the same arguments, the statement would be compiled again for
** nothing, on every run; so the bridge skips binding a value that parameter
** i (from 0) of st holds already, and never clears bindings but to release
** large values (bridge_unbind_large). Only the amalgamation compiled into
** this translation unit shows which parameters count (Vdbe.expmask) and
** what they hold: against another SQLite every value is bound. */
static int bridge_bound_same(sqlite3_stmt *st, int i, const bridge_arg *v) {
#ifdef BRIDGE_UNITY
  const Vdbe *p = (const Vdbe *)st;
  const Mem *m;
  if (!p->expmask || (p->expmask & (i >= 31 ? 0x80000000u : (u32)1 << i)) == 0 || i >= p->nVar) return 0;
  m = &p->aVar[i];
  switch (v->type) {
  case SQLITE_FLOAT: return (m->flags & MEM_TypeMask) == MEM_Real && memcmp(&m->u.r, &v->v.f, sizeof(double)) == 0;
  case SQLITE_TEXT:
    return (m->flags & MEM_TypeMask) == MEM_Str && m->enc == SQLITE_UTF8 && (sqlite3_int64)m->n == v->n &&
           (v->n == 0 || memcmp(m->z, v->v.p, (size_t)v->n) == 0);
  case SQLITE_BLOB:
    return (m->flags & MEM_TypeMask) == MEM_Blob && (sqlite3_int64)m->n == v->n &&
           (v->n == 0 || memcmp(m->z, v->v.p, (size_t)v->n) == 0);
  case SQLITE_INTEGER: /* sqlite3_bind_int64 compares by itself */
  case BRIDGE_ZEROBLOB: return 0;
  default: return (m->flags & MEM_TypeMask) == MEM_Null;
  }
#else
  (void)st;
  (void)i;
  (void)v;
  return 0;
#endif
}

/* Sets every parameter of st to NULL, as sqlite3_clear_bindings does, but
** without making SQLite compile st again when its plan depends on a bound
** value that is NULL already (see bridge_bound_same). */
static void bridge_clear(sqlite3_stmt *st) {
#ifdef BRIDGE_UNITY
  const Vdbe *p = (const Vdbe *)st;
  if (p->expmask) {
    int i;
    for (i = 0; i < p->nVar; i++)
      if ((p->aVar[i].flags & MEM_TypeMask) != MEM_Null) sqlite3_bind_null(st, i + 1);
    return;
  }
#endif
  sqlite3_clear_bindings(st);
}

/* Releases the TEXT and BLOB values bound to s (reset), which SQLite keeps
** until they are bound over, when they hold BRIDGE_KEEP_BOUND bytes or
** more: an idle statement holds no more than that of its own last
** arguments. Small values stay for the next run, which binds every
** parameter anyway (the direct API's bindings persist, as SQLite's do, and
** it clears them itself when asked): clearing them would cost nothing but
** make SQLite compile again a statement whose plan depends on one. s->bound
** may count more than is bound (the direct API adds up its binds), never
** less; the amalgamation in this translation unit shows the exact size. */
static void bridge_unbind_large(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  const Vdbe *p = (const Vdbe *)s->stmt;
  sqlite3_int64 n = 0;
  int i;
  if (s->bound < BRIDGE_KEEP_BOUND) return;
  for (i = 0; i < p->nVar; i++)
    if (p->aVar[i].flags & (MEM_Str | MEM_Blob)) n += p->aVar[i].n;
  s->bound = n;
  if (n < BRIDGE_KEEP_BOUND) return;
  if (p->expmask) {
    for (i = 0; i < p->nVar; i++)
      if (p->aVar[i].flags & (MEM_Str | MEM_Blob)) sqlite3_bind_null(s->stmt, i + 1);
    s->bound = 0;
    return;
  }
#endif
  if (s->bound < BRIDGE_KEEP_BOUND) return;
  sqlite3_clear_bindings(s->stmt);
  s->bound = 0;
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
    if (bridge_bound_same(s->stmt, i, v)) {
      if (v->own) free((void *)v->v.p);
      continue;
    }
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
