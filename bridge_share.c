/*
** bridge_share.c: connections of this process that open the same database
** file know of each other (see bridge.h, "connections sharing a file").
**
** Every database the driver opens with the default VFS goes through a thin
** VFS ("fastsqlite") that forwards each call to the default one and watches
** the locks. Per file (identified by device and inode, so two paths to one
** file are one file) it keeps:
**   - who in this process holds the write lock (the WAL write lock, or
**     RESERVED and above in a rollback journal), and a FIFO of the
**     connections waiting for it: the holder's release wakes the first
**     waiter, and a connection that starts a transaction while others wait
**     goes to the back of the queue instead of overtaking them;
**   - a counter of every lock released in this process, which other waits
**     (a reader kept out by a commit, a commit waiting for readers, a
**     checkpoint waiting for readers) watch instead of sleeping blind;
**   - the extent of the WAL, and a gate that holds new read transactions of
**     this process while a checkpoint restarts the WAL (the WAL bound).
** Locks held by other processes are still polled, on SQLite's schedule.
**
** A lock is refused here (SQLITE_BUSY without asking the OS) only to a
** connection that will wait for it in the queue: one whose busy handler is
** the bridge's timeout (bridge_busy_ours), taking the lock for a transaction
** that holds nothing yet, inside a step or prepare of the bridge. Everything
** else (no busy handler, a Go busy handler, an upgrade from a read
** transaction, which SQLite never lets wait) tries the lock as before.
**
** The share layer: a part of bridge.c's translation unit, below the bridge
** parts (bridge.c says the order). It calls none of them, only the parts
** below it (bridge_cancel.c, bridge_readonly.c), SQLite and Go. It also
** holds what only it reads of the amalgamation (the unix VFS's file and
** shared memory: bridge_unix_fd, bridge_shm_lock_elsewhere), and the
** bridge's busy handler: the handler waits in this file's queue
** (bridge_share_wait) and the VFS queues only a connection whose handler it
** is (bridge_busy_ours), so the two refer to each other and share a file.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

#include <string.h>
#include "bridge.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#endif

/* ---- a mutex and condition variable, and a clock ---- */
#ifdef _WIN32
typedef SRWLOCK share_mutex;
typedef CONDITION_VARIABLE share_cond;
static void share_init(share_mutex *m, share_cond *c) {
  InitializeSRWLock(m);
  InitializeConditionVariable(c);
}
static void share_destroy(share_mutex *m, share_cond *c) { (void)m, (void)c; }
static void share_lock(share_mutex *m) { AcquireSRWLockExclusive(m); }
static void share_unlock(share_mutex *m) { ReleaseSRWLockExclusive(m); }
static void share_broadcast(share_cond *c) { WakeAllConditionVariable(c); }
static void share_wait(share_cond *c, share_mutex *m, int64_t ns) {
  SleepConditionVariableSRW(c, m, (DWORD)((ns + 999999) / 1000000), 0);
}
int64_t bridge_share_now(void) {
  static LARGE_INTEGER freq;
  LARGE_INTEGER t;
  if (freq.QuadPart == 0) QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&t);
  return (int64_t)((double)t.QuadPart * 1e9 / (double)freq.QuadPart);
}
#else
typedef pthread_mutex_t share_mutex;
typedef pthread_cond_t share_cond;
static void share_init(share_mutex *m, share_cond *c) {
  pthread_mutex_init(m, 0);
  pthread_cond_init(c, 0);
}
static void share_destroy(share_mutex *m, share_cond *c) {
  pthread_mutex_destroy(m);
  pthread_cond_destroy(c);
}
static void share_lock(share_mutex *m) { pthread_mutex_lock(m); }
static void share_unlock(share_mutex *m) { pthread_mutex_unlock(m); }
static void share_broadcast(share_cond *c) { pthread_cond_broadcast(c); }
/* Condition variables time out on the real-time clock (the portable default);
** the deadlines themselves are on the monotonic clock. */
static void share_wait(share_cond *c, share_mutex *m, int64_t ns) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ns += ts.tv_nsec;
  ts.tv_sec += (time_t)(ns / 1000000000);
  ts.tv_nsec = (long)(ns % 1000000000);
  pthread_cond_timedwait(c, m, &ts);
}
int64_t bridge_share_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#endif

#define load(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define store(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define add(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)

/* The WAL-index locks (wal.c): the write lock, and the first reader slot. */
#define SHARE_WAL_WRITE 0
#define SHARE_WAL_READ0 3

/* ---- the registry of files ---- */
struct bridge_file {
#ifdef _WIN32
  char *key; /* the full path, folded to lower case: NTFS is case-insensitive */
#else
  dev_t dev;
  ino_t ino;
  char *path; /* the name it was opened by: a dormant entry wakes only for that name */
#endif
  int refs;  /* open bridge_vfiles on it (databases and WALs), under share_reg */
  int conns; /* connections with it as main database (bridge_share_link), under share_reg */
  int bound_off;  /* of which with _wal_bound=0, under share_reg */
  int64_t bound;  /* the smallest _wal_bound of the others; atomic */
  int64_t idle_since; /* when refs fell to 0: a dormant entry keeps its stats */
  bridge_file *next;

  share_mutex mu;
  share_cond cv;
  bridge_vfile *owner;      /* holds the write lock, in this process */
  bridge_vfile *head, *tail; /* waiting for it, in arrival order */
  bridge_vfile *opened;     /* its open main databases in this process, under mu */
  int inproc[5];            /* WAL read locks held in this process, by slot; atomic */
  uint64_t released;        /* bumped at every unlock; atomic */
  int nwait;                /* threads in share_wait; atomic */
  int gate;                 /* 1 while new read transactions wait (WAL bound); atomic */
  int64_t gate_until;       /* when held readers go on regardless (monotonic ns) */
  const void *gate_thread;  /* the checkpointing thread, which the gate lets through */
  int bounding;             /* a connection is restarting the WAL; atomic */
  int64_t wal_end;          /* bytes of the WAL in use; atomic */
  int64_t wal_size;         /* the WAL file's size as written here; atomic */
  int64_t retry_at;         /* the WAL bound is next tried above this extent; atomic */
  int64_t seen_mark;        /* the snapshot that last held the bound back (-1: none); atomic */
  int seen_held;            /* it outlived a hold of readers; atomic */
  bridge_file_stats st;     /* under mu, but for the atomics noted */
};

/* An open file of the shim: the default VFS's file follows it in memory. */
struct bridge_vfile {
  sqlite3_file base;
  sqlite3_file *real;
  bridge_file *file;    /* for main databases and WALs on a known file */
  bridge_conn *conn;    /* the connection whose main database this is, if any */
  int is_wal;
  int shared;           /* 1 once two connections link it: a shared cache, left to SQLite; atomic */
  int level;            /* rollback-journal lock level held (SQLITE_LOCK_*) */
  int queued;           /* in file->head..tail */
  bridge_vfile *qnext, *qprev;
  int64_t wait_start;   /* when the queued wait began */
  bridge_vfile *fnext, *fprev; /* the file's open main databases (file->opened), under file->mu */
  int64_t read_since;   /* when it took the WAL read lock it holds (0: none); atomic */
  volatile unsigned char *shm0; /* the WAL index's first region, as mapped for it */
};

static sqlite3_vfs share_vfs;
static sqlite3_vfs *share_real;
/* The shim's methods, by the version of the real file's: a file without
** shared memory (version 1, as on some network volumes) must not seem to
** have it, or SQLite would call a missing xShmMap for WAL. */
static sqlite3_io_methods share_methods[3];
static bridge_file *share_files;
static sqlite3_mutex *share_reg;

/* Entries whose last file closed stay, with their stats, so that counters
** never go back while the process lives (a pool passing through zero
** connections); past SHARE_DORMANT_MAX of them the longest idle goes. */
#define SHARE_DORMANT_MAX 64
static int share_dormant;

/* The thread's last refusal: which file, and whether it was the write lock.
** The busy handler that SQLite calls next on this thread takes it. */
static _Thread_local struct {
  bridge_vfile *v;
  int write; /* 1: the write lock; SHARE_READER: a rollback journal's SHARED; 0: another */
} share_refused;
#define SHARE_READER 2
static _Thread_local char share_thread;
/* This thread runs the WAL bound's checkpoint: 1 while it waits for the
** write lock, 2 once it has it and new readers are held. */
static _Thread_local int share_bounding;
static void share_bound_gate(bridge_file *f, bridge_conn *c);

#ifdef _WIN32
/* The key of a path: NTFS compares names without case over all of Unicode,
** so the path (UTF-8, as SQLite gives it) is upper-cased with the system's
** invariant table, not only A-Z. */
static char *share_key(const char *path) {
  int nw = MultiByteToWideChar(CP_UTF8, 0, path, -1, 0, 0), nk;
  wchar_t *w = nw > 0 ? (wchar_t *)malloc((size_t)nw * sizeof(wchar_t)) : 0;
  char *k = 0;
  if (!w) return 0;
  if (MultiByteToWideChar(CP_UTF8, 0, path, -1, w, nw) == nw &&
      LCMapStringEx(LOCALE_NAME_INVARIANT, LCMAP_UPPERCASE, w, nw, w, nw, 0, 0, 0) == nw &&
      (nk = WideCharToMultiByte(CP_UTF8, 0, w, nw, 0, 0, 0, 0)) > 0 && (k = (char *)malloc((size_t)nk)) != 0 &&
      WideCharToMultiByte(CP_UTF8, 0, w, nw, k, nk, 0, 0) != nk) {
    free(k);
    k = 0;
  }
  free(w);
  return k;
}
#endif

static void share_free(bridge_file *f) {
  share_destroy(&f->mu, &f->cv);
#ifdef _WIN32
  free(f->key);
#else
  free(f->path);
#endif
  free(f);
}

/* The entry of path's file, if any (under share_reg); fd, when not -1, is
** the open file's descriptor, which names it even if path has changed. */
static bridge_file *share_lookup(const char *path, int fd, void *out) {
  bridge_file *f;
#ifdef _WIN32
  char *key = share_key(path);
  (void)fd;
  (void)out;
  if (!key) return 0;
  for (f = share_files; f && strcmp(f->key, key) != 0; f = f->next) {
  }
  free(key);
#else
  struct stat sb;
  bridge_file **p;
  if ((fd >= 0 ? fstat(fd, &sb) : stat(path, &sb)) != 0) return 0;
  for (p = &share_files; (f = *p) != 0;) {
    if (f->dev == sb.st_dev && f->ino == sb.st_ino) {
      if (f->refs > 0 || strcmp(f->path, path) == 0) break;
      /* A dormant entry of this inode under another name: a deleted file's
      ** inode reused by a new one (or another name of the same file); its
      ** counters are not this one's. */
      *p = f->next;
      share_dormant--;
      share_free(f);
      continue;
    }
    p = &f->next;
  }
  if (out) *(struct stat *)out = sb;
#endif
  return f;
}

/* Finds the entry of path's file, or for a main database adds it, and
** counts a reference. */
static bridge_file *share_find(const char *path, int fd, int main) {
  bridge_file *f;
#ifndef _WIN32
  struct stat sb;
  sb.st_dev = 0;
  sb.st_ino = 0;
#endif
  sqlite3_mutex_enter(share_reg);
#ifdef _WIN32
  f = share_lookup(path, fd, 0);
#else
  f = share_lookup(path, fd, &sb);
#endif
  if (!f && main && (f = (bridge_file *)calloc(1, sizeof(*f))) != 0) {
#ifdef _WIN32
    f->key = share_key(path);
    if (!f->key) {
      free(f);
      sqlite3_mutex_leave(share_reg);
      return 0;
    }
#else
    if (sb.st_ino == 0 && sb.st_dev == 0) {
      free(f);
      sqlite3_mutex_leave(share_reg);
      return 0;
    }
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
    f->path = (char *)malloc(strlen(path) + 1);
    if (!f->path) {
      free(f);
      sqlite3_mutex_leave(share_reg);
      return 0;
    }
    strcpy(f->path, path);
#endif
    f->seen_mark = -1;
    f->seen_held = 0;
    share_init(&f->mu, &f->cv);
    f->next = share_files;
    share_files = f;
  }
  if (f) {
    if (f->refs++ == 0 && f->idle_since) {
      /* Woken from dormancy: its stats go on, the WAL's state starts anew. */
      share_dormant--;
      f->idle_since = 0;
      store(&f->wal_end, 0);
      store(&f->wal_size, 0);
      store(&f->retry_at, 0);
      store(&f->bound, 0);
      f->seen_mark = -1;
      f->seen_held = 0;
    }
  }
  sqlite3_mutex_leave(share_reg);
  return f;
}

static void share_release(bridge_file *f) {
  bridge_file **p, **oldest = 0, *gone = 0;
  sqlite3_mutex_enter(share_reg);
  if (--f->refs > 0) {
    sqlite3_mutex_leave(share_reg);
    return;
  }
  f->idle_since = bridge_share_now();
  if (++share_dormant > SHARE_DORMANT_MAX) {
    for (p = &share_files; *p; p = &(*p)->next) {
      if ((*p)->refs == 0 && (!oldest || (*p)->idle_since < (*oldest)->idle_since)) oldest = p;
    }
    gone = *oldest;
    *oldest = gone->next;
    share_dormant--;
  }
  sqlite3_mutex_leave(share_reg);
  if (gone) share_free(gone);
}

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
    share_unlock(&f->mu);
    share_refused.v = v;
    share_refused.write = 1;
    return SQLITE_BUSY;
  }
  rc = lock(v, a, b);
  if (rc == SQLITE_OK && share_bounding == 1) {
    share_unlock(&f->mu);
    share_bound_gate(f, v->conn);
    share_bounding = 2;
    share_lock(&f->mu);
  }
  if (rc == SQLITE_OK) {
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
  }
  share_unlock(&f->mu);
  return rc;
}

static void share_drop_write(bridge_vfile *v) {
  bridge_file *f = v->file;
  share_lock(&f->mu);
  if (f->owner == v) f->owner = 0;
  add(&f->released, 1);
  if (f->nwait > 0) share_broadcast(&f->cv); /* waiters count themselves under mu */
  share_unlock(&f->mu);
}

/* ---- the WAL bound's gate ---- */

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

/* ---- the shim's methods: forward, watching the locks ---- */
#define REAL(p) (((bridge_vfile *)(p))->real)

/* Unlinks c from its main database's file (under share_reg). */
static void share_detach(bridge_conn *c) {
  bridge_vfile *v = c->vfile;
  if (v->conn == c) {
    v->conn = 0;
    v->file->conns--;
    v->file->bound_off -= c->bound_off;
  }
  c->bound_off = 0;
  c->vfile = 0;
}

static int share_close(sqlite3_file *p) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc = v->real->pMethods ? v->real->pMethods->xClose(v->real) : SQLITE_OK;
  if (v->conn) {
    /* The connection's main database closes under it (sqlite3_deserialize
    ** replaced it): the connection no longer shares a file. */
    sqlite3_mutex_enter(share_reg);
    if (v->conn) share_detach(v->conn);
    sqlite3_mutex_leave(share_reg);
  }
  if (v->file) {
    if (!v->is_wal) {
      share_lock(&v->file->mu);
      if (v->fprev) v->fprev->fnext = v->fnext;
      else v->file->opened = v->fnext;
      if (v->fnext) v->fnext->fprev = v->fprev;
      if (v->file->owner == v) v->file->owner = 0;
      if (v->queued) share_dequeue(v->file, v);
      share_broadcast(&v->file->cv);
      share_unlock(&v->file->mu);
    }
    share_release(v->file);
  }
  return rc;
}

static int share_read(sqlite3_file *p, void *buf, int n, sqlite3_int64 off) {
  return REAL(p)->pMethods->xRead(REAL(p), buf, n, off);
}

static int share_write(sqlite3_file *p, const void *buf, int n, sqlite3_int64 off) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc = v->real->pMethods->xWrite(v->real, buf, n, off);
  if (rc == SQLITE_OK && v->is_wal && v->file) {
    /* Frames are appended; a write at 0 is the header of a restarted WAL. */
    int64_t end = off + n;
    if (off == 0) {
      /* A restarted WAL (by the bound, or by SQLite once everything was
      ** copied): frame numbers start again, and so does the bound. */
      store(&v->file->retry_at, 0);
      store(&v->file->seen_mark, -1);
      store(&v->file->seen_held, 0);
    }
    if (off == 0 || end > load(&v->file->wal_end)) store(&v->file->wal_end, end);
    if (end > load(&v->file->wal_size)) store(&v->file->wal_size, end);
  }
  return rc;
}

static int share_truncate(sqlite3_file *p, sqlite3_int64 size) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc = v->real->pMethods->xTruncate(v->real, size);
  if (rc == SQLITE_OK && v->is_wal && v->file) {
    if (size < load(&v->file->wal_end)) store(&v->file->wal_end, size);
    store(&v->file->wal_size, size);
  }
  return rc;
}

static int share_sync(sqlite3_file *p, int flags) { return REAL(p)->pMethods->xSync(REAL(p), flags); }
static int share_file_size(sqlite3_file *p, sqlite3_int64 *size) {
  return REAL(p)->pMethods->xFileSize(REAL(p), size);
}

static int share_os_lock(bridge_vfile *v, int level, int unused) {
  (void)unused;
  return v->real->pMethods->xLock(v->real, level);
}

static int share_xlock(sqlite3_file *p, int level) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc;
  if (!v->file || v->is_wal) return v->real->pMethods->xLock(v->real, level);
  if (level >= SQLITE_LOCK_RESERVED && v->level < SQLITE_LOCK_RESERVED) {
    rc = share_take_write(v, share_os_lock, level, 0);
  } else {
    rc = v->real->pMethods->xLock(v->real, level);
    if ((rc & 0xff) == SQLITE_BUSY) {
      share_refused.v = v;
      share_refused.write = level == SQLITE_LOCK_SHARED ? SHARE_READER : 0;
    }
  }
  if (rc == SQLITE_OK) v->level = level;
  return rc;
}

static int share_xunlock(sqlite3_file *p, int level) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc = v->real->pMethods->xUnlock(v->real, level);
  if (!v->file || v->is_wal) return rc;
  if (v->level >= SQLITE_LOCK_RESERVED && level < SQLITE_LOCK_RESERVED) {
    v->level = level;
    share_drop_write(v);
  } else if (level < v->level) {
    v->level = level;
    share_released(v->file);
  }
  return rc;
}

static int share_check_reserved(sqlite3_file *p, int *out) {
  return REAL(p)->pMethods->xCheckReservedLock(REAL(p), out);
}
static int share_file_control(sqlite3_file *p, int op, void *arg) {
  return REAL(p)->pMethods->xFileControl(REAL(p), op, arg);
}
static int share_sector_size(sqlite3_file *p) { return REAL(p)->pMethods->xSectorSize(REAL(p)); }
static int share_device(sqlite3_file *p) { return REAL(p)->pMethods->xDeviceCharacteristics(REAL(p)); }
static int share_shm_map(sqlite3_file *p, int pg, int sz, int extend, void volatile **out) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc = v->real->pMethods->xShmMap(v->real, pg, sz, extend, out);
  if (rc == SQLITE_OK && pg == 0 && *out) v->shm0 = (volatile unsigned char *)*out;
  return rc;
}

/* The mark of WAL reader slot i (0-4), from the WAL index's checkpoint
** information (https://sqlite.org/walformat.html: after the two 48-byte
** headers, nBackfill and then aReadMark[5], native-endian u32). */
static int share_read_mark(bridge_vfile *v, int i) {
  if (!v->shm0 || i <= 0) return 0;
  return (int)*(volatile uint32_t *)(v->shm0 + 96 + 4 + 4 * i);
}

static int share_os_shm_lock(bridge_vfile *v, int off, int n) {
  return v->real->pMethods->xShmLock(v->real, off, n, SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE);
}

/* Counts the WAL read slots off..off+n-1 that this process locks (d = 1,
** before the lock is tried) or lets go (d = -1), shared or exclusive: a
** slot locked with none counted is another process's (share_external_reader). */
static void share_count_slots(bridge_vfile *v, int off, int n, int d) {
  int i;
  for (i = off; i < off + n; i++) {
    if (i >= SHARE_WAL_READ0 && i < SHARE_WAL_READ0 + 5) add(&v->file->inproc[i - SHARE_WAL_READ0], d);
  }
}

static int share_shm_lock(sqlite3_file *p, int off, int n, int flags) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc;
  if (!v->file || v->is_wal) return v->real->pMethods->xShmLock(v->real, off, n, flags);
  if (flags & SQLITE_SHM_UNLOCK) {
    rc = v->real->pMethods->xShmLock(v->real, off, n, flags);
    share_count_slots(v, off, n, -1);
    if ((flags & SQLITE_SHM_SHARED) && off >= SHARE_WAL_READ0) store(&v->read_since, 0);
    if (off == SHARE_WAL_WRITE && (flags & SQLITE_SHM_EXCLUSIVE)) share_drop_write(v);
    else share_released(v->file);
    return rc;
  }
  if (off == SHARE_WAL_WRITE && (flags & SQLITE_SHM_EXCLUSIVE)) return share_take_write(v, share_os_shm_lock, off, n);
  if ((flags & SQLITE_SHM_SHARED) && off >= SHARE_WAL_READ0) share_gate(v->file);
  share_count_slots(v, off, n, 1);
  rc = v->real->pMethods->xShmLock(v->real, off, n, flags);
  if (rc != SQLITE_OK) share_count_slots(v, off, n, -1);
  if (rc == SQLITE_OK && (flags & SQLITE_SHM_SHARED) && off >= SHARE_WAL_READ0) {
    store(&v->read_since, bridge_share_now()); /* a read transaction begins */
  } else if ((rc & 0xff) == SQLITE_BUSY) {
    share_refused.v = v;
    share_refused.write = 0;
  }
  return rc;
}

static void share_shm_barrier(sqlite3_file *p) { REAL(p)->pMethods->xShmBarrier(REAL(p)); }
static int share_shm_unmap(sqlite3_file *p, int del) { return REAL(p)->pMethods->xShmUnmap(REAL(p), del); }
static int share_fetch(sqlite3_file *p, sqlite3_int64 off, int n, void **out) {
  return REAL(p)->pMethods->xFetch(REAL(p), off, n, out);
}
static int share_unfetch(sqlite3_file *p, sqlite3_int64 off, void *ptr) {
  return REAL(p)->pMethods->xUnfetch(REAL(p), off, ptr);
}

static int share_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *p, int flags, int *out_flags) {
  bridge_vfile *v = (bridge_vfile *)p;
  int rc;
  (void)vfs;
  memset(v, 0, sizeof(*v));
  v->real = (sqlite3_file *)&v[1];
  rc = share_real->xOpen(share_real, name, v->real, flags, out_flags);
  if (!v->real->pMethods) return rc; /* p->pMethods stays 0: SQLite will not close it */
  {
    /* A real file of version 1, or one without shared memory, gets methods
    ** of version 1: SQLite then refuses WAL for it, as without the shim. */
    int ver = v->real->pMethods->iVersion;
    if (ver >= 2 && (!v->real->pMethods->xShmMap || !v->real->pMethods->xShmLock)) ver = 1;
    if (ver > 3) ver = 3;
    if (ver < 1) ver = 1;
    p->pMethods = &share_methods[ver - 1];
  }
  if (rc == SQLITE_OK && name) {
    if (flags & SQLITE_OPEN_MAIN_DB) {
      v->file = share_find(name, bridge_unix_fd(share_real, v->real), 1);
      if (v->file) {
        share_lock(&v->file->mu);
        v->fnext = v->file->opened;
        if (v->fnext) v->fnext->fprev = v;
        v->file->opened = v;
        share_unlock(&v->file->mu);
      }
    } else if (flags & SQLITE_OPEN_WAL) {
      v->file = share_find(sqlite3_filename_database(name), -1, 0);
      v->is_wal = 1;
    }
  }
  return rc;
}

/* The VFS's other methods are the default VFS's. */
/* A deleted WAL (the last connection of every process closed, or the
** journal mode left WAL) has no extent any more. */
static void share_wal_gone(const char *wal) {
  size_t n = strlen(wal) - 4;
  char *db = (char *)malloc(n + 1);
  bridge_file *f;
  if (!db) return;
  memcpy(db, wal, n);
  db[n] = 0;
  sqlite3_mutex_enter(share_reg);
  f = share_lookup(db, -1, 0);
  if (f) {
    store(&f->wal_end, 0);
    store(&f->wal_size, 0);
  }
  sqlite3_mutex_leave(share_reg);
  free(db);
}

static int share_delete(sqlite3_vfs *vfs, const char *name, int sync) {
  int rc;
  size_t n = name ? strlen(name) : 0;
  (void)vfs;
  rc = share_real->xDelete(share_real, name, sync);
  if (rc == SQLITE_OK && n > 4 && strcmp(name + n - 4, "-wal") == 0) share_wal_gone(name);
  return rc;
}
static int share_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
  (void)vfs;
  return share_real->xAccess(share_real, name, flags, out);
}
static int share_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
  (void)vfs;
  return share_real->xFullPathname(share_real, name, n, out);
}
static void *share_dl_open(sqlite3_vfs *vfs, const char *name) {
  (void)vfs;
  return share_real->xDlOpen(share_real, name);
}
static void share_dl_error(sqlite3_vfs *vfs, int n, char *msg) {
  (void)vfs;
  share_real->xDlError(share_real, n, msg);
}
static void (*share_dl_sym(sqlite3_vfs *vfs, void *h, const char *sym))(void) {
  (void)vfs;
  return share_real->xDlSym(share_real, h, sym);
}
static void share_dl_close(sqlite3_vfs *vfs, void *h) {
  (void)vfs;
  share_real->xDlClose(share_real, h);
}
static int share_randomness(sqlite3_vfs *vfs, int n, char *out) {
  (void)vfs;
  return share_real->xRandomness(share_real, n, out);
}
static int share_sleep(sqlite3_vfs *vfs, int us) {
  (void)vfs;
  return share_real->xSleep(share_real, us);
}
static int share_current_time(sqlite3_vfs *vfs, double *out) {
  (void)vfs;
  return share_real->xCurrentTime(share_real, out);
}
static int share_last_error(sqlite3_vfs *vfs, int n, char *out) {
  (void)vfs;
  return share_real->xGetLastError ? share_real->xGetLastError(share_real, n, out) : 0;
}
static int share_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
  (void)vfs;
  return share_real->xCurrentTimeInt64(share_real, out);
}
static int share_set_syscall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr f) {
  (void)vfs;
  return share_real->xSetSystemCall(share_real, name, f);
}
static sqlite3_syscall_ptr share_get_syscall(sqlite3_vfs *vfs, const char *name) {
  (void)vfs;
  return share_real->xGetSystemCall(share_real, name);
}
static const char *share_next_syscall(sqlite3_vfs *vfs, const char *name) {
  (void)vfs;
  return share_real->xNextSystemCall(share_real, name);
}

const char *bridge_share_vfs(void) {
  static int done;
  sqlite3_mutex *m;
  if (sqlite3_initialize() != SQLITE_OK) return 0;
  m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  sqlite3_mutex_enter(m);
  if (!done) {
    share_real = sqlite3_vfs_find(0);
    if (share_real && share_real->iVersion >= 3) {
      share_reg = m;
      share_vfs.iVersion = 3;
      share_vfs.szOsFile = (int)sizeof(bridge_vfile) + share_real->szOsFile;
      share_vfs.mxPathname = share_real->mxPathname;
      share_vfs.zName = "fastsqlite";
      share_vfs.xOpen = share_open;
      share_vfs.xDelete = share_delete;
      share_vfs.xAccess = share_access;
      share_vfs.xFullPathname = share_full_pathname;
      share_vfs.xDlOpen = share_dl_open;
      share_vfs.xDlError = share_dl_error;
      share_vfs.xDlSym = share_dl_sym;
      share_vfs.xDlClose = share_dl_close;
      share_vfs.xRandomness = share_randomness;
      share_vfs.xSleep = share_sleep;
      share_vfs.xCurrentTime = share_current_time;
      share_vfs.xGetLastError = share_last_error;
      share_vfs.xCurrentTimeInt64 = share_current_time64;
      share_vfs.xSetSystemCall = share_set_syscall;
      share_vfs.xGetSystemCall = share_get_syscall;
      share_vfs.xNextSystemCall = share_next_syscall;
      {
        int i;
        for (i = 0; i < 3; i++) {
          sqlite3_io_methods *m = &share_methods[i];
          m->iVersion = i + 1;
          m->xClose = share_close;
          m->xRead = share_read;
          m->xWrite = share_write;
          m->xTruncate = share_truncate;
          m->xSync = share_sync;
          m->xFileSize = share_file_size;
          m->xLock = share_xlock;
          m->xUnlock = share_xunlock;
          m->xCheckReservedLock = share_check_reserved;
          m->xFileControl = share_file_control;
          m->xSectorSize = share_sector_size;
          m->xDeviceCharacteristics = share_device;
          m->xShmMap = share_shm_map;
          m->xShmLock = share_shm_lock;
          m->xShmBarrier = share_shm_barrier;
          m->xShmUnmap = share_shm_unmap;
          m->xFetch = share_fetch;
          m->xUnfetch = share_unfetch;
        }
      }
      if (sqlite3_vfs_register(&share_vfs, 0) == SQLITE_OK) done = 1;
    }
    if (!done) done = -1;
  }
  sqlite3_mutex_leave(m);
  return done > 0 ? share_vfs.zName : 0;
}

void bridge_share_link(bridge_conn *c) {
  sqlite3_file *p = 0;
  bridge_vfile *v;
  if (sqlite3_file_control(c->db, "main", SQLITE_FCNTL_FILE_POINTER, &p) != SQLITE_OK || !p) return;
  if (p->pMethods < &share_methods[0] || p->pMethods > &share_methods[2] || !((bridge_vfile *)p)->file) return;
  v = (bridge_vfile *)p;
  sqlite3_mutex_enter(share_reg);
  c->vfile = v;
  if (v->conn || load(&v->shared)) {
    /* Another connection's file: connections in shared-cache mode share one
    ** pager, and lock tables between them, not the file. They wait for each
    ** other as before (SQLITE_LOCKED, or unlock-notify with its tag). */
    store(&v->shared, 1);
    if (v->conn) {
      v->file->conns--;
      v->file->bound_off -= v->conn->bound_off;
      v->conn->bound_off = 0;
      v->conn = 0;
    }
  } else {
    v->conn = c;
    v->file->conns++;
  }
  sqlite3_mutex_leave(share_reg);
}

void *bridge_share_file_key(bridge_conn *c) {
  return c->vfile && !load(&c->vfile->shared) ? (void *)c->vfile->file : 0;
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

void bridge_share_unlink(bridge_conn *c) {
  if (!c->vfile) return;
  sqlite3_mutex_enter(share_reg);
  if (c->vfile) share_detach(c);
  sqlite3_mutex_leave(share_reg);
}

void bridge_share_relink(bridge_conn *c) {
  sqlite3_int64 n = c->wal_bound;
  bridge_share_unlink(c);
  bridge_share_link(c);
  bridge_share_set_bound(c, n);
}

void bridge_share_set_bound(bridge_conn *c, sqlite3_int64 n) {
  bridge_file *f;
  c->wal_bound = n;
  if (!c->vfile || load(&c->vfile->shared)) return;
  f = c->vfile->file;
  sqlite3_mutex_enter(share_reg);
  f->bound_off -= c->bound_off;
  c->bound_off = n <= 0;
  f->bound_off += c->bound_off;
  if (n > 0 && (load(&f->bound) == 0 || n < load(&f->bound))) store(&f->bound, n);
  sqlite3_mutex_leave(share_reg);
}

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
**     readers free, and holds new readers only once it has it (the VFS
**     closes the gate as the lock is granted: share_bounding);
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

static void share_bound_gate(bridge_file *f, bridge_conn *c) {
  share_lock(&f->mu);
  f->gate_until = bridge_share_now() + (int64_t)BRIDGE_WAL_GATE_MS * 1000000;
  f->gate_thread = (const void *)&share_thread;
  store(&f->gate, 1);
  share_unlock(&f->mu);
  if (c) c->wait_until = f->gate_until;
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
  c->wait_until = bridge_share_now() + (int64_t)BRIDGE_WAL_GATE_MS * 1000000; /* for the write lock */
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
  store(&f->gate, 0);
  f->gate_thread = 0;
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
  c->depth--;
  store(&f->bounding, 0);
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

/* ---- the unix VFS's own structs ----
** Seen only where the amalgamation is compiled into this translation unit
** (BRIDGE_UNITY); elsewhere they answer -1 (unknown). */
int bridge_unix_fd(sqlite3_vfs *vfs, sqlite3_file *f) {
#if defined(BRIDGE_UNITY) && SQLITE_OS_UNIX
  if (vfs && vfs->xOpen == unixOpen) return ((unixFile *)f)->h;
#endif
  (void)vfs;
  (void)f;
  return -1;
}

int bridge_shm_lock_elsewhere(sqlite3_vfs *vfs, sqlite3_file *f, int i) {
#if defined(BRIDGE_UNITY) && SQLITE_OS_UNIX
  unixFile *u = (unixFile *)f;
  struct flock l;
  if (!vfs || vfs->xOpen != unixOpen || !u->pShm || !u->pShm->pShmNode || u->pShm->pShmNode->hShm < 0) return -1;
  memset(&l, 0, sizeof(l));
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  l.l_start = UNIX_SHM_BASE + i;
  l.l_len = 1;
  if (osFcntl(u->pShm->pShmNode->hShm, F_GETLK, &l) != 0) return -1;
  return l.l_type != F_UNLCK;
#else
  (void)vfs;
  (void)f;
  (void)i;
  return -1;
#endif
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
static int bridge_busy_cb(void *arg, int count) {
  bridge_busy *b = (bridge_busy *)arg;
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
