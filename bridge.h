/*
** bridge.h: the contract between the Go driver and SQLite.
**
** The bridge exists to make each unit of work one cgo call: one call prepares a
** statement, one call binds every parameter and runs it, one call steps a row and
** describes every column. Go reads results straight out of the C structs below
** (no further cgo calls), and never hands C a Go pointer to keep.
**
** Ownership: bridge_open allocates a bridge_conn, bridge_close frees it and every
** statement still prepared on it. bridge_prepare allocates a bridge_stmt,
** bridge_finalize frees it (exactly once; after bridge_close it must not be called).
*/
#ifndef FASTSQLITE_BRIDGE_H
#define FASTSQLITE_BRIDGE_H

#include <stdint.h>
#include <stdlib.h>

#ifdef USE_LIBSQLITE3
#include <sqlite3.h>
#else
#include "sqlite3-binding.h"
#endif

/* How often (in VDBE ops) the progress handler looks at the interrupt flag. */
#define BRIDGE_PROGRESS_OPS 1000

/* Column classes from the declared type, computed once per statement. */
enum {
  BRIDGE_CLASS_NONE = 0,
  BRIDGE_CLASS_TIME = 1, /* DATE, DATETIME, TIMESTAMP */
  BRIDGE_CLASS_BOOL = 2  /* BOOLEAN */
};

/* One column of the current row, as bridge_step leaves it. Pointers are SQLite's
** and stay valid until the next step, reset or finalize of the statement. */
typedef struct bridge_col {
  union {
    sqlite3_int64 i;
    double f;
    const void *p;
  } v;
  int32_t type; /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB or _NULL */
  int32_t n;    /* byte length of TEXT and BLOB */
} bridge_col;

/* One parameter value, written by Go into bridge_conn.args before bridge_bind. */
typedef struct bridge_arg {
  union {
    sqlite3_int64 i;
    double f;
    const void *p; /* TEXT/BLOB bytes: in bridge_conn.arena, or malloc'd when own != 0 */
  } v;
  int32_t type; /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL, or BRIDGE_ZEROBLOB */
  int32_t own;  /* 1: v.p was malloc'd for this value and SQLite takes ownership */
  sqlite3_int64 n;
} bridge_arg;

#define BRIDGE_ZEROBLOB 100 /* v.i zero bytes */

typedef struct bridge_conn bridge_conn;
typedef struct bridge_stmt bridge_stmt;

struct bridge_stmt {
  sqlite3_stmt *stmt;
  bridge_conn *conn;
  bridge_stmt *prev, *next; /* the connection's list of live statements */
  int ncol, nparam;
  int rc;              /* result of the last step done by bridge_query/bridge_step */
  int shape;           /* bumped when a re-prepare changed the columns; Go re-reads them */
  int reprepares;      /* SQLITE_STMTSTATUS_REPREPARE when the columns were last read */
  sqlite3_int64 changes, last_id; /* set by bridge_exec */
  bridge_col *cols;    /* ncol entries */
  unsigned char *classes; /* ncol entries of BRIDGE_CLASS_* */
  const char **names;  /* ncol entries, filled by bridge_names */
};

struct bridge_conn {
  sqlite3 *db;
  bridge_stmt *stmts;  /* live statements, finalized by bridge_close */

  /* Cancellation. Go gives every cancellable operation a generation number and
  ** passes it to each call that runs SQL (0: not cancellable). When the
  ** operation's context ends, Go stores that generation in cancelled
  ** (atomically, from any goroutine). The progress handler stops the running
  ** statement when cancelled == armed. A stale store can never match a later
  ** operation because generations only grow. */
  uint32_t armed;
  uint32_t *cancelled; /* pinned Go memory, set once after open */
  int watching;        /* progress handler installed */

  /* NUL-terminated copy of the SQL being prepared, so statements are prepared
  ** by offset into one buffer: SQLite copies any SQL that is not NUL-terminated,
  ** which would make multi-statement scripts quadratic. */
  char *sql;
  int sql_len, sql_cap;

  /* Output of bridge_prepare. */
  bridge_stmt *prepared;
  int tail;

  /* Output of bridge_errinfo. */
  int err_code, err_ext, err_errno, err_offset;
  const char *err_msg;

  /* Parameters for the next bridge_bind/bridge_exec/bridge_query, and the arena
  ** their small TEXT/BLOB bytes are copied into. Both are C memory written by Go. */
  bridge_arg *args;
  int args_cap;
  char *arena;
  sqlite3_int64 arena_cap;
};

/* Opens a connection. Always returns SQLITE_NOMEM or sets *out (even on error, so
** the message can be read); the caller then owns it and must bridge_close it. */
int bridge_open(const char *filename, int flags, const char *vfs, int busy_ms, bridge_conn **out);

/* Sets an integer option of the connection (sqlite3_db_config), e.g.
** SQLITE_DBCONFIG_DEFENSIVE. */
int bridge_db_config(bridge_conn *c, int op, int value);

/* Finalizes every live statement and closes the database. Frees c. */
int bridge_close(bridge_conn *c);

/* Prepares the statement starting at byte off of the connection's SQL buffer.
** When sql is not NULL, the buffer is first loaded with sql[0:n]. On SQLITE_OK,
** c->prepared is the new statement (NULL if only whitespace or comments were
** left) and c->tail the byte offset just after it. */
int bridge_prepare(bridge_conn *c, const char *sql, int n, int off, unsigned int flags);

/* Finalizes the statement and frees it. */
void bridge_finalize(bridge_stmt *s);

/* Makes room for n args and arena bytes; returns SQLITE_NOMEM on failure. */
int bridge_reserve(bridge_conn *c, int nargs, sqlite3_int64 arena);

/* Resets s, binds c->args[0:nparam] to it, then steps it to the end.
** Leaves sqlite3_changes64 and sqlite3_last_insert_rowid in s->changes and
** s->last_id, and the statement reset. */
int bridge_exec(bridge_stmt *s, uint32_t gen);

/* Resets s, binds c->args[0:nparam] and steps the first row (into s->cols).
** SQLite re-prepares a statement by itself after a schema change; if that
** happened, the columns are described again first (and s->shape changes). */
int bridge_query(bridge_stmt *s, uint32_t gen);

/* Steps the next row into s->cols. */
int bridge_step(bridge_stmt *s, uint32_t gen);

/* Resets s and clears its bindings, releasing the locks it holds. */
int bridge_reset(bridge_stmt *s);

/* Fills s->names with the column names. */
int bridge_names(bridge_stmt *s);

/* Reports whether table column origin of result column i is declared NOT NULL:
** 1 yes, 0 no, -1 unknown (an expression, or no metadata). */
int bridge_column_notnull(bridge_stmt *s, int i);

/* Copies the details of the last failing call on c into c->err_*. err_msg
** stays valid until the next call on c. */
void bridge_errinfo(bridge_conn *c);

#endif
