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
**   - the extent of the WAL, and a hold on new read transactions of this
**     process while a checkpoint restarts the WAL (the WAL bound).
** Locks held by other processes are still polled, on SQLite's schedule.
**
** The share layer, split by concept into parts that bridge.c includes in
** this order, lowest first; a part calls only the parts before it:
**   bridge_share.c        the registry of files: a clock, a mutex and a
**                         condition variable, the file's entry and the shim's
**                         open file (bridge_file, bridge_vfile), and each
**                         connection's link to its main database's entry
**   bridge_share_hold.c   the WAL bound's hold on new read transactions
**   bridge_share_queue.c  the write lock's queue, the waits in it, and the
**                         bridge's busy handler, which waits there
**   bridge_share_vfs.c    the VFS: its methods, which forward to the default
**                         VFS's and tell the queue, the hold and the bound
**                         what SQLite locks and writes; its registration
**   bridge_share_bound.c  the WAL bound: the checkpoint that restarts the WAL
**   bridge_share_stats.c  the file's counters (FileStats, share.go)
**
** All of them sit in bridge.c's translation unit below the bridge parts
** (bridge.c says the order). They call none of those, only the parts below
** (bridge_cancel.c, bridge_readonly.c), SQLite and Go.
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
/* A connection of this process that took a file's write lock
** (bridge_share_holder.c): kept after it lets go, to name it. */
typedef struct share_owner {
  int64_t id;         /* its connection's number (bridge_conn.id), 0 when none */
  int64_t since;      /* when it took the lock (bridge_share_now) */
  int64_t until;      /* when it let go (0: holds it) */
  int sql_len, sql_cut; /* the statement that took it */
  char sql[BRIDGE_HOLDER_SQL + 1];
} share_owner;

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
  share_owner last;         /* its last owner in this process, or its owner now (bridge_share_holder.c) */
  share_owner prev;         /* the one before, when another connection has owned it since */
  bridge_vfile *head, *tail; /* waiting for it, in arrival order */
  bridge_vfile *opened;     /* its open main databases in this process, under mu */
  int inproc[5];            /* WAL read locks held in this process, by slot; atomic */
  uint64_t released;        /* bumped at every unlock; atomic */
  int nwait;                /* threads in share_wait; atomic */
  int hold;                 /* 1 while new read transactions wait (WAL bound); atomic */
  int64_t hold_until;       /* when held readers go on regardless (monotonic ns) */
  const void *hold_thread;  /* the checkpointing thread, which the hold lets through */
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
  int64_t conn_id;      /* its number (bridge_conn.id), readable under file->mu */
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

/* ---- a connection's link to its main database's entry ---- */

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
    v->conn_id = c->id;
    v->file->conns++;
  }
  sqlite3_mutex_leave(share_reg);
}

void *bridge_share_file_key(bridge_conn *c) {
  return c->vfile && !load(&c->vfile->shared) ? (void *)c->vfile->file : 0;
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

#endif /* BRIDGE_TU */
