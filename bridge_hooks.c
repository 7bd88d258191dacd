/*
** bridge_hooks.c: hooks and trace (bridge_hooks.go, hooks.go, trace.go).
** Trampolines from SQLite's callbacks to the Go entry points exported by
** bridge_hooks.go. The user-data argument is the Go registry id itself.
** Called only when a hook is registered: the core parts never call Go.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */


/* The commit hook is the connection's own: it counts the commits Go waits to
** see replicated (count_commits), and calls the Go hook, if one is set. */
static int bridge_commit_cb(void *p) {
  bridge_conn *c = (bridge_conn *)p;
  if (c->count_commits) c->commits++;
  return c->commit_user ? goHookCommit(c->commit_user) : 0;
}

static void bridge_rollback_cb(void *h) { goHookRollback((uintptr_t)h); }

static void bridge_update_cb(void *h, int op, const char *db, const char *table, sqlite3_int64 rowid) {
  goHookUpdate((uintptr_t)h, op, (char *)db, (char *)table, rowid);
}

static void bridge_preupdate_cb(void *h, sqlite3 *db, int op, const char *name, const char *table,
                                sqlite3_int64 old_rowid, sqlite3_int64 new_rowid) {
  goHookPreUpdate((uintptr_t)h, db, op, (char *)name, (char *)table, old_rowid, new_rowid);
}

static int bridge_auth_cb(void *h, int action, const char *a1, const char *a2, const char *db, const char *trigger) {
  (void)trigger;
  return goHookAuthorizer((uintptr_t)h, action, (char *)a1, (char *)a2, (char *)db);
}

static int bridge_wal_cb(void *h, sqlite3 *db, const char *name, int pages) {
  (void)db;
  return goHookWAL((uintptr_t)h, (char *)name, pages);
}

static int bridge_trace_cb(unsigned ev, void *h, void *p, void *x) {
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  const char *sql = 0;
  sqlite3_int64 ns = 0;
  switch (ev) {
  case SQLITE_TRACE_STMT: st = (sqlite3_stmt *)p; sql = (const char *)x; break;
  case SQLITE_TRACE_PROFILE: st = (sqlite3_stmt *)p; ns = *(sqlite3_int64 *)x; break;
  case SQLITE_TRACE_ROW: st = (sqlite3_stmt *)p; break;
  case SQLITE_TRACE_CLOSE: break;
  default: return 0;
  }
  db = st ? sqlite3_db_handle(st) : (sqlite3 *)p;
  return goHookTrace((uintptr_t)h, ev, db, st, (char *)sql, ns, sqlite3_get_autocommit(db));
}

void bridge_commit_hook(bridge_conn *c, uintptr_t h) {
  c->commit_user = h;
  sqlite3_commit_hook(c->db, h || c->count_commits ? bridge_commit_cb : 0, c);
}

void bridge_count_commits(bridge_conn *c) {
  c->count_commits = 1;
  sqlite3_commit_hook(c->db, bridge_commit_cb, c);
}

void bridge_rollback_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_rollback_hook(db, h ? bridge_rollback_cb : 0, (void *)h);
}

void bridge_update_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_update_hook(db, h ? bridge_update_cb : 0, (void *)h);
}

void bridge_preupdate_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_preupdate_hook(db, h ? bridge_preupdate_cb : 0, (void *)h);
}

int bridge_set_authorizer(sqlite3 *db, uintptr_t h) {
  return sqlite3_set_authorizer(db, h ? bridge_auth_cb : 0, (void *)h);
}

void bridge_wal_hook(sqlite3 *db, uintptr_t h) {
  if (h) sqlite3_wal_hook(db, bridge_wal_cb, (void *)h);
  else sqlite3_wal_autocheckpoint(db, 1000); /* SQLITE_DEFAULT_WAL_AUTOCHECKPOINT */
}

int bridge_trace(sqlite3 *db, unsigned mask, uintptr_t h) {
  return sqlite3_trace_v2(db, h ? mask : 0, h ? bridge_trace_cb : 0, (void *)h);
}

int bridge_preupdate_row(sqlite3 *db, int isnew, bridge_col *out, int n) {
  int i, rc;
  for (i = 0; i < n; i++) {
    sqlite3_value *v = 0;
    rc = isnew ? sqlite3_preupdate_new(db, i, &v) : sqlite3_preupdate_old(db, i, &v);
    if (rc != SQLITE_OK) return rc;
    if ((rc = bridge_value(&out[i], v)) != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

#endif /* BRIDGE_TU */
