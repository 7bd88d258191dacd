//go:build cgo && libsqlite3

package sqlite3

// bundledSQLite: false against the system SQLite (libsqlite3 tag).
const bundledSQLite = false
