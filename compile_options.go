package sqlite3

// This file is the one place that lists SQLite's compile-time options. Every
// C file of the package (the vendored amalgamation, bridge.c and the parts
// bridge_*.c it includes) is compiled with exactly these flags, so the bridge sees the API the library was built
// with. The table of docs/compile-options.md is generated from the comments
// below and a test keeps the two in sync (go test -run TestReadmeCompileOptions
// -update-readme rewrites it): each "#cgo [tags] CFLAGS: -D..." line must be
// preceded by a one-line "// reason:" comment.
//
// Options follow https://sqlite.org/compile.html#rcmd ("recommended
// compile-time options") except where the driver or mattn/go-sqlite3
// compatibility needs a feature the page suggests omitting; those exceptions
// are said below.

/*
// reason: mutexes are compiled in; connections open with SQLITE_OPEN_NOMUTEX (the driver's lock serialises each connection's calls, lifetime.go) unless _mutex=full asks for serialized mode
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
// reason: trace output shows at most 15 bytes of each bound string, as mattn
#cgo CFLAGS: -DSQLITE_TRACE_SIZE_LIMIT=15
// reason: busy waits sleep in microseconds instead of whole seconds
#cgo CFLAGS: -DHAVE_USLEEP=1

// Debug information for the C code: line tables only. Full DWARF for the
// 9.6 MB amalgamation (go's default CGO_CFLAGS say -g) is a quarter of the C
// compiler's time, and so of a cold build (gcc 12, 2 cores: 45-51 s of CPU with
// -g, 34 s with -g1). -g1 keeps function names and line numbers, enough for C
// frames in perf, gdb and crash backtraces; it drops SQLite's local variables.
// This line comes after CGO_CFLAGS, so it wins; -tags fastsqlite_cdebug keeps
// whatever CGO_CFLAGS says (full -g by default).
#cgo !fastsqlite_cdebug CFLAGS: -g1

// One translation unit for SQLite and the bridge: bridge.c includes the
// amalgamation (and then the bridge's parts, bridge_*.c), with SQLite's functions of hidden visibility, so that the C
// compiler inlines sqlite3_column_value, sqlite3_value_type, _text, _bytes...
// into the bridge's row loop instead of calling each for every column (cgo
// compiles with -fPIC, where a function that could be interposed is never
// inlined). Rows and StmtRows -17 %, IntScan and WideScan/RawBytes -13 %
// (Go 1.27, benchab, n=8). USE_LIBSQLITE3 here only stops the amalgamation's
// file from being compiled a second time on its own (the wrapping that file
// carries); bridge.c and bridge.h undefine it again. The libsqlite3 tag and
// the development loop (fastsqlite_dev) link SQLite from elsewhere, as before.
#cgo !libsqlite3,!fastsqlite_dev CFLAGS: -DUSE_LIBSQLITE3 -DBRIDGE_UNITY
#cgo linux LDFLAGS: -ldl -lm
#cgo freebsd openbsd netbsd LDFLAGS: -lm

// Not here: SQLITE_ENABLE_UPDATE_DELETE_LIMIT, which mattn passes, has no
// effect on an amalgamation (its parser is generated without it), so
// "DELETE ... LIMIT" is a syntax error with either driver (features_test.go).

// Build tags that mattn/go-sqlite3 users pass. The features mattn gates behind
// a tag but that are always compiled in here (sqlite_json,
// sqlite_math_functions, sqlite_preupdate_hook, sqlite_vtable, vtable,
// sqlite_column_metadata, sqlite_dbstat, sqlite_serialize) are accepted and
// change nothing. These change the build, as in mattn:

// reason: FTS5 full-text search, as mattn (FTS5 is a tenth of the amalgamation: a tenth of every cold build)
#cgo sqlite_fts5 fts5 CFLAGS: -DSQLITE_ENABLE_FTS5
// reason: enforce foreign keys by default, as PRAGMA foreign_keys=ON
#cgo sqlite_foreign_keys CFLAGS: -DSQLITE_DEFAULT_FOREIGN_KEYS=1
// reason: overwrite deleted content with zeros
#cgo sqlite_secure_delete CFLAGS: -DSQLITE_SECURE_DELETE=1
// reason: overwrite deleted content where it costs no extra I/O
#cgo sqlite_secure_delete_fast CFLAGS: -DSQLITE_SECURE_DELETE=FAST
// reason: better query plans from sqlite_stat4 histograms (ANALYZE)
#cgo sqlite_stat4 CFLAGS: -DSQLITE_ENABLE_STAT4
// reason: new databases use incremental auto-vacuum
#cgo sqlite_vacuum_incr CFLAGS: -DSQLITE_DEFAULT_AUTOVACUUM=2
// reason: new databases use full auto-vacuum
#cgo sqlite_vacuum_full CFLAGS: -DSQLITE_DEFAULT_AUTOVACUUM=1
// reason: accept an authority (host) in file: URIs
#cgo sqlite_allow_uri_authority CFLAGS: -DSQLITE_ALLOW_URI_AUTHORITY
// reason: shared cache (cache=shared): a statement blocked by another connection's table lock waits for its transaction to end (sqlite3_unlock_notify) instead of failing with SQLITE_LOCKED, as mattn; the wait ends with the context, and one that would deadlock fails
#cgo sqlite_unlock_notify CFLAGS: -DSQLITE_ENABLE_UNLOCK_NOTIFY
// reason: remove extension loading from the library entirely
#cgo sqlite_omit_load_extension CFLAGS: -DSQLITE_OMIT_LOAD_EXTENSION
// reason: SQLite checks API arguments for misuse (slower)
#cgo sqlite_app_armor CFLAGS: -DSQLITE_ENABLE_API_ARMOR
// reason: the introspection PRAGMAs (function_list, module_list, pragma_list)
#cgo sqlite_introspect CFLAGS: -DSQLITE_INTROSPECTION_PRAGMAS
// reason: the percentile() family of aggregate functions
#cgo sqlite_percentile CFLAGS: -DSQLITE_ENABLE_PERCENTILE
// reason: ICU-aware upper/lower, LIKE and collations (needs libicu)
#cgo sqlite_icu icu CFLAGS: -DSQLITE_ENABLE_ICU
#cgo sqlite_icu icu LDFLAGS: -licuuc -licui18n
// reason: link the system's libsqlite3 instead of compiling the vendored amalgamation
#cgo libsqlite3 CFLAGS: -DUSE_LIBSQLITE3
#cgo libsqlite3 LDFLAGS: -lsqlite3
*/
import "C"
