/*
** bridge_direct.c: the direct statement API (bridge_direct.go, direct.go):
** a statement's own argument array, bind, step and columns, without
** database/sql's row buffer.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

bridge_direct *bridge_direct_new(bridge_stmt *s) {
  bridge_direct *d = (bridge_direct *)calloc(1, sizeof(*d));
  if (!d) return 0;
  d->s = s;
  d->nargs = s->nparam;
  if (d->nargs > 0 && !(d->args = (bridge_arg *)calloc((size_t)d->nargs, sizeof(bridge_arg)))) {
    free(d);
    return 0;
  }
  return d;
}

static void bridge_direct_drop(bridge_arg *a, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (a[i].type != 0 && a[i].own) free((void *)a[i].v.p);
    a[i].type = 0;
    a[i].own = 0;
  }
}

void bridge_direct_free(bridge_direct *d) {
  if (!d) return;
  bridge_direct_drop(d->args, d->nargs);
  free(d->args);
  free(d->rows);
  free(d->arena);
  free(d);
}

int bridge_direct_reserve(bridge_direct *d, sqlite3_int64 n, int rows) {
  if (n > d->arena_cap) {
    char *p = (char *)malloc((size_t)n);
    if (!p) return SQLITE_NOMEM;
    free(d->arena);
    d->arena = p;
    d->arena_cap = n;
  }
  if (rows > d->rows_cap && d->nargs > 0) {
    bridge_arg *r = (bridge_arg *)calloc((size_t)rows * (size_t)d->nargs, sizeof(bridge_arg));
    if (!r) return SQLITE_NOMEM;
    free(d->rows);
    d->rows = r;
    d->rows_cap = rows;
  }
  return SQLITE_OK;
}

/* Binds v to parameter i (1-based); SQLite owns an owned value from here on,
** even when the bind fails (it then frees it at once). A value the
** parameter holds already is not bound again (bridge_bound_same). s->bound
** adds up the TEXT and BLOB bytes, for bridge_unbind_large. */
static int bridge_direct_bind1(bridge_stmt *s, int i, bridge_arg *v) {
  sqlite3_stmt *st = s->stmt;
  void (*del)(void *) = v->own ? free : SQLITE_TRANSIENT;
  if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) s->bound += v->n;
  if (bridge_bound_same(st, i - 1, v)) {
    if (v->own) free((void *)v->v.p);
    return SQLITE_OK;
  }
  switch (v->type) {
  case SQLITE_INTEGER: return sqlite3_bind_int64(st, i, v->v.i);
  case SQLITE_FLOAT: return sqlite3_bind_double(st, i, v->v.f);
  case SQLITE_TEXT:
    if (v->n == 0) { /* not from a NULL pointer: that binds NULL */
      if (v->own) free((void *)v->v.p);
      return sqlite3_bind_text64(st, i, "", 0, SQLITE_STATIC, SQLITE_UTF8);
    }
    return sqlite3_bind_text64(st, i, (const char *)v->v.p, (sqlite3_uint64)v->n, del, SQLITE_UTF8);
  case SQLITE_BLOB:
    if (v->n == 0) {
      if (v->own) free((void *)v->v.p);
      return sqlite3_bind_blob64(st, i, "", 0, SQLITE_STATIC);
    }
    return sqlite3_bind_blob64(st, i, v->v.p, (sqlite3_uint64)v->n, del);
  case BRIDGE_ZEROBLOB: return sqlite3_bind_zeroblob64(st, i, (sqlite3_uint64)v->v.i);
  default: return sqlite3_bind_null(st, i);
  }
}

/* Binds the values a[0:n] whose type is not 0 (all of them with all: type 0
** binds NULL), and clears their types. After a failure the owned values left
** are freed, and with all their parameters set to NULL, as a clear before
** the binds would have left them. */
static int bridge_direct_bind(bridge_stmt *s, bridge_arg *a, int n, int all) {
  int i, rc = SQLITE_OK;
  for (i = 0; i < n; i++) {
    bridge_arg *v = &a[i];
    if (v->type == 0 && !all) continue;
    if (rc == SQLITE_OK) rc = bridge_direct_bind1(s, i + 1, v);
    else {
      if (v->own) free((void *)v->v.p);
      if (all) sqlite3_bind_null(s->stmt, i + 1);
    }
    v->type = 0;
    v->own = 0;
  }
  return rc;
}

int bridge_direct_prepare_run(bridge_direct *d, int flags) {
  bridge_stmt *s = d->s;
  if (flags & BRIDGE_DIRECT_RESET) sqlite3_reset(s->stmt);
  if (flags & BRIDGE_DIRECT_CLEAR) {
    s->bound = 0;
    /* Cleared and then bound: each parameter gets its new value or NULL,
    ** and one that holds it already is left alone (bridge_bound_same). */
    if (flags & BRIDGE_DIRECT_BIND) return bridge_direct_bind(s, d->args, d->nargs, 1);
    bridge_clear(s->stmt);
  }
  if (flags & BRIDGE_DIRECT_BIND) return bridge_direct_bind(s, d->args, d->nargs, 0);
  return SQLITE_OK;
}

/* After a step returned a row or the end: describe the columns again if SQLite
** re-prepared the statement. */
static int bridge_direct_shape(bridge_stmt *s) {
  if (sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) != s->reprepares &&
      bridge_columns(s, s->stmt) != SQLITE_OK) {
    sqlite3_reset(s->stmt);
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int bridge_direct_step(bridge_direct *d, int flags, uint64_t gen) {
  bridge_stmt *s = d->s;
  int fresh, rc = flags ? bridge_direct_prepare_run(d, flags) : SQLITE_OK;
  if (rc != SQLITE_OK) return s->rc = rc;
  if (bridge_arm(s->conn, gen)) return s->rc = SQLITE_INTERRUPT;
  s->ahead = s->readonly && bridge_may_step_ahead(s->conn);
  fresh = bridge_unlock_fresh(s->stmt);
  do {
    rc = bridge_run(s);
  } while (fresh && bridge_unlock_retry(s->conn, s->stmt, &rc));
  if (rc == SQLITE_ROW) {
    if (bridge_direct_shape(s) != SQLITE_OK) return s->rc = SQLITE_NOMEM;
    bridge_fill(s);
  } else if (rc == SQLITE_DONE) {
    if (bridge_direct_shape(s) != SQLITE_OK) return s->rc = SQLITE_NOMEM;
    s->changes = sqlite3_changes64(s->conn->db);
    s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  }
  return s->rc = rc;
}

static int bridge_direct_digits(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_FP_DIGITS
  int digits = 17;
  sqlite3_db_config(db, SQLITE_DBCONFIG_FP_DIGITS, 0, &digits); /* 0: only read it */
  return digits;
#else
  /* A system SQLite older than the setting (the libsqlite3 tag) writes a
  ** REAL as text with 15 significant digits. */
  (void)db;
  return 15;
#endif
}

int bridge_direct_format(bridge_direct *d, double v) {
  sqlite3_snprintf((int)sizeof d->num, d->num, "%!.*g", bridge_direct_digits(d->s->conn->db), v);
  return (int)strlen(d->num);
}

/* Whether a row may be followed by others in a batch (see bridge.h): its
** TEXT and BLOB values (size bytes) must be copied out first. *digits is the
** connection's setting for a REAL's text, read at the first FLOAT (-1 until
** then: a scan of integers never asks). */
static int bridge_direct_plain(sqlite3 *db, const bridge_col *row, int ncol, int *digits, sqlite3_int64 size, int used) {
  int i;
  if (size > BRIDGE_BATCH_ROW_BYTES || size > BRIDGE_BATCH_TEXT - used) return 0;
  for (i = 0; i < ncol; i++) {
    switch (row[i].type) {
    case SQLITE_FLOAT:
      if (*digits < 0) *digits = bridge_direct_digits(db);
      /* Below 1e15 with 15 digits or more, "%!.*g" writes an integral value
      ** as SQLite writes a REAL held as an integer: the digits and ".0". */
      if (*digits < 15 || row[i].v.f >= 1e15 || row[i].v.f <= -1e15) return 0;
      break;
    default: break;
    }
  }
  return 1;
}

int bridge_direct_step_batch(bridge_direct *d, int flags, uint64_t gen, int max) {
  bridge_stmt *s = d->s;
  int fresh, n = 0, digits = -1, used = 0, rc = flags ? bridge_direct_prepare_run(d, flags) : SQLITE_OK;
  if (rc != SQLITE_OK) {
    s->rc = rc;
    return 0;
  }
  if (bridge_arm(s->conn, gen)) {
    s->rc = SQLITE_INTERRUPT;
    return 0;
  }
  s->ahead = s->readonly && bridge_may_step_ahead(s->conn);
  if (max < 1 || !s->ahead) max = 1;
  fresh = bridge_unlock_fresh(s->stmt);
  for (;;) {
    bridge_col *row;
    sqlite3_int64 size;
    do {
      rc = bridge_run(s);
    } while (n == 0 && fresh && bridge_unlock_retry(s->conn, s->stmt, &rc));
    if (n == 0 && (rc == SQLITE_ROW || rc == SQLITE_DONE)) {
      if (bridge_direct_shape(s) != SQLITE_OK) {
        s->rc = SQLITE_NOMEM;
        return 0;
      }
      if (rc == SQLITE_ROW && max > s->batch_cap) {
        bridge_col *b = (bridge_col *)realloc(s->batch, (size_t)max * (size_t)s->ncol * sizeof(bridge_col));
        if (!b) {
          sqlite3_reset(s->stmt);
          s->rc = SQLITE_NOMEM;
          return 0;
        }
        s->batch = b;
        s->batch_cap = max;
      }
    }
    if (rc != SQLITE_ROW) break;
    row = s->batch + (size_t)n * (size_t)s->ncol;
    size = bridge_fill_into(s->stmt, row, s->ncol);
    n++;
    if (n == max || !bridge_direct_plain(s->conn->db, row, s->ncol, &digits, size, used)) break;
    if (size) {
      if (!s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) break;
      bridge_copy_out(s, row, &used);
    }
  }
  if (rc == SQLITE_DONE) {
    s->changes = sqlite3_changes64(s->conn->db);
    s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  }
  s->rc = rc;
  return n;
}

/* Steps st to its end; SQLITE_OK when it got there. Its rows are discarded,
** so a run stopped by a shared-cache lock may wait and run again whole. */
static int bridge_direct_run_out(bridge_stmt *s) {
  int rc;
  do {
    do {
      rc = bridge_run(s);
    } while (rc == SQLITE_ROW);
  } while (bridge_unlock_retry(s->conn, s->stmt, &rc));
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int bridge_direct_exec(bridge_direct *d, int flags, uint64_t gen) {
  bridge_stmt *s = d->s;
  int rc = bridge_direct_prepare_run(d, flags | BRIDGE_DIRECT_RESET);
  if (rc != SQLITE_OK) return rc;
  if (bridge_arm(s->conn, gen)) return SQLITE_INTERRUPT;
  rc = bridge_direct_run_out(s);
  s->changes = sqlite3_changes64(s->conn->db);
  s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  /* On error the step's code is kept: reset returns the same one. */
  sqlite3_reset(s->stmt);
  s->rc = SQLITE_DONE;
  return rc;
}

int bridge_direct_exec_rows(bridge_direct *d, int n, uint64_t gen) {
  bridge_stmt *s = d->s;
  sqlite3_int64 changes = 0;
  int k, bound = 0, rc = SQLITE_OK;
  d->done = 0;
  if (n > d->rows_cap && d->nargs > 0) return SQLITE_MISUSE;
  if (bridge_arm(s->conn, gen)) rc = SQLITE_INTERRUPT;
  for (k = 0; k < n && rc == SQLITE_OK; k++) {
    sqlite3_reset(s->stmt);
    bound = k + 1; /* bind consumes the row's values, failing or not */
    s->bound = 0; /* every parameter is bound over */
    rc = bridge_direct_bind(s, d->rows + (size_t)k * (size_t)d->nargs, d->nargs, 1);
    if (rc == SQLITE_OK) rc = bridge_direct_run_out(s);
    if (rc == SQLITE_OK) {
      changes += sqlite3_changes64(s->conn->db);
      d->done = k + 1;
    }
  }
  if (bound < n && d->nargs > 0) /* after an error: the rows never bound */
    bridge_direct_drop(d->rows + (size_t)bound * (size_t)d->nargs, (n - bound) * d->nargs);
  s->changes = changes;
  s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  sqlite3_reset(s->stmt);
  s->rc = SQLITE_DONE;
  return rc;
}

#endif /* BRIDGE_TU */
