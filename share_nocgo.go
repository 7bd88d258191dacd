//go:build !cgo

package sqlite3

// FileStats reports nothing without cgo: no connection can exist.
func (c *SQLiteConn) FileStats() (FileStats, bool) { return FileStats{}, false }

// ID is 0 without cgo: no connection can exist.
func (c *SQLiteConn) ID() int64 { return 0 }
