//go:build cgo

package sqlite3

// Strict mode (_strict=1 in the DSN). By default the driver accepts what
// mattn/go-sqlite3 v1.14.53 accepts and gives the same results, so that a
// program switching drivers keeps working: arguments no statement uses are
// ignored, SQL with no statement in it runs nothing, Prepare keeps the first
// of several statements, unparseable text in a date/time column reads as the
// zero time.Time, integer arguments and results of Go functions wrap around
// to fit their Go type, a Go function returning only an error has its
// error dropped, a DSN parameter nobody reads is ignored (dsn_names.go), and
// every isolation level is accepted (SQLite's serializable serves them all).
// With _strict=1 each of these is an error instead (or, for
// an unparseable time, the text is returned as a string), which is what a
// new program usually wants. The list is in the "Switching from
// mattn/go-sqlite3" table of docs/switching.md.

import (
	"database/sql/driver"
	"io"
)

// noRows is the result of a Query whose SQL holds no statement (only spaces,
// comments or semicolons): no columns and no rows, as in mattn/go-sqlite3.
type noRows struct{}

func (noRows) Columns() []string              { return []string{} }
func (noRows) Close() error                   { return nil }
func (noRows) Next(dest []driver.Value) error { return io.EOF }
