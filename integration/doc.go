// Package integration runs popular Go database libraries (GORM, sqlx, goose,
// golang-migrate) on this driver, through the drop-in path: the libraries
// import github.com/mattn/go-sqlite3, and this module's go.mod replaces that
// path with the driver in the parent directory. It is a nested module so that
// the driver itself depends on none of them.
//
//	cd integration && go test ./...
package integration
