/*
** bridge_cancel.c: cancellation. The progress handler that stops the running
** statement once Go has marked its operation cancelled, the arming of it
** around each operation, and the question the waits ask (bridge_cancelled).
** The lowest part: everything that runs SQL arms it, and the share layer's
** waits and the busy handler (bridge_share_queue.c) give up when it says so.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Stops the running statement once Go has marked its operation cancelled.
** SQLite also calls the handler as sqlite3_step returns, after the statement
** may have halted: its changes are then made (committed, in autocommit mode),
** and stopping it there would still report SQLITE_INTERRUPT, for a statement
** that completed. So only a statement that is still running is stopped
** (sqlite3_stmt_busy: stepped and not yet halted); outside any step (while
** preparing) the operation stops at once. */
static int bridge_progress(void *arg) {
  bridge_conn *c = (bridge_conn *)arg;
  if (c->armed == 0 || __atomic_load_n(c->cancelled, __ATOMIC_RELAXED) != c->armed) return 0;
  return c->running == 0 || sqlite3_stmt_busy(c->running);
}

/* Arms cancellation for the operation gen before running SQL. The progress
** handler is installed only while a cancellable operation runs, so a context
** that can never be cancelled costs nothing per VDBE op. Returns non-zero if
** the operation was already cancelled. */
static int bridge_arm(bridge_conn *c, uint64_t gen) {
  c->armed = gen;
  if (gen != 0) {
    if (!c->watching) {
      sqlite3_progress_handler(c->db, BRIDGE_PROGRESS_OPS, bridge_progress, c);
      c->watching = 1;
    }
    return __atomic_load_n(c->cancelled, __ATOMIC_RELAXED) == gen;
  }
  if (c->watching) {
    sqlite3_progress_handler(c->db, 0, 0, 0);
    c->watching = 0;
  }
  return 0;
}

void bridge_rearm(bridge_conn *c, uint64_t armed, int watching) {
  c->armed = armed;
  if (watching && !c->watching) sqlite3_progress_handler(c->db, BRIDGE_PROGRESS_OPS, bridge_progress, c);
  else if (!watching && c->watching) sqlite3_progress_handler(c->db, 0, 0, 0);
  c->watching = watching;
}

int bridge_cancelled(bridge_conn *c) { return bridge_progress(c); }

#endif /* BRIDGE_TU */
