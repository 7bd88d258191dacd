//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A "database is locked" says who held the lock; errors.As gives the same
// as fields. Here one connection keeps a transaction open while another
// writes with a busy timeout of 100 ms.
func ExampleLockHolder() {
	dir, err := os.MkdirTemp("", "holder")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "app.db")+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=100")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER)"); err != nil {
		panic(err)
	}

	ctx := context.Background()
	conn, err := db.Conn(ctx) // the holder: a transaction left open
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	var holderID int64
	conn.Raw(func(dc any) error { holderID = dc.(*SQLiteConn).ID(); return nil })
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		panic(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO accounts VALUES (1, 100)"); err != nil {
		panic(err)
	}

	_, err = db.Exec("UPDATE accounts SET balance = 0")
	var h *LockHolder
	if errors.Is(err, ErrBusy) && errors.As(err, &h) {
		fmt.Println("in this process:", h.InProcess)
		fmt.Println("the open transaction's connection:", h.Conn == holderID)
		fmt.Println("its statement:", h.TxSQL)
		fmt.Println("held at least 100ms:", h.Held >= 100e6)
	}
	// Output:
	// in this process: true
	// the open transaction's connection: true
	// its statement: INSERT INTO accounts VALUES (1, 100)
	// held at least 100ms: true
}
