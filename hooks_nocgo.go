//go:build !cgo

package sqlite3

// Without cgo there is no connection to hook into; these no-ops keep programs
// that register hooks building with CGO_ENABLED=0, as mattn/go-sqlite3's
// stubs do.

// RegisterAuthorizer does nothing without cgo.
func (c *SQLiteConn) RegisterAuthorizer(callback func(int, string, string, string) int) {}

// RegisterCommitHook does nothing without cgo.
func (c *SQLiteConn) RegisterCommitHook(callback func() int) {}

// RegisterRollbackHook does nothing without cgo.
func (c *SQLiteConn) RegisterRollbackHook(callback func()) {}

// RegisterUpdateHook does nothing without cgo.
func (c *SQLiteConn) RegisterUpdateHook(callback func(int, string, string, int64)) {}
