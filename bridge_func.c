/*
** bridge_func.c: user-defined functions and collations (bridge_func.go,
** func.go). Trampolines from SQLite's function, aggregate, window and
** collation callbacks to the Go entry points exported by bridge_func.go.
** Declared here exactly as cgo declares them in _cgo_export.h.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

extern void goFuncCall(bridge_fcall *call);
extern void goFuncDestroy(uintptr_t handle);
extern int goCollate(bridge_udf *u, int n1, void *p1, int n2, void *p2);

/* Arguments decoded on the C stack up to this count; beyond, sqlite3_malloc. */
#define BRIDGE_UDF_STACK_ARGS 8

/* Decodes argv as bridge_fill decodes a row. Returns 0 (and sets an error)
** when SQLite ran out of memory converting a value to text. */
static int bridge_udf_args(sqlite3_context *ctx, bridge_col *cols, int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    sqlite3_value *v = argv[i];
    bridge_col *c = &cols[i];
    int t = sqlite3_value_type(v);
    c->type = t;
    c->n = 0;
    switch (t) {
    case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
    case SQLITE_TEXT:
      c->v.p = sqlite3_value_text(v);
      c->n = sqlite3_value_bytes(v);
      if (!c->v.p) {
        sqlite3_result_error_nomem(ctx);
        return 0;
      }
      break;
    case SQLITE_BLOB:
      c->v.p = sqlite3_value_blob(v); /* NULL for an empty BLOB */
      c->n = sqlite3_value_bytes(v);
      break;
    default: c->v.p = 0; break;
    }
  }
  return 1;
}

/* Hands the result Go left in call to SQLite. */
static void bridge_udf_result(bridge_fcall *call) {
  sqlite3_context *ctx = call->ctx;
  switch (call->rtype) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, call->r.i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, call->r.f); break;
  case SQLITE_TEXT:
  case SQLITE_BLOB: bridge_result_bytes(ctx, call->r.p, call->rn, call->rtype); break;
  case SQLITE_NULL: sqlite3_result_null(ctx); break;
  case BRIDGE_ZEROBLOB: sqlite3_result_zeroblob64(ctx, (sqlite3_uint64)call->r.i); break;
  default: break; /* BRIDGE_RESULT_NONE */
  }
}

static void bridge_udf_call(sqlite3_context *ctx, int kind, int argc, sqlite3_value **argv) {
  bridge_col stack[BRIDGE_UDF_STACK_ARGS], *cols = stack;
  bridge_fcall call;
  memset(&call, 0, sizeof(call));
  call.ctx = ctx;
  call.udf = (bridge_udf *)sqlite3_user_data(ctx);
  call.kind = kind;
  call.argc = argc;
  if (kind != BRIDGE_CALL_FUNC) {
    /* xFinal does not allocate: NULL there means no xStep ever ran. */
    call.agg = (sqlite3_int64 *)sqlite3_aggregate_context(ctx, kind == BRIDGE_CALL_FINAL ? 0 : (int)sizeof(sqlite3_int64));
    if (!call.agg && kind != BRIDGE_CALL_FINAL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (argc > BRIDGE_UDF_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (bridge_udf_args(ctx, cols, argc, argv)) {
    call.args = cols;
    goFuncCall(&call);
    bridge_udf_result(&call);
  }
  if (cols != stack) sqlite3_free(cols);
}

static void bridge_udf_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_FUNC, argc, argv);
}

static void bridge_udf_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_STEP, argc, argv);
}

static void bridge_udf_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_INVERSE, argc, argv);
}

static void bridge_udf_value(sqlite3_context *ctx) { bridge_udf_call(ctx, BRIDGE_CALL_VALUE, 0, 0); }

static void bridge_udf_final(sqlite3_context *ctx) { bridge_udf_call(ctx, BRIDGE_CALL_FINAL, 0, 0); }

static int bridge_udf_collate(void *p, int n1, const void *s1, int n2, const void *s2) {
  return goCollate((bridge_udf *)p, n1, (void *)s1, n2, (void *)s2);
}

static void bridge_udf_destroy(void *p) {
  bridge_udf *u = (bridge_udf *)p;
  goFuncDestroy(u->handle);
  free(u->buf);
  free(u);
}

int bridge_create_function(bridge_conn *c, const char *name, int nargs, int flags, int kind, bridge_udf *u) {
  u->db = c->db;
  /* On failure SQLite calls the destructor itself. */
  switch (kind) {
  case BRIDGE_CALL_FUNC:
    return sqlite3_create_function_v2(c->db, name, nargs, flags, u, bridge_udf_func, 0, 0, bridge_udf_destroy);
  case BRIDGE_CALL_STEP:
    return sqlite3_create_function_v2(c->db, name, nargs, flags, u, 0, bridge_udf_step, bridge_udf_final,
                                      bridge_udf_destroy);
  default:
    return sqlite3_create_window_function(c->db, name, nargs, flags, u, bridge_udf_step, bridge_udf_final,
                                          bridge_udf_value, bridge_udf_inverse, bridge_udf_destroy);
  }
}

int bridge_create_collation(bridge_conn *c, const char *name, bridge_udf *u) {
  int rc;
  if (!u) return sqlite3_create_collation_v2(c->db, name, SQLITE_UTF8, 0, 0, 0);
  u->db = c->db;
  rc = sqlite3_create_collation_v2(c->db, name, SQLITE_UTF8, u, bridge_udf_collate, bridge_udf_destroy);
  /* Unlike sqlite3_create_function_v2, a failed registration does not call
  ** the destructor. */
  if (rc != SQLITE_OK) bridge_udf_destroy(u);
  return rc;
}

int bridge_udf_reserve(bridge_udf *u, sqlite3_int64 n) {
  char *p;
  if (n <= u->buf_cap) return SQLITE_OK;
  p = (char *)realloc(u->buf, (size_t)n);
  if (!p) return SQLITE_NOMEM;
  u->buf = p;
  u->buf_cap = n;
  return SQLITE_OK;
}

void bridge_result_bytes(sqlite3_context *ctx, const void *p, sqlite3_int64 n, int type) {
  /* An empty value must not come from a NULL pointer: that would be NULL. */
  if (n == 0) p = "";
  if (type == SQLITE_TEXT) sqlite3_result_text64(ctx, (const char *)p, (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
  else sqlite3_result_blob64(ctx, p, (sqlite3_uint64)n, SQLITE_TRANSIENT);
}

void bridge_result_error(sqlite3_context *ctx, const char *msg, int n, int code) {
  sqlite3_result_error(ctx, msg ? msg : "", msg ? n : 0);
  if (code != 0) sqlite3_result_error_code(ctx, code);
}

#endif /* BRIDGE_TU */
