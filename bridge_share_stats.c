/*
** bridge_share_stats.c: what the connections of this process did on a file
** (FileStats, share.go). The other share parts count into the file's entry
** (bridge_file.st) as they go; Go's write turn and group commit count here
** (bridge_share_turn_counted, bridge_share_group_counted), as does a write
** refused because its transaction read first (bridge_share_upgrade_busy);
** bridge_share_stats reports them.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

void bridge_share_turn_counted(bridge_conn *c, int64_t ns) {
  bridge_file *f = c->vfile ? c->vfile->file : 0;
  if (!f) return;
  share_lock(&f->mu);
  f->st.write_waits++;
  f->st.write_wait_ns += ns;
  if (ns > f->st.write_wait_max_ns) f->st.write_wait_max_ns = ns;
  share_unlock(&f->mu);
}

void bridge_share_group_counted(bridge_conn *c, int64_t n) {
  bridge_file *f = c->vfile ? c->vfile->file : 0;
  if (!f) return;
  share_lock(&f->mu);
  f->st.groups++;
  f->st.grouped += n;
  share_unlock(&f->mu);
}

int bridge_share_upgrade_busy(bridge_conn *c) {
  bridge_file *f = c->vfile ? c->vfile->file : 0;
  if (sqlite3_txn_state(c->db, "main") != SQLITE_TXN_READ) return 0;
  if (f) {
    share_lock(&f->mu);
    f->st.upgrade_busy++;
    share_unlock(&f->mu);
  }
  return 1;
}

int bridge_share_stats(bridge_conn *c, bridge_file_stats *out) {
  bridge_vfile *v = c->vfile;
  if (!v) return 0;
  share_lock(&v->file->mu);
  *out = v->file->st;
  out->wal_end = load(&v->file->wal_end);
  out->wal_size = load(&v->file->wal_size);
  {
    bridge_vfile *q;
    int n = 0;
    for (q = v->file->head; q; q = q->qnext) n++;
    out->queued = n;
  }
  share_unlock(&v->file->mu);
  sqlite3_mutex_enter(share_reg);
  out->connections = v->file->conns;
  out->bound = load(&v->file->bound_off) > 0 ? 0 : load(&v->file->bound);
  sqlite3_mutex_leave(share_reg);
  return 1;
}

#endif /* BRIDGE_TU */
