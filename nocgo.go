//go:build !cgo

package sqlite3

import (
	"database/sql"
	"database/sql/driver"
	"errors"
)

// Without cgo there is no SQLite to call. The package still compiles, so a
// program that imports it builds with CGO_ENABLED=0, and "sqlite3" is still
// registered; every attempt to open a connection fails with errNoCgo, at
// sql.Open or at the first use of the pool, instead of a link error.

var errNoCgo = errors.New("sqlite3: this binary was built with CGO_ENABLED=0, but the SQLite driver needs cgo: build with CGO_ENABLED=1 and a C compiler (see docs/platforms.md on cross-compiling)")

func init() {
	sql.Register("sqlite3", &SQLiteDriver{})
}

// SQLiteDriver is the database/sql driver; without cgo it cannot open anything.
type SQLiteDriver struct {
	Extensions  []string
	ConnectHook func(*SQLiteConn) error
}

// Open reports that the driver needs cgo.
func (d *SQLiteDriver) Open(dsn string) (driver.Conn, error) { return nil, errNoCgo }

// SQLiteConn is a connection; without cgo none can exist.
type SQLiteConn struct{}

// Version reports no library: SQLite is not linked without cgo.
func Version() (libVersion string, libVersionNumber int, sourceID string) { return "", 0, "" }

// CheckDSN reports that the driver needs cgo: the DSN parser is part of the
// cgo build, so without it no DSN can be checked.
func CheckDSN(dsn string) error { return errNoCgo }

func cErrstr(code int) string { return "SQLite result code " + itoa(code) }
