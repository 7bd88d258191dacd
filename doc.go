// Package sqlite3 is a database/sql driver for SQLite, built with cgo on a
// vendored SQLite amalgamation, and a drop-in replacement for
// github.com/mattn/go-sqlite3: same driver name ("sqlite3"), DSN parameters,
// exported API and value conventions.
//
//	import _ "github.com/fastsqlite/sqlite3"
//
//	db, err := sql.Open("sqlite3", "file:app.db?_journal_mode=WAL&_busy_timeout=5000")
//
// Each row costs one cgo call: a small C bridge (bridge.h) steps the statement
// and describes every column of the row in one buffer that Go reads directly.
// See the README for the DSN reference, the type mapping and the compile
// options.
//
// A program written for mattn/go-sqlite3 v1.14.53 gets the same results here:
// by default the driver is as lenient as mattn's (arguments no statement uses
// are ignored, SQL with no statement runs nothing, Prepare keeps the first of
// several statements, unparseable text in a date/time column reads as the zero
// time.Time, a cancelled statement returns the context's error itself, ...).
// _strict=1 in the DSN turns each of these into an error, which a new program
// usually prefers; the README's "Switching from mattn/go-sqlite3" table lists
// them.
package sqlite3
