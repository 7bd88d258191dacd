/*
** bridge_share_hold.c: the WAL bound's gate on new read transactions. The
** bound's checkpoint (bridge_share_bound.c) can restart the WAL only once no
** transaction reads it, so while it does, new read transactions of this
** process wait for it, at most BRIDGE_WAL_GATE_MS. The gate closes as the
** checkpoint is granted the write lock (share_bound_gate, called by the
** queue: share_bounding), a read transaction meets it as it takes its WAL
** read lock (share_gate, called by the VFS), and the checkpoint opens it.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Holds a new read transaction while the gate is closed, at most until
** gate_until. The checkpointing thread itself passes. */
static void share_gate(bridge_file *f) {
  int64_t start, now;
  if (!load(&f->gate) || f->gate_thread == (const void *)&share_thread) return;
  start = now = bridge_share_now();
  share_lock(&f->mu);
  add(&f->nwait, 1);
  while (load(&f->gate) && now < f->gate_until) {
    share_wait(&f->cv, &f->mu, f->gate_until - now);
    now = bridge_share_now();
  }
  add(&f->nwait, -1);
  f->st.gate_holds++;
  f->st.gate_hold_ns += now - start;
  if (now - start > f->st.gate_hold_max_ns) f->st.gate_hold_max_ns = now - start;
  share_unlock(&f->mu);
}

static void share_bound_gate(bridge_file *f, bridge_conn *c) {
  share_lock(&f->mu);
  f->gate_until = bridge_share_now() + (int64_t)BRIDGE_WAL_GATE_MS * 1000000;
  f->gate_thread = (const void *)&share_thread;
  store(&f->gate, 1);
  share_unlock(&f->mu);
  if (c) c->wait_until = f->gate_until;
}

#endif /* BRIDGE_TU */
