//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

func Example() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every connection to ":memory:" is a database of its own

	if _, err := db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
		INSERT INTO users (name) VALUES (?), (?)`, "ada", "linus"); err != nil {
		panic(err)
	}
	rows, err := db.Query(`SELECT id, name FROM users ORDER BY id`)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			panic(err)
		}
		fmt.Println(id, name)
	}
	// Output:
	// 1 ada
	// 2 linus
}

func Example_namedParameters() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	var s string
	err = db.QueryRow(`SELECT :greeting || ', ' || @name || $mark`,
		sql.Named("greeting", "hello"), sql.Named("name", "gopher"), sql.Named("mark", "!")).Scan(&s)
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	// Output: hello, gopher!
}

func Example_timeValues() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE events (at DATETIME)`); err != nil {
		panic(err)
	}
	at := time.Date(2026, 11, 29, 23, 0, 0, 0, time.FixedZone("CET", 3600))
	if _, err := db.Exec(`INSERT INTO events VALUES (?)`, at); err != nil {
		panic(err)
	}
	var text string
	var back time.Time
	if err := db.QueryRow(`SELECT CAST(at AS TEXT), at FROM events`).Scan(&text, &back); err != nil {
		panic(err)
	}
	fmt.Println(text)
	fmt.Println(back.Equal(at))
	// Output:
	// 2026-11-29 23:00:00+01:00
	// true
}

func Example_transaction() {
	db, err := sql.Open("sqlite3", "file:example_tx?mode=memory&cache=shared&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE accounts (name TEXT PRIMARY KEY, balance INTEGER)`); err != nil {
		panic(err)
	}
	if _, err := db.Exec(`INSERT INTO accounts VALUES ('a', 100), ('b', 0)`); err != nil {
		panic(err)
	}
	transfer := func(amount int) error {
		tx, err := db.Begin() // BEGIN IMMEDIATE, from _txlock
		if err != nil {
			return err
		}
		defer tx.Rollback() // no-op after Commit
		if _, err := tx.Exec(`UPDATE accounts SET balance = balance - ? WHERE name = 'a'`, amount); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE accounts SET balance = balance + ? WHERE name = 'b'`, amount); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := transfer(30); err != nil {
		panic(err)
	}
	var a, b int
	if err := db.QueryRow(`SELECT (SELECT balance FROM accounts WHERE name = 'a'), (SELECT balance FROM accounts WHERE name = 'b')`).Scan(&a, &b); err != nil {
		panic(err)
	}
	fmt.Println(a, b)
	// Output: 70 30
}

func Example_cancellation() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var n int64
	err = db.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)
		SELECT count(*) FROM c`).Scan(&n)
	// The context's own error, as mattn/go-sqlite3 returns; with _strict=1 in
	// the DSN, an error that also matches ErrInterrupt.
	fmt.Println(err == context.DeadlineExceeded, errors.Is(err, context.DeadlineExceeded))
	// Output: true true
}

func ExampleError() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (k TEXT UNIQUE); INSERT INTO t VALUES ('x')`); err != nil {
		panic(err)
	}
	_, err = db.Exec(`INSERT INTO t VALUES ('x')`)
	var e Error
	if errors.As(err, &e) {
		fmt.Println(e.Code == ErrConstraint, e.ExtendedCode == ErrConstraintUnique)
	}
	fmt.Println(errors.Is(err, ErrConstraintUnique))
	// Output:
	// true true
	// true
}

func ExampleVersion() {
	version, number, _ := Version()
	fmt.Println(version, number)
	// Output: 3.54.1 3054001
}

// CheckDSN finds the parameters nobody would read, which by default, as in
// mattn/go-sqlite3, open with the defaults without a word.
func ExampleCheckDSN() {
	fmt.Println(CheckDSN("file:app.db?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000"))
	fmt.Println(CheckDSN("file:app.db?_jurnal_mode=WAL&_txlok=immediate"))
	fmt.Println(CheckDSN("file:app.db?busy_timeout=5000"))
	// Output:
	// <nil>
	// sqlite3: unknown DSN parameter _jurnal_mode (did you mean _journal_mode?); unknown DSN parameter _txlok (did you mean _txlock?)
	// sqlite3: unknown DSN parameter busy_timeout (did you mean _busy_timeout? the driver's parameters start with "_")
}
