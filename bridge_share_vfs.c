/*
** bridge_share_vfs.c: the VFS "fastsqlite" over the default one
** (bridge_share_vfs registers it). Each method forwards to the default VFS's
** file; on the main database and its WAL, those that lock tell the queue
** (bridge_share_queue.c) and meet the WAL bound's hold (bridge_share_hold.c),
** and those that write or truncate the WAL track its extent for the bound.
** Opening a main database or its WAL finds its file's entry
** (bridge_share.c). Also what the share layer reads of the amalgamation:
** the unix VFS's file and shared memory (bridge_unix_fd,
** bridge_shm_lock_elsewhere).
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* ---- the shim's methods: forward, watching the locks ---- */
#define REAL(p) (((bridge_vfile *)(p))->real)

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
      share_lock(&v->file->mu);
      share_note_refusal(v, level > SQLITE_LOCK_SHARED); /* bridge_share_holder.c */
      share_unlock(&v->file->mu);
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
  if ((flags & SQLITE_SHM_SHARED) && off >= SHARE_WAL_READ0) share_hold_reader(v);
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

#endif /* BRIDGE_TU */
