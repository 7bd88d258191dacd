//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// Cancellation as a user sees it: a context stops its own operation, not
// one opened before or after it (the connection's cancellation word carries
// a generation), and SQL that a Go function runs on its own connection does
// not disarm the cancellation of the statement that called it.

// The slow steps of these tests: a first row at once, then a second that
// comes seconds later, or never (only a cancellation ends that step). The
// blob, too long to be copied into a batch of rows stepped ahead, makes a
// DirectStmt's first Step return the first row alone.
const (
	lateRow  = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 20000000) SELECT i, zeroblob(300) FROM c WHERE i = 1 OR i = 20000000`
	neverRow = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT i, zeroblob(300) FROM c WHERE i = 1 OR i < 0`
	endless  = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT count(*) FROM c`
)

// cancelLaterOp runs an operation on c that its own context stops while it
// runs: it raises the connection's cancellation word to its generation,
// later than that of anything opened before it.
func cancelLaterOp(t *testing.T, c *SQLiteConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.ExecContext(ctx, endless, nil); err != context.DeadlineExceeded {
		t.Fatalf("the later operation: %v, want context.DeadlineExceeded", err)
	}
}

// awaitStep runs step, whose context is cancelled 100 ms in, and fails unless
// it returns soon after that without a row. A step that the cancellation
// misses is stopped by other means, so that a failing test ends.
func awaitStep(t *testing.T, c *SQLiteConn, cancel context.CancelFunc, step func() (bool, error)) (bool, error) {
	t.Helper()
	type result struct {
		row bool
		err error
	}
	ch := make(chan result, 1)
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	go func() {
		row, err := step()
		ch <- result{row, err}
	}()
	select {
	case r := <-ch:
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("the step returned %v after its context ended", d-100*time.Millisecond)
		}
		return r.row, r.err
	case <-time.After(3 * time.Second):
		// Store what the progress handler waits for: the armed generation.
		for {
			select {
			case r := <-ch:
				t.Fatalf("the step went on for seconds after its context ended (then returned %v, %v)", r.row, r.err)
			default:
				atomic.StoreUint64(c.word.p, uint64(c.h.armed))
				time.Sleep(time.Millisecond)
			}
		}
	}
}

// Rows opened before another operation on the connection was cancelled still
// end at once when their own context does, with its error and no row, as on
// mattn/go-sqlite3 (whose cancel interrupts whatever runs).
func TestRowsCancelAfterLaterCancel(t *testing.T) {
	for _, tc := range []struct{ name, query string }{{"late row", lateRow}, {"no row", neverRow}} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ":memory:")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rows, err := c.QueryContext(ctx, tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			dest := make([]driver.Value, 2)
			if err := rows.Next(dest); err != nil || dest[0] != int64(1) {
				t.Fatalf("first row %v, %v", dest[0], err)
			}
			cancelLaterOp(t, c)
			row, err := awaitStep(t, c, cancel, func() (bool, error) {
				err := rows.Next(dest)
				return err == nil, err
			})
			if row || err != context.Canceled {
				t.Fatalf("Next = row %v (%v), %v; want context.Canceled", row, dest[0], err)
			}
		})
	}
}

// The same for a DirectStmt run with SetInterrupt, whose every step takes the
// connection's newest generation.
func TestDirectCancelAfterLaterCancel(t *testing.T) {
	for _, tc := range []struct{ name, query string }{{"late row", lateRow}, {"no row", neverRow}} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ":memory:")
			s := mustPrepareDirect(t, c, tc.query)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.SetInterrupt(ctx)
			mustStep(t, s, true)
			if v := s.ColumnInt64(0); v != 1 {
				t.Fatalf("first row %d", v)
			}
			cancelLaterOp(t, c)
			row, err := awaitStep(t, c, cancel, s.Step)
			if row || err != context.Canceled {
				t.Fatalf("Step = row %v, %v; want context.Canceled", row, err)
			}
		})
	}
}

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
