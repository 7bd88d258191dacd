//go:build cgo

package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunGenerated(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"-rows", "2500", "-progress", "1000"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"generated ", "\rimported 1000 records", "\rimported 2000 records", "imported 2500 records into table \"data\""} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(csvPath, []byte("name,\"odd \"\"col\"\"\"\nada,\"1,5\"\nlinus,\"say \"\"hi\"\"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "out.db")
	var out strings.Builder
	if err := run(context.Background(), []string{"-db", dbPath, "-table", "people", csvPath}, &out); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, "odd ""col""" FROM people ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, a+"|"+b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ";") != `ada|1,5;linus|say "hi"` {
		t.Fatalf("rows: %q", got)
	}
}

// TestImportAllOrNothing: a bad record rolls the whole import back.
func TestImportAllOrNothing(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "bad.db")
	csvPath := filepath.Join(t.TempDir(), "bad.csv")
	// The third record has one field too many: encoding/csv reports it.
	if err := os.WriteFile(csvPath, []byte("a,b\n1,2\n3,4\n5,6,7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(context.Background(), []string{"-db", dbPath, csvPath}, &out); err == nil {
		t.Fatal("import of a malformed CSV succeeded")
	}
	db, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'data'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("table after a failed import: %d, %v (want no table)", n, err)
	}
}
