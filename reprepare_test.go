//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"testing"
)

// testRawConn runs f on the driver connection behind conn.
func testRawConn(t testing.TB, conn *sql.Conn, f func(c *SQLiteConn)) {
	t.Helper()
	if err := conn.Raw(func(dc any) error { f(dc.(*SQLiteConn)); return nil }); err != nil {
		t.Fatalf("conn.Raw: %v", err)
	}
}

// A ReadOnly transaction stays read-only when SQLite re-prepared the cached
// "PRAGMA query_only" that BeginTx reads (RegisterAuthorizer expires every
// statement): the value must be read from the re-described columns, not from
// the block the re-prepare freed.
func TestReadOnlyTxAfterReprepare(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	ctx := context.Background()
	testMustExec(t, conn, "CREATE TABLE t(x)")
	testMustExec(t, conn, "INSERT INTO t VALUES (1), (2)")
	for i := range 3 {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		testRawConn(t, conn, func(c *SQLiteConn) {
			c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK })
		})
		tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec("DELETE FROM t")
		tx.Rollback()
		if err == nil {
			t.Fatalf("round %d: DELETE succeeded in a ReadOnly transaction after the statements were expired", i)
		}
		if e := testAsError(t, err); e.Code != ErrReadonly {
			t.Fatalf("round %d: DELETE in a ReadOnly transaction: %v, want ErrReadonly", i, err)
		}
	}
	if n := testQueryInt(t, conn, "SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("%d rows left, want 2", n)
	}
}
