package sqlite3

// This file is the one place that lists SQLite's compile-time options. Every
// C file of the package (the vendored amalgamation and bridge.c) is compiled
// with exactly these flags, so the bridge sees the API the library was built
// with. The README's "Compile options" table is generated from the comments
// below (scripts/compile-options-table.sh) and a test keeps the two in sync:
// each "#cgo CFLAGS: -DSQLITE_..." line must be preceded by a one-line
// "// reason:" comment.
//
// Options follow https://sqlite.org/compile.html#rcmd ("recommended
// compile-time options") except where the driver or mattn/go-sqlite3
// compatibility needs a feature the page suggests omitting; those exceptions
// are said below.

/*
// reason: mutexes are compiled in; connections open with SQLITE_OPEN_NOMUTEX (database/sql serialises each connection) unless _mutex=full asks for serialized mode
#cgo CFLAGS: -DSQLITE_THREADSAFE=1
// reason: no global mutex and counters around every malloc (recommended); sqlite3_memory_used still works when enabled at run time
#cgo CFLAGS: -DSQLITE_DEFAULT_MEMSTATUS=0
// reason: synchronous=NORMAL by default, as mattn sets on every open, without running a PRAGMA per connection
#cgo CFLAGS: -DSQLITE_DEFAULT_SYNCHRONOUS=1
// reason: synchronous=NORMAL in WAL mode: durable across application crashes, cheap commits (as mattn)
#cgo CFLAGS: -DSQLITE_DEFAULT_WAL_SYNCHRONOUS=1
// reason: LIKE and GLOB never match BLOBs, so they need not be converted to text (recommended)
#cgo CFLAGS: -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
// reason: drop deprecated interfaces the driver never calls (recommended; mattn does the same)
#cgo CFLAGS: -DSQLITE_OMIT_DEPRECATED
// reason: use alloca for temporary space where it helps (recommended)
#cgo CFLAGS: -DSQLITE_USE_ALLOCA
// reason: sqlite3_column_table_name and table_column_metadata, for ColumnTypeNullable and SQLiteStmt.ColumnTableName
#cgo CFLAGS: -DSQLITE_ENABLE_COLUMN_METADATA
// reason: FTS3/FTS4 full-text search, compiled in by mattn
#cgo CFLAGS: -DSQLITE_ENABLE_FTS3
// reason: FTS3 enhanced query syntax (AND, NOT, parentheses), as mattn
#cgo CFLAGS: -DSQLITE_ENABLE_FTS3_PARENTHESIS
// reason: FTS5 full-text search (mattn's sqlite_fts5 tag), always on
#cgo CFLAGS: -DSQLITE_ENABLE_FTS5
// reason: R*Tree spatial index, compiled in by mattn
#cgo CFLAGS: -DSQLITE_ENABLE_RTREE
// reason: SQL math functions (sin, pow, log, ...; mattn's sqlite_math_functions tag), always on
#cgo CFLAGS: -DSQLITE_ENABLE_MATH_FUNCTIONS
// reason: the dbstat virtual table (mattn's sqlite_dbstat tag), always on
#cgo CFLAGS: -DSQLITE_ENABLE_DBSTAT_VTAB
// reason: pre-update hook (mattn's sqlite_preupdate_hook tag) and the session extension need it
#cgo CFLAGS: -DSQLITE_ENABLE_PREUPDATE_HOOK
// reason: sessions and changesets
#cgo CFLAGS: -DSQLITE_ENABLE_SESSION
// reason: ORDER BY and LIMIT on UPDATE and DELETE, compiled in by mattn
#cgo CFLAGS: -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT
// reason: trace output shows at most 15 bytes of each bound string, as mattn
#cgo CFLAGS: -DSQLITE_TRACE_SIZE_LIMIT=15
// reason: busy waits sleep in microseconds instead of whole seconds
#cgo CFLAGS: -DHAVE_USLEEP=1
#cgo linux LDFLAGS: -ldl -lm
#cgo freebsd openbsd netbsd LDFLAGS: -lm
*/
import "C"
