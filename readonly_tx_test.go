//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// testWriteRefused checks that a write on q fails as a read-only transaction
// refuses it: ErrReadonly with SQLite's message, as PRAGMA query_only makes
// SQLite answer.
func testWriteRefused(t *testing.T, q testExecer) {
	t.Helper()
	_, err := q.ExecContext(context.Background(), "INSERT INTO t VALUES (100)")
	e := testAsError(t, err)
	if e.Code != ErrReadonly || e.ExtendedCode != ErrNoExtended(ErrReadonly) {
		t.Fatalf("write in a read-only transaction: %v (%d/%d), want ErrReadonly", err, e.Code, e.ExtendedCode)
	}
	if !strings.Contains(err.Error(), "attempt to write a readonly database") {
		t.Fatalf("write in a read-only transaction: %q", err)
	}
}

// However a ReadOnly transaction ends (Commit, Rollback, its context's end,
// a COMMIT that fails, a BEGIN that fails), the connection can write again
// afterwards, and PRAGMA query_only says so; inside it, writes are refused
// and PRAGMA query_only reads 1.
func TestReadOnlyTxQueryOnlyEndsWithTx(t *testing.T) {
	ends := []struct {
		name string
		end  func(t *testing.T, db *sql.DB, conn *sql.Conn)
	}{
		{"commit", func(t *testing.T, db *sql.DB, conn *sql.Conn) {
			tx := testBeginReadOnly(t, conn, context.Background())
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
		{"rollback", func(t *testing.T, db *sql.DB, conn *sql.Conn) {
			tx := testBeginReadOnly(t, conn, context.Background())
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		}},
		{"context ends", func(t *testing.T, db *sql.DB, conn *sql.Conn) {
			ctx, cancel := context.WithCancel(context.Background())
			tx := testBeginReadOnly(t, conn, ctx)
			cancel() // database/sql rolls the transaction back
			deadline := time.Now().Add(10 * time.Second)
			for !errors.Is(tx.Commit(), sql.ErrTxDone) {
				if time.Now().After(deadline) {
					t.Fatal("the transaction did not end with its context")
				}
				time.Sleep(time.Millisecond)
			}
			// database/sql marks the Tx done, then runs the driver's
			// Rollback in its own goroutine: a statement on conn may come
			// first, inside the transaction, where query_only is 1. Wait
			// for the Rollback; a flag that outlived it never clears.
			for testQueryInt(t, conn, "PRAGMA query_only") != 0 {
				if time.Now().After(deadline) {
					t.Fatal("PRAGMA query_only stayed 1 after the context ended the transaction")
				}
				time.Sleep(time.Millisecond)
			}
		}},
		{"commit fails", func(t *testing.T, db *sql.DB, conn *sql.Conn) {
			tx := testBeginReadOnly(t, conn, context.Background())
			// The transaction ended under the driver's feet: COMMIT fails.
			if _, err := tx.Exec("ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err == nil {
				t.Fatal("Commit succeeded after a ROLLBACK")
			}
		}},
		{"begin fails", func(t *testing.T, db *sql.DB, conn *sql.Conn) {
			testMustExec(t, conn, "BEGIN")
			if _, err := conn.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true}); err == nil {
				t.Fatal("BeginTx succeeded inside a transaction")
			}
			testMustExec(t, conn, "ROLLBACK")
		}},
	}
	for _, tc := range ends {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t))
			conn := testConn(t, db)
			testMustExec(t, conn, "CREATE TABLE t(x)")
			for round := range 3 {
				tc.end(t, db, conn)
				if n := testQueryInt(t, conn, "PRAGMA query_only"); n != 0 {
					t.Fatalf("round %d: PRAGMA query_only = %d after the transaction", round, n)
				}
				testMustExec(t, conn, "INSERT INTO t VALUES (?)", round)
			}
		})
	}
}

// testBeginReadOnly begins a ReadOnly transaction on conn and checks that it
// is one.
func testBeginReadOnly(t *testing.T, conn *sql.Conn, ctx context.Context) *sql.Tx {
	t.Helper()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := testQueryInt(t, tx, "PRAGMA query_only"); n != 1 {
		t.Fatalf("PRAGMA query_only = %d in a read-only transaction", n)
	}
	testWriteRefused(t, tx)
	return tx
}

// A write in a ReadOnly transaction is refused even while other connections'
// writes are grouped (_group_commit=1): it is never handed to a group that
// would run it on a connection that can write.
func TestReadOnlyTxRefusesWritesBesideGroup(t *testing.T) {
	db := openTestDB(t, "file:"+testTempPath(t)+"?_journal_mode=WAL&_busy_timeout=10000&_group_commit=1")
	testMustExec(t, db, "CREATE TABLE t(x)")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				if _, err := db.Exec("INSERT INTO t VALUES (?)", -2-w*1000000-i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	conn := testConn(t, db)
	for range 50 {
		tx := testBeginReadOnly(t, conn, context.Background())
		testWriteRefused(t, tx)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	wg.Wait()
	if n := testQueryInt(t, db, "SELECT count(*) FROM t WHERE x = 100"); n != 0 {
		t.Fatalf("%d writes of read-only transactions were made", n)
	}
	// The connection writes again, and so may join groups again.
	testMustExec(t, conn, "INSERT INTO t VALUES (-1)")
}
