// Package sqlite3 is a database/sql driver for SQLite, built with cgo on a
// vendored SQLite amalgamation, and a drop-in replacement for
// github.com/mattn/go-sqlite3: same driver name ("sqlite3"), DSN parameters,
// exported API and value conventions.
//
//	import _ "github.com/fastsqlite/sqlite3"
//
//	db, err := sql.Open("sqlite3", "file:app.db?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1")
//
// That DSN is the README's recommendation for servers: WAL, so that readers
// and the writer do not block each other; _txlock=immediate, so that a
// transaction takes the write lock when it begins, where the busy timeout can
// wait for it, instead of failing with "database is locked" when it first
// writes; a busy timeout of 5 s; foreign keys enforced. One pool serves reads
// and writes: the connections of a process take turns to write, in order.
//
// Each row costs at most one cgo call: a small C bridge (bridge.h) steps the
// statement and describes every column of the row in one buffer that Go
// reads directly, and on a connection that cannot write (a ReadOnly
// transaction, _query_only=1) a query's rows of numbers and short values come
// up to 64 per call. The README shows the way in; its pages under docs/ hold
// the reference: docs/dsn.md (every DSN parameter), docs/types.md (the type
// mapping), docs/queries.md, docs/concurrency.md (many goroutines on one
// file, the WAL bound, Stats), docs/direct.md (DirectStmt) and
// docs/compile-options.md.
//
// A program written for mattn/go-sqlite3 v1.14.53 gets the same results here:
// by default the driver is as lenient as mattn's (arguments no statement uses
// are ignored, SQL with no statement runs nothing, Prepare keeps the first of
// several statements, unparseable text in a date/time column reads as the zero
// time.Time, a cancelled statement returns the context's error itself, ...).
// _strict=1 in the DSN turns each of these into an error, which a new program
// usually prefers; the table in docs/switching.md ("Switching from
// mattn/go-sqlite3") lists them. Among them, a DSN parameter nobody reads (a misspelled _txlok, or
// journal_mode without its "_") is ignored by default, as by mattn, and an
// error with _strict=1; CheckDSN reports it without _strict.
package sqlite3
