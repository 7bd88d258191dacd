/*
** bridge.h: the contract between the Go driver and SQLite.
**
** The bridge exists to make each unit of work one cgo call: one call prepares a
** statement, one call binds every parameter and runs it, one call steps a row and
** describes every column, one call runs the parameterless statements of a script.
** Go reads results straight out of the C structs below (no further cgo calls),
** and never hands C a Go pointer to keep.
**
** Ownership: bridge_open allocates a bridge_conn, bridge_close frees it and every
** statement still prepared on it. bridge_prepare and bridge_exec_script allocate
** a bridge_stmt (c->prepared), bridge_finalize frees it (exactly once; after
** bridge_close it must not be called). The statements bridge_exec_script runs
** itself are finalized before it returns.
*/
#ifndef FASTSQLITE_BRIDGE_H
#define FASTSQLITE_BRIDGE_H

#include <stdint.h>
#include <stdlib.h>

/* USE_LIBSQLITE3 with BRIDGE_UNITY is the default build: it only stops the
** amalgamation's own compile (bridge.c compiles it), so the header is ours. */
#if defined(USE_LIBSQLITE3) && !defined(BRIDGE_UNITY)
#include <sqlite3.h>
#else
#undef USE_LIBSQLITE3
#include "sqlite3-binding.h"
#endif

/* How often (in VDBE ops) the progress handler looks at the interrupt flag.
** At 100 the wait between cancel and the statement stopping is under a
** microsecond (an op is ~7.5 ns on a CPU-bound CTE), against ~7.5 us at 1000,
** which put cancel latency above mattn's immediate sqlite3_interrupt; the
** handler's call (two loads and a compare) every 100 ops stays unmeasurable. */
#define BRIDGE_PROGRESS_OPS 100

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

/* Bound TEXT and BLOB values of this many bytes or more (together) are
** released when a run ends or the statement is reset, so that an idle
** statement (in the statement cache) does not keep them; smaller ones stay
** until the next run binds over them, which costs nothing, while clearing
** them would make SQLite compile again a statement whose plan depends on a
** bound value (bridge_bound_same). So an idle statement holds at most its
** own last arguments, under this many bytes of them. Go's SQLiteRows.Close
** reads the same limit. */
#define BRIDGE_KEEP_BOUND (64 << 10)

/* The parameter array and arena (bridge_conn.args, .arena) are freed once
** bound when they have grown past these sizes, so that one statement with
** thousands of parameters does not leave its high-water mark to a pooled
** connection; below them they stay for the next bind, which costs nothing.
** SQLite copies what is bound from them (SQLITE_TRANSIENT). */
#define BRIDGE_KEEP_ARGS (64 << 10)
#define BRIDGE_KEEP_ARENA (1 << 20)

/* Batches of rows with TEXT or BLOB values (bridge_step_batch): a row is
** copied out of SQLite's memory when its values have at most this many bytes
** (longer ones cost more to copy than the cgo call a row saves), into a buffer
** of this size per statement. */
#define BRIDGE_BATCH_ROW_BYTES 256
#define BRIDGE_BATCH_TEXT (4 << 10)

/* The connection's word block: C memory that Go allocates with the connection
** (bridge_word_new) and frees only when nothing refers to it any more, so that
** it outlives bridge_close. cancelled is the cancellation word (see
** bridge_conn.armed). depth and thread mark the step or prepare in progress:
** the connection's exclusion (Go's lifetime.go) tells, with
** bridge_nested_here, a callback of that step running SQL on its connection
** (same thread, inside a step) from another thread waiting its turn. */
typedef struct bridge_word {
  uint64_t cancelled;
  const void *thread; /* the thread of the innermost step or prepare (a thread-local's address) */
  int depth;          /* bridge_conn.depth, stored with release ordering after thread */
} bridge_word;

/* A zeroed word block, or NULL; freed with free(). */
bridge_word *bridge_word_new(void);

/* Non-zero when the calling thread is inside a step or prepare of the
** connection whose word block w is: the caller is a callback of it. */
int bridge_nested_here(bridge_word *w);

typedef struct bridge_conn bridge_conn;
typedef struct bridge_stmt bridge_stmt;

/* Who held a lock that a connection was refused (bridge_share_holder.c,
** LockHolder in Go's lockholder.go). */
#define BRIDGE_HOLDER_SQL 200
typedef struct bridge_holder {
  int kind;       /* BRIDGE_HOLDER_*: 0 none seen */
  int reading;    /* it holds a read lock (a commit waits for readers), not the write lock */
  int64_t conn;   /* BRIDGE_HOLDER_CONN: the connection's number (bridge_conn.id) */
  int64_t held_ns; /* how long it had held the write lock (0: unknown) */
  int pid;        /* BRIDGE_HOLDER_PROCESS: its process (0: unknown) */
  int sql_len;    /* bytes of sql */
  int sql_cut;    /* sql is the first BRIDGE_HOLDER_SQL bytes of a longer text */
  char sql[BRIDGE_HOLDER_SQL + 1]; /* the first statement of its transaction, as far as seen */
} bridge_holder;
#define BRIDGE_HOLDER_CONN 1    /* a connection of this process, through the driver's VFS */
#define BRIDGE_HOLDER_PROCESS 2 /* another process (pid when the OS tells it) */
typedef struct bridge_file bridge_file;   /* bridge_share.c */
typedef struct bridge_vfile bridge_vfile; /* bridge_share.c */

struct bridge_stmt {
  sqlite3_stmt *stmt;
  bridge_conn *conn;
  bridge_stmt *prev, *next; /* the connection's list of live statements */
  int ncol, nparam;
  int rc;              /* result of the last step done by bridge_query/bridge_step */
  int after;           /* 0, or the result of the step bridge_query took past its row when
                       ** that row was the statement's last (bridge_last_row) */
  int shape;           /* bumped when a re-prepare changed the columns; Go re-reads them */
  int reprepares;      /* SQLITE_STMTSTATUS_REPREPARE when the columns were last read */
  sqlite3_int64 changes, last_id; /* set by bridge_exec */
  bridge_col *cols;    /* ncol entries */
  bridge_col *batch;   /* batch_cap rows of ncol entries, filled by bridge_step_batch */
  int batch_cap;
  unsigned char *text; /* BRIDGE_BATCH_TEXT bytes: TEXT/BLOB values of batch rows, copied out */
  int readonly;        /* sqlite3_stmt_readonly */
  int writes_main;     /* running it takes the main database's write lock (bridge_writes_main):
                       ** 0, 1, or BRIDGE_WRITES_GROUPABLE when it may also join a group (group.go) */
  int group_at, group_ok; /* bridge_stmt_groupable's answer, for the program compiled at
                       ** SQLITE_STMTSTATUS_REPREPARE == group_at-1 (0: not asked yet) */
  int ahead;           /* readonly, on a connection that cannot write (query_only), or with the
                       ** rest of its rows fixed (bridge_rest_fixed), as of the last prepare,
                       ** bridge_query or direct step: rows may be stepped ahead */
  sqlite3_int64 bound; /* TEXT/BLOB bytes bound by the last bridge_bind, which SQLite keeps until cleared */
  const void *fixed_ops; /* bridge_rest_fixed's last answer, fixed, for the program fixed_ops at fixed_pc */
  int fixed_pc, fixed;
  unsigned char *classes; /* ncol entries of BRIDGE_CLASS_* */
  const char **names;  /* ncol entries, filled by bridge_names */
};

struct bridge_conn {
  sqlite3 *db;
  bridge_stmt *stmts;  /* live statements, finalized by bridge_close */

  /* Cancellation. Go gives every cancellable operation a generation number and
  ** passes it to each call that runs SQL (0: not cancellable). When the
  ** operation's context ends, Go raises cancelled to that generation
  ** (atomically, from any goroutine, never lowering it). The progress handler
  ** stops the running statement when cancelled == armed. A late store for an
  ** earlier operation can neither match nor undo a later one: generations
  ** only grow, and 64 bits never wrap. */
  uint64_t armed;
  uint64_t *cancelled; /* &word->cancelled */
  bridge_word *word;   /* C memory from bridge_word_new that outlives c, set once after open */
  struct bridge_busy *busy; /* the busy handler's state that points back here, if any */
  int watching;        /* progress handler installed */
  int depth;           /* sqlite3_step and _prepare calls in progress: >0 while a callback runs */
  sqlite3_stmt *running; /* the statement in the innermost sqlite3_step, or 0 */
  bridge_vfile *vfile; /* the main database's file, when opened through the "fastsqlite" VFS */
  sqlite3_int64 wal_bound; /* _wal_bound: bytes (0: off) */
  int bound_off;       /* counted in its file's bound_off (bridge_share.c) */
  int waited;          /* the busy handler was called during the last step: a BUSY
                       ** that follows none is SQLite refusing to wait (an upgrade) */
  sqlite3_int64 wait_until; /* when non-zero, busy waits end by then (bridge_share_now's clock) */
  sqlite3_int64 reprepared; /* SQLITE_STMTSTATUS_REPREPARE of the statements finalized */
  uint64_t commits;    /* transactions it committed, counted by its commit hook while
                       ** count_commits is set (_replicate_wait: replicate.go reads it) */
  uintptr_t commit_user; /* the Go commit hook's id (RegisterCommitHook), 0 for none */
  int count_commits;   /* the commit hook counts commits */
  int64_t id;          /* the Go connection's number (connCore.id, SQLiteConn.ID), set once after open */
  int holder_sql_pending; /* it took the write lock with BEGIN: its next statement names the
                       ** transaction in its file's holder record (bridge_share_holder.c) */
  bridge_holder refused_by; /* who held the lock when this process last refused it one
                       ** (kind 0: not refused in the running step or prepare) */
  int refused_excl;    /* the last refusal was of EXCLUSIVE (a rollback-journal commit, which
                       ** waits for readers), in the running step or prepare */
  bridge_holder held_by; /* output of bridge_share_holder */
  /* What its operations waited for and ran, for the tracer (tracer.go,
  ** TraceEvent): written on the thread of its own operation, read by Go under
  ** the connection's exclusion. Times in ns; they only grow. */
  int64_t busy_ns, busy_waits;  /* in the busy handler (bridge_busy_cb); a wait is its calls from count 0 */
  int64_t held_ns, helds;       /* read transactions the WAL bound held (share_hold_reader) */
  int64_t checkpoint_ns, checkpoints; /* the WAL bound's checkpoints it ran (bridge_share_after) */
  /* SQLite's auto-checkpoint, run once the turn is given back
  ** (bridge_checkpoint.c): the default hook's argument while it is set
  ** aside for a step, whether it is, and whether main's checkpoint is due
  ** (0, or BRIDGE_CKPT_AFTER_TURN or BRIDGE_CKPT_IN_TURN: when to run it). */
  void *ckpt_frames;
  int ckpt_deferred;
  int ckpt_due;
  int unlock_waiting;  /* 1 while waiting for another connection's shared-cache
                       ** lock (sqlite_unlock_notify tag; always 0 without it),
                       ** stored atomically: tests read it while the wait runs */

  /* NUL-terminated copy of the SQL being prepared, so statements are prepared
  ** by offset into one buffer: SQLite copies any SQL that is not NUL-terminated,
  ** which would make multi-statement scripts quadratic. */
  char *sql;
  int sql_len, sql_cap;

  /* Output of bridge_prepare and bridge_exec_script. */
  bridge_stmt *prepared;
  int tail;
  int script_off, script_ran;
  sqlite3_int64 script_changes, script_last_id;

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

/* Finalizes every live statement and closes the database. Frees c. A blob
** or backup still open keeps the database alive (a zombie) and may still
** wait on a lock: the progress handler (whose argument is c) is removed
** first, and the busy handler's link to c cleared (it then waits without
** looking at cancellation). */
int bridge_close(bridge_conn *c);

/* Loads the connection's SQL buffer with sql[0:n] and prepares its first
** statement (bridge_exec_script runs the others). On SQLITE_OK,
** c->prepared is the new statement (NULL if only whitespace or comments were
** left) and c->tail the byte offset just after it: the length of the SQL when
** only spaces, semicolons and comments follow. gen arms cancellation as
** for bridge_exec (a prepare can wait on a lock to read the schema). */
int bridge_prepare(bridge_conn *c, const char *sql, int n, unsigned int flags, uint64_t gen);

/* Runs the statements of the connection's SQL buffer from byte off, each
** prepared, stepped to its end and finalized within this one call (rows are
** discarded), until the end of the SQL, an error, or a statement that Go must
** run: one with parameters, or, with stop_at_last, the last one. That
** statement is left prepared in c->prepared, as by bridge_prepare (c->tail
** after it). c->script_off is where the statement stopped at, or failed,
** starts (the base of error offsets); if any statement ran, script_ran is set
** and script_changes and script_last_id are the last one's. */
int bridge_exec_script(bridge_conn *c, int off, int stop_at_last, uint64_t gen);

/* Prepares the SQL of s again (sqlite3_sql) as a new statement, left in
** c->prepared; the connection's SQL buffer is not touched. For a statement
** run again while rows of its last run may still point into its memory. */
int bridge_prepare_again(bridge_stmt *s);

/* Finalizes the statement and frees it. */
void bridge_finalize(bridge_stmt *s);

/* Makes room for n args and arena bytes; returns SQLITE_NOMEM on failure. */
int bridge_reserve(bridge_conn *c, int nargs, sqlite3_int64 arena);

/* Resets s, binds c->args[0:nparam] to it, then steps it to the end.
** Leaves sqlite3_changes64 and sqlite3_last_insert_rowid in s->changes and
** s->last_id, and the statement reset (its TEXT and BLOB values released
** when they hold BRIDGE_KEEP_BOUND bytes or more). */
int bridge_exec(bridge_stmt *s, uint64_t gen);

/* Resets s, binds c->args[0:nparam] and steps the first row (into s->cols).
** SQLite re-prepares a statement by itself after a schema change; if that
** happened, the columns are described again first (and s->shape changes).
** With last, when that row is the read-only statement's last (the program
** halts next: a lookup by key, a SELECT of constants), the statement is
** stepped to its end in this same call: s->after is then that step's
** result (SQLITE_DONE, or an error), and the row's TEXT and BLOB values are
** copied to s->text, valid until the next call on the statement. Otherwise
** s->after is 0. s->ahead tells whether the next rows may be stepped ahead
** (bridge_step_batch). */
int bridge_query(bridge_stmt *s, uint64_t gen, int last);

/* Steps the next row into s->cols. */
int bridge_step(bridge_stmt *s, uint64_t gen);

/* Non-zero when this build can step rows ahead (bridge_step_batch): only
** the amalgamation compiled into the bridge shows whether a connection can
** write. */
int bridge_steps_ahead_built(void);

/* Steps up to max rows into s->batch (row k at s->batch[k*ncol]), in one call,
** for read-only statements on a connection that cannot write, or whose rows
** still to come are already made (bridge_rest_fixed); otherwise one. TEXT
** and BLOB values point into SQLite's memory until the next step, so a row
** that has some ends the batch (its values stay
** valid until the next step, as with bridge_step) unless they are short: up
** to BRIDGE_BATCH_ROW_BYTES bytes per row are copied to s->text, up to
** BRIDGE_BATCH_TEXT per batch, valid until the next call on the statement.
** Every value of every row of the batch can be read until then. Returns the
** number of rows in the batch; s->rc is the result of the last step:
** SQLITE_ROW when the batch ended on a row (more may follow), otherwise
** SQLITE_DONE or the error that follows the batch's rows. */
int bridge_step_batch(bridge_stmt *s, uint64_t gen, int max);

/* Puts back an operation's cancellation (bridge_conn.armed and whether the
** progress handler is installed), as it was before a callback of its step
** ran SQL on the connection, which armed its own. */
void bridge_rearm(bridge_conn *c, uint64_t armed, int watching);

/* Resets s, releasing the locks it holds, and the TEXT and BLOB values bound
** to it when they hold BRIDGE_KEEP_BOUND bytes or more; smaller values stay
** bound (see there). */
int bridge_reset(bridge_stmt *s);

/* The calls made once per row or per execution, taking the statement as an
** integer. cgo checks every pointer argument of a call at run time, in case
** it is a Go pointer (a heap lookup per argument, per call); an integer
** argument is not checked, and a bridge_stmt is C memory anyway. */
static inline int bridge_exec_h(uintptr_t s, uint64_t gen) { return bridge_exec((bridge_stmt *)s, gen); }
static inline int bridge_query_h(uintptr_t s, uint64_t gen, int last) { return bridge_query((bridge_stmt *)s, gen, last); }
static inline int bridge_step_h(uintptr_t s, uint64_t gen) { return bridge_step((bridge_stmt *)s, gen); }
static inline int bridge_reset_h(uintptr_t s) { return bridge_reset((bridge_stmt *)s); }
static inline int bridge_step_batch_h(uintptr_t s, uint64_t gen, int max) { return bridge_step_batch((bridge_stmt *)s, gen, max); }

/* Fills s->names with the column names. */
int bridge_names(bridge_stmt *s);

/* Reports whether table column origin of result column i is declared NOT NULL:
** 1 yes, 0 no, -1 unknown (an expression, or no metadata). */
int bridge_column_notnull(bridge_stmt *s, int i);

/* Turns on SQLite's memory statistics (sqlite3_config is variadic: cgo cannot
** call it). Only before SQLite initializes, i.e. before the first open. */
int bridge_enable_memstatus(void);

/* Copies the details of the last failing call on c into c->err_*. err_msg
** stays valid until the next call on c. */
void bridge_errinfo(bridge_conn *c);

/* ---- hooks, trace, busy handler (bridge_hooks.go, hooks.go, trace.go) ----
**
** Go callbacks are named by registry ids (uintptr_t, never 0), never by Go
** pointers: the id itself is SQLite's user-data argument, and the trampolines
** in bridge_hooks.c (the busy handler's in bridge_share_queue.c) hand it
** back to the exported Go entry points. Id 0 removes the hook. A stale id
** (its Go side released) makes the Go side do nothing. */
void bridge_commit_hook(bridge_conn *c, uintptr_t h);
void bridge_count_commits(bridge_conn *c);
void bridge_rollback_hook(sqlite3 *db, uintptr_t h);
void bridge_update_hook(sqlite3 *db, uintptr_t h);
void bridge_preupdate_hook(sqlite3 *db, uintptr_t h);
int bridge_set_authorizer(sqlite3 *db, uintptr_t h);
/* h == 0 removes the hook and restores SQLite's automatic checkpoints
** (sqlite3_wal_autocheckpoint, default 1000 pages). */
void bridge_wal_hook(sqlite3 *db, uintptr_t h);
int bridge_trace(sqlite3 *db, unsigned mask, uintptr_t h);

/* Describes the old (isnew == 0) or new values of the row being changed, from
** inside a pre-update hook, into out[0:n] as bridge_step does for a row. */
int bridge_preupdate_row(sqlite3 *db, int isnew, bridge_col *out, int n);

/* A busy handler that gives up as soon as the connection's running operation
** is cancelled (the bridge_conn cancellation word). With handle != 0 it asks
** the Go handler; otherwise it waits up to timeout_ms, sleeping as SQLite's own
** busy timeout does, in slices of at most 10 ms, and asks Go for a collection
** when the wait goes on (goBusyCollect, lockwait.go). Owned by Go (malloc/free);
** installed on conn's database by bridge_busy_install. */
typedef struct bridge_busy {
  bridge_conn *conn; /* cleared by bridge_close */
  uintptr_t handle;
  int timeout_ms;
  int installed;     /* b is the connection's busy handler */
  int64_t start;     /* when the current wait began (bridge_share_now) */
  int last_ms;       /* how long it had gone on at the previous call */
} bridge_busy;

/* Installs b on c (or removes any busy handler when b is NULL). c->busy
** records b, which Go frees only after bridge_close. */
int bridge_busy_install(bridge_conn *c, bridge_busy *b);

/* Whether c's busy handler is the bridge's timeout (not a Go handler, not
** SQLite's own from PRAGMA busy_timeout, not none): the waits that
** bridge_share_queue.c may queue. */
int bridge_busy_ours(bridge_conn *c);

/* Whether c cannot write its main database: opened read-only, or PRAGMA
** query_only (seen only in the amalgamation compiled into the bridge). */
int bridge_read_only(bridge_conn *c);

/* Sets (on != 0) or clears c's query-only state, as PRAGMA query_only does,
** and returns whether it was set: 1 or 0; -1, changing nothing, when the
** bridge is built against another SQLite, whose connection it cannot reach
** (the caller then runs the PRAGMA). */
int bridge_query_only(bridge_conn *c, int on);

/* The re-prepares SQLite made of c's statements
** (SQLITE_STMTSTATUS_REPREPARE), finalized ones included. */
sqlite3_int64 bridge_reprepares(bridge_conn *c);

/* Non-zero when c's running operation has been cancelled. */
int bridge_cancelled(bridge_conn *c);

/* ---- connections sharing a file (bridge_share*.c) ----
** Connections of this process on one database file hand the write lock over
** in arrival order instead of each sleeping SQLite's busy schedule, other
** lock waits wake at any release in the process, and the WAL is kept under
** the connection's _wal_bound while readers never stop. */

/* Registers the "fastsqlite" VFS (once) over the default VFS and returns its
** name, or NULL when it cannot be (the default VFS lacks shared memory). */
const char *bridge_share_vfs(void);

/* Links c to its main database's file entry, after open; unlinks (before
** close). */
void bridge_share_link(bridge_conn *c);
void bridge_share_unlink(bridge_conn *c);

/* The address of c's main database's entry, naming the file (NULL: none). */
void *bridge_share_file_key(bridge_conn *c);

/* The busy timeout in ms of c, if c must take its file's write turn in Go
** before a write (gate.go): its busy handler is the bridge's, and it holds no
** transaction and runs no step. -1 otherwise. */
int bridge_turn_timeout(bridge_conn *c);

/* bridge_stmt.writes_main of a write that may join a group of its file's
** writes (group.go): it writes main only, and holds no transaction control,
** VACUUM, journal-mode change or checkpoint. */
#define BRIDGE_WRITES_GROUPABLE 2

/* The predicate of group commit (bridge_group.c): bridge_turn_timeout when
** c may hand s, a write, to a group or run one, else -1; c's fingerprint of
** settings and added names, equal on connections that may run each other's
** writes; whether c, running a group, may run s, its copy of another
** connection's write. */
int bridge_group_turn(bridge_conn *c, bridge_stmt *s);
uint64_t bridge_group_fp(bridge_conn *c);
int bridge_group_host(bridge_conn *c, bridge_stmt *s);

/* Whether foreign keys are on; whether one is unresolved (a deferred
** constraint) in the open transaction. */
int bridge_foreign_keys(bridge_conn *c);
int bridge_deferred_fks(bridge_conn *c);

/* last_insert_rowid(), changes(), total_changes() of c, read and set: a
** write run on another connection leaves them as if it ran on c. */
typedef struct bridge_counters {
  int64_t rowid, changes, total;
} bridge_counters; /* returned by value: nothing of Go's escapes into C */
bridge_counters bridge_counters_get(bridge_conn *c);
void bridge_counters_set(bridge_conn *c, int64_t rowid, int64_t changes, int64_t total);

/* c committed changes of other connections' writes (its group): its PRAGMA
** data_version moves as if they had committed them themselves. */
void bridge_group_committed_others(bridge_conn *c);

/* Counts a wait for the write turn in Go that got it after ns, in the
** file's stats (one that ran out is counted by the busy handler). */
void bridge_share_turn_counted(bridge_conn *c, int64_t ns);

/* After a write SQLite refused at once: whether c's transaction still
** holds only its read of main (it read first, and SQLite cannot let such an
** upgrade wait), counted in the file's stats if so. */
int bridge_share_upgrade_busy(bridge_conn *c);

/* Counts a group commit of n writes, in the file's stats. */
void bridge_share_group_counted(bridge_conn *c, int64_t n);

/* After SQLITE_BUSY on c: fills c->held_by with who held the lock (the
** connection of this process that the refusal saw, else one holding it
** now, else another process through F_GETLK) and counts the error, named
** or not, in the file's stats (bridge_share_holder.c). */
void bridge_share_holder(bridge_conn *c);

/* Sets c's number (bridge_conn.id), which holder records name. */
void bridge_share_set_id(bridge_conn *c, int64_t id);

/* Sets c's _wal_bound (bytes, 0: off), and with it the file's bound: the
** smallest bound of the connections on the file, off while any connection
** of the process on it says 0. */
void bridge_share_set_bound(bridge_conn *c, sqlite3_int64 n);

/* Called by the bridge's busy handler: waits for the lock the calling
** thread was last refused on c's main database, until deadline, polling a
** lock held by another process every slice (ns), and returning by wake in
** any case (the busy handler's collections are due). Returns 1 to retry, 0
** to give up (deadline or cancellation), -1 when the refusal was not one of
** c's main database's (the caller sleeps as before). */
int bridge_share_wait(bridge_conn *c, int64_t deadline, int64_t slice, int64_t wake);

/* Leaves the write lock's queue, if c is in it (its wait gave up). */
void bridge_share_leave(bridge_conn *c);

/* Counts a busy timeout that the busy handler hit outside bridge_share_wait. */
void bridge_share_timed_out(bridge_conn *c);

/* After a statement ends on c: leaves the queue, and when the WAL has
** passed half of c->wal_bound and c holds no transaction, restarts it
** (holding new readers of the process at most BRIDGE_WAL_HOLD_MS). */
void bridge_share_after(bridge_conn *c);

/* Runs the auto-checkpoint of the main database that a commit left due
** (ckpt_due; bridge_checkpoint.c), unless a transaction is open. */
void bridge_checkpoint_due(bridge_conn *c);
#define BRIDGE_CKPT_AFTER_TURN 1 /* once the write turn is given back */
#define BRIDGE_CKPT_IN_TURN 2    /* before: the WAL is past twice wal_autocheckpoint */
#define BRIDGE_WAL_HOLD_MS 100
/* A read transaction older than this whose snapshot outlives the bound's
** next look is a long one, unless most of the process's readers are that
** slow: the bound then does not hold readers for it (bridge_share_bound.c). */
#define BRIDGE_WAL_LONG_READ_MS 200

/* The descriptor of f, a file that vfs opened, when vfs is SQLite's unix
** VFS compiled into the bridge; -1 otherwise. */
int bridge_unix_fd(sqlite3_vfs *vfs, sqlite3_file *f);

/* Whether another process holds lock i of the WAL index of f, a file vfs
** opened, as F_GETLK says (it never reports the caller's own locks): 1 or
** 0; -1 when that cannot be told (not SQLite's unix VFS compiled into the
** bridge, or no shared memory yet). */
int bridge_shm_lock_elsewhere(sqlite3_vfs *vfs, sqlite3_file *f, int i);

/* Unlinks c and links it again to its main database's file, after
** something may have replaced that database (sqlite3_deserialize). */
void bridge_share_relink(bridge_conn *c);

/* A monotonic clock, in ns. */
int64_t bridge_share_now(void);

/* What bridge_share_stats reports about c's main database file, for every
** connection of the process on it. */
typedef struct bridge_file_stats {
  int64_t write_waits, write_wait_ns, write_wait_max_ns; /* queued waits that got the write lock */
  int64_t busy_timeouts;    /* waits of the bridge's busy handler that ran out */
  int64_t checkpoints, checkpoints_failed, checkpoint_ns; /* the WAL bound's */
  int64_t last_checkpoint_rc; /* of the last one's TRUNCATE pass */
  int64_t last_checkpoint_log, last_checkpoint_done; /* its PASSIVE pass: WAL frames, frames copied */
  int64_t readers_held, readers_held_ns, readers_held_max_ns; /* read transactions the WAL bound held */
  int64_t wal_end, wal_size; /* bytes of the WAL in use; its size as written here */
  int64_t queued;           /* waiting for the write lock now */
  int64_t connections;      /* connections with it as main database */
  int64_t upgrade_busy;     /* writes refused because their transaction read first */
  int64_t checkpoints_deferred; /* bound checkpoints run without holding readers: an older snapshot lived */
  int64_t bound;            /* the file's WAL bound in bytes (0: off) */
  int64_t groups, grouped;  /* group commits (group.go) of two or more writes; the writes they held */
  int64_t busy_errors, busy_named; /* SQLITE_BUSY errors returned; of which named a holder */
} bridge_file_stats;

/* Fills out for c's main database; 0 when c has none (memory, another VFS). */
int bridge_share_stats(bridge_conn *c, bridge_file_stats *out);

/* ---- backup, serialize, extensions (bridge_db.go) ---- */

/* Serializes schema: *out points at the bytes and *size is their count (-1
** when there is no such schema). *owned tells whether *out must be released
** with sqlite3_free (a copy) or is the in-memory database itself (valid until
** the next call on db). Returns SQLITE_OK, SQLITE_ERROR or SQLITE_NOMEM. */
int bridge_serialize(sqlite3 *db, const char *schema, unsigned char **out, sqlite3_int64 *size, int *owned);

/* Copies b[0:n] into sqlite3_malloc64 memory and deserializes it into schema
** (FREEONCLOSE | RESIZEABLE): SQLite owns the copy, nothing of Go's is kept. */
int bridge_deserialize(sqlite3 *db, const char *schema, const void *b, sqlite3_int64 n);

/* Enables extension loading (C API only, not the SQL function), loads lib with
** entry (NULL: SQLite derives it from the file name), and disables it again.
** On failure *err may hold a message to sqlite3_free. */
int bridge_load_extension(sqlite3 *db, const char *lib, const char *entry, char **err);

/* ---- user-defined functions and collations (bridge_func.go, func.go) ----
**
** A Go scalar function, aggregate, window function or collation is a
** bridge_udf: SQLite's user-data pointer for it, allocated by Go (calloc).
** SQLite owns it from registration on and frees it through its destructor
** (when the function is replaced, when the connection closes, and at once
** when registration fails), which tells Go to release the handle. */
typedef struct bridge_udf {
  uintptr_t handle;      /* runtime/cgo.Handle that owns the Go side */
  void *gov;             /* the same Go value, pinned (runtime.Pinner) until the
                         ** handle is released: read by Go only, to reach it
                         ** without a handle lookup on every call */
  sqlite3 *db;
  char *buf;             /* scratch for small TEXT/BLOB results, written by Go */
  sqlite3_int64 buf_cap;
} bridge_udf;

/* What SQLite asked for. */
enum {
  BRIDGE_CALL_FUNC = 0, /* xFunc: a scalar function */
  BRIDGE_CALL_STEP,     /* xStep */
  BRIDGE_CALL_INVERSE,  /* xInverse (window functions) */
  BRIDGE_CALL_VALUE,    /* xValue (window functions) */
  BRIDGE_CALL_FINAL     /* xFinal */
};

/* Result types beyond SQLITE_INTEGER.._NULL and BRIDGE_ZEROBLOB. */
#define BRIDGE_RESULT_NONE 0 /* nothing to set: a step, or Go already set it */

/* One call into Go, on the C stack. C decodes every argument (as bridge_step
** decodes a row) before the one call into Go; Go leaves INTEGER, FLOAT, NULL
** and small TEXT/BLOB results (copied into udf->buf) here and C hands them to
** SQLite after Go returns, so the common call makes no cgo call from Go. */
typedef struct bridge_fcall {
  sqlite3_context *ctx;
  bridge_udf *udf;
  bridge_col *args;     /* argc decoded arguments */
  int32_t argc;
  int32_t kind;         /* BRIDGE_CALL_* */
  sqlite3_int64 *agg;   /* aggregates: 8 bytes of sqlite3_aggregate_context,
                        ** 0 until Go stores an instance id; NULL in an xFinal
                        ** that no xStep preceded */
  union {
    sqlite3_int64 i;
    double f;
    const void *p;
  } r;
  sqlite3_int64 rn;     /* byte length of a TEXT/BLOB result */
  int32_t rtype;        /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL,
                        ** BRIDGE_ZEROBLOB (r.i bytes) or BRIDGE_RESULT_NONE */
  int32_t failed;       /* set by Go when it made the result an error */
} bridge_fcall;

/* Registers u as a scalar function (kind BRIDGE_CALL_FUNC), an aggregate
** (BRIDGE_CALL_STEP) or a window function (BRIDGE_CALL_INVERSE), with
** sqlite3_create_function_v2 / sqlite3_create_window_function. flags are
** SQLITE_UTF8 plus SQLITE_DETERMINISTIC etc. u is freed (and its handle
** released through goFuncDestroy) by the destructor in every case, failure
** included. */
int bridge_create_function(bridge_conn *c, const char *name, int nargs, int flags, int kind, bridge_udf *u);

/* Registers u as a UTF-8 collation (sqlite3_create_collation_v2); u NULL
** removes the collation. u is freed as by bridge_create_function. */
int bridge_create_collation(bridge_conn *c, const char *name, bridge_udf *u);

/* Makes udf->buf at least n bytes. */
int bridge_udf_reserve(bridge_udf *u, sqlite3_int64 n);

/* Sets a TEXT (type SQLITE_TEXT) or BLOB result, copied by SQLite
** (SQLITE_TRANSIENT); SQLite reports SQLITE_TOOBIG beyond its length limit. */
void bridge_result_bytes(sqlite3_context *ctx, const void *p, sqlite3_int64 n, int type);

/* Sets an error result: msg[0:n] and, unless 0, the result code. */
void bridge_result_error(sqlite3_context *ctx, const char *msg, int n, int code);

/* ---- virtual tables (bridge_vtab.go, vtab.go) ----
**
** A Go module, each of its virtual tables and each of their cursors is a
** bridge_vref: a runtime/cgo.Handle that owns the Go object, and the same
** object pinned (gov, read by Go only), as for bridge_udf. Ownership:
**   - the module's bridge_vref is SQLite's client data, calloc'd by Go and
**     freed (handle released first) by the destructor that
**     sqlite3_create_module_v2 calls when the module is replaced, when the
**     connection closes, and at once when registration fails;
**   - a table is a bridge_vtab, sqlite3_malloc'd by xCreate/xConnect and
**     freed by xDisconnect, or by an xDestroy that succeeds (after a failed
**     xDestroy SQLite keeps the table and calls xDisconnect later);
**   - a cursor is a bridge_vcursor, sqlite3_malloc'd by xOpen and freed by
**     xClose.
** Go fills ref when the object is created and releases the handle exactly
** once, in the call that frees the C struct. Errors reach SQLite as
** sqlite3_mprintf'd messages in zErrMsg (bridge_vtab_error). */
typedef struct bridge_vref {
  uintptr_t handle;
  void *gov;
} bridge_vref;

typedef struct bridge_vtab {
  sqlite3_vtab base; /* first: what SQLite sees */
  bridge_vref ref;
} bridge_vtab;

typedef struct bridge_vcursor {
  sqlite3_vtab_cursor base; /* first: what SQLite sees */
  bridge_vref ref;
} bridge_vcursor;

/* Registers module m as name with sqlite3_create_module_v2: a module with
** xCreate, or an eponymous-only one (xCreate NULL) when eponymous_only.
** m is released (goVTabModuleDestroy) and freed by the destructor in every
** case, failure included. */
int bridge_create_module(sqlite3 *db, const char *name, int eponymous_only, bridge_vref *m);

/* Replaces *dst (sqlite3_free) with an sqlite3_mprintf'd copy of msg[0:n]:
** a table's zErrMsg, or xCreate/xConnect's *pzErr. */
void bridge_vtab_error(char **dst, const char *msg, int n);

/* ---- sessions and changesets (bridge_session.go, session.go) ----
**
** A session (https://sqlite.org/sessionintro.html) records changes through
** the connection's pre-update hook, and must be deleted before its
** connection closes. Each one the bridge creates is wrapped in a
** bridge_session (malloc'd) on a per-connection list kept as SQLite client
** data (sqlite3_set_clientdata, SQLite 3.44 and later). The list's
** destructor, which sqlite3_close_v2 runs while the connection is still
** whole, deletes the sessions Go has not deleted and frees their
** bridge_session: once the connection is closed, Go must forget its pointers.
**
** Changesets cross as bytes. Those SQLite returns are sqlite3_malloc'd: Go
** copies them and frees them with sqlite3_free. Those Go passes in are read
** during the call only, except where SQLite keeps reading them after the call
** (an iterator) or while Go callbacks run (apply): the bridge copies them into
** malloc'd memory first. */
typedef struct bridge_session bridge_session;
typedef struct bridge_sessions bridge_sessions;

struct bridge_session {
  sqlite3_session *s;
  bridge_sessions *list;            /* the connection's sessions */
  bridge_session *prev, *next;
};

/* Creates a session recording changes to database schema of db (*out NULL
** on failure). SQLITE_MISUSE when SQLite is older than 3.44. */
int bridge_session_create(sqlite3 *db, const char *schema, bridge_session **out);

/* Deletes the session (sqlite3session_delete) and frees bs. hook is the Go
** registry id of a pre-update hook registered after the sessions
** (RegisterPreUpdateHook), which has replaced theirs, or 0: that hook is set
** aside while the session is deleted, so that SQLite does not take its user
** data for a session, and put back. */
void bridge_session_delete(bridge_session *bs, uintptr_t hook);

/* Type of a value a change does not record (beside SQLITE_INTEGER.._NULL):
** the unchanged columns of an UPDATE, a patchset's old values. */
#define BRIDGE_UNDEFINED 0

/* One change, described for Go by bridge_changes_next or before a conflict
** handler runs. Pointers are SQLite's, valid until the next change or until
** the conflict handler returns. */
typedef struct bridge_change {
  const char *table;
  const unsigned char *pk; /* ncol flags: non-zero for a PRIMARY KEY column */
  bridge_col *cols;        /* old values [0:ncol], new [ncol:2*ncol],
                           ** conflicting row [2*ncol:3*ncol] */
  int32_t cap;             /* cols has room for 3*cap values */
  int32_t op;              /* SQLITE_INSERT, _UPDATE or _DELETE */
  int32_t ncol;
  int32_t indirect;
  int32_t nfk;             /* SQLITE_CHANGESET_FOREIGN_KEY: violations left */
} bridge_change;

/* An iterator over a changeset or patchset (sqlite3changeset_start) and its
** own copy of the bytes. */
typedef struct bridge_changes {
  sqlite3_changeset_iter *it;
  void *buf;
  bridge_change change;
} bridge_changes;

/* Copies p[0:n] and starts iterating over it (*out NULL on failure). */
int bridge_changes_start(const void *p, int n, bridge_changes **out);

/* Moves to the next change (sqlite3changeset_next) and, on SQLITE_ROW,
** describes it in c->change. SQLITE_DONE at the end. */
int bridge_changes_next(bridge_changes *c);

/* Ends the iteration (sqlite3changeset_finalize) and frees c. */
int bridge_changes_finish(bridge_changes *c);

/* Applies p[0:n] to the main database of db (sqlite3changeset_apply_v2 with
** flags), from a copy. Each conflict is described in a bridge_change and
** handed to goChangesetConflict(handle, ...), whose answer is SQLite's; with
** filter, goChangesetFilter(handle, table) is asked about each table first.
** *read_rc is set when a conflict could not be described (the apply is then
** aborted). */
int bridge_changeset_apply(bridge_conn *c, const void *p, int n, uintptr_t handle, int filter, int flags,
                           int *read_rc);

/* Inverts p[0:n] (sqlite3changeset_invert) into *out[0:*nout], to free with
** sqlite3_free. The input is walked with an iterator first: invert itself
** assumes a well-formed changeset. */
int bridge_changeset_invert(const void *p, int n, int *nout, void **out);

/* ---- direct statement API (bridge_direct.go, direct.go) ----
**
** A bridge_direct is the Go DirectStmt's C side: the statement's own array of
** parameter values, written by Go (BindInt64, BindText, ...) and bound by the
** next call that steps, so that binding, stepping and resetting a write costs
** one cgo call; and the rows of a bulk execution. Allocated by
** bridge_direct_new, freed by bridge_direct_free (which never touches the
** statement: it may run after the connection closed). Go reads and writes
** its fields without cgo calls. The calls that step take the generation of
** the run's cancellation (gen, 0 when it cannot be cancelled), as bridge_step
** does; the flags are done first, even when the run is already cancelled. */
typedef struct bridge_direct {
  bridge_stmt *s;
  bridge_arg *args;    /* nargs values; type 0: nothing to bind for that parameter */
  int nargs;
  int done;            /* rows completed by bridge_direct_exec_rows */
  char *arena;         /* TEXT/BLOB bytes of args and rows, copied by Go */
  sqlite3_int64 arena_cap;
  bridge_arg *rows;    /* rows_cap rows of nargs values, for bridge_direct_exec_rows */
  int rows_cap;
  char num[64];        /* the text of a FLOAT, written by bridge_direct_format */
} bridge_direct;

/* What a call does before it binds and steps (flags argument). */
#define BRIDGE_DIRECT_RESET 1 /* sqlite3_reset */
#define BRIDGE_DIRECT_CLEAR 2 /* sqlite3_clear_bindings */
#define BRIDGE_DIRECT_BIND 4  /* bind the args whose type is not 0, then set it to 0 */

/* NULL when out of memory. */
bridge_direct *bridge_direct_new(bridge_stmt *s);

/* Frees d, its arena and the owned (malloc'd) values it has not bound. */
void bridge_direct_free(bridge_direct *d);

/* Makes room for n arena bytes (the arena's contents are not kept) and rows
** of bulk values. */
int bridge_direct_reserve(bridge_direct *d, sqlite3_int64 n, int rows);

/* Does what flags say (reset, clear, bind) without stepping. */
int bridge_direct_prepare_run(bridge_direct *d, int flags);

/* flags, then one sqlite3_step, the row into s->cols. After SQLite
** re-prepared the statement, the columns are described again first (s->shape
** changes). On SQLITE_DONE, s->changes and s->last_id are set. */
int bridge_direct_step(bridge_direct *d, int flags, uint64_t gen);

/* flags, then steps up to max rows into s->batch (row k at
** s->batch[k*ncol]) in this one call, for read-only statements, as
** bridge_step_batch does for database/sql; s->rc is the result of the last
** step, SQLITE_ROW when the batch ended on a row. The TEXT and BLOB values
** of a row of at most BRIDGE_BATCH_ROW_BYTES such bytes are copied to s->text
** (up to BRIDGE_BATCH_TEXT per batch, valid until the next call on the
** statement) and the batch goes on; a row with more ends the batch, its
** values left in SQLite's memory until the next step. So does a FLOAT of
** 1e15 or more in magnitude (or any FLOAT when the connection renders floats
** with fewer than 15 digits), so that the text of every FLOAT on a row before
** the last is bridge_direct_format's. Returns the number of rows. */
int bridge_direct_step_batch(bridge_direct *d, int flags, uint64_t gen, int max);

/* Writes v into d->num as SQLite renders a FLOAT as text ("%!.*g" with the
** connection's SQLITE_DBCONFIG_FP_DIGITS); returns its length. SQLite renders
** a REAL it holds as an integer differently above 1e15 (digits, ".0"). */
int bridge_direct_format(bridge_direct *d, double v);

/* flags, then steps to the end (rows discarded), sets s->changes and
** s->last_id, and resets. */
int bridge_direct_exec(bridge_direct *d, int flags, uint64_t gen);

/* Runs the statement once per row of d->rows[0:n*nargs] (reset, bind every
** parameter, step to the end), all in this call. Stops at the first error:
** d->done is the number of rows completed (the failing row is d->done), the
** owned values of the rows not bound are freed. Leaves the statement reset,
** s->changes the sum of the rows' changes and s->last_id the last rowid. */
int bridge_direct_exec_rows(bridge_direct *d, int n, uint64_t gen);

static inline int bridge_direct_step_h(uintptr_t d, int flags, uint64_t gen) {
  return bridge_direct_step((bridge_direct *)d, flags, gen);
}
static inline int bridge_direct_step_batch_h(uintptr_t d, int flags, uint64_t gen, int max) {
  return bridge_direct_step_batch((bridge_direct *)d, flags, gen, max);
}
static inline int bridge_direct_exec_h(uintptr_t d, int flags, uint64_t gen) {
  return bridge_direct_exec((bridge_direct *)d, flags, gen);
}
static inline int bridge_direct_exec_rows_h(uintptr_t d, int n, uint64_t gen) {
  return bridge_direct_exec_rows((bridge_direct *)d, n, gen);
}

#endif
