//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"
	"time"
)

// testNestedFunc registers nest(x) on the connection behind conn: it runs a
// query on that same connection (with a context that is never cancelled,
// the usual case in a callback) and returns x.
func testNestedFunc(t *testing.T, conn *sql.Conn) {
	t.Helper()
	testRawConn(t, conn, func(c *SQLiteConn) {
		err := c.RegisterFunc("nest", func(x int64) (int64, error) {
			rows, err := c.QueryContext(context.Background(), "SELECT 1", nil)
			if err != nil {
				return 0, err
			}
			dest := make([]driver.Value, 1)
			for rows.Next(dest) == nil {
			}
			rows.Close()
			st, err := c.PrepareContext(context.Background(), "SELECT 2")
			if err != nil {
				return 0, err
			}
			if _, err := st.(*SQLiteStmt).ExecContext(context.Background(), nil); err != nil {
				return 0, err
			}
			st.Close()
			return x, nil
		}, false)
		if err != nil {
			t.Fatal(err)
		}
	})
}

// SQL that a Go function runs on its own connection must not disarm the
// cancellation of the statement that called it: the outer query's timeout
// still stops it. Un-cancelled, the query counts 5e7 rows (seconds).
func TestNestedSQLKeepsOuterTimeout(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	testNestedFunc(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var n int64
	err := conn.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000000)
		SELECT count(*) FROM c WHERE CASE WHEN x <= 2 THEN nest(x) ELSE 1 END`).Scan(&n)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("outer query after nested SQL: n=%d err=%v, want context.DeadlineExceeded", n, err)
	}
	// The connection is usable afterwards, and nesting still works.
	if got := testQueryInt(t, conn, "SELECT nest(7)"); got != 7 {
		t.Fatalf("nest(7) = %d", got)
	}
}

// The same for a wait on a lock: after the Go function's SQL, the outer
// statement's commit waits for a reader of another connection, and once its
// context has ended the busy handler is no longer asked: the wait stops.
// Un-cancelled, the handler retries up to 500 times after the deadline.
func TestNestedSQLKeepsOuterBusyCancel(t *testing.T) {
	path := testTempPath(t)
	db := openTestDB(t, "file:"+path+"?_journal_mode=DELETE")
	db.SetMaxOpenConns(2)
	testMustExec(t, db, "CREATE TABLE t(x)")
	testMustExec(t, db, "INSERT INTO t VALUES (1)")
	writer := testConn(t, db)
	reader := testConn(t, db)
	testNestedFunc(t, writer)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	late := 0 // calls after the context ended
	testRawConn(t, writer, func(c *SQLiteConn) {
		err := c.SetBusyHandler(func(int) bool {
			if ctx.Err() != nil {
				late++
			}
			time.Sleep(time.Millisecond)
			return late < 500
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	// An open read keeps a SHARED lock: the writer's commit cannot take
	// the EXCLUSIVE lock it needs.
	rows, err := reader.QueryContext(context.Background(), "SELECT x FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row")
	}
	_, err = writer.ExecContext(ctx, "INSERT INTO t SELECT nest(2)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("insert after nested SQL, waiting on a lock: %v, want context.DeadlineExceeded", err)
	}
	// The AfterFunc that stops the wait runs just after the context ends: a
	// call or two may see the context done first.
	if late > 2 {
		t.Fatalf("the busy handler was asked %d times after the context ended", late)
	}
	rows.Close()
	if _, err := writer.ExecContext(context.Background(), "INSERT INTO t VALUES (3)"); err != nil {
		t.Fatal(err)
	}
}
