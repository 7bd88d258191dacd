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
