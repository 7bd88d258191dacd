/*
** bridge_vtab.c: virtual tables (bridge_vtab.go, vtab.go).
** Trampolines from sqlite3_module's methods (https://sqlite.org/vtab.html) to
** the Go entry points exported by bridge_vtab.go, declared by _cgo_export.h
** (included by bridge.c). C allocates and frees SQLite's structs; Go owns the
** objects they name (bridge.h). Values handed to Go (xFilter, xUpdate) are
** decoded in C, as a row is, so Go reads them without further cgo calls.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */


/* Arguments decoded on the C stack up to this count; beyond, sqlite3_malloc. */
#define BRIDGE_VTAB_STACK_ARGS 8

/* Decodes argv into cols. SQLITE_NOMEM when a TEXT value could not be read. */
static int bridge_vtab_args(bridge_col *cols, int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    if (bridge_value(&cols[i], argv[i]) != SQLITE_OK) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int bridge_vtab_init(void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err,
                            int create) {
  bridge_vtab *vt = (bridge_vtab *)sqlite3_malloc((int)sizeof(bridge_vtab));
  int rc;
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof(*vt));
  rc = goVTabConnect((bridge_vref *)aux, create, argc, (char **)argv, vt, err);
  if (rc != SQLITE_OK) {
    sqlite3_free(vt);
    return rc;
  }
  *out = &vt->base;
  return SQLITE_OK;
}

static int bridge_vtab_create(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                              char **err) {
  (void)db;
  return bridge_vtab_init(aux, argc, argv, out, err, 1);
}

static int bridge_vtab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                               char **err) {
  (void)db;
  return bridge_vtab_init(aux, argc, argv, out, err, 0);
}

static int bridge_vtab_best_index(sqlite3_vtab *p, sqlite3_index_info *info) {
  return goVTabBestIndex((bridge_vtab *)p, info);
}

/* xDisconnect (destroy == 0) and xDestroy. SQLite ignores xDisconnect's
** result: the table is always freed then. */
static int bridge_vtab_release(sqlite3_vtab *p, int destroy) {
  bridge_vtab *vt = (bridge_vtab *)p;
  int rc = goVTabDisconnect(vt, destroy);
  if (destroy && rc != SQLITE_OK) return rc;
  sqlite3_free(vt->base.zErrMsg);
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int bridge_vtab_disconnect(sqlite3_vtab *p) { return bridge_vtab_release(p, 0); }

static int bridge_vtab_destroy(sqlite3_vtab *p) { return bridge_vtab_release(p, 1); }

static int bridge_vtab_open(sqlite3_vtab *p, sqlite3_vtab_cursor **out) {
  bridge_vcursor *cur = (bridge_vcursor *)sqlite3_malloc((int)sizeof(bridge_vcursor));
  int rc;
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof(*cur));
  rc = goVTabOpen((bridge_vtab *)p, cur);
  if (rc != SQLITE_OK) {
    sqlite3_free(cur);
    return rc;
  }
  *out = &cur->base;
  return SQLITE_OK;
}

/* SQLite ignores xClose's result: the cursor is always freed. */
static int bridge_vtab_close(sqlite3_vtab_cursor *p) {
  goVTabClose((bridge_vcursor *)p);
  sqlite3_free(p);
  return SQLITE_OK;
}

static int bridge_vtab_filter(sqlite3_vtab_cursor *p, int idx_num, const char *idx_str, int argc,
                              sqlite3_value **argv) {
  bridge_col stack[BRIDGE_VTAB_STACK_ARGS], *cols = stack;
  int rc;
  if (argc > BRIDGE_VTAB_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) return SQLITE_NOMEM;
  }
  rc = bridge_vtab_args(cols, argc, argv);
  if (rc == SQLITE_OK) rc = goVTabFilter((bridge_vcursor *)p, idx_num, (char *)idx_str, argc, cols);
  if (cols != stack) sqlite3_free(cols);
  return rc;
}

static int bridge_vtab_next(sqlite3_vtab_cursor *p) { return goVTabNext((bridge_vcursor *)p); }

static int bridge_vtab_eof(sqlite3_vtab_cursor *p) { return goVTabEof((bridge_vcursor *)p); }

static int bridge_vtab_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col) {
  return goVTabColumn((bridge_vcursor *)p, ctx, col);
}

static int bridge_vtab_rowid(sqlite3_vtab_cursor *p, sqlite3_int64 *rowid) {
  return goVTabRowid((bridge_vcursor *)p, rowid);
}

static int bridge_vtab_update(sqlite3_vtab *p, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  bridge_col stack[BRIDGE_VTAB_STACK_ARGS], *cols = stack;
  int rc;
  if (argc > BRIDGE_VTAB_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) return SQLITE_NOMEM;
  }
  rc = bridge_vtab_args(cols, argc, argv);
  if (rc == SQLITE_OK) rc = goVTabUpdate((bridge_vtab *)p, argc, cols, rowid);
  if (cols != stack) sqlite3_free(cols);
  return rc;
}

static void bridge_vmodule_destroy(void *p) {
  goVTabModuleDestroy((bridge_vref *)p);
  free(p);
}

/* iVersion 1: no transaction, savepoint, rename or shadow-table methods. */
static const sqlite3_module bridge_vmodule = {
  1,                       /* iVersion */
  bridge_vtab_create,      /* xCreate */
  bridge_vtab_connect,     /* xConnect */
  bridge_vtab_best_index,  /* xBestIndex */
  bridge_vtab_disconnect,  /* xDisconnect */
  bridge_vtab_destroy,     /* xDestroy */
  bridge_vtab_open,        /* xOpen */
  bridge_vtab_close,       /* xClose */
  bridge_vtab_filter,      /* xFilter */
  bridge_vtab_next,        /* xNext */
  bridge_vtab_eof,         /* xEof */
  bridge_vtab_column,      /* xColumn */
  bridge_vtab_rowid,       /* xRowid */
  bridge_vtab_update,      /* xUpdate */
  /* the later methods are left zero: with iVersion 1 SQLite never reads past
  ** xRename, and older sqlite3.h (the libsqlite3 tag) lacks some of them */
};

/* The same without xCreate: https://sqlite.org/vtab.html#eponymous_only_virtual_tables */
static const sqlite3_module bridge_vmodule_eponymous = {
  1,                       /* iVersion */
  0,                       /* xCreate */
  bridge_vtab_connect,     /* xConnect */
  bridge_vtab_best_index,  /* xBestIndex */
  bridge_vtab_disconnect,  /* xDisconnect */
  bridge_vtab_destroy,     /* xDestroy */
  bridge_vtab_open,        /* xOpen */
  bridge_vtab_close,       /* xClose */
  bridge_vtab_filter,      /* xFilter */
  bridge_vtab_next,        /* xNext */
  bridge_vtab_eof,         /* xEof */
  bridge_vtab_column,      /* xColumn */
  bridge_vtab_rowid,       /* xRowid */
  bridge_vtab_update,      /* xUpdate */
  /* the later methods are left zero: with iVersion 1 SQLite never reads past
  ** xRename, and older sqlite3.h (the libsqlite3 tag) lacks some of them */
};

int bridge_create_module(sqlite3 *db, const char *name, int eponymous_only, bridge_vref *m) {
  /* On failure SQLite calls the destructor itself. */
  return sqlite3_create_module_v2(db, name, eponymous_only ? &bridge_vmodule_eponymous : &bridge_vmodule, m,
                                  bridge_vmodule_destroy);
}

void bridge_vtab_error(char **dst, const char *msg, int n) {
  sqlite3_free(*dst);
  *dst = sqlite3_mprintf("%.*s", n, msg ? msg : "");
}

#endif /* BRIDGE_TU */
