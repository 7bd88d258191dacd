/*
** bridge_checkpoint.c: SQLite's auto-checkpoint, run after the write turn is
** given back instead of inside the commit's step.
**
** SQLite checkpoints in the step that commits, once the WAL holds
** wal_autocheckpoint frames (sqlite3WalDefaultHook): the write lock is free
** by then, so other writers could go on while the checkpoint copies and
** syncs, but the connection still holds the process's write turn (gate.go)
** until its operation ends, and every other writer of the process waits for
** the checkpoint too. So, in the outermost step of a statement that may
** commit, on a connection whose WAL hook is SQLite's default, the hook is
** set aside for one that only notes that the main database's checkpoint is
** due (ckpt_due); Go runs it (bridge_checkpoint_due) once the operation has
** given the turn back, or, past twice the threshold, just before
** (connCore.settle, checkpoint.go). The checkpoint is the same (PASSIVE,
** its result ignored, as the default hook's), for the same commit, before
** the operation returns; only the turn is free meanwhile.
**
** Nothing else can tell: the default hook is back before the step returns,
** and before any SQL a callback runs on the connection inside the step
** (bridge_checkpoint_nest: PRAGMA wal_autocheckpoint reads the hook while
** it compiles); a hook set meanwhile (the PRAGMA, RegisterWALHook) is kept.
** Attached files checkpoint in the step, as before: the turn is main's.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

#if defined(BRIDGE_UNITY) && !defined(SQLITE_OMIT_WAL)
/* The hook in place of the default one during a step: c is its argument,
** the default hook's (the frame count) is in c->ckpt_frames. */
static int bridge_checkpoint_later(void *arg, sqlite3 *db, const char *zDb, int frames) {
  bridge_conn *c = (bridge_conn *)arg;
  int n = SQLITE_PTR_TO_INT(c->ckpt_frames);
  if (frames < n) return SQLITE_OK;
  if (sqlite3StrICmp(zDb, "main") == 0) {
    /* Past twice the threshold, the checkpoints run after the turn kept
    ** losing to the writers that went on meanwhile: a PASSIVE checkpoint
    ** copies what was there when it began, and the WAL restarts only
    ** when a write begins with all of it copied. This one runs before the
    ** turn is given back, so that the next write restarts the WAL.
    ** (frames - n, not 2 * n: PRAGMA wal_autocheckpoint takes any int.) */
    c->ckpt_due = frames - n < n ? BRIDGE_CKPT_AFTER_TURN : BRIDGE_CKPT_IN_TURN;
    return SQLITE_OK;
  }
  return sqlite3WalDefaultHook(c->ckpt_frames, db, zDb, frames);
}

/* Sets the default hook aside, if it is the connection's; reports whether
** it did. */
static int bridge_checkpoint_defer(bridge_conn *c) {
  sqlite3 *db = c->db;
  if (db->xWalCallback != sqlite3WalDefaultHook) return 0;
  c->ckpt_frames = db->pWalArg;
  db->xWalCallback = bridge_checkpoint_later;
  db->pWalArg = c;
  return 1;
}

/* Puts the default hook back, unless the step set another. */
static void bridge_checkpoint_restore(bridge_conn *c) {
  sqlite3 *db = c->db;
  if (db->xWalCallback == bridge_checkpoint_later && db->pWalArg == (void *)c) {
    db->xWalCallback = sqlite3WalDefaultHook;
    db->pWalArg = c->ckpt_frames;
  }
}

/* Whether st may commit: a statement that writes, in autocommit (inside a
** transaction it commits nothing: a bulk insert's steps pay nothing here),
** or, in a transaction, COMMIT or RELEASE (which SQLite calls read-only:
** they are the short programs with OP_AutoCommit or OP_Savepoint). Not
** PRAGMA wal_autocheckpoint, which reads the hook when it compiles, as it
** may again inside its step. */
static int bridge_checkpoint_may_commit(sqlite3 *db, sqlite3_stmt *st) {
  const Vdbe *v = (const Vdbe *)st;
  int i;
  if (!sqlite3_stmt_readonly(st)) return db->autoCommit;
  if (db->autoCommit || v->nOp > 8) return 0;
  for (i = 0; i < v->nOp; i++)
    if (v->aOp[i].opcode == OP_AutoCommit || v->aOp[i].opcode == OP_Savepoint) return 1;
  return 0;
}
#endif

/* Before the outermost step of st: whether the default hook was set aside
** for it (then bridge_checkpoint_step_end puts it back). Only on a file of
** the driver's VFS is there a turn to give back. */
static int bridge_checkpoint_step(bridge_conn *c, sqlite3_stmt *st) {
#if defined(BRIDGE_UNITY) && !defined(SQLITE_OMIT_WAL)
  if (c->depth != 0 || !c->vfile || !bridge_checkpoint_may_commit(c->db, st)) return 0;
  return c->ckpt_deferred = bridge_checkpoint_defer(c);
#else
  (void)c;
  (void)st;
  return 0;
#endif
}

static void bridge_checkpoint_step_end(bridge_conn *c) {
#if defined(BRIDGE_UNITY) && !defined(SQLITE_OMIT_WAL)
  bridge_checkpoint_restore(c);
  c->ckpt_deferred = 0;
#else
  (void)c;
#endif
}

/* SQL run by a callback inside the step (depth from 1 to 2, and back):
** it sees the default hook; the hook set aside again when it is done, if
** the default one is still there. */
static void bridge_checkpoint_nest(bridge_conn *c, int in) {
#if defined(BRIDGE_UNITY) && !defined(SQLITE_OMIT_WAL)
  if (!c->ckpt_deferred) return;
  if (in) bridge_checkpoint_restore(c);
  else if (!bridge_checkpoint_defer(c)) c->ckpt_deferred = 0;
#else
  (void)c;
  (void)in;
#endif
}

void bridge_checkpoint_due(bridge_conn *c) {
  /* A transaction begun since (a script's BEGIN) holds it back: sqlite3
  ** would refuse it (SQLITE_LOCKED); it runs when that one ends. */
  if (sqlite3_txn_state(c->db, 0) != SQLITE_TXN_NONE) return;
  c->ckpt_due = 0;
  /* PASSIVE: no busy handler, hook or callback runs inside it. */
  sqlite3_wal_checkpoint(c->db, "main");
}

#endif /* BRIDGE_TU */
