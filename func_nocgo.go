//go:build !cgo

package sqlite3

// Without cgo there is no connection to register functions on; these keep
// programs that call them building with CGO_ENABLED=0, as mattn/go-sqlite3's
// stubs do.

// RegisterFunc reports that the driver needs cgo.
func (c *SQLiteConn) RegisterFunc(name string, impl any, pure bool) error { return errNoCgo }

// RegisterAggregator reports that the driver needs cgo.
func (c *SQLiteConn) RegisterAggregator(name string, impl any, pure bool) error { return errNoCgo }

// RegisterCollation reports that the driver needs cgo.
func (c *SQLiteConn) RegisterCollation(name string, cmp func(string, string) int) error {
	return errNoCgo
}
