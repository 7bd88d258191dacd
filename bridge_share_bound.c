/*
** bridge_share_bound.c: the WAL bound (_wal_bound). After a statement ends
** (bridge_share_after), a connection that holds no transaction, on a file
** whose WAL has passed half the bound, checkpoints it and restarts it,
** holding new readers of the process (bridge_share_hold.c) only where that
** can win; the comment below says when.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* ---- the WAL bound ---- */

/* The bound costs new readers a wait, so it is paid only where it can win.
** Its checkpoint restarts the WAL, which needs every reader of the WAL to
** have finished: holding new readers for a moment lets short ones finish,
** but not a long read transaction (a report, a slow client, Litestream's,
** in this process or another), which would make every attempt hold
** readers for nothing. So:
**   - a PASSIVE pass first copies what the readers allow, holding nobody.
**     It stops at the oldest snapshot still open (the frame its reader
**     holds). When that reader may be a long one (another process's, or
**     old), the bound only notes where and tries again soon (after 1/32 of
**     the bound); when it stops at the same frame again and the reader is
**     old (BRIDGE_WAL_LONG_READ_MS), that snapshot has outlived many
**     transactions: a long reader, which holding readers cannot outwait.
**     It then backs off (1/4 of the bound at a time, copying only) while
**     that snapshot lives. When no reader is suspect, or when most of the
**     process's readers are old, a crowd that comes and goes (more busy
**     goroutines than cores), it holds new ones;
**   - the TRUNCATE pass waits for the write lock in line with the writers,
**     readers free, and holds new readers only once it has it (the queue
**     begins the hold as the lock is granted: share_bounding);
**   - read-only connections never run it (they cannot write the WAL's
**     header), and the bound is the file's: the smallest _wal_bound of the
**     process's connections on it, none while any of them says 0. */
/* How long the oldest read transaction of this process on f (self's aside)
** has run, in ns; *crowd says whether the others are five or more and
** most of them have run longer than a tenth of BRIDGE_WAL_LONG_READ_MS too:
** a process whose readers all wait for a core, not one long reader among
** short ones. */
static int64_t share_oldest_reader(bridge_file *f, bridge_vfile *self, int *crowd) {
  bridge_vfile *v;
  int64_t now = bridge_share_now(), since, oldest = 0;
  int open = 0, slow = 0;
  share_lock(&f->mu);
  for (v = f->opened; v; v = v->fnext) {
    if (v == self || (since = load(&v->read_since)) == 0) continue;
    open++;
    if (now - since > BRIDGE_WAL_LONG_READ_MS * (int64_t)100000) slow++;
    if (now - since > oldest) oldest = now - since;
  }
  share_unlock(&f->mu);
  /* A few slow readers (a slow machine) beside a long one are not yet a
  ** crowd. */
  *crowd = open > 4 && slow > 0 && 2 * (slow - 1) > open - 1;
  return oldest;
}

/* A WAL read lock that another process holds: the mark of its slot (0 for
** slot 0, the database file's readers), or -1 when there is none. The
** unix VFS's locks say it exactly (bridge_shm_lock_elsewhere); elsewhere a
** slot that no connection of this process holds, yet cannot be locked, is
** held by another process (the test SQLite's checkpoints make, as brief). */
static int64_t share_external_reader(bridge_vfile *v) {
  int i, rc;
  if (!v || !v->shm0) return -1;
  for (i = 0; i < 5; i++) {
    rc = bridge_shm_lock_elsewhere(share_real, v->real, SHARE_WAL_READ0 + i);
    if (rc > 0) return share_read_mark(v, i);
    if (rc == 0 || load(&v->file->inproc[i]) > 0) continue;
    rc = v->real->pMethods->xShmLock(v->real, SHARE_WAL_READ0 + i, 1, SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE);
    if (rc == SQLITE_OK) {
      v->real->pMethods->xShmLock(v->real, SHARE_WAL_READ0 + i, 1, SQLITE_SHM_UNLOCK | SQLITE_SHM_EXCLUSIVE);
    } else if ((rc & 0xff) == SQLITE_BUSY) {
      return share_read_mark(v, i);
    }
  }
  return -1;
}

void bridge_share_after(bridge_conn *c) {
  bridge_vfile *v = c->vfile;
  bridge_file *f;
  int64_t end, start, bound, oldest = 0;
  int rc, held, log = -1, done = -1, zero = 0, crowd = 0;
  int64_t ext, behind;
  if (!v) return;
  if (v->queued) bridge_share_leave(c);
  if (load(&v->shared)) return;
  f = v->file;
  bound = load(&f->bound);
  if (bound <= 0 || load(&f->bound_off) > 0 || !bridge_busy_ours(c)) return;
  end = load(&f->wal_end);
  if (end <= bound / 2 || end <= load(&f->retry_at)) return;
  if (sqlite3_txn_state(c->db, 0) != SQLITE_TXN_NONE || sqlite3_db_readonly(c->db, "main") != 0) return;
  if (!__atomic_compare_exchange_n(&f->bounding, &zero, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;

  c->depth++;
  start = bridge_share_now();
  sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
  if (log < 0) {
    /* Another checkpoint runs (or an error): soon again. */
    store(&f->retry_at, load(&f->wal_end) + bound / 16);
    goto out;
  }
  oldest = share_oldest_reader(f, c->vfile, &crowd);
  ext = share_external_reader(c->vfile);
  /* The WAL bytes written since the oldest snapshot still open began. */
  behind = done < log && log > 0 ? (int64_t)(log - done) * (end / log) : 0;
  if (ext >= 0 || oldest > BRIDGE_WAL_LONG_READ_MS * (int64_t)1000000 ||
      (behind > bound / 2 && oldest > BRIDGE_WAL_LONG_READ_MS * (int64_t)100000)) {
    /* A reader that may be a long one: of another process (its age cannot
    ** be seen), older than BRIDGE_WAL_LONG_READ_MS, or whose snapshot has
    ** outlived half the bound's writes and a tenth of that time. Its
    ** snapshot's mark (where the PASSIVE pass stopped) tells: the same
    ** mark as the last look's is a long reader, which holding cannot
    ** outwait: copy only, and back off while it lives. A first sight only
    ** notes the mark and looks again soon. Another process's readers are
    ** never held for. But when most of this process's readers are slow
    ** (many more busy goroutines than cores leave short transactions
    ** unscheduled for hundreds of ms), the oldest is one of a crowd that
    ** comes and goes: hold, which also frees the cores for them, unless
    ** its snapshot already outlived a hold. */
    int64_t mark = ext >= 0 ? ext : done, seen = load(&f->seen_mark);
    int same = mark == seen, survived = same && load(&f->seen_held);
    if (!same) {
      store(&f->seen_mark, mark);
      store(&f->seen_held, 0);
    }
    if (ext >= 0 || !crowd || survived) {
      /* A reader of this process younger than BRIDGE_WAL_LONG_READ_MS is
      ** not yet a long one: soon again, until it ends or grows old. Holding
      ** it (past some size, say) would stall every reader for a long one
      ** caught young, which is what the bound must not do; a fast writer
      ** may then take the WAL well past the bound for up to that time. */
      int young = ext < 0 && oldest <= BRIDGE_WAL_LONG_READ_MS * (int64_t)1000000;
      int backoff = survived || (same && !young);
      share_lock(&f->mu);
      if (backoff) f->st.checkpoints_deferred++;
      f->st.last_checkpoint_log = log;
      f->st.last_checkpoint_done = done;
      share_unlock(&f->mu);
      store(&f->retry_at, load(&f->wal_end) + (backoff ? bound / 4 : bound / 32));
      goto out;
    }
  }
  share_bounding = 1;
  c->wait_until = bridge_share_now() + (int64_t)BRIDGE_WAL_HOLD_MS * 1000000; /* for the write lock */
  rc = sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_TRUNCATE, 0, 0);
  held = share_bounding == 2;
  share_bounding = 0;
  c->wait_until = 0;
  if (rc != SQLITE_OK && held) {
    /* Where a PASSIVE pass stops now is the snapshot that held it back
    ** (or, all copied, a reader of the newest frame). */
    int log2 = -1, done2 = -1;
    sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, &log2, &done2);
    store(&f->seen_mark, done2 >= 0 && done2 < log2 ? done2 : log2);
    store(&f->seen_held, 1);
  }
  share_lock(&f->mu);
  store(&f->hold, 0);
  f->hold_thread = 0;
  share_broadcast(&f->cv);
  f->st.checkpoints++;
  f->st.checkpoint_ns += bridge_share_now() - start;
  f->st.last_checkpoint_rc = rc;
  f->st.last_checkpoint_log = log;
  f->st.last_checkpoint_done = done;
  if (rc != SQLITE_OK) {
    f->st.checkpoints_failed++;
    /* Held back by readers: again after another quarter of the bound; not
    ** let through to the readers (a writer or another checkpoint was
    ** first): sooner. */
    store(&f->retry_at, load(&f->wal_end) + (held ? bound / 4 : bound / 16));
  } else {
    store(&f->retry_at, 0);
    store(&f->seen_mark, -1);
    store(&f->seen_held, 0);
  }
  share_unlock(&f->mu);
out:
  c->checkpoint_ns += bridge_share_now() - start;
  c->checkpoints++;
  c->depth--;
  store(&f->bounding, 0);
}

#endif /* BRIDGE_TU */
