//go:build cgo && (sqlite_fts5 || fts5)

package sqlite3

// Built with mattn's FTS5 tag: TestCompiledInFeatures then requires FTS5.
func init() { fts5Tag = true }
