//go:build cgo && !libsqlite3

package sqlite3

// bundledSQLite: the driver runs the vendored amalgamation (its internals
// are reachable: F_GETLK on its descriptors, lockholder.go).
const bundledSQLite = true
