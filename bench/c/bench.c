/*
** bench.c: the workloads of bench/workload done with SQLite's C API directly,
** against the driver's vendored amalgamation (../../sqlite3-binding.c) built
** with the driver's compile options. This is the physical limit: what the
** same SQL costs with no Go, no cgo and no database/sql in the way.
**
** Statements that a Go program would prepare once per query (db.Query) are
** prepared once here too, outside the timed loop, and reset after each use:
** the limit is SQLite's own work, not a given driver's statement caching.
** Scripts (ExecStep, QueryStep) are prepared statement by statement, as
** sqlite3_exec does, because that is inherent to running a script.
**
** Output is Go benchmark format, for benchstat and bench/cmd/compare: wall
** time and process CPU time per op, as the Go programs report them (there is
** no B/op or allocs/op):
**
**   BenchmarkExec-2   1000000   85.3 ns/op   84.9 cpu-ns/op
**
** Usage: bench [-benchtime 1s|100x] [-names A,B,...] [-procs N] [-list]
**
** Written for Linux (pthreads, clock_gettime); built by bench/cmd/compare.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3-binding.h"

/* ---- timing and errors ------------------------------------------------ */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The timed part of a workload runs between timer_start and timer_stop,
 * which add up wall time and process CPU time (all threads) into these. A
 * workload may time several parts; cpu_total < 0 means "do not report". */
static double wall_total, cpu_total, wall_t0, cpu_t0;

static void timer_start(void) {
  cpu_t0 = cpu_ns();
  wall_t0 = now_ns();
}

static void timer_stop(void) {
  wall_total += now_ns() - wall_t0;
  cpu_total += cpu_ns() - cpu_t0;
}

static char errbuf[1024];

static int failf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return -1;
}

/* CK fails the current workload unless rc is want. */
#define CK(db, rc, want)                                                   \
  do {                                                                     \
    int rc_ = (rc);                                                        \
    if (rc_ != (want))                                                     \
      return failf("line %d: rc %d: %s", __LINE__, rc_,                    \
                   (db) ? sqlite3_errmsg(db) : sqlite3_errstr(rc_));       \
  } while (0)

#define TRY(expr)              \
  do {                         \
    if ((expr) != 0) return -1; \
  } while (0)

/* sink keeps the compiler from discarding values read from SQLite. */
static volatile uint64_t sink;

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[256];

static int open_db(sqlite3 **db, const char *name) {
  int rc = sqlite3_open_v2(name, db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                               SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
                           NULL);
  if (rc != SQLITE_OK) return failf("open %s: %s", name, sqlite3_errstr(rc));
  sqlite3_busy_timeout(*db, 5000);
  return 0;
}

static int open_file(sqlite3 **db, const char *name) {
  char path[512];
  if (!tmpdir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/sqlite-bench-c-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
      tmpdir[0] = 0;
      return failf("mkdtemp: %s", strerror(errno));
    }
  }
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return open_db(db, path);
}

static void remove_tmpdir(void) {
  const char *names[] = {"point.db", "point.db-wal", "point.db-shm"};
  char path[512];
  if (!tmpdir[0]) return;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
    unlink(path);
  }
  rmdir(tmpdir);
}

static int exec(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    failf("%.60s: %s", sql, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
  CK(db, sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL), SQLITE_OK);
  return 0;
}

/* query_int runs sql and returns its first column of its first row in out. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out) {
  sqlite3_stmt *st;
  TRY(prepare(db, sql, &st));
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  CK(db, rc, SQLITE_ROW);
  return 0;
}

/* A workload runs n ops, timing them with timer_start and timer_stop. */
typedef int (*workload_fn)(long n);

/* ---- the suite: mattn's BenchmarkSuite and the driver's additions ------- */

#define STEP_STMTS 1000

static sqlite3 *suite_db;
static char *exec_step_script, *query_step_script;

static char *step_script(int n, const char *tail) {
  size_t cap = 64 + (size_t)n * 64 + strlen(tail);
  char *s = malloc(cap), *p = s;
  int inserts = n - 1 - (*tail ? 1 : 0);
  p += sprintf(p, "DELETE FROM bench_step;\n");
  for (int i = 0; i < inserts; i++) p += sprintf(p, "INSERT INTO bench_step (x) VALUES (%d);\n", i);
  strcpy(p, tail);
  return s;
}

static int suite(void) {
  if (suite_db) return 0;
  sqlite3 *db;
  TRY(open_db(&db, ":memory:"));
  TRY(exec(db,
           "CREATE TABLE bench10cols (i1 INTEGER, i2 INTEGER, i3 INTEGER,"
           "  f1 REAL, f2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB, n TEXT);"
           "INSERT INTO bench10cols VALUES (42, -7, 9007199254740993,"
           "  3.25, -0.000125, 'alpha', 'The quick brown fox jumps over the lazy dog',"
           "  'naïve café ✓', x'000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', NULL);"
           "CREATE TABLE bench_step (x INTEGER);"
           "create table bench (n varchar(32), i integer, d double, s varchar(32), t datetime);"
           "CREATE TABLE tiny (id INTEGER PRIMARY KEY, v INTEGER NOT NULL);"
           "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 1000)"
           "  INSERT INTO tiny SELECT x, x*1000 FROM r;"));
  sqlite3_stmt *st;
  TRY(prepare(db, "insert into bench values (?, ?, ?, ?, ?)", &st));
  for (int i = 0; i < 100; i++) {
    char s[16];
    snprintf(s, sizeof s, "%d", i);
    sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, i);
    sqlite3_bind_double(st, 3, i);
    sqlite3_bind_text(st, 4, s, -1, SQLITE_TRANSIENT);
    /* The text a Go driver binds for time.Now(). */
    sqlite3_bind_text(st, 5, "2025-01-02 15:04:05.123456789+00:00", -1, SQLITE_STATIC);
    CK(db, sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  exec_step_script = step_script(STEP_STMTS, "");
  query_step_script = step_script(STEP_STMTS, "SELECT count(*), sum(x) FROM bench_step;");
  suite_db = db;
  return 0;
}

/* The op_* functions are one op of a workload, on statements its wl_*
 * function prepared; bench/cfloor calls them once per database/sql call. */
static int op_exec(sqlite3_stmt *st) {
  CK(suite_db, sqlite3_step(st), SQLITE_ROW);
  sqlite3_reset(st);
  return 0;
}

static int wl_exec(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "select 1", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_exec(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* read4 reads the row of "select null, 1, 1.1, 'foo'" and of Params. */
static int read4(sqlite3_stmt *st) {
  CK(suite_db, sqlite3_step(st), SQLITE_ROW);
  uint64_t v = (uint64_t)sqlite3_column_type(st, 0);
  v += (uint64_t)sqlite3_column_int64(st, 1);
  v += (uint64_t)sqlite3_column_double(st, 2);
  const unsigned char *s = sqlite3_column_text(st, 3);
  v += (uint64_t)sqlite3_column_bytes(st, 3) + s[0];
  sink += v;
  sqlite3_reset(st);
  return 0;
}

static int wl_query(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "select null, 1, 1.1, 'foo'", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(read4(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* Params and Stmt are the same thing in C: bind, step, read, reset. */
static int op_params(sqlite3_stmt *st) {
  sqlite3_bind_null(st, 1);
  sqlite3_bind_int64(st, 2, 1);
  sqlite3_bind_double(st, 3, 1.1);
  sqlite3_bind_text(st, 4, "foo", 3, SQLITE_STATIC);
  return read4(st);
}

static int wl_params(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "select ?, ?, ?, ?", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_params(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* PreparedQueryRow: one INTEGER by primary key, keys cycling through the
 * 1,000 rows of "tiny". */
#define TINY_ROWS 1000

static int op_tiny(sqlite3_stmt *st, int64_t key) {
  sqlite3_bind_int64(st, 1, key);
  CK(suite_db, sqlite3_step(st), SQLITE_ROW);
  sink += (uint64_t)sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  return 0;
}

static int wl_tiny(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "SELECT v FROM tiny WHERE id = ?", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_tiny(st, i % TINY_ROWS + 1));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* Rows and StmtRows: 100 rows of (NULL, int, double, text, datetime text). */
static int op_rows(sqlite3_stmt *st) {
  int rows = 0, rc;
  uint64_t v = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    v += (uint64_t)sqlite3_column_type(st, 0);
    v += (uint64_t)sqlite3_column_int64(st, 1);
    v += (uint64_t)sqlite3_column_double(st, 2);
    v += (uint64_t)sqlite3_column_text(st, 3)[0] + (uint64_t)sqlite3_column_bytes(st, 3);
    v += (uint64_t)sqlite3_column_text(st, 4)[0] + (uint64_t)sqlite3_column_bytes(st, 4);
    rows++;
  }
  CK(suite_db, rc, SQLITE_DONE);
  if (rows != 100) return failf("scanned %d rows of bench, want 100", rows);
  sink += v;
  sqlite3_reset(st);
  return 0;
}

static int wl_rows(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "select * from bench", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_rows(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

static int op_stmt10cols(sqlite3_stmt *st) {
  CK(suite_db, sqlite3_step(st), SQLITE_ROW);
  uint64_t v = 0;
  for (int c = 0; c < 3; c++) v += (uint64_t)sqlite3_column_int64(st, c);
  for (int c = 3; c < 5; c++) v += (uint64_t)sqlite3_column_double(st, c);
  for (int c = 5; c < 8; c++) v += (uint64_t)sqlite3_column_text(st, c)[0] + (uint64_t)sqlite3_column_bytes(st, c);
  v += (uint64_t)((const unsigned char *)sqlite3_column_blob(st, 8))[1] + (uint64_t)sqlite3_column_bytes(st, 8);
  v += (uint64_t)sqlite3_column_type(st, 9);
  sink += v;
  sqlite3_reset(st);
  return 0;
}

static int wl_stmt10cols(long n) {
  sqlite3_stmt *st;
  TRY(suite());
  TRY(prepare(suite_db, "SELECT i1, i2, i3, f1, f2, t1, t2, t3, b, n FROM bench10cols", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_stmt10cols(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* run_script prepares, steps and finalizes each statement of sql in turn;
 * the values of the last row of the last statement go to a and b. */
static int run_script(sqlite3 *db, const char *sql, int64_t *a, int64_t *b) {
  const char *tail = sql;
  while (*tail) {
    sqlite3_stmt *st;
    CK(db, sqlite3_prepare_v2(db, tail, -1, &st, &tail), SQLITE_OK);
    if (!st) continue; /* whitespace or a comment */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      *a = sqlite3_column_int64(st, 0);
      *b = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    CK(db, rc, SQLITE_DONE);
  }
  return 0;
}

static int wl_exec_step(long n) {
  int64_t a = 0, b = 0, count;
  TRY(suite());
  timer_start();
  for (long i = 0; i < n; i++) TRY(run_script(suite_db, exec_step_script, &a, &b));
  timer_stop();
  TRY(query_int(suite_db, "SELECT count(*) FROM bench_step", &count));
  if (count != STEP_STMTS - 1) return failf("script inserted %lld rows", (long long)count);
  return 0;
}

static int wl_query_step(long n) {
  const int64_t inserted = STEP_STMTS - 2;
  TRY(suite());
  timer_start();
  for (long i = 0; i < n; i++) {
    int64_t count = 0, sum = 0;
    TRY(run_script(suite_db, query_step_script, &count, &sum));
    if (count != inserted || sum != inserted * (inserted - 1) / 2)
      return failf("count %lld, sum %lld", (long long)count, (long long)sum);
  }
  timer_stop();
  return 0;
}

static void custom_add(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]) + sqlite3_value_int64(argv[1]));
}

static sqlite3 *custom_db;

static int custom_setup(void) {
  if (custom_db) return 0;
  TRY(open_db(&custom_db, ":memory:"));
  /* Not SQLITE_DETERMINISTIC, as in mattn's benchmark. */
  CK(custom_db, sqlite3_create_function(custom_db, "custom_add", 2, SQLITE_UTF8, NULL, custom_add, NULL, NULL),
     SQLITE_OK);
  return 0;
}

static int op_custom(sqlite3_stmt *st) {
  CK(custom_db, sqlite3_step(st), SQLITE_ROW);
  sink += (uint64_t)sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  return 0;
}

static int wl_custom_functions(long n) {
  sqlite3_stmt *st;
  TRY(custom_setup());
  TRY(prepare(custom_db, "SELECT custom_add(1,2)", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_custom(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* ---- scans and bulk insert ------------------------------------------------ */

#define WIDE_ROWS 20000
#define WIDE_COLS 30
#define WIDE_WIDTH 64
#define INT_ROWS 1000000
#define BATCH_ROWS 100000

/* Both WideScan variants read each value's pointer and length: C has no
 * string conversion to tell String and RawBytes apart. */
static sqlite3 *wide_db;

static int wide_setup(void) {
  char sql[8192], *p = sql;
  if (wide_db) return 0;
  TRY(open_db(&wide_db, ":memory:"));
  p += sprintf(p, "CREATE TABLE wide (");
  for (int i = 0; i < WIDE_COLS; i++) p += sprintf(p, "%sc%02d TEXT", i ? ", " : "", i);
  p += sprintf(p, "); WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d) "
                  "INSERT INTO wide SELECT ", WIDE_ROWS);
  for (int i = 0; i < WIDE_COLS; i++)
    p += sprintf(p, "%sprintf('%02d%%0%dd', x)", i ? ", " : "", i, WIDE_WIDTH - 2);
  sprintf(p, " FROM r");
  return exec(wide_db, sql);
}

static int op_wide_scan(sqlite3_stmt *st) {
  int rows = 0, rc;
  uint64_t v = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < WIDE_COLS; c++)
      v += (uint64_t)sqlite3_column_text(st, c)[WIDE_WIDTH - 1] + (uint64_t)sqlite3_column_bytes(st, c);
    rows++;
  }
  CK(wide_db, rc, SQLITE_DONE);
  if (rows != WIDE_ROWS) return failf("scanned %d rows", rows);
  sink += v;
  sqlite3_reset(st);
  return 0;
}

static int wl_wide_scan(long n) {
  sqlite3_stmt *st;
  TRY(wide_setup());
  TRY(prepare(wide_db, "SELECT * FROM wide", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_wide_scan(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

static sqlite3 *int_db;

static int int_setup(void) {
  char sql[512];
  if (int_db) return 0;
  TRY(open_db(&int_db, ":memory:"));
  snprintf(sql, sizeof sql,
           "CREATE TABLE ints (a INTEGER, b INTEGER, c REAL);"
           "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)"
           " INSERT INTO ints SELECT x, x*3 - 1000, x*0.25 FROM r",
           INT_ROWS);
  return exec(int_db, sql);
}

static int op_int_scan(sqlite3_stmt *st) {
  int rows = 0, rc;
  uint64_t v = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    v += (uint64_t)sqlite3_column_int64(st, 0) + (uint64_t)sqlite3_column_int64(st, 1) +
         (uint64_t)sqlite3_column_double(st, 2);
    rows++;
  }
  CK(int_db, rc, SQLITE_DONE);
  if (rows != INT_ROWS) return failf("scanned %d rows", rows);
  sink += v;
  sqlite3_reset(st);
  return 0;
}

static int wl_int_scan(long n) {
  sqlite3_stmt *st;
  TRY(int_setup());
  TRY(prepare(int_db, "SELECT a, b, c FROM ints", &st));
  timer_start();
  for (long i = 0; i < n; i++) TRY(op_int_scan(st));
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

/* BatchInsert: BEGIN, prepare, 100,000 × (bind, step, reset), COMMIT, as the
 * Go workload does through tx.Prepare and st.Exec. Emptying the table before
 * each op is not timed. */
static sqlite3 *batch_db;

static int batch_setup(void) {
  if (batch_db) return 0;
  TRY(open_db(&batch_db, ":memory:"));
  return exec(batch_db, "CREATE TABLE batch (id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT)");
}

static int op_batch_row(sqlite3_stmt *st, int64_t r) {
  sqlite3_bind_int64(st, 1, r);
  sqlite3_bind_int64(st, 2, r * 7);
  sqlite3_bind_double(st, 3, (double)r * 0.5);
  sqlite3_bind_text(st, 4, "batch insert payload", -1, SQLITE_STATIC);
  CK(batch_db, sqlite3_step(st), SQLITE_DONE);
  sqlite3_reset(st);
  return 0;
}

static int wl_batch_insert(long n) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int64_t count;
  TRY(batch_setup());
  db = batch_db;
  for (long i = 0; i < n; i++) {
    TRY(exec(db, "DELETE FROM batch"));
    timer_start();
    TRY(exec(db, "BEGIN"));
    CK(db, sqlite3_prepare_v2(db, "INSERT INTO batch (id, n, f, s) VALUES (?, ?, ?, ?)", -1, &st, NULL), SQLITE_OK);
    for (int r = 0; r < BATCH_ROWS; r++) TRY(op_batch_row(st, r));
    sqlite3_finalize(st);
    TRY(exec(db, "COMMIT"));
    timer_stop();
  }
  TRY(query_int(db, "SELECT count(*) FROM batch", &count));
  if (count != BATCH_ROWS) return failf("batch has %lld rows", (long long)count);
  return 0;
}

/* ---- point lookups on a WAL file ----------------------------------------- */

#define POINT_ROWS 100000
#define POINT_WORKERS 8

/* The same key generator as the Go workload's xorshift. */
static int64_t next_key(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return (int64_t)(*x % POINT_ROWS) + 1;
}

static int point_ready;

static int point_setup(void) {
  sqlite3 *db;
  char sql[512];
  int64_t count;
  if (point_ready) return 0;
  TRY(open_file(&db, "point.db"));
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode=WAL;"
           "CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL);"
           "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)"
           " INSERT INTO kv SELECT x, printf('value-%%d', x) FROM r;"
           "PRAGMA wal_checkpoint(TRUNCATE);",
           POINT_ROWS);
  TRY(exec(db, sql));
  TRY(query_int(db, "SELECT count(*) FROM kv", &count));
  if (count != POINT_ROWS) return failf("kv has %lld rows", (long long)count);
  /* Keep this connection open, as the Go pool keeps its connections. */
  point_ready = 1;
  return 0;
}

typedef struct {
  sqlite3 *db;
  sqlite3_stmt *st;
  uint64_t seed, sum; /* sum: this worker's sink, not shared between threads */
  long *next, n;
  int failed;
  char pad[64]; /* keep workers on separate cache lines */
} point_worker;

static int point_open(point_worker *w) {
  TRY(open_file(&w->db, "point.db"));
  TRY(prepare(w->db, "SELECT v FROM kv WHERE id = ?", &w->st));
  return 0;
}

static int point_lookup_key(point_worker *w, int64_t key) {
  sqlite3_bind_int64(w->st, 1, key);
  CK(w->db, sqlite3_step(w->st), SQLITE_ROW);
  if (sqlite3_column_bytes(w->st, 0) == 0) return failf("empty value");
  w->sum += sqlite3_column_text(w->st, 0)[6];
  sqlite3_reset(w->st);
  return 0;
}

static int point_lookup(point_worker *w) { return point_lookup_key(w, next_key(&w->seed)); }

static void *point_thread(void *arg) {
  point_worker *w = arg;
  while (__atomic_add_fetch(w->next, 1, __ATOMIC_RELAXED) <= w->n) {
    if (point_lookup(w) != 0) {
      w->failed = 1;
      break;
    }
  }
  return NULL;
}

static point_worker workers[POINT_WORKERS];

static int point_lookup_n(long n, int nworkers) {
  TRY(point_setup());
  for (int i = 0; i < nworkers; i++) {
    if (!workers[i].db) TRY(point_open(&workers[i]));
    workers[i].seed = (uint64_t)i + 1;
  }
  if (nworkers == 1) {
    timer_start();
    for (long i = 0; i < n; i++) TRY(point_lookup(&workers[0]));
    timer_stop();
    return 0;
  }
  pthread_t th[POINT_WORKERS];
  long next = 0;
  timer_start();
  for (int i = 0; i < nworkers; i++) {
    workers[i].next = &next;
    workers[i].n = n;
    workers[i].failed = 0;
    if (pthread_create(&th[i], NULL, point_thread, &workers[i]) != 0) return failf("pthread_create");
  }
  for (int i = 0; i < nworkers; i++) pthread_join(th[i], NULL);
  timer_stop();
  for (int i = 0; i < nworkers; i++) sink += workers[i].sum;
  for (int i = 0; i < nworkers; i++)
    if (workers[i].failed) return failf("worker %d: %s", i, sqlite3_errmsg(workers[i].db));
  return 0;
}

static int wl_point1(long n) { return point_lookup_n(n, 1); }
static int wl_point8(long n) { return point_lookup_n(n, POINT_WORKERS); }

/* ---- context: a CPU-bound query, with and without a progress handler ----- */

#define CONTEXT_COUNT 100000

static volatile int never_cancelled;

static int progress(void *arg) {
  (void)arg;
  return never_cancelled;
}

static int context_query(long n, int cancellable) {
  static sqlite3 *db;
  sqlite3_stmt *st;
  char sql[256];
  if (!db) TRY(open_db(&db, ":memory:"));
  /* What a cancellable C program does: poll a flag every 100 VDBE ops, as the driver. */
  sqlite3_progress_handler(db, cancellable ? 100 : 0, cancellable ? progress : NULL, NULL);
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d) SELECT count(*) FROM c",
           CONTEXT_COUNT);
  TRY(prepare(db, sql, &st));
  timer_start();
  for (long i = 0; i < n; i++) {
    CK(db, sqlite3_step(st), SQLITE_ROW);
    if (sqlite3_column_int64(st, 0) != CONTEXT_COUNT) return failf("wrong count");
    sqlite3_reset(st);
  }
  timer_stop();
  sqlite3_finalize(st);
  return 0;
}

static int wl_context_background(long n) { return context_query(n, 0); }
static int wl_context_cancellable(long n) { return context_query(n, 1); }

/* ---- CancelLatency: sqlite3_interrupt from another thread ----------------- */

typedef struct {
  sqlite3 *db;
  sqlite3_stmt *st;
  int rc, started;
  double end;
} cancel_job;

static void *cancel_thread(void *arg) {
  cancel_job *j = arg;
  __atomic_store_n(&j->started, 1, __ATOMIC_RELEASE);
  j->rc = sqlite3_step(j->st);
  j->end = now_ns();
  sqlite3_reset(j->st);
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The query runs for 2 ms (untimed) before it is interrupted; the median time
 * from sqlite3_interrupt to sqlite3_step returning is reported (as n times
 * itself, since the caller divides by n), as in the Go workload. */
static int wl_cancel_latency(long n) {
  static sqlite3 *db;
  cancel_job j;
  if (!db) TRY(open_db(&db, ":memory:"));
  j.db = db;
  TRY(prepare(db,
              "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000000)"
              " SELECT count(*) FROM c",
              &j.st));
  double *lat = malloc((size_t)n * sizeof *lat);
  if (!lat) return failf("out of memory");
  for (long i = 0; i < n; i++) {
    pthread_t th;
    struct timespec delay = {0, 2000000};
    j.started = 0;
    if (pthread_create(&th, NULL, cancel_thread, &j) != 0) return failf("pthread_create");
    /* An interrupt that comes before sqlite3_step starts is forgotten. */
    while (!__atomic_load_n(&j.started, __ATOMIC_ACQUIRE)) sched_yield();
    nanosleep(&delay, NULL);
    double t0 = now_ns();
    sqlite3_interrupt(db);
    pthread_join(th, NULL);
    if (j.rc != SQLITE_INTERRUPT) {
      free(lat);
      return failf("step returned %d, want SQLITE_INTERRUPT", j.rc);
    }
    lat[i] = j.end - t0;
  }
  qsort(lat, (size_t)n, sizeof *lat, cmp_double);
  wall_total = lat[n / 2] * (double)n;
  cpu_total = -1;
  free(lat);
  sqlite3_finalize(j.st);
  return 0;
}

/* ---- driver --------------------------------------------------------------- */

/* bench/cfloor includes this file for its workloads, with BENCH_NO_MAIN. */
#ifndef BENCH_NO_MAIN

typedef struct {
  const char *name;
  workload_fn fn;     /* NULL: no C equivalent */
  const char *why;    /* why not, when fn is NULL */
  long per_op;        /* rows or statements per op, for the extra metric */
  const char *unit;   /* that metric's unit */
} workload;

#define SHAPE "an application-shaped workload; the C program has none"

/* The same names and order as bench/workload.All. */
static const workload all[] = {
    {"Exec", wl_exec, NULL, 0, NULL},
    {"Query", wl_query, NULL, 0, NULL},
    {"Params", wl_params, NULL, 0, NULL},
    {"Stmt", wl_params, NULL, 0, NULL},
    {"Rows", wl_rows, NULL, 0, NULL},
    {"StmtRows", wl_rows, NULL, 0, NULL},
    {"Stmt10Cols", wl_stmt10cols, NULL, 0, NULL},
    {"ExecStep", wl_exec_step, NULL, STEP_STMTS, "ns/stmt"},
    {"QueryStep", wl_query_step, NULL, STEP_STMTS, "ns/stmt"},
    {"QueryParallel", NULL, "it measures a database/sql connection pool", 0, NULL},
    {"CustomFunctions", wl_custom_functions, NULL, 0, NULL},
    {"WideScan/String", wl_wide_scan, NULL, WIDE_ROWS, "ns/row"},
    {"WideScan/RawBytes", wl_wide_scan, NULL, WIDE_ROWS, "ns/row"},
    {"IntScan", wl_int_scan, NULL, INT_ROWS, "ns/row"},
    {"BatchInsert", wl_batch_insert, NULL, BATCH_ROWS, "ns/row"},
    /* The direct APIs' bulk paths against C's own fastest: the same loop. */
    {"BatchInsert/Bulk", wl_batch_insert, NULL, BATCH_ROWS, "ns/row"},
    {"PointLookup/1", wl_point1, NULL, 0, NULL},
    {"PointLookup/8", wl_point8, NULL, 0, NULL},
    {"PreparedQueryRow", wl_tiny, NULL, 0, NULL},
    {"Context/Background", wl_context_background, NULL, 0, NULL},
    {"Context/Cancellable", wl_context_cancellable, NULL, 0, NULL},
    {"CancelLatency", wl_cancel_latency, NULL, 0, NULL},
    /* The application-shaped workloads (bench/workload/shapes.go) measure
     * drivers against each other; they have no C program. */
    {"ReadOnlyTx/1", NULL, SHAPE, 0, NULL},
    {"ReadOnlyTx/10", NULL, SHAPE, 0, NULL},
    {"PointLookup/Stmt", NULL, SHAPE, 0, NULL},
    {"Populate", NULL, SHAPE, 0, NULL},
    {"Blog/writes=10/tx=no", NULL, SHAPE, 0, NULL},
    {"Blog/writes=10/tx=yes", NULL, SHAPE, 0, NULL},
    {"Blog/writes=90/tx=no", NULL, SHAPE, 0, NULL},
    {"Blog/writes=90/tx=yes", NULL, SHAPE, 0, NULL},
    {"Analytic/JSON", NULL, SHAPE, 0, NULL},
    {"Analytic/Window", NULL, SHAPE, 0, NULL},
    {"Analytic/GroupBy", NULL, SHAPE, 0, NULL},
};
#define NWORKLOADS (sizeof all / sizeof all[0])

static double bench_seconds = 1; /* -benchtime as a duration */
static long bench_count;         /* -benchtime as Nx */

static int parse_benchtime(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v <= 0) return -1;
  if (!strcmp(end, "x")) {
    bench_count = (long)v;
    return 0;
  }
  double unit = !strcmp(end, "s") ? 1 : !strcmp(end, "ms") ? 1e-3 : !strcmp(end, "us") ? 1e-6
              : !strcmp(end, "ns") ? 1e-9 : !strcmp(end, "m") ? 60 : 0;
  if (unit == 0) return -1;
  bench_seconds = v * unit;
  return 0;
}

/* call runs w->fn(n) and returns its wall time, timed part or not. */
static int call(const workload *w, long n, double *wall) {
  wall_total = cpu_total = 0;
  double t0 = now_ns();
  TRY(w->fn(n));
  *wall = now_ns() - t0;
  return 0;
}

/* run1 runs w the way testing.B does: a warm-up op, a probe of one, then
 * growing counts until one run takes at least the benchmark time; that last
 * run is the result, left in wall_total and cpu_total. Growth is predicted
 * from the whole call's wall time, which for CancelLatency includes the
 * untimed delay before each cancel. */
static int run1(const workload *w, long *n_out) {
  long n = 1;
  double wall;
  TRY(call(w, 1, &wall)); /* the first call builds the workload's fixtures */
  TRY(call(w, 1, &wall));
  if (bench_count > 0) {
    n = bench_count;
    TRY(call(w, n, &wall));
  } else {
    double goal = bench_seconds * 1e9;
    while (wall < goal && n < 1000000000L) {
      long prev = n;
      double per = wall / (double)prev;
      if (per < 1) per = 1;
      double want = goal / per * 1.2;
      if (want > 100.0 * (double)prev) want = 100.0 * (double)prev;
      n = (long)want;
      if (n <= prev) n = prev + 1;
      if (n > 1000000000L) n = 1000000000L;
      TRY(call(w, n, &wall));
    }
  }
  *n_out = n;
  return 0;
}

/* print_value prints a metric the way Go's benchmark lines do. */
static void print_value(double v, const char *unit) {
  if (v >= 100)
    printf("%.0f %s", v, unit);
  else
    printf("%.3g %s", v, unit);
}

static int wanted(const char *names, const char *name) {
  if (!names || !*names) return 1;
  size_t len = strlen(name);
  for (const char *p = names; *p;) {
    const char *comma = strchr(p, ',');
    size_t l = comma ? (size_t)(comma - p) : strlen(p);
    if (l == len && !strncmp(p, name, len)) return 1;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: bench [-benchtime 1s|100x] [-names A,B,...] [-procs N] [-list]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *names = NULL;
  long procs = sysconf(_SC_NPROCESSORS_ONLN);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] == '-') a++;
    if (!strcmp(a, "-list")) {
      for (size_t k = 0; k < NWORKLOADS; k++) puts(all[k].name);
      return 0;
    }
    if (i + 1 >= argc) usage();
    if (!strcmp(a, "-benchtime")) {
      if (parse_benchtime(argv[++i]) != 0) usage();
    } else if (!strcmp(a, "-names")) {
      names = argv[++i];
    } else if (!strcmp(a, "-procs")) {
      procs = atol(argv[++i]);
    } else {
      usage();
    }
  }
  if (names) {
    /* Every requested name must exist, as in the Go programs. */
    for (const char *p = names; *p;) {
      const char *comma = strchr(p, ',');
      size_t l = comma ? (size_t)(comma - p) : strlen(p);
      int found = 0;
      for (size_t k = 0; k < NWORKLOADS; k++)
        if (strlen(all[k].name) == l && !strncmp(all[k].name, p, l)) found = 1;
      if (!found) {
        fprintf(stderr, "unknown workload %.*s\n", (int)l, p);
        return 2;
      }
      if (!comma) break;
      p = comma + 1;
    }
  }

  printf("goos: linux\npkg: github.com/fastsqlite/sqlite3/bench\ndriver: c\n");
  printf("# SQLite %s, compiled with the driver's options\n", sqlite3_libversion());
  int failed = 0;
  for (size_t k = 0; k < NWORKLOADS; k++) {
    const workload *w = &all[k];
    if (!wanted(names, w->name)) continue;
    if (!w->fn) {
      printf("# SKIP Benchmark%s: %s\n", w->name, w->why);
      continue;
    }
    long n;
    errbuf[0] = 0;
    if (run1(w, &n) != 0) {
      printf("# FAIL Benchmark%s: %s\n", w->name, errbuf);
      failed = 1;
      continue;
    }
    printf("Benchmark%s-%ld\t%8ld\t", w->name, procs, n);
    print_value(wall_total / (double)n, "ns/op");
    if (cpu_total >= 0) {
      printf("\t");
      print_value(cpu_total / (double)n, "cpu-ns/op");
    }
    if (w->unit) {
      printf("\t");
      print_value(wall_total / (double)n / (double)w->per_op, w->unit);
    }
    printf("\n");
    fflush(stdout);
  }
  remove_tmpdir();
  return failed;
}
#endif /* BENCH_NO_MAIN */
