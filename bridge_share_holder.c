/*
** bridge_share_holder.c: who holds the lock that a connection was refused
** (LockHolder, lockholder.go). A file's entry keeps its write lock's owner
** in this process, from when and for which statement (share_note_owner,
** called as the VFS hands the lock over: a 200-byte copy per write
** transaction, nothing per statement); a refusal keeps what it saw in the
** refused connection (share_note_refusal), since the holder may let go
** before the refused one gives up; and bridge_share_holder answers after an
** SQLITE_BUSY: the holder the refusal saw, else the one holding the lock
** now (the write lock's owner, or a reader a commit waits for), else the
** process that POSIX locks name (F_GETLK on SQLite's lock bytes of the
** main file, or on the WAL index's write, checkpoint and recovery bytes).
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

#if !defined(_WIN32)
#include <fcntl.h>
#endif

/* Copies the text of st (its first BRIDGE_HOLDER_SQL bytes, cut at a
** character's start) into sql. */
static void share_copy_sql(char *sql, int *len, int *cut, sqlite3_stmt *st) {
  const char *s = st ? sqlite3_sql(st) : 0;
  size_t n = s ? strlen(s) : 0;
  *cut = n > BRIDGE_HOLDER_SQL;
  if (*cut) {
    n = BRIDGE_HOLDER_SQL;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
  }
  if (n) memcpy(sql, s, n);
  sql[n] = 0;
  *len = (int)n;
}

/* Whether sql begins with keyword word (upper case), as a whole word. */
static int share_sql_is(const char *sql, const char *word) {
  while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r') sql++;
  for (; *word; word++, sql++) {
    if ((*sql & ~0x20) != *word) return 0;
  }
  return !((*sql >= 'A' && *sql <= 'Z') || (*sql >= 'a' && *sql <= 'z') || *sql == '_');
}

/* v took f's write lock: record who, since when, and the statement that
** took it. A BEGIN only opens the transaction: the connection's next
** statement says more, and replaces it (bridge_share_note_sql). Under f->mu,
** on v's connection's thread. */
static void share_note_owner(bridge_file *f, bridge_vfile *v) {
  bridge_conn *c = v->conn;
  if (f->last.id && f->last.id != v->conn_id) f->prev = f->last;
  f->last.id = v->conn_id;
  f->last.since = bridge_share_now();
  f->last.until = 0;
  share_copy_sql(f->last.sql, &f->last.sql_len, &f->last.sql_cut, c ? c->running : 0);
  if (c) c->holder_sql_pending = share_sql_is(f->last.sql, "BEGIN");
}

/* c's step of st, after its BEGIN took the write lock: st names the
** transaction, unless it ends it. */
static void bridge_share_note_sql(bridge_conn *c, sqlite3_stmt *st) {
  bridge_vfile *v = c->vfile;
  const char *s = sqlite3_sql(st);
  c->holder_sql_pending = 0;
  if (!v || !s || share_sql_is(s, "COMMIT") || share_sql_is(s, "END") || share_sql_is(s, "ROLLBACK")) return;
  share_lock(&v->file->mu);
  if (v->file->owner == v) share_copy_sql(v->file->last.sql, &v->file->last.sql_len, &v->file->last.sql_cut, st);
  share_unlock(&v->file->mu);
}

static int share_last_owner_of(bridge_file *f, bridge_vfile *self, bridge_holder *h);

/* Fills h with f's write lock's owner in this process; under f->mu. */
static int share_owner_of(bridge_file *f, bridge_vfile *self, bridge_holder *h) {
  if (!f->owner || f->owner == self) return 0;
  return share_last_owner_of(f, self, h);
}

/* Fills h with the connection of this process that last held f's write
** lock, or holds it now, unless it is self; under f->mu. In WAL mode a
** transaction that read first is refused its write (SQLITE_BUSY_SNAPSHOT)
** when another committed since it read: that one, gone by then, is the
** holder to name. SQLite takes the write lock before it compares the
** snapshots, so self may be the last owner by then: the one before it is. */
static int share_last_owner_of(bridge_file *f, bridge_vfile *self, bridge_holder *h) {
  const share_owner *o = &f->last;
  if (f->owner == self) return 0;
  if (self && o->id == self->conn_id && !f->owner) o = &f->prev;
  if (!o->id || (self && o->id == self->conn_id)) return 0;
  h->kind = BRIDGE_HOLDER_CONN;
  h->reading = 0;
  h->conn = o->id;
  h->held_ns = (o->until ? o->until : bridge_share_now()) - o->since;
  h->pid = 0;
  h->sql_len = o->sql_len;
  h->sql_cut = o->sql_cut;
  memcpy(h->sql, o->sql, (size_t)o->sql_len + 1);
  return 1;
}

/* Fills h with a connection of this process that holds a read lock of f
** (SHARED or more), which a commit in rollback-journal mode waits for; under
** f->mu. Its statement is not known: a reader may be a Rows left open. */
static int share_reader_of(bridge_file *f, bridge_vfile *self, bridge_holder *h) {
  bridge_vfile *q;
  /* In WAL mode every reader holds SHARED, and blocks no writer. */
  if (self && self->shm0) return 0;
  for (q = f->opened; q; q = q->fnext) {
    if (q == self || q->level < SQLITE_LOCK_SHARED || q->shm0) continue;
    memset(h, 0, sizeof(*h));
    h->kind = BRIDGE_HOLDER_CONN;
    h->reading = 1;
    h->conn = q->conn_id;
    return 1;
  }
  return 0;
}

#if defined(BRIDGE_UNITY) && SQLITE_OS_UNIX
/* The process holding a POSIX lock on bytes [off, off+n) of fd that
** conflicts with a write lock (F_GETLK: never this process's own); 0 for
** none. */
static int share_lock_pid(int fd, off_t off, off_t n) {
  struct flock l;
  if (fd < 0) return 0;
  memset(&l, 0, sizeof(l));
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  l.l_start = off;
  l.l_len = n;
  if (fcntl(fd, F_GETLK, &l) != 0 || l.l_type == F_UNLCK) return 0;
  return (int)l.l_pid;
}

/* Another process holding a lock of the database file p (the shim's or
** the unix VFS's), through the unix VFS's descriptors (the file's, and the
** WAL index's in WAL mode). */
static int share_file_pid(sqlite3_file *p) {
  unixFile *u;
  int pid = 0;
  if (!p || !p->pMethods) return 0;
  if (p->pMethods >= &share_methods[0] && p->pMethods <= &share_methods[2]) p = ((bridge_vfile *)p)->real;
  if (!p || p->pMethods != &posixIoMethods) return 0;
  u = (unixFile *)p;
  if (u->pShm && u->pShm->pShmNode) {
    /* WAL: the write lock, then a checkpoint or recovery. */
    pid = share_lock_pid(u->pShm->pShmNode->hShm, UNIX_SHM_BASE + WAL_WRITE_LOCK, 3);
  }
  if (!pid) pid = share_lock_pid(u->h, RESERVED_BYTE, 1);
  if (!pid) pid = share_lock_pid(u->h, PENDING_BYTE, 1);
  if (!pid) pid = share_lock_pid(u->h, SHARED_FIRST, SHARED_SIZE);
  return pid;
}
#else
static int share_file_pid(sqlite3_file *p) {
  (void)p;
  return 0;
}
#endif

/* share_file_pid for c's main database. */
static int share_other_pid(bridge_conn *c) {
  sqlite3_file *p = 0;
  if (sqlite3_file_control(c->db, "main", SQLITE_FCNTL_FILE_POINTER, &p) != SQLITE_OK) return 0;
  return share_file_pid(p);
}

/* A lock refused to v in this process: keep in its connection who held it
** (the write lock's owner, else a reader when v wants EXCLUSIVE); under
** f->mu. */
static void share_note_refusal(bridge_vfile *v, int exclusive) {
  bridge_conn *c = v->conn;
  if (!c) return;
  c->refused_excl = exclusive;
  if (share_owner_of(v->file, v, &c->refused_by) || (exclusive && share_reader_of(v->file, v, &c->refused_by))) return;
  /* Another process's lock: asked now, as it may let go before the wait
  ** ends (one fcntl per refusal, on the refused thread). */
  memset(&c->refused_by, 0, sizeof(c->refused_by));
  c->refused_by.pid = share_file_pid(&v->base);
  c->refused_by.kind = c->refused_by.pid ? BRIDGE_HOLDER_PROCESS : 0;
}

void bridge_share_holder(bridge_conn *c) {
  bridge_holder *h = &c->held_by;
  bridge_vfile *v = c->vfile && !load(&c->vfile->shared) ? c->vfile : 0;
  bridge_file *f = v ? v->file : 0;
  int found = 0;
  if (f) {
    share_lock(&f->mu);
    if (c->refused_by.kind) {
      *h = c->refused_by;
      found = 1;
    } else {
      /* Readers hold back only a commit (EXCLUSIVE); a refused write lock
      ** (RESERVED) with no owner here is another process's. */
      found = share_owner_of(f, v, h) || (c->refused_excl && share_reader_of(f, v, h));
    }
  }
  if (!found) {
    memset(h, 0, sizeof(*h));
    h->kind = BRIDGE_HOLDER_PROCESS;
    h->pid = share_other_pid(c);
    found = h->pid != 0;
  }
  /* Nobody holds it now: the last holder of the process let go as the
  ** wait ended, or committed after this transaction read (WAL). */
  if (!found && f) found = share_last_owner_of(f, v, h);
  if (f) {
    f->st.busy_errors++;
    if (found) f->st.busy_named++;
    share_unlock(&f->mu);
  }
  c->refused_by.kind = 0;
  c->refused_excl = 0;
}

void bridge_share_set_id(bridge_conn *c, int64_t id) {
  c->id = id;
  sqlite3_mutex_enter(share_reg);
  if (c->vfile && c->vfile->conn == c) c->vfile->conn_id = id;
  sqlite3_mutex_leave(share_reg);
}

#endif /* BRIDGE_TU */
