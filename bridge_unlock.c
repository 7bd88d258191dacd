/*
** bridge_unlock.c: shared-cache lock waits (sqlite_unlock_notify tag). A part of
** its own because it is compiled in only with the tag: without it
** bridge_unlock_retry and bridge_unlock_fresh are 0, and prepare, exec, query
** and the direct API run a statement once, as before.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Connections that share a cache (cache=shared) lock tables, not the file: a
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

#endif /* BRIDGE_TU */
