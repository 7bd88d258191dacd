/*
** bridge.c: the only hand-written C of the driver. See bridge.h for the contract.
** The core (prepare, bind, step, row buffer, cancellation) never calls back into
** Go; only the sections for user-defined functions and hooks do, and only when
** a function or hook is registered.
*/
/* The vendored amalgamation is compiled here, in the bridge's translation unit
** (see compile_options.go), so that the compiler can inline SQLite's column
** accessors into the row loop. cgo compiles with -fPIC, where a function of
** default visibility may be interposed at run time and so is never inlined;
** hidden visibility keeps SQLite's functions local to the binary (nothing
** loads them by name: extensions call through sqlite3_api_routines). */
#ifdef BRIDGE_UNITY
#undef USE_LIBSQLITE3
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#define SQLITE_API __attribute__((visibility("hidden")))
#endif
#include "sqlite3-binding.c"
#endif
#include <errno.h>
#include <string.h>
#include "bridge.h"

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

/* Rows are stepped ahead of the caller only where that cannot change what
** they hold: on a connection that cannot write (PRAGMA query_only, which the
** driver sets for read-only transactions, and _query_only=1). Elsewhere a
** program may change, on this same connection and between two steps, rows
** the statement has not reached yet (carry a balance to the next row, delete
** later duplicates), and must see them changed, as with one step per row.
** Only the amalgamation compiled into this translation unit shows the flag:
** built against another SQLite (libsqlite3 tag, the fastsqlite_dev loop),
** rows come one per call. */
static int bridge_may_step_ahead(bridge_conn *c) {
#ifdef BRIDGE_UNITY
  return (c->db->flags & SQLITE_QueryOnly) != 0;
#else
  (void)c;
  return 0;
#endif
}

int bridge_read_only(bridge_conn *c) {
  return bridge_may_step_ahead(c) || sqlite3_db_readonly(c->db, "main") == 1;
}

int bridge_steps_ahead_built(void) {
#ifdef BRIDGE_UNITY
  return 1;
#else
  return 0;
#endif
}

/* ---- shared-cache lock waits (sqlite_unlock_notify tag) ----
** Connections that share a cache (cache=shared) lock tables, not the file: a
** statement that needs a table another connection has locked fails at once
** with SQLITE_LOCKED_SHAREDCACHE, whatever the busy timeout. With the tag,
** the statement instead waits until that connection's transaction ends
** (sqlite3_unlock_notify, https://sqlite.org/unlock_notify.html) and runs
** again, as mattn/go-sqlite3 does under the same tag. A statement is only run
** again where none of its rows reached Go (SQLite undid the failed run's
** changes): bridge_exec and bridge_exec_script, which discard rows,
** bridge_query's first step, and prepare, which may wait to read the schema;
** of the direct API, what runs a statement to its end (Exec, ExecColumns) and
** the first step of a run (bridge_unlock_fresh).
** A later step never waits: a second run would repeat the rows already read.
**
** The wait stays in C. SQLite calls the notification from the thread whose
** transaction ends, under its own global mutex, with the pointer registered:
** a condition variable on the waiter's stack. A cancellable operation wakes
** every BRIDGE_UNLOCK_SLICE_MS to look at the cancellation word, as the busy
** handler does, and withdraws its registration before it returns: once
** sqlite3_unlock_notify(db, 0, 0) returns, the notification has run or never
** will, so the stack it points at may go. When waiting would deadlock (the
** other connection is itself waiting, directly or not, for this one), SQLite
** refuses to register and says so in the error: that SQLITE_LOCKED is the
** result. Without the tag none of this is compiled. */
#ifdef SQLITE_ENABLE_UNLOCK_NOTIFY
#define BRIDGE_UNLOCK_SLICE_MS 10

#ifdef _WIN32
#include <windows.h>
typedef struct bridge_unlock {
  SRWLOCK mu;
  CONDITION_VARIABLE cv;
  int fired;
} bridge_unlock;
static void bridge_unlock_init(bridge_unlock *u) {
  InitializeSRWLock(&u->mu);
  InitializeConditionVariable(&u->cv);
  u->fired = 0;
}
static void bridge_unlock_destroy(bridge_unlock *u) { (void)u; }
static void bridge_unlock_lock(bridge_unlock *u) { AcquireSRWLockExclusive(&u->mu); }
static void bridge_unlock_unlock(bridge_unlock *u) { ReleaseSRWLockExclusive(&u->mu); }
static void bridge_unlock_signal(bridge_unlock *u) { WakeConditionVariable(&u->cv); }
static void bridge_unlock_sleep(bridge_unlock *u, int ms) {
  SleepConditionVariableSRW(&u->cv, &u->mu, ms < 0 ? INFINITE : (DWORD)ms, 0);
}
#else
#include <pthread.h>
#include <time.h>
typedef struct bridge_unlock {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int fired;
} bridge_unlock;
static void bridge_unlock_init(bridge_unlock *u) {
  pthread_mutex_init(&u->mu, 0);
#if defined(__APPLE__)
  pthread_cond_init(&u->cv, 0); /* timed waits are relative (below) */
#else
  {
    /* A monotonic clock, so that a change of the wall clock cannot stretch a slice. */
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&u->cv, &a);
    pthread_condattr_destroy(&a);
  }
#endif
  u->fired = 0;
}
static void bridge_unlock_destroy(bridge_unlock *u) {
  pthread_cond_destroy(&u->cv);
  pthread_mutex_destroy(&u->mu);
}
static void bridge_unlock_lock(bridge_unlock *u) { pthread_mutex_lock(&u->mu); }
static void bridge_unlock_unlock(bridge_unlock *u) { pthread_mutex_unlock(&u->mu); }
static void bridge_unlock_signal(bridge_unlock *u) { pthread_cond_signal(&u->cv); }
/* Waits for a signal, at most ms milliseconds (forever when ms < 0). */
static void bridge_unlock_sleep(bridge_unlock *u, int ms) {
  if (ms < 0) {
    pthread_cond_wait(&u->cv, &u->mu);
  } else {
#if defined(__APPLE__)
    struct timespec d;
    d.tv_sec = 0;
    d.tv_nsec = (long)ms * 1000000;
    pthread_cond_timedwait_relative_np(&u->cv, &u->mu, &d);
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += (long)ms * 1000000;
    if (t.tv_nsec >= 1000000000) {
      t.tv_sec++;
      t.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&u->cv, &u->mu, &t);
#endif
  }
}
#endif

/* The notification: SQLite passes every waiter released by one transaction's
** end together. It must not call SQLite. */
static void bridge_unlock_notified(void **args, int n) {
  int i;
  for (i = 0; i < n; i++) {
    bridge_unlock *u = (bridge_unlock *)args[i];
    bridge_unlock_lock(u);
    u->fired = 1;
    bridge_unlock_signal(u);
    bridge_unlock_unlock(u);
  }
}

/* Waits until the connection that blocked c ends its transaction. Returns
** SQLITE_OK (run again), SQLITE_LOCKED (waiting would deadlock; SQLite's
** message says so) or SQLITE_INTERRUPT (the operation was cancelled). */
static int bridge_unlock_wait(bridge_conn *c) {
  bridge_unlock u;
  int rc, fired;
  if (bridge_progress(c)) return SQLITE_INTERRUPT;
  bridge_unlock_init(&u);
  rc = sqlite3_unlock_notify(c->db, bridge_unlock_notified, &u);
  if (rc != SQLITE_OK) {
    bridge_unlock_destroy(&u);
    return rc;
  }
  __atomic_store_n(&c->unlock_waiting, 1, __ATOMIC_RELEASE);
  bridge_unlock_lock(&u);
  /* Not cancellable (armed == 0): no reason to wake before the notification. */
  while (!u.fired && !bridge_progress(c)) bridge_unlock_sleep(&u, c->armed ? BRIDGE_UNLOCK_SLICE_MS : -1);
  fired = u.fired;
  bridge_unlock_unlock(&u);
  /* Outside u's lock: the notification takes it under SQLite's mutex, which
  ** the withdrawal takes too. */
  if (!fired) sqlite3_unlock_notify(c->db, 0, 0);
  __atomic_store_n(&c->unlock_waiting, 0, __ATOMIC_RELEASE);
  bridge_unlock_destroy(&u);
  return fired ? SQLITE_OK : SQLITE_INTERRUPT;
}

/* Called with the result of a step of st (or, st NULL, of a prepare):
** whether to run it again, after waiting for the shared-cache lock that
** stopped it; otherwise *rc is the result. st is reset before the wait, which
** leaves its error in the connection (a deadlock's message then replaces it). */
static int bridge_unlock_retry(bridge_conn *c, sqlite3_stmt *st, int *rc) {
  if (*rc != SQLITE_LOCKED_SHAREDCACHE) return 0;
  if (st) sqlite3_reset(st);
  *rc = bridge_unlock_wait(c);
  return *rc == SQLITE_OK;
}

/* Whether st's next step starts a run: then no row of the run has reached Go
** yet, and a lock that stops that step may be waited out. */
#define bridge_unlock_fresh(st) (!sqlite3_stmt_busy(st))
#else
#define bridge_unlock_retry(c, st, rc) 0
#define bridge_unlock_fresh(st) 0
#endif

int bridge_open(const char *filename, int flags, const char *vfs, int busy_ms, bridge_conn **out) {
  bridge_conn *c = (bridge_conn *)calloc(1, sizeof(*c));
  int rc;
  *out = 0;
  if (!c) return SQLITE_NOMEM;
  /* The default VFS is reached through bridge_share.c's, which lets the
  ** process's connections to one file wait for each other's locks. A VFS
  ** the DSN or URI names is used as it is. */
  if (!vfs) vfs = bridge_share_vfs();
  rc = sqlite3_open_v2(filename, &c->db, flags, vfs);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(c->db, 1);
    rc = sqlite3_busy_timeout(c->db, busy_ms);
    bridge_share_link(c);
  }
  if (c->db == 0) {
    free(c);
    return SQLITE_NOMEM;
  }
  *out = c;
  return rc;
}

int bridge_db_config(bridge_conn *c, int op, int value) {
  return sqlite3_db_config(c->db, op, value, (int *)0);
}

static void bridge_free_stmt(bridge_stmt *s) {
  sqlite3_finalize(s->stmt);
  free(s->cols);
  free(s->batch);
  free(s->text);
  free(s);
}

int bridge_close(bridge_conn *c) {
  int rc;
  sqlite3_progress_handler(c->db, 0, 0, 0);
  c->watching = 0;
  if (c->busy) c->busy->conn = 0;
  bridge_share_unlink(c);
  while (c->stmts) {
    bridge_stmt *s = c->stmts;
    c->stmts = s->next;
    bridge_free_stmt(s);
  }
  rc = sqlite3_close_v2(c->db);
  free(c->sql);
  free(c->args);
  free(c->arena);
  free(c);
  return rc;
}

/* Classifies a declared type the way mattn/go-sqlite3 does: an exact,
** case-insensitive match of the whole declared type. */
static unsigned char bridge_class(const char *decl) {
  if (!decl) return BRIDGE_CLASS_NONE;
  if (sqlite3_stricmp(decl, "timestamp") == 0 || sqlite3_stricmp(decl, "datetime") == 0 ||
      sqlite3_stricmp(decl, "date") == 0)
    return BRIDGE_CLASS_TIME;
  if (sqlite3_stricmp(decl, "boolean") == 0) return BRIDGE_CLASS_BOOL;
  return BRIDGE_CLASS_NONE;
}

/* (Re)describes the columns of st: count, row buffer, classes. */
static int bridge_columns(bridge_stmt *s, sqlite3_stmt *st) {
  int i, ncol = sqlite3_column_count(st);
  size_t size = (size_t)ncol * (sizeof(bridge_col) + sizeof(const char *) + 1);
  void *block = size ? calloc(1, size) : 0;
  if (size && !block) return SQLITE_NOMEM;
  free(s->cols);
  free(s->batch);
  s->batch = 0;
  s->batch_cap = 0;
  s->ncol = ncol;
  s->cols = (bridge_col *)block;
  s->names = (const char **)(s->cols + ncol);
  s->classes = (unsigned char *)(s->names + ncol);
  for (i = 0; i < ncol; i++) s->classes[i] = bridge_class(sqlite3_column_decltype(st, i));
  s->reprepares = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_REPREPARE, 0);
  s->shape++;
  return SQLITE_OK;
}

/* Whether s[0:n] holds no statement: only spaces, semicolons and comments
** (SQLite accepts an unterminated block comment at the end). Spaces are the
** tokenizer's: a run of them starts with one of " \t\n\f\r" and goes on
** with any isspace byte, so a vertical tab (0x0B) that starts a token (after
** a semicolon or a block comment, or first) is illegal, an error SQLite must
** report. */
static int bridge_only_trivia(const char *s, int n) {
  int i = 0, space = 0;
  while (i < n) {
    char ch = s[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || (ch == '\v' && space)) {
      space = 1;
      i++;
    } else if (ch == ';') {
      space = 0;
      i++;
    } else if (ch == '-' && i + 1 < n && s[i + 1] == '-') {
      /* The comment ends before its newline, which starts a run of spaces. */
      const char *nl = (const char *)memchr(s + i, '\n', (size_t)(n - i));
      if (!nl) return 1;
      space = 0;
      i = (int)(nl - s);
    } else if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
      int j = i + 2;
      while (j + 1 < n && !(s[j] == '*' && s[j + 1] == '/')) j++;
      if (j + 1 >= n) return 1;
      space = 0;
      i = j + 2;
    } else {
      return 0;
    }
  }
  return 1;
}

/* The offset of the SQL after a statement prepared from byte off, whose
** tail SQLite returned: the end of the buffer when only trivia is left, so
** that Go tells the last statement by tail == length alone. */
static int bridge_next(bridge_conn *c, const char *tail) {
  int next = tail ? (int)(tail - c->sql) : c->sql_len;
  if (next > c->sql_len || bridge_only_trivia(c->sql + next, c->sql_len - next)) next = c->sql_len;
  return next;
}

/* Whether running st takes the main database's write lock, read from its
** compiled program: a write transaction on schema 0 (OP_Transaction with
** p1 = 0 and a write flag in p2), or VACUUM of main in place (OP_Vacuum on
** schema 0 without an INTO register). This is what the write turn follows
** (gate.go): a statement that sqlite3_stmt_readonly calls a writer may write
** only TEMP or an attached file, change the journal mode, checkpoint or
** VACUUM INTO another file; those take the main file's write lock, if at
** all, by themselves, and wait for it in bridge_share.c's queue. Only the
** amalgamation compiled into this translation unit shows the program:
** against another SQLite every writer counts. */
static int bridge_writes_main(sqlite3_stmt *st) {
  if (sqlite3_stmt_readonly(st)) return 0;
#ifdef BRIDGE_UNITY
  {
    Vdbe *v = (Vdbe *)st;
    int i, writes = 0, group = 1;
    if (v->explain) return 0;
    for (i = 0; i < v->nOp; i++) {
      const VdbeOp *op = &v->aOp[i];
      switch (op->opcode) {
      case OP_Transaction:
        if (op->p1 == 0 && op->p2 != 0) writes = 1;
        if (op->p1 != 0) group = 0; /* TEMP or an attached file: this connection's own */
        break;
      case OP_Vacuum:
        if (op->p1 == 0 && op->p2 == 0) return 1;
        group = 0;
        break;
      /* What cannot run inside another transaction, or is about this
      ** connection's own transaction, never joins a group (group.go). */
      case OP_AutoCommit:
      case OP_Savepoint:
      case OP_JournalMode:
      case OP_Checkpoint:
        group = 0;
        break;
      }
    }
    return writes ? (group ? BRIDGE_WRITES_GROUPABLE : 1) : 0;
  }
#else
  return 1;
#endif
}

/* Whether foreign keys are on: a group then runs each write in a savepoint. */
int bridge_foreign_keys(bridge_conn *c) {
  int on = 0;
  sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_FKEY, -1, &on);
  return on;
}

/* Whether a foreign key constraint is unresolved in the open transaction. */
int bridge_deferred_fks(bridge_conn *c) {
  int cur = 0, hi = 0;
  sqlite3_db_status(c->db, SQLITE_DBSTATUS_DEFERRED_FKS, &cur, &hi, 0);
  return cur != 0;
}

/* Whether the connection may hand a write to another connection's group
** (group.go): outside any transaction, with no ATTACHed file and nothing in
** TEMP (a table, view or trigger there would make the same SQL mean
** something else on the group's connection). Under the connection's
** exclusion, so the schema cannot change meanwhile. Against another SQLite
** nothing is visible, and nothing is grouped. */
int bridge_group_turn(bridge_conn *c) {
  return bridge_group_ready(c) ? bridge_turn_timeout(c) : -1;
}

int bridge_group_ready(bridge_conn *c) {
  return sqlite3_get_autocommit(c->db) && bridge_group_clean(c);
}

int bridge_group_clean(bridge_conn *c) {
  sqlite3 *db = c->db;
#ifdef BRIDGE_UNITY
  {
    Schema *t = db->aDb[1].pSchema;
    HashElem *e;
    if (db->nDb != 2) return 0;
    if (!t) return 1;
    if (sqliteHashFirst(&t->trigHash)) return 0;
    for (e = sqliteHashFirst(&t->tblHash); e; e = sqliteHashNext(e)) {
      const Table *tab = (const Table *)sqliteHashData(e);
      if (sqlite3StrICmp(tab->zName, LEGACY_TEMP_SCHEMA_TABLE) != 0 &&
          sqlite3StrICmp(tab->zName, PREFERRED_TEMP_SCHEMA_TABLE) != 0) return 0;
    }
    return 1;
  }
#else
  return 0;
#endif
}

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

/* Wraps st in a new bridge_stmt, the connection's c->prepared. */
static int bridge_adopt(bridge_conn *c, sqlite3_stmt *st) {
  bridge_stmt *s = (bridge_stmt *)calloc(1, sizeof(bridge_stmt));
  if (!s || bridge_columns(s, st) != SQLITE_OK) {
    free(s);
    sqlite3_finalize(st);
    return SQLITE_NOMEM;
  }
  s->stmt = st;
  s->conn = c;
  s->nparam = sqlite3_bind_parameter_count(st);
  s->readonly = sqlite3_stmt_readonly(st);
  s->writes_main = bridge_writes_main(st);
  s->ahead = s->readonly && bridge_may_step_ahead(c);
  s->rc = SQLITE_DONE;
  s->next = c->stmts;
  if (c->stmts) c->stmts->prev = s;
  c->stmts = s;
  c->prepared = s;
  return SQLITE_OK;
}

/* Each thread's mark: the address of a thread-local, unique among live threads. */
static _Thread_local char bridge_thread;

bridge_word *bridge_word_new(void) { return (bridge_word *)calloc(1, sizeof(bridge_word)); }

/* Counts a step or prepare in or out. Only the thread holding the connection
** writes the marks; thread is stored before depth (release), so a thread that
** reads depth > 0 (acquire) reads the thread of a step in progress. A thread
** that finds its own mark there is that step's callback: a thread runs one
** thing at a time, and Go keeps a callback's goroutine on the thread that
** called into C. */
static void bridge_depth(bridge_conn *c, int d) {
  c->depth += d;
  if (d > 0) __atomic_store_n(&c->word->thread, (const void *)&bridge_thread, __ATOMIC_RELAXED);
  __atomic_store_n(&c->word->depth, c->depth, __ATOMIC_RELEASE);
}

int bridge_nested_here(bridge_word *w) {
  return __atomic_load_n(&w->depth, __ATOMIC_ACQUIRE) > 0 &&
         __atomic_load_n(&w->thread, __ATOMIC_RELAXED) == (const void *)&bridge_thread;
}

/* sqlite3_prepare_v3, counted in depth as a step is (bridge_run_stmt): the
** callbacks SQLite makes while it compiles (an authorizer, a busy handler, a
** virtual table's xConnect or xBestIndex) run inside it, and SQL they run on
** the connection must set aside the SQL buffer being parsed in place and put
** the outer operation's arming back (Go's SQLiteConn.nest, nestedArming). */
static int bridge_compile(bridge_conn *c, const char *sql, int n, unsigned int flags, sqlite3_stmt **st,
                          const char **tail) {
  int rc;
  bridge_depth(c, 1);
  rc = sqlite3_prepare_v3(c->db, sql, n, flags, st, tail);
  bridge_depth(c, -1);
  return rc;
}

int bridge_prepare(bridge_conn *c, const char *sql, int n, unsigned int flags, uint64_t gen) {
  sqlite3_stmt *st = 0;
  const char *tail = 0;
  int rc;

  c->prepared = 0;
  c->tail = 0;
  if (n + 1 > c->sql_cap || (c->sql_cap > (1 << 20) && n + 1 < c->sql_cap / 4)) {
    /* Grow to fit; shrink a very large buffer once queries are small again. */
    char *p = (char *)realloc(c->sql, (size_t)n + 1);
    if (!p) return SQLITE_NOMEM;
    c->sql = p;
    c->sql_cap = n + 1;
  }
  memcpy(c->sql, sql, (size_t)n);
  c->sql[n] = 0;
  c->sql_len = n;
  if (bridge_arm(c, gen)) return SQLITE_INTERRUPT;
  /* nByte includes the terminator: SQLite then parses in place, without a copy. */
  do {
    rc = bridge_compile(c, c->sql, c->sql_len + 1, flags, &st, &tail);
  } while (bridge_unlock_retry(c, 0, &rc));
  if (rc != SQLITE_OK) return rc;
  c->tail = bridge_next(c, tail);
  if (!st) return SQLITE_OK;
  return bridge_adopt(c, st);
}

int bridge_prepare_again(bridge_stmt *s) {
  bridge_conn *c = s->conn;
  sqlite3_stmt *st = 0;
  int rc;
  c->prepared = 0;
  /* sqlite3_sql is NUL-terminated: SQLite parses it in place. */
  rc = bridge_compile(c, sqlite3_sql(s->stmt), -1, 0, &st, 0);
  if (rc != SQLITE_OK) return rc;
  if (!st) return SQLITE_MISUSE;
  return bridge_adopt(c, st);
}

void bridge_finalize(bridge_stmt *s) {
  bridge_conn *c = s->conn;
  if (s->prev) s->prev->next = s->next;
  else c->stmts = s->next;
  if (s->next) s->next->prev = s->prev;
  bridge_free_stmt(s);
}

int bridge_reserve(bridge_conn *c, int nargs, sqlite3_int64 arena) {
  if (nargs > c->args_cap) {
    bridge_arg *a = (bridge_arg *)realloc(c->args, (size_t)nargs * sizeof(bridge_arg));
    if (!a) return SQLITE_NOMEM;
    c->args = a;
    c->args_cap = nargs;
  }
  if (arena > c->arena_cap) {
    char *p = (char *)realloc(c->arena, (size_t)arena);
    if (!p) return SQLITE_NOMEM;
    c->arena = p;
    c->arena_cap = arena;
  }
  return SQLITE_OK;
}

/* Frees the parameter array and arena once bound, when they have grown past
** BRIDGE_KEEP_ARGS and BRIDGE_KEEP_ARENA bytes. */
static void bridge_trim_params(bridge_conn *c) {
  if ((size_t)c->args_cap * sizeof(bridge_arg) > BRIDGE_KEEP_ARGS) {
    free(c->args);
    c->args = 0;
    c->args_cap = 0;
  }
  if (c->arena_cap > BRIDGE_KEEP_ARENA) {
    free(c->arena);
    c->arena = 0;
    c->arena_cap = 0;
  }
}

/* Binds c->args[0:nparam]. Values SQLite does not take (after a failure) are freed
** here, so an owned buffer is never leaked. */
static int bridge_bind_args(bridge_stmt *s) {
  bridge_arg *a = s->conn->args;
  int i, rc = SQLITE_OK;
  s->bound = 0;
  if (s->nparam > s->conn->args_cap) return SQLITE_MISUSE; /* Go wrote no arguments */
  for (i = 0; i < s->nparam; i++) {
    bridge_arg *v = &a[i];
    void (*del)(void *) = v->own ? free : SQLITE_TRANSIENT;
    if (rc != SQLITE_OK) {
      if (v->own) free((void *)v->v.p);
      continue;
    }
    if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) s->bound += v->n;
    switch (v->type) {
    case SQLITE_INTEGER: rc = sqlite3_bind_int64(s->stmt, i + 1, v->v.i); break;
    case SQLITE_FLOAT: rc = sqlite3_bind_double(s->stmt, i + 1, v->v.f); break;
    case SQLITE_TEXT: /* An empty string must not be bound from a NULL pointer: that binds NULL. */
      rc = sqlite3_bind_text64(s->stmt, i + 1, v->n ? (const char *)v->v.p : "", (sqlite3_uint64)v->n, v->n ? del : SQLITE_STATIC, SQLITE_UTF8);
      if (!v->n && v->own) free((void *)v->v.p);
      break;
    case SQLITE_BLOB:
      /* A zero-length BLOB must not be bound from a NULL pointer: that binds NULL. */
      rc = sqlite3_bind_blob64(s->stmt, i + 1, v->n ? v->v.p : (const void *)"", (sqlite3_uint64)v->n, v->n ? del : SQLITE_STATIC);
      if (!v->n && v->own) free((void *)v->v.p);
      break;
    case BRIDGE_ZEROBLOB: rc = sqlite3_bind_zeroblob64(s->stmt, i + 1, (sqlite3_uint64)v->v.i); break;
    default: rc = sqlite3_bind_null(s->stmt, i + 1); break;
    }
  }
  return rc;
}

static int bridge_bind(bridge_stmt *s) {
  int rc = bridge_bind_args(s);
  bridge_trim_params(s->conn);
  return rc;
}

/* Describes every column of the current row in cols[0:ncol]. Returns the bytes
** of its TEXT and BLOB values, which point into SQLite's memory and must be
** read (or copied) before the next step (an empty value is never read), or
** -1 when SQLite ran out of memory converting a value to TEXT: the row is
** then an SQLITE_NOMEM error, never a NULL the database does not hold.
** Flattened: with the amalgamation in this translation unit, the accessors
** below (and SQLite's lookup of the column) are inlined, instead of four or
** five calls per column, a fifth of the C time of a wide scan. */
#if defined(__GNUC__)
__attribute__((flatten))
#endif
static sqlite3_int64 bridge_fill_into(sqlite3_stmt *st, bridge_col *cols, int ncol) {
  sqlite3_int64 size = 0;
  int i;
  for (i = 0; i < ncol; i++) {
    bridge_col *c = &cols[i];
    /* One lookup of the result column instead of one per sqlite3_column_*
    ** call (each looks the column up and takes and drops the connection's
    ** mutex). The value is "unprotected": safe here, since database/sql
    ** serializes the use of a connection and nothing else touches it. */
    sqlite3_value *v = sqlite3_column_value(st, i);
    int t = sqlite3_value_type(v);
    c->type = t;
    switch (t) {
    case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
    case SQLITE_TEXT:
#if SQLITE_VERSION_NUMBER >= 3041000
      /* UTF-8 text (the database's encoding, the usual case) is read as it
      ** is, by length: sqlite3_value_text would first give a value without
      ** a NUL terminator (a bound parameter's, returned by the query) one,
      ** copying its bytes. BLOB access to TEXT converts nothing. */
      if (sqlite3_value_encoding(v) == SQLITE_UTF8) {
        c->n = sqlite3_value_bytes(v);
        c->v.p = c->n ? sqlite3_value_blob(v) : (const void *)"";
        if (!c->v.p) return -1;
        size += c->n;
        break;
      }
#endif
      c->v.p = sqlite3_value_text(v);
      c->n = sqlite3_value_bytes(v);
      if (!c->v.p) return -1;
      size += c->n;
      break;
    case SQLITE_BLOB:
      c->v.p = sqlite3_value_blob(v);
      c->n = sqlite3_value_bytes(v);
      size += c->n;
      break;
    default: break;
    }
  }
  return size;
}

/* Fills s->cols: SQLITE_ROW, or SQLITE_NOMEM (see bridge_fill_into). */
static int bridge_fill(bridge_stmt *s) {
  return bridge_fill_into(s->stmt, s->cols, s->ncol) < 0 ? SQLITE_NOMEM : SQLITE_ROW;
}

/* Copies the TEXT and BLOB values of a batch row (the caller checked that
** they fit) to s->text at *used, so that the batch can step past the row. */
static void bridge_copy_out(bridge_stmt *s, bridge_col *row, int *used) {
  int i;
  for (i = 0; i < s->ncol; i++) {
    bridge_col *c = &row[i];
    if ((c->type == SQLITE_TEXT || c->type == SQLITE_BLOB) && c->n > 0) {
      memcpy(s->text + *used, c->v.p, (size_t)c->n);
      c->v.p = s->text + *used;
      *used += c->n;
    }
  }
}

/* Steps once. depth tells Go that SQL run by a callback (a Go function or
** hook using this connection) is nested inside this step. A row produced after
** sqlite3_interrupt (a panicking collation) is not a row. */
static int bridge_run_stmt(bridge_conn *c, sqlite3_stmt *st) {
  sqlite3_stmt *outer = c->running;
  int rc;
  bridge_depth(c, 1);
  c->running = st;
  c->waited = 0;
  rc = sqlite3_step(st);
  c->running = outer;
  bridge_depth(c, -1);
  if (c->vfile && c->depth == 0 && rc != SQLITE_ROW) bridge_share_after(c);
#if SQLITE_VERSION_NUMBER >= 3041000
  if (rc == SQLITE_ROW && sqlite3_is_interrupted(c->db)) rc = SQLITE_INTERRUPT;
#endif
  return rc;
}

static int bridge_run(bridge_stmt *s) { return bridge_run_stmt(s->conn, s->stmt); }

/* Whether the rows that s, stopped on a row, has still to return are already
** made: every instruction that can run before the program halts only reads
** a sorter, an ephemeral table or registers (the output loop of an ORDER BY
** that needed a sort, of a LIMIT kept in an ephemeral index...). Then
** nothing done on the connection between two steps, a write included, can
** change them, and no user function or virtual table runs: they may be
** stepped ahead on a connection that can write, with the same results as
** one step per row. Anything else, or more than BRIDGE_FIXED_OPS
** instructions, answers no. The answer depends only on the program and the
** instruction the statement stopped after, so it is kept for the next row.
** Asked after the first row of a run (bridge_query), and by each batch;
** not after every row stepped one at a time, which it would cost 5% of a
** scan's time (rows that are not a sort's output at the first seldom
** become so later: a UNION ALL whose last part is sorted).
** Only the amalgamation compiled into this translation unit shows the
** program. */
#define BRIDGE_FIXED_OPS 32
static int bridge_rest_fixed(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *p = (Vdbe *)s->stmt;
  int todo[BRIDGE_FIXED_OPS], seen[BRIDGE_FIXED_OPS], ntodo = 0, nseen = 0, i, ok = 1;
  if (!s->readonly || p->explain || p->pFrame || p->eVdbeState != VDBE_RUN_STATE) return 0;
  if (s->fixed_ops == (const void *)p->aOp && s->fixed_pc == p->pc) return s->fixed;
  todo[ntodo++] = p->pc;
  while (ok && ntodo > 0) {
    int pc = todo[--ntodo], next = -1, jump = -1;
    const Op *op;
    VdbeCursor *cur;
    for (i = 0; i < nseen && seen[i] != pc; i++) {
    }
    if (i < nseen) continue;
    if (pc < 0 || pc >= p->nOp || nseen == BRIDGE_FIXED_OPS) {
      ok = 0;
      break;
    }
    seen[nseen++] = pc;
    op = &p->aOp[pc];
    cur = op->p1 >= 0 && op->p1 < p->nCursor ? p->apCsr[op->p1] : 0;
    switch (op->opcode) {
    case OP_Halt: ok = op->p1 == SQLITE_OK; break;
    case OP_Goto: jump = op->p2; break;
    case OP_SorterNext: ok = cur && cur->eCurType == CURTYPE_SORTER; next = pc + 1, jump = op->p2; break;
    case OP_SorterData: ok = cur && cur->eCurType == CURTYPE_SORTER; next = pc + 1; break;
    case OP_Next: ok = cur && cur->eCurType == CURTYPE_BTREE && cur->isEphemeral; next = pc + 1, jump = op->p2; break;
    case OP_Column:
      ok = cur && (cur->eCurType == CURTYPE_PSEUDO || (cur->eCurType == CURTYPE_BTREE && cur->isEphemeral));
      next = pc + 1;
      break;
    case OP_ResultRow: case OP_AddImm: case OP_Copy: case OP_SCopy: case OP_IntCopy: case OP_Move:
    case OP_Null: case OP_Integer: case OP_Int64: case OP_Real: case OP_String8: case OP_RealAffinity:
      next = pc + 1;
      break;
    case OP_IfPos: case OP_DecrJumpZero: case OP_IfNotZero: case OP_IsNull: case OP_NotNull: case OP_If:
    case OP_IfNot:
      next = pc + 1, jump = op->p2;
      break;
    default: ok = 0; break;
    }
    if (next >= 0 && ntodo < BRIDGE_FIXED_OPS) todo[ntodo++] = next;
    else if (next >= 0) ok = 0;
    if (jump >= 0 && ntodo < BRIDGE_FIXED_OPS) todo[ntodo++] = jump;
    else if (jump >= 0) ok = 0;
  }
  s->fixed_ops = (const void *)p->aOp;
  s->fixed_pc = p->pc;
  return s->fixed = ok;
#else
  (void)s;
  return 0;
#endif
}

static int bridge_step_row(bridge_stmt *s, uint64_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  rc = bridge_run(s);
  if (rc == SQLITE_ROW) rc = bridge_fill(s);
  return s->rc = rc;
}

int bridge_exec(bridge_stmt *s, uint64_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return rc;
  if (bridge_arm(c, gen)) return SQLITE_INTERRUPT;
  do {
    do {
      rc = bridge_run(s);
    } while (rc == SQLITE_ROW);
  } while (bridge_unlock_retry(c, s->stmt, &rc));
  s->changes = sqlite3_changes64(c->db);
  s->last_id = sqlite3_last_insert_rowid(c->db);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  /* Reset now so the statement holds no lock while it waits for reuse. On error
  ** the step's code is kept: reset returns the same one. */
  sqlite3_reset(s->stmt);
  if (s->bound >= BRIDGE_KEEP_BOUND) {
    sqlite3_clear_bindings(s->stmt);
    s->bound = 0;
  }
  return rc;
}

int bridge_exec_script(bridge_conn *c, int off, int stop_at_last, uint64_t gen) {
  int rc = SQLITE_OK;
  c->prepared = 0;
  c->script_ran = 0;
  if (off < 0 || off > c->sql_len) {
    c->script_off = 0;
    return SQLITE_RANGE;
  }
  /* Offsets, not pointers: a Go function called by a step may run SQL on
  ** this connection, which sets c->sql aside and back meanwhile. */
  while (off < c->sql_len) {
    sqlite3_stmt *st = 0;
    const char *tail = 0;
    int next;
    if (bridge_arm(c, gen)) {
      rc = SQLITE_INTERRUPT;
      break;
    }
    do {
      rc = bridge_compile(c, c->sql + off, c->sql_len - off + 1, 0, &st, &tail);
    } while (bridge_unlock_retry(c, 0, &rc));
    if (rc != SQLITE_OK) break;
    next = bridge_next(c, tail);
    if (!st) {
      off = next;
      continue;
    }
    if (sqlite3_bind_parameter_count(st) > 0 || (stop_at_last && next == c->sql_len)) {
      /* Go binds (or queries) this one. */
      rc = bridge_adopt(c, st);
      c->tail = next;
      c->script_off = off;
      return rc;
    }
    do {
      do {
        rc = bridge_run_stmt(c, st);
      } while (rc == SQLITE_ROW);
    } while (bridge_unlock_retry(c, st, &rc));
    c->script_changes = sqlite3_changes64(c->db);
    c->script_last_id = sqlite3_last_insert_rowid(c->db);
    c->script_ran = 1;
    /* After a failed step, finalize returns the step's code and leaves its
    ** message for bridge_errinfo. */
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) break;
    rc = SQLITE_OK;
    off = next;
  }
  c->prepared = 0; /* not a nested operation's statement */
  c->tail = c->script_off = off;
  return rc;
}

/* Called with a row of s just stepped and filled: when nothing but a plain
** Halt (reached through Gotos at most) can run before the statement ends, it
** is the statement's last row, and whatever the caller does on the
** connection before asking for the next one cannot change that: no user
** function, virtual table or other row can run, only the Halt, which ends
** the statement (and its read transaction, in autocommit mode). So it is
** stepped to its end now, in the call that stepped the row, rather than in a
** later cgo call (the next Next, or the reset at Close): a point lookup then
** costs one call. The row's TEXT and BLOB values are copied out first, as a
** batch's are; a row with more than BRIDGE_BATCH_ROW_BYTES of them is left
** as it is. Read-only statements only (a write's RETURNING rows come before
** its commit); never for EXPLAIN, whose steps list the program instead of
** running it, nor inside a trigger's program. Only the amalgamation compiled
** into this translation unit shows the program. */
static void bridge_last_row(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *p = (Vdbe *)s->stmt;
  int pc = p->pc, hops, i, used = 0;
  sqlite3_int64 size = 0;
  if (!s->readonly || p->explain || p->pFrame) return;
  for (hops = 0; hops < 4 && pc >= 0 && pc < p->nOp && p->aOp[pc].opcode == OP_Goto; hops++) pc = p->aOp[pc].p2;
  if (pc < 0 || pc >= p->nOp || p->aOp[pc].opcode != OP_Halt || p->aOp[pc].p1 != SQLITE_OK) return;
  for (i = 0; i < s->ncol; i++) {
    if (s->cols[i].type == SQLITE_TEXT || s->cols[i].type == SQLITE_BLOB) size += s->cols[i].n;
  }
  if (size > BRIDGE_BATCH_ROW_BYTES) return;
  if (size && !s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) return;
  bridge_copy_out(s, s->cols, &used);
  s->after = bridge_run(s);
#else
  (void)s;
#endif
}

int bridge_query(bridge_stmt *s, uint64_t gen, int last) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  s->after = 0;
  s->fixed_ops = 0; /* a re-prepare may put a new program where the old one was */
  s->ahead = s->readonly && bridge_may_step_ahead(c);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return s->rc = rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  do {
    rc = bridge_run(s);
  } while (bridge_unlock_retry(c, s->stmt, &rc));
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    if (sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) != s->reprepares &&
        bridge_columns(s, s->stmt) != SQLITE_OK) {
      sqlite3_reset(s->stmt);
      return s->rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_ROW) rc = bridge_fill(s);
    if (rc == SQLITE_ROW && last) bridge_last_row(s);
    if (rc == SQLITE_ROW && !s->ahead && !s->after) s->ahead = bridge_rest_fixed(s);
  }
  return s->rc = rc;
}

int bridge_step(bridge_stmt *s, uint64_t gen) { return bridge_step_row(s, gen); }

int bridge_step_batch(bridge_stmt *s, uint64_t gen, int max) {
  bridge_conn *c = s->conn;
  int n = 0, rc, used = 0;
  if (max < 1 || s->ncol == 0) {
    s->rc = SQLITE_MISUSE;
    return 0;
  }
  if (max > s->batch_cap) {
    bridge_col *b = (bridge_col *)realloc(s->batch, (size_t)max * (size_t)s->ncol * sizeof(bridge_col));
    if (!b) {
      s->rc = SQLITE_NOMEM;
      return 0;
    }
    s->batch = b;
    s->batch_cap = max;
  }
  if (bridge_arm(c, gen)) {
    s->rc = SQLITE_INTERRUPT;
    return 0;
  }
  if (!bridge_may_step_ahead(c) && !bridge_rest_fixed(s)) max = 1;
  for (;;) {
    bridge_col *row = s->batch + (size_t)n * (size_t)s->ncol;
    sqlite3_int64 size;
    rc = bridge_run(s);
    if (rc != SQLITE_ROW) break;
    size = bridge_fill_into(s->stmt, row, s->ncol);
    if (size < 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    n++;
    if (n == max) break;
    if (size) {
      /* TEXT and BLOB values are SQLite's until the next step. A row of a few
      ** short ones is copied out, which costs less than a cgo call per row;
      ** any other row ends the batch, its values left where they are. */
      if (size > BRIDGE_BATCH_ROW_BYTES || size > BRIDGE_BATCH_TEXT - used) break;
      if (!s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) break;
      bridge_copy_out(s, row, &used);
    }
  }
  s->rc = rc;
  return n;
}

void bridge_rearm(bridge_conn *c, uint64_t armed, int watching) {
  c->armed = armed;
  if (watching && !c->watching) sqlite3_progress_handler(c->db, BRIDGE_PROGRESS_OPS, bridge_progress, c);
  else if (!watching && c->watching) sqlite3_progress_handler(c->db, 0, 0, 0);
  c->watching = watching;
}

int bridge_reset(bridge_stmt *s) {
  int rc = sqlite3_reset(s->stmt);
  sqlite3_clear_bindings(s->stmt);
  s->bound = 0;
  s->rc = SQLITE_DONE;
  return rc;
}

int bridge_names(bridge_stmt *s) {
  int i;
  for (i = 0; i < s->ncol; i++) {
    s->names[i] = sqlite3_column_name(s->stmt, i);
    if (!s->names[i]) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int bridge_column_notnull(bridge_stmt *s, int i) {
  const char *db = sqlite3_column_database_name(s->stmt, i);
  const char *table = sqlite3_column_table_name(s->stmt, i);
  const char *column = sqlite3_column_origin_name(s->stmt, i);
  int notnull = 0;
  if (!db || !table || !column) return -1;
  if (sqlite3_table_column_metadata(s->conn->db, db, table, column, 0, 0, &notnull, 0, 0) != SQLITE_OK)
    return -1;
  return notnull != 0;
}

int bridge_enable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1); }

void bridge_errinfo(bridge_conn *c) {
  c->err_ext = sqlite3_extended_errcode(c->db);
  c->err_code = c->err_ext & 0xff;
  c->err_errno = sqlite3_system_errno(c->db);
  c->err_offset = sqlite3_error_offset(c->db);
  c->err_msg = sqlite3_errmsg(c->db);
}

/* ---- hooks, trace, busy handler (bridge_hooks.go, hooks.go, trace.go) ----
** Trampolines from SQLite's callbacks to the Go entry points exported by
** bridge_hooks.go. The user-data argument is the Go registry id itself. */
#include "_cgo_export.h"

static int bridge_commit_cb(void *h) { return goHookCommit((uintptr_t)h); }

static void bridge_rollback_cb(void *h) { goHookRollback((uintptr_t)h); }

static void bridge_update_cb(void *h, int op, const char *db, const char *table, sqlite3_int64 rowid) {
  goHookUpdate((uintptr_t)h, op, (char *)db, (char *)table, rowid);
}

static void bridge_preupdate_cb(void *h, sqlite3 *db, int op, const char *name, const char *table,
                                sqlite3_int64 old_rowid, sqlite3_int64 new_rowid) {
  goHookPreUpdate((uintptr_t)h, db, op, (char *)name, (char *)table, old_rowid, new_rowid);
}

static int bridge_auth_cb(void *h, int action, const char *a1, const char *a2, const char *db, const char *trigger) {
  (void)trigger;
  return goHookAuthorizer((uintptr_t)h, action, (char *)a1, (char *)a2, (char *)db);
}

static int bridge_wal_cb(void *h, sqlite3 *db, const char *name, int pages) {
  (void)db;
  return goHookWAL((uintptr_t)h, (char *)name, pages);
}

static int bridge_trace_cb(unsigned ev, void *h, void *p, void *x) {
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  const char *sql = 0;
  sqlite3_int64 ns = 0;
  switch (ev) {
  case SQLITE_TRACE_STMT: st = (sqlite3_stmt *)p; sql = (const char *)x; break;
  case SQLITE_TRACE_PROFILE: st = (sqlite3_stmt *)p; ns = *(sqlite3_int64 *)x; break;
  case SQLITE_TRACE_ROW: st = (sqlite3_stmt *)p; break;
  case SQLITE_TRACE_CLOSE: break;
  default: return 0;
  }
  db = st ? sqlite3_db_handle(st) : (sqlite3 *)p;
  return goHookTrace((uintptr_t)h, ev, db, st, (char *)sql, ns, sqlite3_get_autocommit(db));
}

void bridge_commit_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_commit_hook(db, h ? bridge_commit_cb : 0, (void *)h);
}

void bridge_rollback_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_rollback_hook(db, h ? bridge_rollback_cb : 0, (void *)h);
}

void bridge_update_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_update_hook(db, h ? bridge_update_cb : 0, (void *)h);
}

void bridge_preupdate_hook(sqlite3 *db, uintptr_t h) {
  sqlite3_preupdate_hook(db, h ? bridge_preupdate_cb : 0, (void *)h);
}

int bridge_set_authorizer(sqlite3 *db, uintptr_t h) {
  return sqlite3_set_authorizer(db, h ? bridge_auth_cb : 0, (void *)h);
}

void bridge_wal_hook(sqlite3 *db, uintptr_t h) {
  if (h) sqlite3_wal_hook(db, bridge_wal_cb, (void *)h);
  else sqlite3_wal_autocheckpoint(db, 1000); /* SQLITE_DEFAULT_WAL_AUTOCHECKPOINT */
}

int bridge_trace(sqlite3 *db, unsigned mask, uintptr_t h) {
  return sqlite3_trace_v2(db, h ? mask : 0, h ? bridge_trace_cb : 0, (void *)h);
}

/* Describes one value as bridge_fill describes a column: SQLITE_NOMEM when
** SQLite ran out of memory converting it to TEXT. */
static int bridge_value(bridge_col *c, sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  c->type = t;
  c->n = 0;
  switch (t) {
  case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
  case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
  case SQLITE_TEXT:
    c->v.p = sqlite3_value_text(v);
    c->n = sqlite3_value_bytes(v);
    if (!c->v.p) return SQLITE_NOMEM;
    break;
  case SQLITE_BLOB:
    c->v.p = sqlite3_value_blob(v);
    c->n = sqlite3_value_bytes(v);
    break;
  default: c->v.p = 0; break;
  }
  return SQLITE_OK;
}

int bridge_preupdate_row(sqlite3 *db, int isnew, bridge_col *out, int n) {
  int i, rc;
  for (i = 0; i < n; i++) {
    sqlite3_value *v = 0;
    rc = isnew ? sqlite3_preupdate_new(db, i, &v) : sqlite3_preupdate_old(db, i, &v);
    if (rc != SQLITE_OK) return rc;
    if ((rc = bridge_value(&out[i], v)) != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

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

int bridge_cancelled(bridge_conn *c) { return bridge_progress(c); }

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

/* ---- backup, serialize, extensions (bridge_db.go) ---- */

int bridge_serialize(sqlite3 *db, const char *schema, unsigned char **out, sqlite3_int64 *size, int *owned) {
  /* An in-memory database (deserialized) is read in place, without a copy. */
  *owned = 0;
  *out = sqlite3_serialize(db, schema, size, SQLITE_SERIALIZE_NOCOPY);
  if (*size < 0) return SQLITE_ERROR;
  if (*out || *size == 0) return SQLITE_OK;
  *owned = 1;
  *out = sqlite3_serialize(db, schema, size, 0);
  if (*size < 0) return SQLITE_ERROR;
  if (!*out && *size > 0) return SQLITE_NOMEM;
  return SQLITE_OK;
}

int bridge_deserialize(sqlite3 *db, const char *schema, const void *b, sqlite3_int64 n) {
  /* 20 spare zero bytes: SQLite may read a little past the end of a
  ** maliciously malformed image (see sqlite3_deserialize). */
  unsigned char *p = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 20);
  if (!p) return SQLITE_NOMEM;
  if (n > 0) memcpy(p, b, (size_t)n);
  memset(p + n, 0, 20);
  /* On failure SQLite frees p itself (FREEONCLOSE). */
  return sqlite3_deserialize(db, schema, p, n, n,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
}

int bridge_load_extension(sqlite3 *db, const char *lib, const char *entry, char **err) {
#ifdef SQLITE_OMIT_LOAD_EXTENSION
  /* The library has no sqlite3_load_extension to link against. */
  (void)db; (void)lib; (void)entry;
  *err = sqlite3_mprintf("extension loading is not compiled in (built with the sqlite_omit_load_extension tag)");
  return SQLITE_ERROR;
#else
  int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)0);
  *err = 0;
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_load_extension(db, lib, entry, err);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
  return rc;
#endif
}

/* ---- user-defined functions and collations (bridge_func.go, func.go) ----
** Trampolines from SQLite's function, aggregate, window and collation
** callbacks to the Go entry points exported by bridge_func.go. Declared here
** exactly as cgo declares them in _cgo_export.h. */
extern void goFuncCall(bridge_fcall *call);
extern void goFuncDestroy(uintptr_t handle);
extern int goCollate(bridge_udf *u, int n1, void *p1, int n2, void *p2);

/* Arguments decoded on the C stack up to this count; beyond, sqlite3_malloc. */
#define BRIDGE_UDF_STACK_ARGS 8

/* Decodes argv as bridge_fill decodes a row. Returns 0 (and sets an error)
** when SQLite ran out of memory converting a value to text. */
static int bridge_udf_args(sqlite3_context *ctx, bridge_col *cols, int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    sqlite3_value *v = argv[i];
    bridge_col *c = &cols[i];
    int t = sqlite3_value_type(v);
    c->type = t;
    c->n = 0;
    switch (t) {
    case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
    case SQLITE_TEXT:
      c->v.p = sqlite3_value_text(v);
      c->n = sqlite3_value_bytes(v);
      if (!c->v.p) {
        sqlite3_result_error_nomem(ctx);
        return 0;
      }
      break;
    case SQLITE_BLOB:
      c->v.p = sqlite3_value_blob(v); /* NULL for an empty BLOB */
      c->n = sqlite3_value_bytes(v);
      break;
    default: c->v.p = 0; break;
    }
  }
  return 1;
}

/* Hands the result Go left in call to SQLite. */
static void bridge_udf_result(bridge_fcall *call) {
  sqlite3_context *ctx = call->ctx;
  switch (call->rtype) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, call->r.i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, call->r.f); break;
  case SQLITE_TEXT:
  case SQLITE_BLOB: bridge_result_bytes(ctx, call->r.p, call->rn, call->rtype); break;
  case SQLITE_NULL: sqlite3_result_null(ctx); break;
  case BRIDGE_ZEROBLOB: sqlite3_result_zeroblob64(ctx, (sqlite3_uint64)call->r.i); break;
  default: break; /* BRIDGE_RESULT_NONE */
  }
}

static void bridge_udf_call(sqlite3_context *ctx, int kind, int argc, sqlite3_value **argv) {
  bridge_col stack[BRIDGE_UDF_STACK_ARGS], *cols = stack;
  bridge_fcall call;
  memset(&call, 0, sizeof(call));
  call.ctx = ctx;
  call.udf = (bridge_udf *)sqlite3_user_data(ctx);
  call.kind = kind;
  call.argc = argc;
  if (kind != BRIDGE_CALL_FUNC) {
    /* xFinal does not allocate: NULL there means no xStep ever ran. */
    call.agg = (sqlite3_int64 *)sqlite3_aggregate_context(ctx, kind == BRIDGE_CALL_FINAL ? 0 : (int)sizeof(sqlite3_int64));
    if (!call.agg && kind != BRIDGE_CALL_FINAL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (argc > BRIDGE_UDF_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (bridge_udf_args(ctx, cols, argc, argv)) {
    call.args = cols;
    goFuncCall(&call);
    bridge_udf_result(&call);
  }
  if (cols != stack) sqlite3_free(cols);
}

static void bridge_udf_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_FUNC, argc, argv);
}

static void bridge_udf_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_STEP, argc, argv);
}

static void bridge_udf_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  bridge_udf_call(ctx, BRIDGE_CALL_INVERSE, argc, argv);
}

static void bridge_udf_value(sqlite3_context *ctx) { bridge_udf_call(ctx, BRIDGE_CALL_VALUE, 0, 0); }

static void bridge_udf_final(sqlite3_context *ctx) { bridge_udf_call(ctx, BRIDGE_CALL_FINAL, 0, 0); }

static int bridge_udf_collate(void *p, int n1, const void *s1, int n2, const void *s2) {
  return goCollate((bridge_udf *)p, n1, (void *)s1, n2, (void *)s2);
}

static void bridge_udf_destroy(void *p) {
  bridge_udf *u = (bridge_udf *)p;
  goFuncDestroy(u->handle);
  free(u->buf);
  free(u);
}

int bridge_create_function(bridge_conn *c, const char *name, int nargs, int flags, int kind, bridge_udf *u) {
  u->db = c->db;
  /* On failure SQLite calls the destructor itself. */
  switch (kind) {
  case BRIDGE_CALL_FUNC:
    return sqlite3_create_function_v2(c->db, name, nargs, flags, u, bridge_udf_func, 0, 0, bridge_udf_destroy);
  case BRIDGE_CALL_STEP:
    return sqlite3_create_function_v2(c->db, name, nargs, flags, u, 0, bridge_udf_step, bridge_udf_final,
                                      bridge_udf_destroy);
  default:
    return sqlite3_create_window_function(c->db, name, nargs, flags, u, bridge_udf_step, bridge_udf_final,
                                          bridge_udf_value, bridge_udf_inverse, bridge_udf_destroy);
  }
}

int bridge_create_collation(bridge_conn *c, const char *name, bridge_udf *u) {
  int rc;
  if (!u) return sqlite3_create_collation_v2(c->db, name, SQLITE_UTF8, 0, 0, 0);
  u->db = c->db;
  rc = sqlite3_create_collation_v2(c->db, name, SQLITE_UTF8, u, bridge_udf_collate, bridge_udf_destroy);
  /* Unlike sqlite3_create_function_v2, a failed registration does not call
  ** the destructor. */
  if (rc != SQLITE_OK) bridge_udf_destroy(u);
  return rc;
}

int bridge_udf_reserve(bridge_udf *u, sqlite3_int64 n) {
  char *p;
  if (n <= u->buf_cap) return SQLITE_OK;
  p = (char *)realloc(u->buf, (size_t)n);
  if (!p) return SQLITE_NOMEM;
  u->buf = p;
  u->buf_cap = n;
  return SQLITE_OK;
}

void bridge_result_bytes(sqlite3_context *ctx, const void *p, sqlite3_int64 n, int type) {
  /* An empty value must not come from a NULL pointer: that would be NULL. */
  if (n == 0) p = "";
  if (type == SQLITE_TEXT) sqlite3_result_text64(ctx, (const char *)p, (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
  else sqlite3_result_blob64(ctx, p, (sqlite3_uint64)n, SQLITE_TRANSIENT);
}

void bridge_result_error(sqlite3_context *ctx, const char *msg, int n, int code) {
  sqlite3_result_error(ctx, msg ? msg : "", msg ? n : 0);
  if (code != 0) sqlite3_result_error_code(ctx, code);
}

/* ---- virtual tables (bridge_vtab.go, vtab.go) ----
** Trampolines from sqlite3_module's methods (https://sqlite.org/vtab.html) to
** the Go entry points exported by bridge_vtab.go, declared by _cgo_export.h
** (included above). C allocates and frees SQLite's structs; Go owns the
** objects they name (bridge.h). Values handed to Go (xFilter, xUpdate) are
** decoded in C, as a row is, so Go reads them without further cgo calls. */

/* Arguments decoded on the C stack up to this count; beyond, sqlite3_malloc. */
#define BRIDGE_VTAB_STACK_ARGS 8

/* Decodes argv into cols. SQLITE_NOMEM when a TEXT value could not be read. */
static int bridge_vtab_args(bridge_col *cols, int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    if (bridge_value(&cols[i], argv[i]) != SQLITE_OK) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int bridge_vtab_init(void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err,
                            int create) {
  bridge_vtab *vt = (bridge_vtab *)sqlite3_malloc((int)sizeof(bridge_vtab));
  int rc;
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof(*vt));
  rc = goVTabConnect((bridge_vref *)aux, create, argc, (char **)argv, vt, err);
  if (rc != SQLITE_OK) {
    sqlite3_free(vt);
    return rc;
  }
  *out = &vt->base;
  return SQLITE_OK;
}

static int bridge_vtab_create(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                              char **err) {
  (void)db;
  return bridge_vtab_init(aux, argc, argv, out, err, 1);
}

static int bridge_vtab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                               char **err) {
  (void)db;
  return bridge_vtab_init(aux, argc, argv, out, err, 0);
}

static int bridge_vtab_best_index(sqlite3_vtab *p, sqlite3_index_info *info) {
  return goVTabBestIndex((bridge_vtab *)p, info);
}

/* xDisconnect (destroy == 0) and xDestroy. SQLite ignores xDisconnect's
** result: the table is always freed then. */
static int bridge_vtab_release(sqlite3_vtab *p, int destroy) {
  bridge_vtab *vt = (bridge_vtab *)p;
  int rc = goVTabDisconnect(vt, destroy);
  if (destroy && rc != SQLITE_OK) return rc;
  sqlite3_free(vt->base.zErrMsg);
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int bridge_vtab_disconnect(sqlite3_vtab *p) { return bridge_vtab_release(p, 0); }

static int bridge_vtab_destroy(sqlite3_vtab *p) { return bridge_vtab_release(p, 1); }

static int bridge_vtab_open(sqlite3_vtab *p, sqlite3_vtab_cursor **out) {
  bridge_vcursor *cur = (bridge_vcursor *)sqlite3_malloc((int)sizeof(bridge_vcursor));
  int rc;
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof(*cur));
  rc = goVTabOpen((bridge_vtab *)p, cur);
  if (rc != SQLITE_OK) {
    sqlite3_free(cur);
    return rc;
  }
  *out = &cur->base;
  return SQLITE_OK;
}

/* SQLite ignores xClose's result: the cursor is always freed. */
static int bridge_vtab_close(sqlite3_vtab_cursor *p) {
  goVTabClose((bridge_vcursor *)p);
  sqlite3_free(p);
  return SQLITE_OK;
}

static int bridge_vtab_filter(sqlite3_vtab_cursor *p, int idx_num, const char *idx_str, int argc,
                              sqlite3_value **argv) {
  bridge_col stack[BRIDGE_VTAB_STACK_ARGS], *cols = stack;
  int rc;
  if (argc > BRIDGE_VTAB_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) return SQLITE_NOMEM;
  }
  rc = bridge_vtab_args(cols, argc, argv);
  if (rc == SQLITE_OK) rc = goVTabFilter((bridge_vcursor *)p, idx_num, (char *)idx_str, argc, cols);
  if (cols != stack) sqlite3_free(cols);
  return rc;
}

static int bridge_vtab_next(sqlite3_vtab_cursor *p) { return goVTabNext((bridge_vcursor *)p); }

static int bridge_vtab_eof(sqlite3_vtab_cursor *p) { return goVTabEof((bridge_vcursor *)p); }

static int bridge_vtab_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col) {
  return goVTabColumn((bridge_vcursor *)p, ctx, col);
}

static int bridge_vtab_rowid(sqlite3_vtab_cursor *p, sqlite3_int64 *rowid) {
  return goVTabRowid((bridge_vcursor *)p, rowid);
}

static int bridge_vtab_update(sqlite3_vtab *p, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  bridge_col stack[BRIDGE_VTAB_STACK_ARGS], *cols = stack;
  int rc;
  if (argc > BRIDGE_VTAB_STACK_ARGS) {
    cols = (bridge_col *)sqlite3_malloc64((sqlite3_uint64)argc * sizeof(bridge_col));
    if (!cols) return SQLITE_NOMEM;
  }
  rc = bridge_vtab_args(cols, argc, argv);
  if (rc == SQLITE_OK) rc = goVTabUpdate((bridge_vtab *)p, argc, cols, rowid);
  if (cols != stack) sqlite3_free(cols);
  return rc;
}

static void bridge_vmodule_destroy(void *p) {
  goVTabModuleDestroy((bridge_vref *)p);
  free(p);
}

/* iVersion 1: no transaction, savepoint, rename or shadow-table methods. */
static const sqlite3_module bridge_vmodule = {
  1,                       /* iVersion */
  bridge_vtab_create,      /* xCreate */
  bridge_vtab_connect,     /* xConnect */
  bridge_vtab_best_index,  /* xBestIndex */
  bridge_vtab_disconnect,  /* xDisconnect */
  bridge_vtab_destroy,     /* xDestroy */
  bridge_vtab_open,        /* xOpen */
  bridge_vtab_close,       /* xClose */
  bridge_vtab_filter,      /* xFilter */
  bridge_vtab_next,        /* xNext */
  bridge_vtab_eof,         /* xEof */
  bridge_vtab_column,      /* xColumn */
  bridge_vtab_rowid,       /* xRowid */
  bridge_vtab_update,      /* xUpdate */
  /* the later methods are left zero: with iVersion 1 SQLite never reads past
  ** xRename, and older sqlite3.h (the libsqlite3 tag) lacks some of them */
};

/* The same without xCreate: https://sqlite.org/vtab.html#eponymous_only_virtual_tables */
static const sqlite3_module bridge_vmodule_eponymous = {
  1,                       /* iVersion */
  0,                       /* xCreate */
  bridge_vtab_connect,     /* xConnect */
  bridge_vtab_best_index,  /* xBestIndex */
  bridge_vtab_disconnect,  /* xDisconnect */
  bridge_vtab_destroy,     /* xDestroy */
  bridge_vtab_open,        /* xOpen */
  bridge_vtab_close,       /* xClose */
  bridge_vtab_filter,      /* xFilter */
  bridge_vtab_next,        /* xNext */
  bridge_vtab_eof,         /* xEof */
  bridge_vtab_column,      /* xColumn */
  bridge_vtab_rowid,       /* xRowid */
  bridge_vtab_update,      /* xUpdate */
  /* the later methods are left zero: with iVersion 1 SQLite never reads past
  ** xRename, and older sqlite3.h (the libsqlite3 tag) lacks some of them */
};

int bridge_create_module(sqlite3 *db, const char *name, int eponymous_only, bridge_vref *m) {
  /* On failure SQLite calls the destructor itself. */
  return sqlite3_create_module_v2(db, name, eponymous_only ? &bridge_vmodule_eponymous : &bridge_vmodule, m,
                                  bridge_vmodule_destroy);
}

void bridge_vtab_error(char **dst, const char *msg, int n) {
  sqlite3_free(*dst);
  *dst = sqlite3_mprintf("%.*s", n, msg ? msg : "");
}

/* ---- sessions and changesets (bridge_session.go, session.go) ----
** Session lifetime, change descriptions, and the trampolines from
** sqlite3changeset_apply_v2's callbacks to the Go entry points exported by
** bridge_session.go (declared here exactly as cgo declares them). */
extern int goChangesetFilter(uintptr_t handle, char *table);
extern int goChangesetConflict(uintptr_t handle, int type, bridge_change *change);

struct bridge_sessions {
  sqlite3 *db;
  bridge_session *head;
};

#if SQLITE_VERSION_NUMBER >= 3044000
#define BRIDGE_SESSIONS_KEY "fastsqlite.sessions"

/* The client-data destructor, run by sqlite3_close_v2. The pre-update hook
** is removed first: a hook registered after the sessions has replaced
** theirs, and sqlite3session_delete would take its user data for a session.
** Without a hook, each delete only frees. */
static void bridge_sessions_free(void *p) {
  bridge_sessions *l = (bridge_sessions *)p;
  if (l->head) sqlite3_preupdate_hook(l->db, 0, 0);
  while (l->head) {
    bridge_session *bs = l->head;
    l->head = bs->next;
    sqlite3session_delete(bs->s);
    free(bs);
  }
  free(l);
}
#endif

int bridge_session_create(sqlite3 *db, const char *schema, bridge_session **out) {
#if SQLITE_VERSION_NUMBER >= 3044000
  bridge_sessions *l = (bridge_sessions *)sqlite3_get_clientdata(db, BRIDGE_SESSIONS_KEY);
  bridge_session *bs;
  int rc;
  *out = 0;
  if (!l) {
    l = (bridge_sessions *)calloc(1, sizeof(*l));
    if (!l) return SQLITE_NOMEM;
    l->db = db;
    /* On failure SQLite calls the destructor itself. */
    if (sqlite3_set_clientdata(db, BRIDGE_SESSIONS_KEY, l, bridge_sessions_free) != SQLITE_OK) return SQLITE_NOMEM;
  }
  bs = (bridge_session *)calloc(1, sizeof(*bs));
  if (!bs) return SQLITE_NOMEM;
  rc = sqlite3session_create(db, schema, &bs->s);
  if (rc != SQLITE_OK) {
    free(bs);
    return rc;
  }
  bs->list = l;
  bs->next = l->head;
  if (l->head) l->head->prev = bs;
  l->head = bs;
  *out = bs;
  return SQLITE_OK;
#else
  (void)db;
  (void)schema;
  *out = 0;
  return SQLITE_MISUSE;
#endif
}

void bridge_session_delete(bridge_session *bs, uintptr_t hook) {
  bridge_sessions *l = bs->list;
  if (bs->prev) bs->prev->next = bs->next;
  else l->head = bs->next;
  if (bs->next) bs->next->prev = bs->prev;
  if (hook) {
    sqlite3_preupdate_hook(l->db, 0, 0);
    sqlite3session_delete(bs->s);
    bridge_preupdate_hook(l->db, hook);
  } else {
    sqlite3session_delete(bs->s);
  }
  free(bs);
}

/* Describes the change it points at in c; conflict is the conflict type
** inside a conflict handler, 0 otherwise. A foreign key conflict carries no
** change, only the count of violations. */
static int bridge_change_read(bridge_change *c, sqlite3_changeset_iter *it, int conflict) {
  const char *table = 0;
  unsigned char *pk = 0;
  int i, rc, op = 0, ncol = 0, indirect = 0, nfk = 0;
  c->table = 0;
  c->pk = 0;
  c->op = c->ncol = c->indirect = c->nfk = 0;
  if (conflict == SQLITE_CHANGESET_FOREIGN_KEY) {
    rc = sqlite3changeset_fk_conflicts(it, &nfk);
    c->nfk = nfk;
    return rc;
  }
  rc = sqlite3changeset_op(it, &table, &ncol, &op, &indirect);
  if (rc == SQLITE_OK) rc = sqlite3changeset_pk(it, &pk, 0);
  if (rc != SQLITE_OK) return rc;
  if (ncol > c->cap) {
    bridge_col *p = (bridge_col *)realloc(c->cols, (size_t)ncol * 3 * sizeof(bridge_col));
    if (!p) return SQLITE_NOMEM;
    c->cols = p;
    c->cap = ncol;
  }
  for (i = 0; i < ncol; i++) {
    bridge_col *ov = &c->cols[i], *nv = &c->cols[ncol + i], *cv = &c->cols[2 * ncol + i];
    sqlite3_value *v;
    ov->type = nv->type = cv->type = BRIDGE_UNDEFINED;
    if (op != SQLITE_INSERT) {
      v = 0;
      if ((rc = sqlite3changeset_old(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(ov, v)) != SQLITE_OK) return rc;
    }
    if (op != SQLITE_DELETE) {
      v = 0;
      if ((rc = sqlite3changeset_new(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(nv, v)) != SQLITE_OK) return rc;
    }
    if (conflict == SQLITE_CHANGESET_DATA || conflict == SQLITE_CHANGESET_CONFLICT) {
      v = 0;
      if ((rc = sqlite3changeset_conflict(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(cv, v)) != SQLITE_OK) return rc;
    }
  }
  c->table = table;
  c->pk = pk;
  c->op = op;
  c->ncol = ncol;
  c->indirect = indirect;
  return SQLITE_OK;
}

/* A malloc'd copy of p[0:n] (NULL for n == 0), in *out. */
static int bridge_copy_bytes(const void *p, int n, void **out) {
  *out = 0;
  if (n <= 0) return SQLITE_OK;
  *out = malloc((size_t)n);
  if (!*out) return SQLITE_NOMEM;
  memcpy(*out, p, (size_t)n);
  return SQLITE_OK;
}

int bridge_changes_start(const void *p, int n, bridge_changes **out) {
  bridge_changes *c = (bridge_changes *)calloc(1, sizeof(*c));
  int rc;
  *out = 0;
  if (!c) return SQLITE_NOMEM;
  rc = bridge_copy_bytes(p, n, &c->buf);
  if (rc == SQLITE_OK) rc = sqlite3changeset_start(&c->it, n, c->buf);
  if (rc != SQLITE_OK) {
    free(c->buf);
    free(c);
    return rc;
  }
  *out = c;
  return SQLITE_OK;
}

int bridge_changes_next(bridge_changes *c) {
  int rc = sqlite3changeset_next(c->it);
  if (rc == SQLITE_ROW) {
    int rc2 = bridge_change_read(&c->change, c->it, 0);
    if (rc2 != SQLITE_OK) return rc2;
  }
  return rc;
}

int bridge_changes_finish(bridge_changes *c) {
  int rc = sqlite3changeset_finalize(c->it);
  free(c->change.cols);
  free(c->buf);
  free(c);
  return rc;
}

/* The context of one bridge_changeset_apply, on its C stack. */
typedef struct bridge_apply {
  uintptr_t handle;
  int rc;               /* first failure describing a conflict */
  bridge_change change; /* the conflicting change */
} bridge_apply;

static int bridge_apply_filter(void *p, const char *table) {
  return goChangesetFilter(((bridge_apply *)p)->handle, (char *)table);
}

static int bridge_apply_conflict(void *p, int type, sqlite3_changeset_iter *it) {
  bridge_apply *a = (bridge_apply *)p;
  int rc = bridge_change_read(&a->change, it, type);
  if (rc != SQLITE_OK) {
    if (a->rc == SQLITE_OK) a->rc = rc;
    return SQLITE_CHANGESET_ABORT;
  }
  return goChangesetConflict(a->handle, type, &a->change);
}

int bridge_changeset_apply(bridge_conn *c, const void *p, int n, uintptr_t handle, int filter, int flags,
                           int *read_rc) {
  sqlite3 *db = c->db;
  bridge_apply a;
  void *buf;
  int rc;
  memset(&a, 0, sizeof(a));
  a.handle = handle;
  *read_rc = SQLITE_OK;
  rc = bridge_copy_bytes(p, n, &buf);
  if (rc != SQLITE_OK) return rc;
  /* The filter and conflict handlers may run SQL on the connection, as a
  ** step's callbacks may: counted in depth the same way. */
  bridge_depth(c, 1);
  rc = sqlite3changeset_apply_v2(db, n, buf, filter ? bridge_apply_filter : 0, bridge_apply_conflict, &a, 0, 0,
                                 flags);
  bridge_depth(c, -1);
  free(a.change.cols);
  free(buf);
  *read_rc = a.rc;
  return rc;
}

int bridge_changeset_invert(const void *p, int n, int *nout, void **out) {
  sqlite3_changeset_iter *it = 0;
  int rc, rc2;
  *nout = 0;
  *out = 0;
  rc = sqlite3changeset_start(&it, n, (void *)p);
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3changeset_next(it)) == SQLITE_ROW) {
  }
  rc2 = sqlite3changeset_finalize(it);
  if (rc != SQLITE_DONE) return rc;
  if (rc2 != SQLITE_OK) return rc2;
  return sqlite3changeset_invert(n, p, nout, out);
}

/* ---- direct statement API (bridge_direct.go, direct.go) ---- */

bridge_direct *bridge_direct_new(bridge_stmt *s) {
  bridge_direct *d = (bridge_direct *)calloc(1, sizeof(*d));
  if (!d) return 0;
  d->s = s;
  d->nargs = s->nparam;
  if (d->nargs > 0 && !(d->args = (bridge_arg *)calloc((size_t)d->nargs, sizeof(bridge_arg)))) {
    free(d);
    return 0;
  }
  return d;
}

static void bridge_direct_drop(bridge_arg *a, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (a[i].type != 0 && a[i].own) free((void *)a[i].v.p);
    a[i].type = 0;
    a[i].own = 0;
  }
}

void bridge_direct_free(bridge_direct *d) {
  if (!d) return;
  bridge_direct_drop(d->args, d->nargs);
  free(d->args);
  free(d->rows);
  free(d->arena);
  free(d);
}

int bridge_direct_reserve(bridge_direct *d, sqlite3_int64 n, int rows) {
  if (n > d->arena_cap) {
    char *p = (char *)malloc((size_t)n);
    if (!p) return SQLITE_NOMEM;
    free(d->arena);
    d->arena = p;
    d->arena_cap = n;
  }
  if (rows > d->rows_cap && d->nargs > 0) {
    bridge_arg *r = (bridge_arg *)calloc((size_t)rows * (size_t)d->nargs, sizeof(bridge_arg));
    if (!r) return SQLITE_NOMEM;
    free(d->rows);
    d->rows = r;
    d->rows_cap = rows;
  }
  return SQLITE_OK;
}

/* Binds v to parameter i (1-based); SQLite owns an owned value from here on,
** even when the bind fails (it then frees it at once). */
static int bridge_direct_bind1(sqlite3_stmt *st, int i, bridge_arg *v) {
  void (*del)(void *) = v->own ? free : SQLITE_TRANSIENT;
  switch (v->type) {
  case SQLITE_INTEGER: return sqlite3_bind_int64(st, i, v->v.i);
  case SQLITE_FLOAT: return sqlite3_bind_double(st, i, v->v.f);
  case SQLITE_TEXT:
    if (v->n == 0) { /* not from a NULL pointer: that binds NULL */
      if (v->own) free((void *)v->v.p);
      return sqlite3_bind_text64(st, i, "", 0, SQLITE_STATIC, SQLITE_UTF8);
    }
    return sqlite3_bind_text64(st, i, (const char *)v->v.p, (sqlite3_uint64)v->n, del, SQLITE_UTF8);
  case SQLITE_BLOB:
    if (v->n == 0) {
      if (v->own) free((void *)v->v.p);
      return sqlite3_bind_blob64(st, i, "", 0, SQLITE_STATIC);
    }
    return sqlite3_bind_blob64(st, i, v->v.p, (sqlite3_uint64)v->n, del);
  case BRIDGE_ZEROBLOB: return sqlite3_bind_zeroblob64(st, i, (sqlite3_uint64)v->v.i);
  default: return sqlite3_bind_null(st, i);
  }
}

/* Binds the values a[0:n] whose type is not 0 (all of them with all), and
** clears their types. After a failure the owned values left are freed. */
static int bridge_direct_bind(sqlite3_stmt *st, bridge_arg *a, int n, int all) {
  int i, rc = SQLITE_OK;
  for (i = 0; i < n; i++) {
    bridge_arg *v = &a[i];
    if (v->type == 0 && !all) continue;
    if (rc == SQLITE_OK) rc = bridge_direct_bind1(st, i + 1, v);
    else if (v->own) free((void *)v->v.p);
    v->type = 0;
    v->own = 0;
  }
  return rc;
}

int bridge_direct_prepare_run(bridge_direct *d, int flags) {
  sqlite3_stmt *st = d->s->stmt;
  if (flags & BRIDGE_DIRECT_RESET) sqlite3_reset(st);
  if (flags & BRIDGE_DIRECT_CLEAR) sqlite3_clear_bindings(st);
  if (flags & BRIDGE_DIRECT_BIND) return bridge_direct_bind(st, d->args, d->nargs, 0);
  return SQLITE_OK;
}

/* After a step returned a row or the end: describe the columns again if SQLite
** re-prepared the statement. */
static int bridge_direct_shape(bridge_stmt *s) {
  if (sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) != s->reprepares &&
      bridge_columns(s, s->stmt) != SQLITE_OK) {
    sqlite3_reset(s->stmt);
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int bridge_direct_step(bridge_direct *d, int flags, uint64_t gen) {
  bridge_stmt *s = d->s;
  int fresh, rc = flags ? bridge_direct_prepare_run(d, flags) : SQLITE_OK;
  if (rc != SQLITE_OK) return s->rc = rc;
  if (bridge_arm(s->conn, gen)) return s->rc = SQLITE_INTERRUPT;
  s->ahead = s->readonly && bridge_may_step_ahead(s->conn);
  fresh = bridge_unlock_fresh(s->stmt);
  do {
    rc = bridge_run(s);
  } while (fresh && bridge_unlock_retry(s->conn, s->stmt, &rc));
  if (rc == SQLITE_ROW) {
    if (bridge_direct_shape(s) != SQLITE_OK) return s->rc = SQLITE_NOMEM;
    bridge_fill(s);
  } else if (rc == SQLITE_DONE) {
    if (bridge_direct_shape(s) != SQLITE_OK) return s->rc = SQLITE_NOMEM;
    s->changes = sqlite3_changes64(s->conn->db);
    s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  }
  return s->rc = rc;
}

static int bridge_direct_digits(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_FP_DIGITS
  int digits = 17;
  sqlite3_db_config(db, SQLITE_DBCONFIG_FP_DIGITS, 0, &digits); /* 0: only read it */
  return digits;
#else
  /* A system SQLite older than the setting (the libsqlite3 tag) writes a
  ** REAL as text with 15 significant digits. */
  (void)db;
  return 15;
#endif
}

int bridge_direct_format(bridge_direct *d, double v) {
  sqlite3_snprintf((int)sizeof d->num, d->num, "%!.*g", bridge_direct_digits(d->s->conn->db), v);
  return (int)strlen(d->num);
}

/* Whether a row may be followed by others in a batch (see bridge.h): its
** TEXT and BLOB values (size bytes) must be copied out first. *digits is the
** connection's setting for a REAL's text, read at the first FLOAT (-1 until
** then: a scan of integers never asks). */
static int bridge_direct_plain(sqlite3 *db, const bridge_col *row, int ncol, int *digits, sqlite3_int64 size, int used) {
  int i;
  if (size > BRIDGE_BATCH_ROW_BYTES || size > BRIDGE_BATCH_TEXT - used) return 0;
  for (i = 0; i < ncol; i++) {
    switch (row[i].type) {
    case SQLITE_FLOAT:
      if (*digits < 0) *digits = bridge_direct_digits(db);
      /* Below 1e15 with 15 digits or more, "%!.*g" writes an integral value
      ** as SQLite writes a REAL held as an integer: the digits and ".0". */
      if (*digits < 15 || row[i].v.f >= 1e15 || row[i].v.f <= -1e15) return 0;
      break;
    default: break;
    }
  }
  return 1;
}

int bridge_direct_step_batch(bridge_direct *d, int flags, uint64_t gen, int max) {
  bridge_stmt *s = d->s;
  int fresh, n = 0, digits = -1, used = 0, rc = flags ? bridge_direct_prepare_run(d, flags) : SQLITE_OK;
  if (rc != SQLITE_OK) {
    s->rc = rc;
    return 0;
  }
  if (bridge_arm(s->conn, gen)) {
    s->rc = SQLITE_INTERRUPT;
    return 0;
  }
  s->ahead = s->readonly && bridge_may_step_ahead(s->conn);
  if (max < 1 || !s->ahead) max = 1;
  fresh = bridge_unlock_fresh(s->stmt);
  for (;;) {
    bridge_col *row;
    sqlite3_int64 size;
    do {
      rc = bridge_run(s);
    } while (n == 0 && fresh && bridge_unlock_retry(s->conn, s->stmt, &rc));
    if (n == 0 && (rc == SQLITE_ROW || rc == SQLITE_DONE)) {
      if (bridge_direct_shape(s) != SQLITE_OK) {
        s->rc = SQLITE_NOMEM;
        return 0;
      }
      if (rc == SQLITE_ROW && max > s->batch_cap) {
        bridge_col *b = (bridge_col *)realloc(s->batch, (size_t)max * (size_t)s->ncol * sizeof(bridge_col));
        if (!b) {
          sqlite3_reset(s->stmt);
          s->rc = SQLITE_NOMEM;
          return 0;
        }
        s->batch = b;
        s->batch_cap = max;
      }
    }
    if (rc != SQLITE_ROW) break;
    row = s->batch + (size_t)n * (size_t)s->ncol;
    size = bridge_fill_into(s->stmt, row, s->ncol);
    n++;
    if (n == max || !bridge_direct_plain(s->conn->db, row, s->ncol, &digits, size, used)) break;
    if (size) {
      if (!s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) break;
      bridge_copy_out(s, row, &used);
    }
  }
  if (rc == SQLITE_DONE) {
    s->changes = sqlite3_changes64(s->conn->db);
    s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  }
  s->rc = rc;
  return n;
}

/* Steps st to its end; SQLITE_OK when it got there. Its rows are discarded,
** so a run stopped by a shared-cache lock may wait and run again whole. */
static int bridge_direct_run_out(bridge_stmt *s) {
  int rc;
  do {
    do {
      rc = bridge_run(s);
    } while (rc == SQLITE_ROW);
  } while (bridge_unlock_retry(s->conn, s->stmt, &rc));
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int bridge_direct_exec(bridge_direct *d, int flags, uint64_t gen) {
  bridge_stmt *s = d->s;
  int rc = bridge_direct_prepare_run(d, flags | BRIDGE_DIRECT_RESET);
  if (rc != SQLITE_OK) return rc;
  if (bridge_arm(s->conn, gen)) return SQLITE_INTERRUPT;
  rc = bridge_direct_run_out(s);
  s->changes = sqlite3_changes64(s->conn->db);
  s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  /* On error the step's code is kept: reset returns the same one. */
  sqlite3_reset(s->stmt);
  s->rc = SQLITE_DONE;
  return rc;
}

int bridge_direct_exec_rows(bridge_direct *d, int n, uint64_t gen) {
  bridge_stmt *s = d->s;
  sqlite3_int64 changes = 0;
  int k, bound = 0, rc = SQLITE_OK;
  d->done = 0;
  if (n > d->rows_cap && d->nargs > 0) return SQLITE_MISUSE;
  if (bridge_arm(s->conn, gen)) rc = SQLITE_INTERRUPT;
  for (k = 0; k < n && rc == SQLITE_OK; k++) {
    sqlite3_reset(s->stmt);
    bound = k + 1; /* bind consumes the row's values, failing or not */
    rc = bridge_direct_bind(s->stmt, d->rows + (size_t)k * (size_t)d->nargs, d->nargs, 1);
    if (rc == SQLITE_OK) rc = bridge_direct_run_out(s);
    if (rc == SQLITE_OK) {
      changes += sqlite3_changes64(s->conn->db);
      d->done = k + 1;
    }
  }
  if (bound < n && d->nargs > 0) /* after an error: the rows never bound */
    bridge_direct_drop(d->rows + (size_t)bound * (size_t)d->nargs, (n - bound) * d->nargs);
  s->changes = changes;
  s->last_id = sqlite3_last_insert_rowid(s->conn->db);
  sqlite3_reset(s->stmt);
  s->rc = SQLITE_DONE;
  return rc;
}
