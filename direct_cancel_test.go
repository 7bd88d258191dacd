//go:build cgo

package sqlite3

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// directCount counts to ?1 in one row: a step of seconds for 5e7, which only
// a cancellation ends early (a test that ends it then sees no row).
const directCount = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?1) SELECT count(*) FROM c`

// wantCtxErr checks err against what database/sql returns for a query
// stopped by a context on the same connection: ctx.Err() itself, or with
// _strict an error matching both it and ErrInterrupt.
func wantCtxErr(t *testing.T, c *SQLiteConn, err, ctxErr error) {
	t.Helper()
	if !c.strict {
		if err != ctxErr {
			t.Fatalf("error %v (%T), want %v itself", err, err, ctxErr)
		}
		return
	}
	if !errors.Is(err, ctxErr) || !errors.Is(err, ErrInterrupt) {
		t.Fatalf("error %v (%T), want one matching %v and ErrInterrupt", err, err, ctxErr)
	}
}

// A step that runs long stops when the statement's context ends, by its
// deadline or by an explicit cancel, with database/sql's error; the
// statement and the connection stay usable.
func TestDirectInterruptLongStep(t *testing.T) {
	for _, dsn := range []string{":memory:", "file::memory:?_strict=1"} {
		c := rawConn(t, dsn)
		for _, how := range []string{"deadline", "cancel"} {
			t.Run(dsn+"/"+how, func(t *testing.T) {
				s := mustPrepareDirect(t, c, directCount)
				var ctx context.Context
				var cancel context.CancelFunc
				if how == "deadline" {
					ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
				} else {
					ctx, cancel = context.WithCancel(context.Background())
					time.AfterFunc(50*time.Millisecond, cancel)
				}
				defer cancel()
				if old := s.SetInterrupt(ctx); old != context.Background() {
					t.Fatalf("SetInterrupt returned %v, want context.Background()", old)
				}
				s.BindInt64(1, 5e7)
				ok, err := s.Step()
				if ok {
					t.Fatalf("Step returned a row (%d) after its context ended", s.ColumnInt64(0))
				}
				wantCtxErr(t, c, err, ctx.Err())
				// Again without Reset: the context has ended, nothing runs.
				if ok, err := s.Step(); ok || err == nil {
					t.Fatalf("Step again = %v, %v", ok, err)
				}
				// Reset, a live context: the statement runs again.
				live, stop := context.WithCancel(context.Background())
				defer stop()
				if old := s.SetInterrupt(live); old != ctx {
					t.Fatal("SetInterrupt did not return the context it replaced")
				}
				if err := s.Reset(); err != nil {
					t.Fatal(err)
				}
				if err := s.BindInt64(1, 10); err != nil {
					t.Fatal(err)
				}
				mustStep(t, s, true)
				if n := s.ColumnInt64(0); n != 10 {
					t.Fatalf("count = %d after the cancelled run", n)
				}
				mustStep(t, s, false)
				if got := testDirectInt(t, c, "SELECT 7"); got != 7 {
					t.Fatalf("the connection after a cancelled step: %d", got)
				}
			})
		}
	}
}

// testDirectInt runs a one-value query on c with a new DirectStmt.
func testDirectInt(t *testing.T, c *SQLiteConn, query string) int64 {
	t.Helper()
	s, err := c.PrepareDirect(query)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Finalize()
	mustStep(t, s, true)
	return s.ColumnInt64(0)
}

// A context that has ended before Step stops it before it runs.
func TestDirectInterruptEndedBefore(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(x)")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (1)")
	ins.SetInterrupt(ctx)
	if ok, err := ins.Step(); ok || err != context.Canceled {
		t.Fatalf("Step = %v, %v", ok, err)
	}
	if err := ins.Exec(); err != context.Canceled {
		t.Fatalf("Exec = %v", err)
	}
	if n := testDirectInt(t, c, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows inserted by cancelled runs", n)
	}
	//lint:ignore SA1012 nil is documented to mean Background: bad input is no panic
	ins.SetInterrupt(nil)
	if err := ins.Exec(); err != nil {
		t.Fatal(err)
	}
	if n := testDirectInt(t, c, "SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
}

// Once the context has ended, Step hands out no further row, even one
// stepped ahead in a batch, and resets the statement (its read lock goes).
func TestDirectInterruptBetweenRows(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(x INTEGER PRIMARY KEY, y TEXT)")
	directExec(t, c, "INSERT INTO t(y) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT 'v' || i FROM n")
	for _, tc := range []struct {
		name, query string
		before      int
		ahead       bool // the cancel comes while rows stepped ahead wait
	}{
		{"first row", "SELECT x, y FROM t", 0, false},
		{"batched rows", "SELECT x, y FROM t", 5, true},
		{"one at a time", "UPDATE t SET y = y RETURNING x, y", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Rows are stepped ahead only where nothing can write.
			directExec(t, c, "PRAGMA query_only = "+map[bool]string{true: "1", false: "0"}[tc.ahead])
			defer directExec(t, c, "PRAGMA query_only = 0")
			tc.ahead = tc.ahead && stepsAheadBuilt()
			s := mustPrepareDirect(t, c, tc.query)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.SetInterrupt(ctx)
			for i := 0; i < tc.before; i++ {
				mustStep(t, s, true)
			}
			if ahead := s.bi+1 < s.nb; ahead != tc.ahead {
				t.Fatalf("rows stepped ahead waiting: %v, want %v", ahead, tc.ahead)
			}
			cancel()
			if ok, err := s.Step(); ok || err != context.Canceled {
				t.Fatalf("Step after cancel = %v, %v", ok, err)
			}
			// No statement holds the database: DROP TABLE would fail with
			// "database table is locked" while one is on a row.
			directExec(t, c, "PRAGMA query_only = 0")
			directExec(t, c, "CREATE TABLE probe(z)")
			directExec(t, c, "DROP TABLE probe")
			if ok, _ := s.Step(); ok {
				t.Fatal("a row after the cancel")
			}
			s.Reset()
			s.SetInterrupt(context.Background())
			n := 0
			for {
				ok, err := s.Step()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				n++
			}
			if n != 200 {
				t.Fatalf("%d rows after Reset, want 200", n)
			}
		})
	}
}

// Exec and ExecColumns stop as Step does: the row that counts to 5e7 is
// not written.
func TestDirectInterruptExec(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(id INTEGER, n INTEGER)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t SELECT ?1, count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?2) SELECT x FROM c)")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ins.SetInterrupt(ctx)
	err := ins.Exec(1, int64(5e7))
	wantCtxErr(t, c, err, context.DeadlineExceeded)
	if n := testDirectInt(t, c, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows left by the interrupted Exec", n)
	}

	// ExecColumns: the rows before the long one run, the long one stops.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	ins.SetInterrupt(ctx2)
	done, err := ins.ExecColumns([]int64{1, 2, 3}, []int64{10, 5e7, 10})
	wantCtxErr(t, c, err, context.DeadlineExceeded)
	if done != 1 {
		t.Fatalf("ExecColumns ran %d rows, want 1", done)
	}
	if n := testDirectInt(t, c, "SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows, want the first row", n)
	}
	// Already ended: nothing runs, the large values given are freed
	// (checked by the leak tests' C allocation count under -asan).
	big := string(make([]byte, 100<<10))
	if done, err := ins.ExecColumns([]any{4, 5}, []any{big, big}); done != 0 || err != context.DeadlineExceeded {
		t.Fatalf("ExecColumns with an ended context: %d, %v", done, err)
	}
	ins.SetInterrupt(context.Background())
	if done, err := ins.ExecColumns([]int64{4, 5}, []int64{1, 2}); done != 2 || err != nil {
		t.Fatalf("ExecColumns after the cancel: %d, %v", done, err)
	}
	if err := ins.Exec(6, 3); err != nil {
		t.Fatal(err)
	}
	if n := testDirectInt(t, c, "SELECT count(*) FROM t"); n != 4 {
		t.Fatalf("%d rows, want 4", n)
	}
}

// Inside a transaction of database/sql, an interrupted DirectStmt write
// behaves as an interrupted ExecContext: SQLite rolls the transaction back,
// and the Tx's further statements fail until it is rolled back.
func TestDirectInterruptInTx(t *testing.T) {
	for _, api := range []string{"direct", "sql"} {
		t.Run(api, func(t *testing.T) {
			db := openTestDB(t, ":memory:")
			testMustExec(t, db, "CREATE TABLE t(x)")
			conn := testConn(t, db)
			tx, err := conn.BeginTx(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES (0)"); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			const long = "INSERT INTO t SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000000) SELECT x FROM c)"
			if api == "sql" {
				_, err = tx.ExecContext(ctx, long)
			} else {
				testRawConn(t, conn, func(c *SQLiteConn) {
					s, perr := c.PrepareDirect(long)
					if perr != nil {
						t.Fatal(perr)
					}
					s.SetInterrupt(ctx)
					err = s.Exec()
					s.Finalize()
				})
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("long write: %v", err)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES (1)"); err == nil {
				t.Fatal("the Tx went on after SQLite rolled it back")
			}
			tx.Rollback()
			var n int
			if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
				t.Fatalf("count %d, %v; want 0 rows after the rollback", n, err)
			}
		})
	}
}

// A cancelled operation that ran after SetInterrupt raises the cancellation
// word past any generation the statement could have taken then: each run
// takes a new one, so the statement's own cancel still reaches it.
func TestDirectInterruptAfterLaterCancel(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, directCount)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	s.SetInterrupt(ctx)
	// A query of database/sql cancelled while its rows are open raises the word.
	qctx, qcancel := context.WithCancel(context.Background())
	rows, err := c.QueryContext(qctx, "SELECT 1 UNION ALL SELECT 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	qcancel()
	for atomic.LoadUint64(c.word.p) == 0 {
		runtime.Gosched() // the AfterFunc runs on a goroutine of its own
	}
	rows.Close()
	s.BindInt64(1, 5e7)
	ok, err := s.Step()
	if ok || err != context.DeadlineExceeded {
		t.Fatalf("Step = %v, %v; want context.DeadlineExceeded", ok, err)
	}
}

// Neither SetInterrupt nor the runs leave a goroutine behind, cancelled or
// not, and Finalize stops the context's AfterFunc.
func TestDirectInterruptNoGoroutineLeft(t *testing.T) {
	baseline := runtime.NumGoroutine()
	c := rawConn(t, ":memory:")
	for i := 0; i < 50; i++ {
		s, err := c.PrepareDirect("SELECT ?1")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		s.SetInterrupt(ctx)
		s.BindInt64(1, int64(i))
		mustStep(t, s, true)
		if i%2 == 0 {
			cancel()
			if ok, err := s.Step(); ok || err != context.Canceled {
				t.Fatalf("Step after cancel = %v, %v", ok, err)
			}
		}
		s.Finalize()
		cancel()
	}
	// A context that outlives its statement: Finalize stopped the AfterFunc.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.PrepareDirect("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	s.SetInterrupt(ctx)
	s.Finalize()
	if s.SetInterrupt(context.Background()) != ctx {
		t.Fatal("SetInterrupt after Finalize did not return the context set")
	}
	leakSettle(t, baseline)
}

// asanBuild is set under go test -asan (asan_build_test.go).
var asanBuild bool

// A context that cannot be cancelled costs no allocation per run, nor does
// a cancellable one once set.
func TestDirectInterruptAllocations(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE kv(id INTEGER PRIMARY KEY, v TEXT)")
	directExec(t, c, "INSERT INTO kv WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT i, 'v' || i FROM n")
	q := mustPrepareDirect(t, c, "SELECT v FROM kv WHERE id = ?")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"default", nil}, {"Background", context.Background()}, {"cancellable", ctx}} {
		if tc.ctx != nil {
			q.SetInterrupt(tc.ctx)
		}
		if tc.ctx == ctx && asanBuild {
			continue
		}
		var id int64
		if a := testing.AllocsPerRun(200, func() {
			id = id%100 + 1
			q.BindInt64(1, id)
			if ok, err := q.Step(); !ok || err != nil {
				t.Fatalf("Step = %v, %v", ok, err)
			}
			_ = q.ColumnRawText(0)
			q.Reset()
		}); a != 0 {
			t.Errorf("%s: %v allocations per lookup", tc.name, a)
		}
	}
}
