/*
** bridge_readonly.c: whether a connection can write. Rows are stepped ahead of
** the caller only on one that cannot (bridge_rows.c, bridge_direct.c), and the
** share layer gives such a connection no write turn to wait for
** (bridge_turn_timeout): both ask, so it sits below both.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Rows are stepped ahead of the caller only where that cannot change what
** they hold: on a connection that cannot write (PRAGMA query_only, which the
** driver sets for read-only transactions, and _query_only=1). Elsewhere a
** program may change, on this same connection and between two steps, rows
** the statement has not reached yet (carry a balance to the next row, delete
** later duplicates), and must see them changed, as with one step per row.
** Only the amalgamation compiled into this translation unit shows the flag:
** built against another SQLite (libsqlite3 tag, the fastsqlite_dev loop),
** rows come one per call. */
static int bridge_may_step_ahead(bridge_conn *c) {
#ifdef BRIDGE_UNITY
  return (c->db->flags & SQLITE_QueryOnly) != 0;
#else
  (void)c;
  return 0;
#endif
}

int bridge_read_only(bridge_conn *c) {
  return bridge_may_step_ahead(c) || sqlite3_db_readonly(c->db, "main") == 1;
}

/* PRAGMA query_only without the PRAGMA: the same bit of db->flags, which
** SQLite reads when a statement starts a write (OP_Transaction) and nowhere
** in the compiler, so no statement needs compiling again. The PRAGMA, besides
** taking two statements of its own, expires every prepared statement of the
** connection (its OP_Expire, written for the flag pragmas that do change
** code), and each then re-prepares at its next run. Against another SQLite
** the flag cannot be reached and the caller runs the PRAGMA. */
int bridge_query_only(bridge_conn *c, int on) {
#ifdef BRIDGE_UNITY
  int was = (c->db->flags & SQLITE_QueryOnly) != 0;
  if (on) c->db->flags |= SQLITE_QueryOnly;
  else c->db->flags &= ~(u64)SQLITE_QueryOnly;
  return was;
#else
  (void)c;
  (void)on;
  return -1;
#endif
}

int bridge_steps_ahead_built(void) {
#ifdef BRIDGE_UNITY
  return 1;
#else
  return 0;
#endif
}

#endif /* BRIDGE_TU */
