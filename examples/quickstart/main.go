// Command quickstart shows the driver's main job on an in-memory database:
// create a table, write rows in a transaction, read them back with their Go
// types, and cancel a slow query with a context.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/fastsqlite/sqlite3"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	version, _, _ := sqlite3.Version()
	fmt.Println("SQLite", version)

	// One connection: each connection to ":memory:" is its own database.
	db, err := sql.Open("sqlite3", "file:quickstart?mode=memory&_fk=1")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	if _, err := db.Exec(`CREATE TABLE notes (
		id      INTEGER PRIMARY KEY,
		body    TEXT NOT NULL,
		done    BOOLEAN NOT NULL DEFAULT 0,
		created DATETIME NOT NULL
	)`); err != nil {
		return err
	}

	tx, err := db.Begin()
	if err != nil {
		return err
	}
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for i, body := range []string{"write the driver", "measure it", "ship it"} {
		if _, err := tx.Exec(`INSERT INTO notes (body, done, created) VALUES (?, ?, ?)`,
			body, i == 0, start.Add(time.Duration(i)*time.Hour)); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	fmt.Println("wrote 3 notes in one transaction")

	rows, err := db.Query(`SELECT id, body, done, created FROM notes ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      int64
			body    string
			done    bool
			created time.Time
		)
		if err := rows.Scan(&id, &body, &done, &created); err != nil {
			return err
		}
		fmt.Printf("note %d: %-18q done=%-5v created=%s\n", id, body, done, created.Format(time.RFC3339))
	}
	if err := rows.Err(); err != nil {
		return err
	}

	// A query that would count for minutes, stopped by its context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	var n int64
	err = db.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)
		SELECT count(*) FROM c`).Scan(&n)
	if !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("slow query: want a deadline error, got %v", err)
	}
	fmt.Printf("cancelled a slow query after %v: %v\n", time.Since(began).Round(time.Millisecond), err)

	// The connection is fine afterwards.
	if err := db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n); err != nil {
		return err
	}
	fmt.Println("notes still there:", n)
	return nil
}
