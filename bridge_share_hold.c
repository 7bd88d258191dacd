/*
** bridge_share_hold.c: the WAL bound's hold on new read transactions. The
** bound's checkpoint (bridge_share_bound.c) can restart the WAL only once no
** transaction reads it, so while it does, new read transactions of this
** process wait for it, at most BRIDGE_WAL_HOLD_MS. The hold begins as the
** checkpoint is granted the write lock (share_bound_hold, called by the
** queue: share_bounding), a read transaction meets it as it takes its WAL
** read lock (share_hold_reader, called by the VFS), and the checkpoint ends
** it. ("Hold", not "gate": the gate is the write turn, gate.go.)
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Holds a new read transaction of v while the hold is on, at most until
** hold_until. The checkpointing thread itself passes. */
static void share_hold_reader(bridge_vfile *v) {
  bridge_file *f = v->file;
  bridge_conn *c = load(&v->shared) ? 0 : v->conn;
  int64_t start, now;
  if (!load(&f->hold) || f->hold_thread == (const void *)&share_thread) return;
  start = now = bridge_share_now();
  share_lock(&f->mu);
  add(&f->nwait, 1);
  while (load(&f->hold) && now < f->hold_until) {
    share_wait(&f->cv, &f->mu, f->hold_until - now);
    now = bridge_share_now();
  }
  add(&f->nwait, -1);
  f->st.readers_held++;
  f->st.readers_held_ns += now - start;
  if (now - start > f->st.readers_held_max_ns) f->st.readers_held_max_ns = now - start;
  share_unlock(&f->mu);
  if (c) {
    c->held_ns += now - start;
    c->helds++;
  }
}

static void share_bound_hold(bridge_file *f, bridge_conn *c) {
  share_lock(&f->mu);
  f->hold_until = bridge_share_now() + (int64_t)BRIDGE_WAL_HOLD_MS * 1000000;
  f->hold_thread = (const void *)&share_thread;
  store(&f->hold, 1);
  share_unlock(&f->mu);
  if (c) c->wait_until = f->hold_until;
}

#endif /* BRIDGE_TU */
