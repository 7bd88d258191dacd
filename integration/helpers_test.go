//go:build cgo

package integration

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	// The libraries below import mattn's path; go.mod replaces it with this
	// driver, so this import is the driver in the parent directory too.
	sqlite3 "github.com/mattn/go-sqlite3"
)

// dsn is a fresh database file in the test's temporary directory, with the
// server settings the README recommends plus any extra parameters.
func dsn(t *testing.T, extra ...string) string {
	t.Helper()
	params := append([]string{"_journal_mode=WAL", "_busy_timeout=5000", "_txlock=immediate"}, extra...)
	return filepath.Join(t.TempDir(), "test.db") + "?" + strings.Join(params, "&")
}

// TestMattnPathIsThisDriver makes sure the replace directive took effect: the
// package at mattn's import path is this driver, not mattn's. Only this driver
// knows _stmt_cache_size and rejects a malformed value at sql.Open (mattn
// ignores parameters it does not know).
func TestMattnPathIsThisDriver(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:?_stmt_cache_size=many")
	if err == nil {
		db.Close()
		t.Fatal("sql.Open accepted _stmt_cache_size=many: github.com/mattn/go-sqlite3 is not replaced by this driver")
	}
	if !strings.Contains(err.Error(), "_stmt_cache_size") {
		t.Fatalf("error does not name the parameter: %v", err)
	}
	version, number, _ := sqlite3.Version()
	if number < 3054000 {
		t.Fatalf("SQLite %s (%d): want the vendored 3.54 or later", version, number)
	}
	t.Logf("SQLite %s through github.com/mattn/go-sqlite3's import path", version)
}
