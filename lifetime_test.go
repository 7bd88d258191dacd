//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// collectUntil runs the garbage collector until done reports true, giving
// the cleanups (which run on a goroutine of the runtime's) time to run. It
// reports whether done became true within about five seconds.
func collectUntil(done func() bool) bool {
	for range 250 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		if done() {
			return true
		}
	}
	return false
}

// A connection dropped without Close, with a statement prepared and rows
// open, is closed by its cleanup: the program does not crash, and the write
// lock it held is released.
func TestCollectedConnectionIsClosed(t *testing.T) {
	path := filepath.Join(tempDirKeptOpen(t), "db")
	setup := openTestDB(t, path)
	testMustExec(t, setup, "CREATE TABLE t(x)")
	testMustExec(t, setup, "INSERT INTO t VALUES (1), (2), (3)")

	func() {
		for i := 0; i < 20; i++ {
			c, err := (&SQLiteDriver{}).Open(path)
			if err != nil {
				t.Fatal(err)
			}
			conn := c.(*SQLiteConn)
			if _, err := conn.Prepare("SELECT x FROM t"); err != nil {
				t.Fatal(err)
			}
			if i == 19 {
				// The last one takes the write lock and never ends its transaction.
				if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE", nil); err != nil {
					t.Fatal(err)
				}
				continue
			}
			// The others keep a read lock with open rows.
			rows, err := conn.QueryContext(context.Background(), "SELECT x FROM t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := rows.Next(make([]driver.Value, 1)); err != nil {
				t.Fatal(err)
			}
		}
	}()
	writer := openTestDB(t, path+"?_busy_timeout=50")
	if !collectUntil(func() bool {
		_, err := writer.Exec("INSERT INTO t VALUES (4)")
		return err == nil
	}) {
		t.Fatal("the locks of collected connections were never released")
	}
	// And through database/sql: a DB dropped without Close does not crash.
	func() {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO t VALUES (5)"); err != nil {
			t.Fatal(err)
		}
	}()
	for range 3 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}

// Rows dropped without Close release their statement's read lock once they
// are collected, although database/sql keeps their connection for ever: a
// writer on another connection then commits (a rollback-journal database,
// where a reader's lock blocks the commit).
func TestCollectedRowsReleaseTheirLock(t *testing.T) {
	path := filepath.Join(tempDirKeptOpen(t), "db")
	db := openTestDB(t, path+"?_busy_timeout=50")
	db.SetMaxOpenConns(4)
	testMustExec(t, db, "CREATE TABLE t(x)")
	testMustExec(t, db, "INSERT INTO t VALUES (1), (2), (3)")
	for _, query := range []string{"SELECT x FROM t", "SELECT 1; SELECT x FROM t"} {
		func() {
			rows, err := db.Query(query)
			if err != nil {
				t.Fatal(err)
			}
			if !rows.Next() {
				t.Fatal(rows.Err())
			}
			// rows is never closed
		}()
		if !collectUntil(func() bool {
			_, err := db.Exec("INSERT INTO t VALUES (4)")
			return err == nil
		}) {
			t.Fatalf("%q: the read lock of collected rows was never released", query)
		}
	}
}

// In a transaction that goes on after leaking a Rows, the statement is
// finalized by the transaction's next operation (the cleanup cannot use the
// connection while the transaction may be using it), exactly once.
func TestCollectedRowsInTransaction(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)", nil); err != nil {
		t.Fatal(err)
	}
	tx, err := c.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	insert := func() {
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (3)", nil); err != nil {
			t.Fatal(err)
		}
	}
	insert() // cached from now on
	before := liveStatements(c.h)
	func() {
		rows, err := c.QueryContext(ctx, "SELECT x, 'leaked' FROM t", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.Next(make([]driver.Value, 2)); err != nil {
			t.Fatal(err)
		}
	}()
	if liveStatements(c.h) != before+1 {
		t.Fatalf("statements: %d, want %d", liveStatements(c.h), before+1)
	}
	// The cleanup runs while the connection is idle between operations of the
	// transaction: it may finalize at once, or leave it to the next operation.
	if !collectUntil(func() bool {
		insert()
		return liveStatements(c.h) == before
	}) {
		t.Fatalf("the leaked statement was never finalized: %d statements, want %d", liveStatements(c.h), before)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A prepared statement run again while its rows are open hands its C
// statement to those rows and takes a new one (Go 1.27 RawBytes): each needs
// its own owner, or the statement's cleanup would finalize the C statement
// the rows still read (-asan in CI reports that read).
func TestCollectedStmtAfterHandOver(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)", nil); err != nil {
		t.Fatal(err)
	}
	before := liveStatements(c.h)
	var first driver.Rows
	func() {
		st, err := c.PrepareContext(ctx, "SELECT x, 'handed over' FROM t")
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*SQLiteStmt)
		s.cacheKey = "" // finalized, not cached, when collected or closed
		first, err = s.QueryContext(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Next(make([]driver.Value, 2)); err != nil {
			t.Fatal(err)
		}
		again, err := s.QueryContext(ctx, nil) // hands the C statement to first
		if err != nil {
			t.Fatal(err)
		}
		again.Close()
		// s is dropped here without Close; first stays open.
	}()
	if liveStatements(c.h) != before+2 {
		t.Fatalf("statements after the hand-over: %d, want %d", liveStatements(c.h), before+2)
	}
	// The cleanup finalizes the new statement while first is open: the
	// connection is idle between Next calls.
	if !collectUntil(func() bool {
		defer c.core.unlock(c.core.lock())
		return liveStatements(c.h) == before+1
	}) {
		t.Fatal("the dropped statement was never finalized")
	}
	if err := first.Close(); err != nil { // finalizes the statement it was handed
		t.Fatal(err)
	}
	if n := liveStatements(c.h); n != before {
		t.Fatalf("statements after the rows closed: %d, want %d", n, before)
	}
}

// BenchmarkConnLock is what the connection's exclusion adds to each cgo
// call (or short group of them) when no one else holds it: one lock and
// unlock of connCore.mu and the check for collected statements.
func BenchmarkConnLock(b *testing.B) {
	k := rawConn(b, ":memory:").core
	for b.Loop() {
		k.unlock(k.lock())
	}
}

// A writable blob left open keeps the database alive after Close (a zombie,
// sqlite3_close_v2); closing the blob then commits its write, which may wait
// on a lock. The busy handler (and, when it gives up, the
// rollback hook) then runs after the connection's bridge_conn
// was freed, and must not read it (the ASan step of CI reports such a read).
func TestBusyHandlerAfterCloseWithOpenBlob(t *testing.T) {
	path := testTempPath(t)
	dsn := "file:" + path + "?_journal_mode=DELETE"
	d := &SQLiteDriver{}
	dc, err := d.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	w := dc.(*SQLiteConn)
	defer w.Close()
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE b(x BLOB)", "INSERT INTO b VALUES (zeroblob(100))"} {
		if _, err := w.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The last operation was cancellable: the progress handler is installed.
	cctx, cancel := context.WithCancel(ctx)
	if _, err := w.ExecContext(cctx, "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	asked := 0
	if err := w.SetBusyHandler(func(int) bool { asked++; return asked < 3 }); err != nil {
		t.Fatal(err)
	}
	// A panic of a hook makes the driver interrupt the connection: during
	// the zombie's rollback it must not reach the freed handle either.
	rolledBack := false
	w.RegisterRollbackHook(func() { rolledBack = true; panic("rollback hook") })
	blob, err := w.OpenBlob("", "b", "x", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blob.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	// Another connection reads: its SHARED lock keeps the blob's commit
	// from taking the EXCLUSIVE lock it needs.
	dr, err := d.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := dr.(*SQLiteConn)
	defer r.Close()
	rows, err := r.QueryContext(ctx, "SELECT x FROM b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // closes the blob: its commit waits
		t.Fatal(err)
	}
	if asked == 0 || !rolledBack {
		t.Fatalf("busy handler asked %d times, rolled back: %v; the test did not wait on a lock and give up", asked, rolledBack)
	}
	rows.Close()
}
