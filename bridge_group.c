/*
** bridge_group.c: the one predicate of group commit (group.go). A write of
** connection A may run on connection H, in H's group, only when nothing its
** caller can observe would differ; this part decides that from what SQLite
** holds, nothing else:
**   - each connection's state (bridge_group_conn): no TEMP object, no
**     ATTACHed file, no hook, authorizer or trace (they would fire on H's
**     callbacks, once per group), no statement of its own running (a direct
**     statement, an open BLOB, open rows: they would miss the write, or meet
**     others), the driver's busy handler; and a fingerprint of its settings
**     (PRAGMA flags, limits, synchronous, ...) and of the names of its own
**     functions and collations, which must be equal on A and H, so that the
**     same SQL resolves to the same program on both;
**   - the compiled program H will run for A's SQL (bridge_group_program):
**     one statement that writes main only, calls only SQLite's built-in
**     functions that do not read the connection (not last_insert_rowid(),
**     changes(), total_changes(), nor unsafe ones), compares with built-in
**     collations only, touches no virtual table, cannot roll the whole
**     transaction back (OR ROLLBACK, RAISE(ROLLBACK)), and was compiled
**     against the schema H's transaction holds.
** What SQLite keeps per connection and a write changes (last_insert_rowid(),
** changes(), total_changes()) is carried from A to H and back
** (bridge_counters_get/set), so it reads on A as if the write ran there.
** Called from Go only, under the connection's exclusion.
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

/* The counters a write changes and its caller can read back in SQL:
** last_insert_rowid(), changes(), total_changes(). */
bridge_counters bridge_counters_get(bridge_conn *c) {
  bridge_counters v;
  v.rowid = sqlite3_last_insert_rowid(c->db);
  v.changes = sqlite3_changes64(c->db);
  v.total = sqlite3_total_changes64(c->db);
  return v;
}

void bridge_counters_set(bridge_conn *c, int64_t rowid, int64_t changes, int64_t total) {
  sqlite3_set_last_insert_rowid(c->db, rowid);
#ifdef BRIDGE_UNITY
  c->db->nChange = changes;
  c->db->nTotalChange = total;
#else
  (void)changes;
  (void)total;
#endif
}

/* PRAGMA data_version moves when a read finds the file changed by another
** connection, and not for the connection's own commits (the Btree offsets
** its pager's count: sqlite3BtreeCommitPhaseTwo). A group's COMMIT holds
** other connections' writes, which in autocommit the group's connection
** would have found at its next read: the same offset, the other way. */
void bridge_group_committed_others(bridge_conn *c) {
#ifdef BRIDGE_UNITY
  Btree *bt = c->db->aDb[0].pBt;
  if (bt) bt->iBDataVersion++;
#else
  (void)c;
#endif
}

#ifdef BRIDGE_UNITY
static uint64_t bridge_mix(uint64_t h, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 1099511628211ULL; /* FNV-1a */
  }
  return h;
}

static uint64_t bridge_mix_str(uint64_t h, const char *s) {
  for (; s && *s; s++) {
    h ^= (unsigned char)(*s | 0x20); /* SQLite's names are case-insensitive */
    h *= 1099511628211ULL;
  }
  return h;
}

static int bridge_coll_builtin(const CollSeq *cs) {
  return !cs || cs->xCmp == sqlite3BinaryCompare || cs->xCmp == nocaseCollatingFunc || cs->xCmp == rtrimCollFunc;
}

/* The fingerprint of what makes the same SQL compile and run alike on two
** connections: the settings PRAGMAs and the DSN change, and the names of the
** functions and collations the connection added (ConnectHook, RegisterFunc):
** a name resolves to the same kind of function (built-in or not) on two
** connections with equal fingerprints. Entries are summed, so that the
** order in which they were registered does not count. */
static uint64_t bridge_group_fingerprint(bridge_conn *c) {
  sqlite3 *db = c->db;
  Btree *bt = db->aDb[0].pBt;
  uint64_t h = 1469598103934665603ULL, sum = 0;
  HashElem *e;
  int i;
  h = bridge_mix(h, db->flags);
  h = bridge_mix(h, db->aDb[0].safety_level);
  h = bridge_mix(h, db->temp_store);
  for (i = 0; i < SQLITE_N_LIMIT; i++) h = bridge_mix(h, (uint64_t)(int64_t)db->aLimit[i]);
  h = bridge_mix(h, (uint64_t)(int64_t)(c->busy ? c->busy->timeout_ms : -1));
  h = bridge_mix(h, (uint64_t)(int64_t)db->aDb[0].pSchema->cache_size);
  if (db->xWalCallback == sqlite3WalDefaultHook) h = bridge_mix(h, (uint64_t)(uintptr_t)db->pWalArg);
  if (bt) {
    h = bridge_mix(h, (uint64_t)sqlite3BtreeSecureDelete(bt, -1));
    h = bridge_mix(h, (uint64_t)sqlite3BtreeMaxPageCount(bt, 0));
    h = bridge_mix(h, (uint64_t)sqlite3PagerLockingMode(sqlite3BtreePager(bt), -1));
  }
  for (e = sqliteHashFirst(&db->aFunc); e; e = sqliteHashNext(e)) {
    const FuncDef *f;
    for (f = (const FuncDef *)sqliteHashData(e); f; f = f->pNext)
      sum += bridge_mix(bridge_mix_str(1469598103934665603ULL, f->zName), ((uint64_t)(uint16_t)f->nArg << 32) | f->funcFlags);
  }
  for (e = sqliteHashFirst(&db->aCollSeq); e; e = sqliteHashNext(e)) {
    const CollSeq *cs = (const CollSeq *)sqliteHashData(e);
    for (i = 0; i < 3; i++)
      if (cs[i].xCmp)
        sum += bridge_mix(bridge_mix_str(1469598103934665603ULL, cs[i].zName),
                          ((uint64_t)cs[i].enc << 1) | (uint64_t)bridge_coll_builtin(&cs[i]));
  }
  return bridge_mix(h, sum);
}
#endif

/* Whether the connection holds no ATTACHed file and nothing in TEMP (a
** table, view or trigger there would make the same SQL mean something else
** on another connection). Against another SQLite nothing is visible, and
** nothing is grouped. */
static int bridge_group_clean(sqlite3 *db) {
#ifdef BRIDGE_UNITY
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
#else
  (void)db;
  return 0;
#endif
}

/* The state half of the predicate: whether c may run another connection's
** write or hand one over. The settings are compared apart, when a write
** meets another (bridge_group_fp). */
static int bridge_group_conn(bridge_conn *c) {
#ifdef BRIDGE_UNITY
  sqlite3 *db = c->db;
  if (!bridge_busy_ours(c) || c->depth > 0 || db->nVdbeActive != 0 || !bridge_group_clean(db)) return 0;
  /* A commit hook that only counts (bridge_count_commits) fires on H alike:
  ** H's commits are what the group's writers wait to see replicated. */
  if (db->xUpdateCallback || (db->xCommitCallback && (db->pCommitArg != (void *)c || c->commit_user)) || db->xRollbackCallback || db->xPreUpdateCallback || db->xAuth ||
      db->mTrace)
    return 0;
  if (db->xWalCallback && db->xWalCallback != sqlite3WalDefaultHook) return 0;
  if (db->xProgress && db->xProgress != bridge_progress) return 0;
  return 1;
#else
  (void)c;
  return 0;
#endif
}

#ifdef BRIDGE_UNITY
/* Whether the functions and collations a program uses behave alike on every
** connection with the same fingerprint: SQLite's own, except those that read
** the connection. */
static int bridge_func_portable(const FuncDef *f) {
  if (!f) return 1;
  if (!(f->funcFlags & SQLITE_FUNC_BUILTIN) || (f->funcFlags & SQLITE_FUNC_UNSAFE)) return 0;
  return sqlite3StrICmp(f->zName, "last_insert_rowid") != 0 && sqlite3StrICmp(f->zName, "changes") != 0 &&
         sqlite3StrICmp(f->zName, "total_changes") != 0;
}

/* The program half: the operations of aOp[0:n] and of the trigger and
** foreign-key programs they call (seen: those walked already, which a
** recursive trigger calls again). */
static int bridge_ops_portable(const VdbeOp *aOp, int n, const SubProgram **seen, int *nseen, int cap) {
  int i, k;
  for (i = 0; i < n; i++) {
    const VdbeOp *op = &aOp[i];
    switch (op->opcode) {
    case OP_VFilter: case OP_VUpdate: case OP_VNext: case OP_VBegin: case OP_VCreate: case OP_VDestroy:
    case OP_VOpen: case OP_VCheck: case OP_VInitIn: case OP_VColumn: case OP_VRename:
      return 0; /* a virtual table is the connection's own instance */
    case OP_Halt: case OP_HaltIfNull:
      if (op->p2 == OE_Rollback) return 0; /* would roll back the group's other writes */
      break;
    }
    switch (op->p4type) {
    case P4_FUNCDEF:
      if (!bridge_func_portable(op->p4.pFunc)) return 0;
      break;
    case P4_FUNCCTX:
      if (!bridge_func_portable(op->p4.pCtx->pFunc)) return 0;
      break;
    case P4_COLLSEQ:
      if (!bridge_coll_builtin(op->p4.pColl)) return 0;
      break;
    case P4_KEYINFO:
      if (op->p4.pKeyInfo)
        for (k = 0; k < op->p4.pKeyInfo->nAllField; k++)
          if (!bridge_coll_builtin(op->p4.pKeyInfo->aColl[k])) return 0;
      break;
    case P4_SUBPROGRAM: {
      const SubProgram *sp = op->p4.pProgram;
      for (k = 0; k < *nseen; k++)
        if (seen[k] == sp) break;
      if (k < *nseen) break;
      if (*nseen == cap) return 0;
      seen[(*nseen)++] = sp;
      if (!bridge_ops_portable(sp->aOp, sp->nOp, seen, nseen, cap)) return 0;
      break;
    }
    }
  }
  return 1;
}
#endif

/* Whether s, a write of c's, may join a group: structurally (writes_main,
** recomputed after SQLite re-prepared it) and by the functions, collations
** and conflict clauses its program uses. Cached per program. */
static int bridge_stmt_groupable(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *v = (Vdbe *)s->stmt;
  int at = sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) + 1;
  if (v->expired) return 0; /* SQLite will compile it again before it runs */
  if (s->group_at != at) {
    const SubProgram *seen[64];
    int nseen = 0;
    s->writes_main = bridge_writes_main(s->stmt);
    s->group_ok = s->writes_main == BRIDGE_WRITES_GROUPABLE && bridge_ops_portable(v->aOp, v->nOp, seen, &nseen, 64);
    s->group_at = at;
  }
  return s->group_ok;
#else
  (void)s;
  return 0;
#endif
}

/* Whether s was compiled against the schema c's write transaction holds:
** the program then runs as checked (a stale one would be compiled again
** inside its step, unchecked). Only in a write transaction, where nobody
** else can change the schema until it ends. */
static int bridge_stmt_current(bridge_conn *c, bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *v = (Vdbe *)s->stmt;
  Schema *sc = c->db->aDb[0].pSchema;
  u32 disk = 0;
  int i;
  if (v->expired) return 0; /* SQLite compiles it again before it runs */
  if (sqlite3_txn_state(c->db, "main") != SQLITE_TXN_WRITE) return 0;
  sqlite3BtreeEnter(c->db->aDb[0].pBt);
  sqlite3BtreeGetMeta(c->db->aDb[0].pBt, BTREE_SCHEMA_VERSION, &disk);
  sqlite3BtreeLeave(c->db->aDb[0].pBt);
  if ((int)disk != sc->schema_cookie) return 0;
  for (i = 0; i < v->nOp; i++) {
    const VdbeOp *op = &v->aOp[i];
    if (op->opcode == OP_Transaction && op->p1 == 0)
      return op->p5 && op->p3 == sc->schema_cookie && op->p4type == P4_INT32 && op->p4.i == sc->iGeneration;
  }
  return 0;
#else
  (void)c;
  (void)s;
  return 0;
#endif
}

/* The busy timeout (ms) c's write s waits for the file's turn when it may
** hand the write to another connection's group, -1 when it runs as
** without the switch: the one call Go makes before a write. */
int bridge_group_turn(bridge_conn *c, bridge_stmt *s) {
  if (!sqlite3_get_autocommit(c->db) || !bridge_stmt_groupable(s) || !bridge_group_conn(c)) return -1;
  return bridge_turn_timeout(c);
}

/* c's fingerprint: a write of c's runs only in a group whose connection has
** the same. Asked only where a write meets another (a lone writer pays
** nothing for it). */
uint64_t bridge_group_fp(bridge_conn *c) {
#ifdef BRIDGE_UNITY
  return bridge_group_fingerprint(c);
#else
  (void)c;
  return 0;
#endif
}

/* Whether c, running a group, may run s, its compiled copy of another
** connection's write: 1 when the program is one a group may run, as it will
** run; 0 when it is not; -1 when it was compiled against another schema
** (a new compile may pass). (c's state was asked when it took the turn,
** and a group's writes cannot change it: they write main's tables only.) */
int bridge_group_host(bridge_conn *c, bridge_stmt *s) {
  if (!bridge_stmt_current(c, s)) return -1;
  return bridge_stmt_groupable(s);
}

#endif /* BRIDGE_TU */
