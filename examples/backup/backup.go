//go:build cgo

package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fastsqlite/sqlite3"
)

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	src := fs.String("src", "", "database to back up (default: generate a sample database)")
	dest := fs.String("dest", "", "backup file to write (default: a file in a temporary directory)")
	rows := fs.Int("rows", 20000, "rows of the generated sample database")
	pages := fs.Int("pages", 100, "pages to copy per step (-1: all at once)")
	pause := fs.Duration("pause", 0, "pause between steps, to let other connections in")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *src == "" || *dest == "" {
		dir, err := os.MkdirTemp("", "backup")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if *src == "" {
			*src = filepath.Join(dir, "source.db")
			if err := generate(ctx, *src, *rows); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "generated %s with %d rows\n", *src, *rows)
		}
		if *dest == "" {
			*dest = filepath.Join(dir, "backup.db")
		}
	}

	if _, err := os.Stat(*src); err != nil {
		return err // SQLite would create an empty database instead
	}
	// Not the server DSN: a backup reads the source and overwrites the
	// destination, and must not change the source's journal mode.
	srcDB, err := sql.Open("sqlite3", *src+"?_busy_timeout=5000")
	if err != nil {
		return err
	}
	defer srcDB.Close()
	destDB, err := sql.Open("sqlite3", *dest)
	if err != nil {
		return err
	}
	defer destDB.Close()

	start := time.Now()
	total, err := backup(ctx, destDB, srcDB, *pages, *pause, func(remaining, pageCount int) {
		done := pageCount - remaining
		fmt.Fprintf(stdout, "\rbackup: %3d%% (%d/%d pages)", 100*done/max(pageCount, 1), done, pageCount)
	})
	fmt.Fprintln(stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "copied %d pages from %s to %s in %v\n", total, *src, *dest, time.Since(start).Round(time.Millisecond))

	// The copy is a complete database: check it.
	var check string
	if err := destDB.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return err
	}
	if check != "ok" {
		return fmt.Errorf("integrity check of the backup: %s", check)
	}
	fmt.Fprintln(stdout, "integrity check of the backup: ok")
	return nil
}

// backup copies the main database of srcDB into destDB, pagesPerStep pages
// at a time, and returns the number of pages copied.
func backup(ctx context.Context, destDB, srcDB *sql.DB, pagesPerStep int, pause time.Duration, progress func(remaining, pageCount int)) (int, error) {
	// Two pinned connections: the backup is tied to both until it finishes.
	destConn, err := destDB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer destConn.Close()
	srcConn, err := srcDB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer srcConn.Close()

	var pageCount int
	err = destConn.Raw(func(destAny any) error {
		return srcConn.Raw(func(srcAny any) error {
			d, ok1 := destAny.(*sqlite3.SQLiteConn)
			s, ok2 := srcAny.(*sqlite3.SQLiteConn)
			if !ok1 || !ok2 {
				return errors.New("not an sqlite3 connection")
			}
			b, err := d.Backup("main", s, "main")
			if err != nil {
				return err
			}
			for {
				done, err := b.Step(pagesPerStep)
				if err != nil {
					b.Finish()
					return err
				}
				pageCount = b.PageCount()
				progress(b.Remaining(), pageCount)
				if done {
					break
				}
				select {
				case <-ctx.Done():
					b.Finish()
					return ctx.Err()
				case <-time.After(pause):
				}
			}
			return b.Finish()
		})
	})
	return pageCount, err
}

// generate writes a sample database of n rows to path.
func generate(ctx context.Context, path string, n int) error {
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE events (id INTEGER PRIMARY KEY, at DATETIME, kind TEXT, payload TEXT);
		CREATE INDEX events_kind ON events (kind, at)`); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events (at, kind, payload) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"login", "logout", "purchase", "refund"}
	payload := strings.Repeat("x", 150)
	for i := range n {
		if _, err := ins.ExecContext(ctx, at.Add(time.Duration(i)*time.Second), kinds[i%len(kinds)], payload); err != nil {
			return err
		}
	}
	return tx.Commit()
}
