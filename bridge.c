/*
** bridge.c: the only hand-written C of the driver. See bridge.h for the contract.
** Nothing here calls back into Go.
*/
#include <errno.h>
#include <string.h>
#include "bridge.h"

/* Stops the running statement once Go has marked its operation cancelled. */
static int bridge_progress(void *arg) {
  bridge_conn *c = (bridge_conn *)arg;
  return c->armed != 0 && __atomic_load_n(c->cancelled, __ATOMIC_RELAXED) == c->armed;
}

/* Arms cancellation for the operation gen before running SQL. The progress
** handler is installed only while a cancellable operation runs, so a context
** that can never be cancelled costs nothing per VDBE op. Returns non-zero if
** the operation was already cancelled. */
static int bridge_arm(bridge_conn *c, uint32_t gen) {
  c->armed = gen;
  if (gen != 0) {
    if (!c->watching) {
      sqlite3_progress_handler(c->db, BRIDGE_PROGRESS_OPS, bridge_progress, c);
      c->watching = 1;
    }
    return __atomic_load_n(c->cancelled, __ATOMIC_RELAXED) == gen;
  }
  if (c->watching) {
    sqlite3_progress_handler(c->db, 0, 0, 0);
    c->watching = 0;
  }
  return 0;
}

int bridge_open(const char *filename, int flags, const char *vfs, int busy_ms, bridge_conn **out) {
  bridge_conn *c = (bridge_conn *)calloc(1, sizeof(*c));
  int rc;
  *out = 0;
  if (!c) return SQLITE_NOMEM;
  rc = sqlite3_open_v2(filename, &c->db, flags, vfs);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(c->db, 1);
    rc = sqlite3_busy_timeout(c->db, busy_ms);
  }
  if (c->db == 0) {
    free(c);
    return SQLITE_NOMEM;
  }
  *out = c;
  return rc;
}

int bridge_db_config(bridge_conn *c, int op, int value) {
  return sqlite3_db_config(c->db, op, value, (int *)0);
}

static void bridge_free_stmt(bridge_stmt *s) {
  sqlite3_finalize(s->stmt);
  free(s->cols);
  free(s);
}

int bridge_close(bridge_conn *c) {
  int rc;
  while (c->stmts) {
    bridge_stmt *s = c->stmts;
    c->stmts = s->next;
    bridge_free_stmt(s);
  }
  rc = sqlite3_close_v2(c->db);
  free(c->sql);
  free(c->args);
  free(c->arena);
  free(c);
  return rc;
}

/* Classifies a declared type the way mattn/go-sqlite3 does: an exact,
** case-insensitive match of the whole declared type. */
static unsigned char bridge_class(const char *decl) {
  if (!decl) return BRIDGE_CLASS_NONE;
  if (sqlite3_stricmp(decl, "timestamp") == 0 || sqlite3_stricmp(decl, "datetime") == 0 ||
      sqlite3_stricmp(decl, "date") == 0)
    return BRIDGE_CLASS_TIME;
  if (sqlite3_stricmp(decl, "boolean") == 0) return BRIDGE_CLASS_BOOL;
  return BRIDGE_CLASS_NONE;
}

/* (Re)describes the columns of st: count, row buffer, classes. */
static int bridge_columns(bridge_stmt *s, sqlite3_stmt *st) {
  int i, ncol = sqlite3_column_count(st);
  size_t size = (size_t)ncol * (sizeof(bridge_col) + sizeof(const char *) + 1);
  void *block = size ? calloc(1, size) : 0;
  if (size && !block) return SQLITE_NOMEM;
  free(s->cols);
  s->ncol = ncol;
  s->cols = (bridge_col *)block;
  s->names = (const char **)(s->cols + ncol);
  s->classes = (unsigned char *)(s->names + ncol);
  for (i = 0; i < ncol; i++) s->classes[i] = bridge_class(sqlite3_column_decltype(st, i));
  s->reprepares = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_REPREPARE, 0);
  s->shape++;
  return SQLITE_OK;
}

int bridge_prepare(bridge_conn *c, const char *sql, int n, int off, unsigned int flags) {
  sqlite3_stmt *st = 0;
  const char *tail = 0;
  bridge_stmt *s;
  int rc;

  c->prepared = 0;
  if (sql) {
    if (n + 1 > c->sql_cap || (c->sql_cap > (1 << 20) && n + 1 < c->sql_cap / 4)) {
      /* Grow to fit; shrink a very large buffer once queries are small again. */
      char *p = (char *)realloc(c->sql, (size_t)n + 1);
      if (!p) return SQLITE_NOMEM;
      c->sql = p;
      c->sql_cap = n + 1;
    }
    memcpy(c->sql, sql, (size_t)n);
    c->sql[n] = 0;
    c->sql_len = n;
  }
  if (off < 0 || off > c->sql_len) return SQLITE_RANGE;
  c->tail = off;
  /* nByte includes the terminator: SQLite then parses in place, without a copy. */
  rc = sqlite3_prepare_v3(c->db, c->sql + off, c->sql_len - off + 1, flags, &st, &tail);
  if (rc != SQLITE_OK) return rc;
  c->tail = tail ? (int)(tail - c->sql) : c->sql_len;
  if (c->tail > c->sql_len) c->tail = c->sql_len;
  if (!st) return SQLITE_OK;

  s = (bridge_stmt *)calloc(1, sizeof(bridge_stmt));
  if (!s || bridge_columns(s, st) != SQLITE_OK) {
    free(s);
    sqlite3_finalize(st);
    return SQLITE_NOMEM;
  }
  s->stmt = st;
  s->conn = c;
  s->nparam = sqlite3_bind_parameter_count(st);
  s->rc = SQLITE_DONE;
  s->next = c->stmts;
  if (c->stmts) c->stmts->prev = s;
  c->stmts = s;
  c->prepared = s;
  return SQLITE_OK;
}

void bridge_finalize(bridge_stmt *s) {
  bridge_conn *c = s->conn;
  if (s->prev) s->prev->next = s->next;
  else c->stmts = s->next;
  if (s->next) s->next->prev = s->prev;
  bridge_free_stmt(s);
}

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

/* Binds c->args[0:nparam]. Values SQLite does not take (after a failure) are freed
** here, so an owned buffer is never leaked. */
static int bridge_bind(bridge_stmt *s) {
  bridge_arg *a = s->conn->args;
  int i, rc = SQLITE_OK;
  for (i = 0; i < s->nparam; i++) {
    bridge_arg *v = &a[i];
    void (*del)(void *) = v->own ? free : SQLITE_TRANSIENT;
    if (rc != SQLITE_OK) {
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

/* Describes every column of the current row in s->cols. */
static void bridge_fill(bridge_stmt *s) {
  sqlite3_stmt *st = s->stmt;
  int i;
  for (i = 0; i < s->ncol; i++) {
    bridge_col *c = &s->cols[i];
    int t = sqlite3_column_type(st, i);
    c->type = t;
    switch (t) {
    case SQLITE_INTEGER: c->v.i = sqlite3_column_int64(st, i); break;
    case SQLITE_FLOAT: c->v.f = sqlite3_column_double(st, i); break;
    case SQLITE_TEXT:
      c->v.p = sqlite3_column_text(st, i);
      c->n = sqlite3_column_bytes(st, i);
      if (!c->v.p) c->type = SQLITE_NULL; /* out of memory converting the value */
      break;
    case SQLITE_BLOB:
      c->v.p = sqlite3_column_blob(st, i);
      c->n = sqlite3_column_bytes(st, i);
      break;
    default: break;
    }
  }
}

static int bridge_step_row(bridge_stmt *s, uint32_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  rc = sqlite3_step(s->stmt);
  if (rc == SQLITE_ROW) bridge_fill(s);
  return s->rc = rc;
}

int bridge_exec(bridge_stmt *s, uint32_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return rc;
  if (bridge_arm(c, gen)) return SQLITE_INTERRUPT;
  do {
    rc = sqlite3_step(s->stmt);
  } while (rc == SQLITE_ROW);
  s->changes = sqlite3_changes64(c->db);
  s->last_id = sqlite3_last_insert_rowid(c->db);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  /* Reset now so the statement holds no lock while it waits for reuse. On error
  ** the step's code is kept: reset returns the same one. */
  sqlite3_reset(s->stmt);
  return rc;
}

int bridge_query(bridge_stmt *s, uint32_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return s->rc = rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  rc = sqlite3_step(s->stmt);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    if (sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) != s->reprepares &&
        bridge_columns(s, s->stmt) != SQLITE_OK) {
      sqlite3_reset(s->stmt);
      return s->rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_ROW) bridge_fill(s);
  }
  return s->rc = rc;
}

int bridge_step(bridge_stmt *s, uint32_t gen) { return bridge_step_row(s, gen); }

int bridge_reset(bridge_stmt *s) {
  int rc = sqlite3_reset(s->stmt);
  sqlite3_clear_bindings(s->stmt);
  s->rc = SQLITE_DONE;
  return rc;
}

int bridge_names(bridge_stmt *s) {
  int i;
  for (i = 0; i < s->ncol; i++) {
    s->names[i] = sqlite3_column_name(s->stmt, i);
    if (!s->names[i]) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int bridge_column_notnull(bridge_stmt *s, int i) {
  const char *db = sqlite3_column_database_name(s->stmt, i);
  const char *table = sqlite3_column_table_name(s->stmt, i);
  const char *column = sqlite3_column_origin_name(s->stmt, i);
  int notnull = 0;
  if (!db || !table || !column) return -1;
  if (sqlite3_table_column_metadata(s->conn->db, db, table, column, 0, 0, &notnull, 0, 0) != SQLITE_OK)
    return -1;
  return notnull != 0;
}

void bridge_errinfo(bridge_conn *c) {
  c->err_ext = sqlite3_extended_errcode(c->db);
  c->err_code = c->err_ext & 0xff;
  c->err_errno = sqlite3_system_errno(c->db);
  c->err_offset = sqlite3_error_offset(c->db);
  c->err_msg = sqlite3_errmsg(c->db);
}
