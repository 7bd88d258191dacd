//go:build !cgo

package sqlite3

import (
	"database/sql"
	"errors"
	"testing"
)

// With CGO_ENABLED=0 the driver is registered and fails clearly at open.
func TestNoCgoOpenFails(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); !errors.Is(err, errNoCgo) {
		t.Fatalf("Ping without cgo: %v, want %v", err, errNoCgo)
	}
}

// CheckDSN exists without cgo, so a program that calls it still builds, and
// it says why it cannot check anything.
func TestNoCgoCheckDSNFails(t *testing.T) {
	if err := CheckDSN("file:app.db?_journal_mode=WAL"); !errors.Is(err, errNoCgo) {
		t.Fatalf("CheckDSN without cgo: %v, want %v", err, errNoCgo)
	}
}

// Without cgo there is no DSN parser to check the README's DSN with.
func checkRecommendedDSN(t *testing.T, dsn string) {}
