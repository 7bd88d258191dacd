//go:build !cgo

package sqlite3

// FileStats reports nothing without cgo: no connection can exist.
func (c *SQLiteConn) FileStats() (FileStats, bool) { return FileStats{}, false }
