//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

// A DirectStmt prepared inside a BeginTx transaction belongs to it, as a
// tx.Prepare statement does: once the transaction has ended (here by
// Rollback; database/sql does the same when its context ends, from a
// goroutine of its own), running it is sql.ErrTxDone, and nothing it would
// have written lands outside the transaction in autocommit mode. One
// prepared outside any transaction runs in and out of them.
func TestDirectStmtBelongsToItsTx(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, ":memory:")
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "CREATE TABLE t(x)")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	prepare := func(query string) (ds *DirectStmt) {
		t.Helper()
		if err := conn.Raw(func(dc any) error {
			ds, err = dc.(*SQLiteConn).PrepareDirect(query)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	free := prepare("INSERT INTO t VALUES (?)")
	defer free.Finalize()

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	inTx := prepare("INSERT INTO t VALUES (?)")
	defer inTx.Finalize()
	if err := inTx.Exec(1); err != nil {
		t.Fatal(err)
	}
	if err := free.Exec(2); err != nil { // inside the transaction too
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := inTx.Exec(3); !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("Exec after the transaction ended: %v, want sql.ErrTxDone", err)
	}
	if ok, err := inTx.Step(); ok || !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("Step after the transaction ended: %v %v, want sql.ErrTxDone", ok, err)
	}
	if err := free.Exec(4); err != nil { // autocommit
		t.Fatal(err)
	}
	// A later transaction on the same connection is not the one it belongs to.
	tx, err = conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := inTx.Exec(5); !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("Exec in a later transaction: %v, want sql.ErrTxDone", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []int
	rows, err := conn.QueryContext(ctx, "SELECT x FROM t ORDER BY x")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var x int
		rows.Scan(&x)
		got = append(got, x)
	}
	rows.Close()
	if len(got) != 1 || got[0] != 4 {
		t.Fatalf("rows %v, want [4] (the transaction's rolled back, nothing after it)", got)
	}
}
