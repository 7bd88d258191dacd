/*
** bridge_share_queue.c: the write lock's queue. Per file, who in this
** process holds the write lock and who waits for it, in arrival order
** (share_take_write, share_drop_write: the VFS calls them as SQLite takes
** and lets go of the lock); the waits of the bridge's busy handler, in the
** queue or for any release (bridge_share_wait); and the busy handler.
**
** A lock is refused here (SQLITE_BUSY without asking the OS) only to a
** connection that will wait for it in the queue: one whose busy handler is
** the bridge's timeout (bridge_busy_ours), taking the lock for a transaction
** that holds nothing yet, inside a step or prepare of the bridge. Everything
** else (no busy handler, a Go busy handler, an upgrade from a read
** transaction, which SQLite never lets wait) tries the lock as before.
**
** The busy handler waits in the queue (bridge_share_wait), and the queue
** takes only a connection whose handler it is (bridge_busy_ours): the two
** refer to each other, and so share a part. bridge_turn_timeout says whether
** a connection takes its file's write turn in Go first (gate.go).
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* ---- the write lock's queue (under f->mu) ---- */
static void share_enqueue(bridge_file *f, bridge_vfile *v) {
  v->qnext = 0;
  v->qprev = f->tail;
  if (f->tail) f->tail->qnext = v;
  else f->head = v;
  f->tail = v;
  v->queued = 1;
  v->wait_start = bridge_share_now();
}

static void share_dequeue(bridge_file *f, bridge_vfile *v) {
  if (v->qprev) v->qprev->qnext = v->qnext;
  else f->head = v->qnext;
  if (v->qnext) v->qnext->qprev = v->qprev;
  else f->tail = v->qprev;
  v->qnext = v->qprev = 0;
  v->queued = 0;
}

/* Wakes whoever waits on f, after a release (bumped outside f->mu: readers'
** unlocks take no mutex unless someone waits). */
static void share_released(bridge_file *f) {
  add(&f->released, 1);
  if (load(&f->nwait) > 0) {
    share_lock(&f->mu);
    share_broadcast(&f->cv);
    share_unlock(&f->mu);
  }
}

/* Whether v's connection, taking the write lock now, may be refused and
** queued: see the top of the file. */
static int share_may_queue(bridge_vfile *v) {
  bridge_conn *c = load(&v->shared) ? 0 : v->conn;
  return c && c->depth > 0 && bridge_busy_ours(c) && sqlite3_txn_state(c->db, 0) == SQLITE_TXN_NONE;
}

/* Tries the write lock for v through lock(), keeping the queue's order. */
static int share_take_write(bridge_vfile *v, int (*lock)(bridge_vfile *, int, int), int a, int b) {
  bridge_file *f = v->file;
  int rc;
  share_lock(&f->mu);
  if ((f->owner && f->owner != v) || (f->head && f->head != v && !v->queued && share_may_queue(v)) ||
      (v->queued && f->head != v)) {
    share_note_refusal(v, 0); /* bridge_share_holder.c */
    share_unlock(&f->mu);
    share_refused.v = v;
    share_refused.write = 1;
    return SQLITE_BUSY;
  }
  rc = lock(v, a, b);
  if (rc == SQLITE_OK && share_bounding == 1) {
    share_unlock(&f->mu);
    share_bound_hold(f, v->conn);
    share_bounding = 2;
    share_lock(&f->mu);
  }
  if (rc == SQLITE_OK) {
    if (f->owner != v) share_note_owner(f, v); /* bridge_share_holder.c */
    f->owner = v;
    if (v->queued) {
      int64_t w = bridge_share_now() - v->wait_start;
      share_dequeue(f, v);
      f->st.write_waits++;
      f->st.write_wait_ns += w;
      if (w > f->st.write_wait_max_ns) f->st.write_wait_max_ns = w;
    }
  } else if ((rc & 0xff) == SQLITE_BUSY) {
    share_refused.v = v;
    share_refused.write = 1;
    share_note_refusal(v, 0);
  }
  share_unlock(&f->mu);
  return rc;
}

static void share_drop_write(bridge_vfile *v) {
  bridge_file *f = v->file;
  share_lock(&f->mu);
  if (f->owner == v) {
    f->owner = 0;
    f->last.until = bridge_share_now(); /* bridge_share_holder.c */
  }
  add(&f->released, 1);
  if (f->nwait > 0) share_broadcast(&f->cv); /* waiters count themselves under mu */
  share_unlock(&f->mu);
}

int bridge_turn_timeout(bridge_conn *c) {
#ifndef BRIDGE_UNITY
  /* Against another SQLite the program is not visible (bridge_writes_main),
  ** nor is whether PRAGMA busy_timeout has replaced the bridge's handler:
  ** writers wait in the VFS's queue only, with the handler in place. */
  (void)c;
  return -1;
#endif
  if (!c->vfile || load(&c->vfile->shared) || c->depth > 0 || !bridge_busy_ours(c) || sqlite3_txn_state(c->db, 0) != SQLITE_TXN_NONE) return -1;
  /* A connection that cannot write (mode=ro, PRAGMA query_only) fails its
  ** write at once with SQLITE_READONLY: no turn to wait for first. */
  if (bridge_read_only(c)) return -1;
  return c->busy->timeout_ms;
}

/* ---- waiting (the bridge's busy handler) ---- */

int bridge_share_wait(bridge_conn *c, int64_t deadline, int64_t slice, int64_t wake) {
  bridge_vfile *v = share_refused.v;
  int write = share_refused.write, ready, was_ready;
  bridge_file *f;
  int64_t now = bridge_share_now(), poll, until;
  share_refused.v = 0;
  /* Compared before any use: a refusal on this thread may be a closed
  ** connection's. A reader kept out of a rollback journal by a commit sleeps
  ** as before: woken at every release, many readers would keep retrying
  ** (the commit holds PENDING until the last reader leaves) and take the
  ** CPU the commit needs. */
  if (!v || v != c->vfile || write == SHARE_READER || load(&v->shared)) return -1;
  f = v->file;
  if (write && !v->is_wal && v->level >= SQLITE_LOCK_RESERVED) write = 0;
  share_lock(&f->mu);
  if (write && !v->queued && c->depth > 0 && f->owner != v) share_enqueue(f, v);
  add(&f->nwait, 1);
  if (v->queued) {
    /* In the queue: wait for the turn and for the holder in this process to
    ** let go. First in line with nobody here holding it, the lock is another
    ** process's: try it again at slice. */
    was_ready = f->head == v && !f->owner;
    poll = was_ready ? now + slice : deadline;
    for (;;) {
      ready = f->head == v && !f->owner;
      if ((ready && (!was_ready || now >= poll)) || now >= wake) break;
      if (!ready) was_ready = 0;
      if (now >= deadline || bridge_cancelled(c)) {
        if (now >= deadline && !share_bounding) f->st.busy_timeouts++;
        share_dequeue(f, v);
        share_broadcast(&f->cv);
        add(&f->nwait, -1);
        share_unlock(&f->mu);
        return 0;
      }
      until = ready && poll < deadline ? poll : deadline;
      if (wake < until) until = wake;
      if (c->armed && now + 10000000 < until) until = now + 10000000; /* look at cancellation */
      share_wait(&f->cv, &f->mu, until - now);
      now = bridge_share_now();
    }
  } else {
    /* Another lock: wait for any release in this process, or poll at slice. */
    uint64_t seen = load(&f->released);
    int64_t end = now + slice < deadline ? now + slice : deadline;
    while (load(&f->released) == seen && now < end && !bridge_cancelled(c)) {
      until = end;
      if (c->armed && now + 10000000 < until) until = now + 10000000;
      share_wait(&f->cv, &f->mu, until - now);
      now = bridge_share_now();
    }
    /* SQLite calls again, and the busy handler then finds the deadline. */
    if (bridge_cancelled(c)) {
      add(&f->nwait, -1);
      share_unlock(&f->mu);
      return 0;
    }
  }
  add(&f->nwait, -1);
  share_unlock(&f->mu);
  return 1;
}

void bridge_share_leave(bridge_conn *c) {
  bridge_vfile *v = c->vfile;
  if (!v || !v->queued) return;
  share_lock(&v->file->mu);
  if (v->queued) share_dequeue(v->file, v);
  share_broadcast(&v->file->cv);
  share_unlock(&v->file->mu);
}

void bridge_share_timed_out(bridge_conn *c) {
  bridge_vfile *v = c->vfile;
  if (!v || share_bounding) return;
  share_lock(&v->file->mu);
  v->file->st.busy_timeouts++;
  share_unlock(&v->file->mu);
}

/* ---- the busy handler (bridge_hooks.go, hooks.go) ---- */
/* SQLite's own busy-timeout schedule (sqliteDefaultBusyCallback): the
** count-th sleep of a wait, in ms. */
static const unsigned char bridge_busy_delays[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};

static int bridge_busy_delay(int count) {
  int n = (int)sizeof(bridge_busy_delays);
  return bridge_busy_delays[count < n ? count : n - 1];
}

/* The lock may be held by a statement of this process whose Rows the program
** dropped without Close: a cleanup resets it, but only after Go's collector
** has run (lifetime.go), and while this thread sleeps nothing may allocate
** to start one. So a wait that has gone on for BRIDGE_BUSY_COLLECT_MS asks
** Go for a collection (goBusyCollect, which returns at once; Go paces the
** collections process-wide), and again every BRIDGE_BUSY_COLLECT_EVERY_MS.
** A wait that ends sooner never calls into Go. */
#define BRIDGE_BUSY_COLLECT_MS 100
#define BRIDGE_BUSY_COLLECT_EVERY_MS 500

static int bridge_busy_collect_due(int now_ms, int before_ms) {
  if (now_ms < BRIDGE_BUSY_COLLECT_MS) return 0;
  return before_ms < BRIDGE_BUSY_COLLECT_MS ||
         (now_ms - BRIDGE_BUSY_COLLECT_MS) / BRIDGE_BUSY_COLLECT_EVERY_MS !=
             (before_ms - BRIDGE_BUSY_COLLECT_MS) / BRIDGE_BUSY_COLLECT_EVERY_MS;
}

/* The timeout is counted on the clock from the wait's first call (count 0),
** so that a wait woken early by a release in this process (bridge_share.c)
** still ends when the timeout says. Locks of other processes, and waits that
** bridge_share.c does not know, sleep SQLite's schedule as before. */
static int bridge_busy_wait(bridge_busy *b, int count);

/* The handler SQLite calls: a wait, timed for the tracer. */
static int bridge_busy_cb(void *arg, int count) {
  bridge_busy *b = (bridge_busy *)arg;
  bridge_conn *c = b->conn;
  int64_t start = bridge_share_now();
  int r = bridge_busy_wait(b, count);
  if (c) {
    c->busy_ns += bridge_share_now() - start;
    if (count == 0) c->busy_waits++;
  }
  return r;
}

static int bridge_busy_wait(bridge_busy *b, int count) {
  bridge_conn *c = b->conn;
  int64_t now, deadline;
  int delay, elapsed, r;
  if (c) c->waited = 1;
  if (c && bridge_progress(c)) { /* the running operation was cancelled */
    bridge_share_leave(c);
    return 0;
  }
  if (b->handle) return goHookBusy(b->handle, count) != 0;
  now = bridge_share_now();
  if (count == 0) {
    b->start = now;
    b->last_ms = 0;
  }
  deadline = b->start + (int64_t)b->timeout_ms * 1000000;
  if (c && c->wait_until && c->wait_until < deadline) deadline = c->wait_until;
  if (now >= deadline) {
    if (c) {
      bridge_share_leave(c);
      bridge_share_timed_out(c);
    }
    return 0;
  }
  elapsed = (int)((now - b->start) / 1000000);
  if (bridge_busy_collect_due(elapsed, b->last_ms)) goBusyCollect();
  b->last_ms = elapsed;
  delay = bridge_busy_delay(count);
  if (c) {
    /* A queued wait comes back to this handler when a collection is due. */
    int64_t wake = elapsed < BRIDGE_BUSY_COLLECT_MS
                       ? BRIDGE_BUSY_COLLECT_MS
                       : BRIDGE_BUSY_COLLECT_MS +
                             ((elapsed - BRIDGE_BUSY_COLLECT_MS) / BRIDGE_BUSY_COLLECT_EVERY_MS + 1) *
                                 BRIDGE_BUSY_COLLECT_EVERY_MS;
    r = bridge_share_wait(c, deadline, (int64_t)delay * 1000000, b->start + wake * 1000000);
    if (r >= 0) return r;
  }
  if ((int64_t)delay * 1000000 > deadline - now) delay = (int)((deadline - now + 999999) / 1000000);
  while (delay > 0) {
    int d = delay < 10 ? delay : 10;
    sqlite3_sleep(d);
    delay -= d;
    if (c && bridge_progress(c)) return 0;
  }
  return 1;
}

int bridge_busy_install(bridge_conn *c, bridge_busy *b) {
  int rc;
  if (c->busy && c->busy != b) c->busy->installed = 0;
  if (b) {
    c->busy = b;
    b->conn = c;
  }
  rc = sqlite3_busy_handler(c->db, b ? bridge_busy_cb : 0, b);
  if (c->busy) c->busy->installed = b != 0 && rc == SQLITE_OK;
#ifdef BRIDGE_UNITY
  /* PRAGMA busy_timeout reads the timeout, as with sqlite3_busy_timeout. */
  if (b && rc == SQLITE_OK && !b->handle) c->db->busyTimeout = b->timeout_ms;
#endif
  return rc;
}

int bridge_busy_ours(bridge_conn *c) {
  bridge_busy *b = c->busy;
  if (!b || !b->installed || b->handle || b->timeout_ms <= 0) return 0;
#ifdef BRIDGE_UNITY
  /* PRAGMA busy_timeout since has put SQLite's own handler in its place. */
  return c->db->busyHandler.xBusyHandler == bridge_busy_cb && c->db->busyHandler.pBusyArg == b;
#else
  return 1;
#endif
}

#endif /* BRIDGE_TU */
