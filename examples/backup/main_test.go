//go:build cgo

package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "copy.db")
	var out strings.Builder
	if err := run(context.Background(), []string{"-rows", "3000", "-pages", "20", "-dest", dest}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{"generated ", "backup: 100% (", "integrity check of the backup: ok"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "\rbackup:") < 3 {
		t.Errorf("want several progress updates (20 pages per step):\n%s", s)
	}

	db, err := sql.Open("sqlite3", dest)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE kind = 'refund'`).Scan(&n); err != nil || n != 750 {
		t.Fatalf("refund events in the backup: %d, %v; want 750", n, err)
	}
}

// TestBackupWhileWriting: the source is written between steps by another
// connection; the finished copy is a consistent database.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	if err := generate(ctx, src, 2000); err != nil {
		t.Fatal(err)
	}
	srcDB, err := sql.Open("sqlite3", src+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer srcDB.Close()
	destDB, err := sql.Open("sqlite3", filepath.Join(dir, "dest.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer destDB.Close()
	writer, err := sql.Open("sqlite3", src+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()

	steps := 0
	_, err = backup(ctx, destDB, srcDB, 10, 0, func(remaining, pageCount int) {
		steps++
		if steps == 2 { // once, so that the restarted copy can finish
			if _, err := writer.Exec(`INSERT INTO events (kind) VALUES ('during backup')`); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := destDB.QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil || n != 2001 {
		t.Fatalf("rows in the backup: %d, %v; want 2001", n, err)
	}
}
