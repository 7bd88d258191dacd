/* cfloor.h: one op of a C workload (bench/c/bench.c) per call, for the
** database/sql driver of package cfloor. Each returns 0, or -1 with the
** reason in cf_error(). */
#include <stdint.h>

/* The large fixtures, built by the workloads' fill statements, untimed. */
int cf_wide_setup(void);
int cf_int_setup(void);
int cf_point_setup(void);

int cf_exec(void);
int cf_query(void);
int cf_params(void);
int cf_rows(void);
int cf_stmt10cols(void);
int cf_exec_step(void);
int cf_query_step(void);
int cf_custom(void);
int cf_wide_scan(void);
int cf_int_scan(void);
int cf_tiny(int64_t key);
int cf_batch_exec(const char *sql);
int cf_batch_row(int64_t r);
int cf_batch_count(int64_t *n);
void *cf_point_open(void);
int cf_point(void *worker, int64_t key);
void cf_point_close(void *worker);
const char *cf_error(void);
int cf_built_with_driver_options(void);
void cf_cleanup(void);
