/* cfloor.c: the C program's workloads (bench/c/bench.c, included whole
** without its main), one op per call. The statements are prepared on first
** use and kept, as the C program prepares them outside its timed loop. */
#pragma GCC diagnostic ignored "-Wunused-function"
#define BENCH_NO_MAIN
#include "../c/bench.c"
#include "cfloor.h"

/* kept prepares sql on db into *st the first time. */
static int kept(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
  if (*st) return 0;
  return prepare(db, sql, st);
}

int cf_wide_setup(void) { return wide_setup(); }
int cf_int_setup(void) { return int_setup(); }
int cf_point_setup(void) { return point_setup(); }

/* ONE_OP(name, setup, db, sql, op): name runs op once on sql, prepared on
** db (after setup) the first time. */
#define ONE_OP(name, setup, db, sql, op)  \
  int name(void) {                        \
    static sqlite3_stmt *st;              \
    TRY(setup());                         \
    TRY(kept(db, sql, &st));              \
    return op(st);                        \
  }

ONE_OP(cf_exec, suite, suite_db, "select 1", op_exec)
ONE_OP(cf_query, suite, suite_db, "select null, 1, 1.1, 'foo'", read4)
ONE_OP(cf_params, suite, suite_db, "select ?, ?, ?, ?", op_params)
ONE_OP(cf_rows, suite, suite_db, "select * from bench", op_rows)
ONE_OP(cf_stmt10cols, suite, suite_db, "SELECT i1, i2, i3, f1, f2, t1, t2, t3, b, n FROM bench10cols", op_stmt10cols)
ONE_OP(cf_custom, custom_setup, custom_db, "SELECT custom_add(1,2)", op_custom)
ONE_OP(cf_wide_scan, wide_setup, wide_db, "SELECT * FROM wide", op_wide_scan)
ONE_OP(cf_int_scan, int_setup, int_db, "SELECT a, b, c FROM ints", op_int_scan)

int cf_tiny(int64_t key) {
  static sqlite3_stmt *st;
  TRY(suite());
  TRY(kept(suite_db, "SELECT v FROM tiny WHERE id = ?", &st));
  return op_tiny(st, key);
}

int cf_exec_step(void) {
  int64_t a = 0, b = 0;
  TRY(suite());
  return run_script(suite_db, exec_step_script, &a, &b);
}

int cf_query_step(void) {
  int64_t a = 0, b = 0;
  TRY(suite());
  return run_script(suite_db, query_step_script, &a, &b);
}

/* BatchInsert's other statements: BEGIN, COMMIT, ROLLBACK, DELETE. */
int cf_batch_exec(const char *sql) {
  TRY(batch_setup());
  return exec(batch_db, sql);
}

int cf_batch_row(int64_t r) {
  static sqlite3_stmt *st;
  TRY(batch_setup());
  TRY(kept(batch_db, "INSERT INTO batch (id, n, f, s) VALUES (?, ?, ?, ?)", &st));
  return op_batch_row(st, r);
}

int cf_batch_count(int64_t *n) {
  TRY(batch_setup());
  return query_int(batch_db, "SELECT count(*) FROM batch", n);
}

/* cf_point_open opens one pooled connection's own connection to the point
** lookup file, as each C worker thread has one. NULL on failure. */
void *cf_point_open(void) {
  point_worker *w;
  if (point_setup() != 0) return NULL;
  if (!(w = calloc(1, sizeof *w))) return NULL;
  if (point_open(w) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

int cf_point(void *w, int64_t key) { return point_lookup_key((point_worker *)w, key); }

void cf_point_close(void *w) {
  point_worker *pw = (point_worker *)w;
  sqlite3_finalize(pw->st);
  sqlite3_close(pw->db);
  free(pw);
}

const char *cf_error(void) { return errbuf; }

/* Two of the driver's compile options (compile_options.go), which only
** cmd/compare's build passes here. */
int cf_built_with_driver_options(void) {
  return sqlite3_compileoption_used("DEFAULT_MEMSTATUS=0") && sqlite3_compileoption_used("ENABLE_SESSION");
}

void cf_cleanup(void) { remove_tmpdir(); }
