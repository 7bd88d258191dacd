/*
** bridge_conn.c: a connection's life. Open (through the share layer's VFS),
** configure and close it, freeing the statements still prepared on it; and
** read its last error for Go.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

int bridge_open(const char *filename, int flags, const char *vfs, int busy_ms, bridge_conn **out) {
  bridge_conn *c = (bridge_conn *)calloc(1, sizeof(*c));
  int rc;
  *out = 0;
  if (!c) return SQLITE_NOMEM;
  /* The default VFS is reached through bridge_share_vfs.c's, which lets the
  ** process's connections to one file wait for each other's locks. A VFS
  ** the DSN or URI names is used as it is. */
  if (!vfs) vfs = bridge_share_vfs();
  rc = sqlite3_open_v2(filename, &c->db, flags, vfs);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(c->db, 1);
    rc = sqlite3_busy_timeout(c->db, busy_ms);
    bridge_share_link(c);
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
  free(s->batch);
  free(s->text);
  free(s);
}

int bridge_close(bridge_conn *c) {
  int rc;
  sqlite3_progress_handler(c->db, 0, 0, 0);
  c->watching = 0;
  if (c->busy) c->busy->conn = 0;
  bridge_share_unlink(c);
  while (c->stmts) {
    bridge_stmt *s = c->stmts;
    c->stmts = s->next;
    bridge_free_stmt(s);
  }
  /* The commit hook's argument is c (bridge_hooks.c), freed below: a commit
  ** of the database after this, which sqlite3_close_v2 leaves open while a
  ** BLOB handle is (its close commits), must not reach it. */
  sqlite3_commit_hook(c->db, 0, 0);
  rc = sqlite3_close_v2(c->db);
  free(c->sql);
  free(c->args);
  free(c->arena);
  free(c);
  return rc;
}

int bridge_enable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1); }

void bridge_errinfo(bridge_conn *c) {
  c->err_ext = sqlite3_extended_errcode(c->db);
  c->err_code = c->err_ext & 0xff;
  c->err_errno = sqlite3_system_errno(c->db);
  c->err_offset = sqlite3_error_offset(c->db);
  c->err_msg = sqlite3_errmsg(c->db);
}

#endif /* BRIDGE_TU */
