//go:build sqlite_unlock_notify

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Tests of bridge_unlock.c. Connections sharing a cache lock tables: without
// the tag, a statement that meets another connection's table lock fails at
// once with SQLITE_LOCKED_SHAREDCACHE. With it, the statement waits for the lock's
// transaction to end (sqlite3_unlock_notify) and runs then. These tests make
// each wait certain before ending the transaction: unlockWaiting reports that
// the connection is inside the wait.

// unlockDSN is a shared-cache database in a fresh file.
func unlockDSN(t *testing.T) string {
	return "file:" + testTempPath(t) + "?cache=shared&mode=rwc"
}

// unlockDriverConn is the driver connection under conn, for unlockWaiting.
// Take it before running anything on conn: Raw waits for conn's operation.
func unlockDriverConn(t *testing.T, conn *sql.Conn) *SQLiteConn {
	t.Helper()
	var c *SQLiteConn
	if err := conn.Raw(func(dc any) error {
		c = dc.(*SQLiteConn)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// unlockAwait returns once c waits for a lock. A result on done first means
// that the operation ended without waiting: the test fails with it.
func unlockAwait(t *testing.T, c *SQLiteConn, done <-chan error) {
	t.Helper()
	for !unlockWaiting(c.h) {
		select {
		case err := <-done:
			t.Fatalf("the operation ended without waiting for the lock: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
}

// unlockHolder opens a transaction on its own connection that has written to
// table foo (which it creates), so that foo is write-locked until it ends.
func unlockHolder(t *testing.T, db *sql.DB) *sql.Tx {
	t.Helper()
	testMustExec(t, db, "CREATE TABLE foo(id INTEGER, status INTEGER)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	testMustExec(t, tx, "INSERT INTO foo(id, status) VALUES(1, 100)")
	return tx
}

// A read of a table another connection is writing waits for its commit, then
// sees the committed row.
func TestUnlockNotifyQueryWaits(t *testing.T) {
	db := openTestDB(t, unlockDSN(t))
	tx := unlockHolder(t, db)
	reader := testConn(t, db)
	rc := unlockDriverConn(t, reader)

	done := make(chan error, 1)
	var count int64
	go func() {
		done <- reader.QueryRowContext(context.Background(), "SELECT count(*) FROM foo").Scan(&count)
	}()
	unlockAwait(t, rc, done)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("query after the writer committed: %v", err)
	}
	if count != 1 {
		t.Errorf("count(*) = %d after the writer committed its row, want 1", count)
	}
	if unlockWaiting(rc.h) {
		t.Error("the connection still reports a wait")
	}
}

// A write (Exec), a statement of a script run in C, and a prepare blocked by
// a schema change each wait, and run once the lock is gone.
func TestUnlockNotifyExecScriptPrepare(t *testing.T) {
	for _, tc := range []struct {
		name, holder, waiter string
	}{
		{"exec", "INSERT INTO foo(id, status) VALUES(1, 100)", "INSERT INTO foo(id, status) VALUES(2, 200)"},
		{"script", "INSERT INTO foo(id, status) VALUES(1, 100)",
			"INSERT INTO foo(id, status) VALUES(2, 200); UPDATE foo SET status = status + 1"},
		{"prepare", "CREATE TABLE bar(x)", "SELECT count(*) FROM foo WHERE id > 41"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, testSharedMemDSN(t))
			testMustExec(t, db, "CREATE TABLE foo(id INTEGER, status INTEGER)")
			holder := testConn(t, db)
			waiter := testConn(t, db)
			wc := unlockDriverConn(t, waiter)
			testMustExec(t, holder, "BEGIN")
			testMustExec(t, holder, tc.holder)

			done := make(chan error, 1)
			go func() {
				_, err := waiter.ExecContext(context.Background(), tc.waiter)
				done <- err
			}()
			unlockAwait(t, wc, done)
			testMustExec(t, holder, "COMMIT")
			if err := <-done; err != nil {
				t.Fatalf("%q after the holder committed: %v", tc.waiter, err)
			}
		})
	}
}

// Many connections waiting on one transaction are all released by its end
// (SQLite passes them to the notification together), and each one's read
// then succeeds. Nothing is left behind: no goroutine, no open connection.
func TestUnlockNotifyManyWaiters(t *testing.T) {
	const waiters = 64
	baseline := runtime.NumGoroutine()
	db, err := sql.Open("sqlite3", unlockDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	tx := unlockHolder(t, db)
	conns := make([]*sql.Conn, waiters)
	dcs := make([]*SQLiteConn, waiters)
	done := make(chan error, waiters)
	for i := range conns {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns[i], dcs[i] = conn, unlockDriverConn(t, conn)
	}
	for _, conn := range conns {
		go func() {
			var n int64
			err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM foo").Scan(&n)
			if err == nil && n != 1 {
				err = fmt.Errorf("count(*) = %d, want 1", n)
			}
			done <- err
		}()
	}
	for _, c := range dcs {
		unlockAwait(t, c, done)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for range conns {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	for _, conn := range conns {
		if err := conn.Close(); err != nil {
			t.Error(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := db.Stats().OpenConnections; n != 0 {
		t.Errorf("%d connections open after Close", n)
	}
	tortureGoroutines(t, baseline)
}

// Two transactions that each wait for the other would wait forever: SQLite
// refuses the second wait, and its statement fails with SQLITE_LOCKED at
// once, saying why, whichever way it runs (a query, a statement with
// arguments, a script run in C). Once that transaction rolls back, the first
// one's wait ends and it commits.
func TestUnlockNotifyDeadlockFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(*sql.Conn) error
	}{
		{"query", func(c *sql.Conn) error {
			var n int64
			return c.QueryRowContext(context.Background(), "SELECT count(*) FROM t1").Scan(&n)
		}},
		{"exec", func(c *sql.Conn) error {
			_, err := c.ExecContext(context.Background(), "SELECT count(*) FROM t1 WHERE x > ?", 0)
			return err
		}},
		{"script", func(c *sql.Conn) error {
			_, err := c.ExecContext(context.Background(), "SELECT 1; SELECT count(*) FROM t1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, testSharedMemDSN(t))
			testMustExec(t, db, "CREATE TABLE t1(x)")
			testMustExec(t, db, "CREATE TABLE t2(x)")
			a, b := testConn(t, db), testConn(t, db)
			ac := unlockDriverConn(t, a)

			testMustExec(t, a, "BEGIN")
			testMustExec(t, a, "INSERT INTO t1 VALUES(1)") // a write-locks t1
			testMustExec(t, b, "BEGIN")
			testQueryInt(t, b, "SELECT count(*) FROM t2") // b read-locks t2 until it ends

			done := make(chan error, 1)
			go func() {
				_, err := a.ExecContext(context.Background(), "INSERT INTO t2 VALUES(2)") // waits for b
				done <- err
			}()
			unlockAwait(t, ac, done)

			err := tc.run(b) // would wait for a
			e := testAsError(t, err)
			if e.Code != ErrLocked || !strings.Contains(err.Error(), "deadlock") {
				t.Errorf("deadlocked statement: %v (code %d), want SQLITE_LOCKED saying deadlock", err, e.Code)
			}
			testMustExec(t, b, "ROLLBACK")
			if err := <-done; err != nil {
				t.Fatalf("INSERT after the other transaction rolled back: %v", err)
			}
			testMustExec(t, a, "COMMIT")
			if got := testQueryInt(t, b, "SELECT count(*) FROM t2"); got != 1 {
				t.Errorf("t2 has %d rows after the commit, want 1", got)
			}
		})
	}
}

// A waiting statement ends with its context: the context's error, without
// waiting for the lock, and the connection stays usable. The prepare case
// waits before the statement exists: the holder has changed the schema.
func TestUnlockNotifyCancel(t *testing.T) {
	for _, kind := range []string{"query", "exec", "prepare"} {
		t.Run(kind, func(t *testing.T) {
			db := openTestDB(t, unlockDSN(t))
			tx := unlockHolder(t, db)
			if kind == "prepare" {
				testMustExec(t, tx, "CREATE TABLE bar(x)")
			}
			waiter := testConn(t, db)
			wc := unlockDriverConn(t, waiter)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				var err error
				if kind == "exec" {
					_, err = waiter.ExecContext(ctx, "UPDATE foo SET status = 0")
				} else {
					var n int64
					err = waiter.QueryRowContext(ctx, "SELECT count(*) FROM foo").Scan(&n)
				}
				done <- err
			}()
			unlockAwait(t, wc, done)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled while waiting for the lock: %v, want context.Canceled", err)
			}
			if unlockWaiting(wc.h) {
				t.Fatal("the connection still reports a wait after the cancellation")
			}
			// Usable at once for what needs no lock (any prepare needs the
			// schema), and for foo once the writer has committed.
			if kind != "prepare" {
				if got := testQueryInt(t, waiter, "SELECT 7"); got != 7 {
					t.Fatalf("SELECT 7 = %d", got)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := testQueryInt(t, waiter, "SELECT count(*) FROM foo"); got != 1 {
				t.Errorf("count(*) = %d after the writer committed, want 1", got)
			}
		})
	}
}

// The direct API waits as database/sql does: DirectStmt.Exec, ExecColumns,
// and the first Step of a run (a write, and a read stepped ahead in batches)
// each wait for the lock, then run once it is gone. SetInterrupt's context
// ends the wait.
func TestUnlockNotifyDirect(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		run         func(*DirectStmt) (int64, error)
	}{
		{"exec", "INSERT INTO foo(id, status) VALUES(?, ?)", func(ds *DirectStmt) (int64, error) {
			return 0, ds.Exec(2, 200)
		}},
		{"execcolumns", "INSERT INTO foo(id, status) VALUES(?, ?)", func(ds *DirectStmt) (int64, error) {
			n, err := ds.ExecColumns([]int64{2, 3}, []int64{200, 300})
			return int64(n), err
		}},
		{"step write", "INSERT INTO foo(id, status) VALUES(2, 200) RETURNING id", func(ds *DirectStmt) (int64, error) {
			ok, err := ds.Step()
			if !ok {
				return 0, err
			}
			return ds.ColumnInt64(0), err
		}},
		{"step read", "SELECT count(*) FROM foo", func(ds *DirectStmt) (int64, error) {
			ok, err := ds.Step()
			if !ok {
				return 0, err
			}
			return ds.ColumnInt64(0), err
		}},
	} {
		for _, cancelled := range []bool{false, true} {
			name := tc.name
			if cancelled {
				name += " cancelled"
			}
			t.Run(name, func(t *testing.T) {
				db := openTestDB(t, unlockDSN(t))
				tx := unlockHolder(t, db)
				waiter := testConn(t, db)
				wc := unlockDriverConn(t, waiter)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()

				type result struct {
					n   int64
					err error
				}
				res := make(chan result, 1)
				done := make(chan error, 1) // for unlockAwait: the run ended
				go func() {
					var r result
					r.err = waiter.Raw(func(dc any) error {
						ds, err := dc.(*SQLiteConn).PrepareDirect(tc.query)
						if err != nil {
							return err
						}
						defer ds.Finalize()
						ds.SetInterrupt(ctx)
						r.n, err = tc.run(ds)
						return err
					})
					done <- r.err
					res <- r
				}()
				unlockAwait(t, wc, done)
				if cancelled {
					cancel()
					r := <-res
					if !errors.Is(r.err, context.Canceled) {
						t.Fatalf("cancelled while waiting for the lock: %v, want context.Canceled", r.err)
					}
					if unlockWaiting(wc.h) {
						t.Fatal("the connection still reports a wait after the cancellation")
					}
					if err := tx.Commit(); err != nil {
						t.Fatal(err)
					}
					if got := testQueryInt(t, waiter, "SELECT count(*) FROM foo"); got != 1 {
						t.Errorf("count(*) = %d after the cancelled statement, want the holder's 1", got)
					}
					return
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				r := <-res
				if r.err != nil {
					t.Fatalf("after the holder committed: %v", r.err)
				}
				want := map[string]int64{"execcolumns": 2, "step write": 2, "step read": 1}[tc.name]
				if r.n != want {
					t.Errorf("result %d, want %d", r.n, want)
				}
				wantRows := map[string]int64{"exec": 2, "execcolumns": 3, "step write": 2, "step read": 1}[tc.name]
				if got := testQueryInt(t, waiter, "SELECT count(*) FROM foo"); got != wantRows {
					t.Errorf("foo has %d rows, want %d", got, wantRows)
				}
			})
		}
	}
}
