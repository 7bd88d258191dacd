/*
** bridge_group.c: what group commit (group.go) asks of a connection before
** it hands a write to another connection's group, or runs one in its own:
** whether it may (outside a transaction, nothing ATTACHed, nothing in TEMP:
** bridge_group_ready, bridge_group_clean),
** and whether foreign keys are on or one is unresolved; and, in one call,
** its turn's timeout when it may (bridge_group_turn). Called from Go only;
** a part of its own because it is about the group, not about a statement
** (bridge_writes_main, in bridge_stmt.c, says which writes may join one).
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Whether foreign keys are on: a group then runs each write in a savepoint. */
int bridge_foreign_keys(bridge_conn *c) {
  int on = 0;
  sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_FKEY, -1, &on);
  return on;
}

/* Whether a foreign key constraint is unresolved in the open transaction. */
int bridge_deferred_fks(bridge_conn *c) {
  int cur = 0, hi = 0;
  sqlite3_db_status(c->db, SQLITE_DBSTATUS_DEFERRED_FKS, &cur, &hi, 0);
  return cur != 0;
}

/* The driver's busy timeout on c (ms), 0 without its handler: how long a
** group waits for a transaction it hosts to do something (group.go). */
int bridge_busy_timeout(bridge_conn *c) { return c->busy ? c->busy->timeout_ms : 0; }

/* Whether a statement of c has been stepped and not yet halted or reset: a
** hosted transaction with rows open is not idle, and its savepoint is not
** rolled back under them. */
int bridge_stmts_busy(bridge_conn *c) {
  sqlite3_stmt *st = 0;
  while ((st = sqlite3_next_stmt(c->db, st)) != 0)
    if (sqlite3_stmt_busy(st)) return 1;
  return 0;
}

/* Whether the connection may hand a write to another connection's group
** (group.go): outside any transaction, and clean (bridge_group_clean). */
int bridge_group_ready(bridge_conn *c) {
  return sqlite3_get_autocommit(c->db) && bridge_group_clean(c);
}

/* bridge_turn_timeout of c when it may hand a write to a group, else -1:
** the one call group.go makes before a write. */
int bridge_group_turn(bridge_conn *c) {
  return bridge_group_ready(c) ? bridge_turn_timeout(c) : -1;
}

/* Whether the connection holds no ATTACHed file and nothing in TEMP (a
** table, view or trigger there would make the same SQL mean something else
** on the group's connection); looked at before each write a group runs
** too. Under the connection's exclusion, so the schema cannot change
** meanwhile. Against another SQLite nothing is visible, and nothing is
** grouped. */
int bridge_group_clean(bridge_conn *c) {
  sqlite3 *db = c->db;
#ifdef BRIDGE_UNITY
  {
    Schema *t = db->aDb[1].pSchema;
    HashElem *e;
    if (db->nDb != 2) return 0;
    if (!t) return 1;
    if (sqliteHashFirst(&t->trigHash)) return 0;
    for (e = sqliteHashFirst(&t->tblHash); e; e = sqliteHashNext(e)) {
      const Table *tab = (const Table *)sqliteHashData(e);
      if (sqlite3StrICmp(tab->zName, LEGACY_TEMP_SCHEMA_TABLE) != 0 &&
          sqlite3StrICmp(tab->zName, PREFERRED_TEMP_SCHEMA_TABLE) != 0) return 0;
    }
    return 1;
  }
#else
  (void)db;
  return 0;
#endif
}

#endif /* BRIDGE_TU */
