//go:build cgo

package sqlite3

// Tests of hooks, the authorizer, busy handlers and tracing (hooks.go,
// trace.go), on connections opened straight from the driver. Helpers start
// with "hk" so they cannot collide with other test files.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hkOpen opens one driver connection; it is closed when the test ends.
func hkOpen(t testing.TB, dsn string) *SQLiteConn {
	t.Helper()
	dc, err := (&SQLiteDriver{}).Open(dsn)
	if err != nil {
		t.Fatalf("open %q: %v", dsn, err)
	}
	c := dc.(*SQLiteConn)
	t.Cleanup(func() { c.Close() })
	return c
}

func hkArgs(args []any) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		if n, ok := a.(int); ok {
			a = int64(n)
		}
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return nv
}

func hkExecErr(c *SQLiteConn, query string, args ...any) error {
	_, err := c.ExecContext(context.Background(), query, hkArgs(args))
	return err
}

func hkExec(t testing.TB, c *SQLiteConn, query string, args ...any) {
	t.Helper()
	if err := hkExecErr(c, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// hkQuery returns the first column of every row.
func hkQuery(t testing.TB, c *SQLiteConn, query string, args ...any) []any {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), query, hkArgs(args))
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []any
	row := make([]driver.Value, len(rows.Columns()))
	for rows.Next(row) == nil { // io.EOF after the last row
		out = append(out, row[0])
	}
	return out
}

func hkQueryInt(t testing.TB, c *SQLiteConn, query string, args ...any) int64 {
	t.Helper()
	vals := hkQuery(t, c, query, args...)
	if len(vals) == 0 {
		t.Fatalf("%s: no rows", query)
	}
	v, ok := vals[0].(int64)
	if !ok {
		t.Fatalf("%s: %T %v, want int64", query, vals[0], vals[0])
	}
	return v
}

func TestCommitAndRollbackHooks(t *testing.T) {
	c := hkOpen(t, ":memory:")
	var commits, rollbacks int
	veto := false
	c.RegisterCommitHook(func() int {
		commits++
		if veto {
			return 1
		}
		return 0
	})
	c.RegisterRollbackHook(func() { rollbacks++ })

	hkExec(t, c, "CREATE TABLE t(x)") // autocommit: one commit
	hkExec(t, c, "BEGIN; INSERT INTO t VALUES(1); COMMIT")
	if commits != 2 || rollbacks != 0 {
		t.Fatalf("commits, rollbacks = %d, %d; want 2, 0", commits, rollbacks)
	}
	hkExec(t, c, "BEGIN; INSERT INTO t VALUES(2); ROLLBACK")
	if rollbacks != 1 {
		t.Fatalf("rollbacks = %d after ROLLBACK, want 1", rollbacks)
	}

	// A non-zero commit hook turns the commit into a rollback.
	veto = true
	err := hkExecErr(c, "INSERT INTO t VALUES(3)")
	if !errors.Is(err, ErrConstraintCommitHook) {
		t.Fatalf("vetoed commit: %v, want ErrConstraintCommitHook", err)
	}
	if rollbacks != 2 {
		t.Fatalf("rollbacks = %d after a vetoed commit, want 2", rollbacks)
	}
	veto = false
	if n := hkQueryInt(t, c, "SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("rows = %d, want 1 (the vetoed insert must be rolled back)", n)
	}

	// nil unregisters.
	c.RegisterCommitHook(nil)
	c.RegisterRollbackHook(nil)
	before := commits
	hkExec(t, c, "INSERT INTO t VALUES(4)")
	hkExec(t, c, "BEGIN; INSERT INTO t VALUES(5); ROLLBACK")
	if commits != before || rollbacks != 2 {
		t.Fatalf("hooks ran after being removed: commits %d->%d, rollbacks %d", before, commits, rollbacks)
	}

	// Closing inside a transaction rolls it back, and the hook runs in Close.
	c.RegisterRollbackHook(func() { rollbacks++ })
	hkExec(t, c, "BEGIN; INSERT INTO t VALUES(6)")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if rollbacks != 3 {
		t.Fatalf("rollbacks = %d after closing inside a transaction, want 3", rollbacks)
	}
}

func TestUpdateHook(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); ATTACH ':memory:' AS aux; CREATE TABLE aux.u(v)")
	type ev struct {
		op        int
		db, table string
		rowid     int64
	}
	var got []ev
	c.RegisterUpdateHook(func(op int, db, table string, rowid int64) {
		got = append(got, ev{op, db, table, rowid})
	})
	hkExec(t, c, "INSERT INTO t VALUES(7, 'a')")
	hkExec(t, c, "UPDATE t SET v = 'b' WHERE id = 7")
	hkExec(t, c, "DELETE FROM t WHERE id = 7")
	hkExec(t, c, "INSERT INTO aux.u VALUES('x')")
	want := []ev{
		{SQLITE_INSERT, "main", "t", 7},
		{SQLITE_UPDATE, "main", "t", 7},
		{SQLITE_DELETE, "main", "t", 7},
		{SQLITE_INSERT, "aux", "u", 1},
	}
	if len(got) != len(want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %v, want %v", i, got[i], want[i])
		}
	}
	c.RegisterUpdateHook(nil)
	hkExec(t, c, "INSERT INTO t VALUES(8, 'c')")
	if len(got) != len(want) {
		t.Fatalf("update hook ran after removal: %v", got[len(want):])
	}
}

func TestPreUpdateHook(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB, note)")
	type ev struct {
		op             int
		table          string
		oldID, newID   int64
		count, depth   int
		oldRow, newRow []any
		oldErr, newErr error
		name           string
		score          float64
		scannedID      int
		namedAny       any
	}
	var got []ev
	c.RegisterPreUpdateHook(func(d SQLitePreUpdateData) {
		e := ev{op: d.Op, table: d.TableName, oldID: d.OldRowID, newID: d.NewRowID, count: d.Count(), depth: d.Depth()}
		if d.DatabaseName != "main" || d.Conn != c {
			t.Errorf("DatabaseName %q, Conn %p; want main, %p", d.DatabaseName, d.Conn, c)
		}
		e.oldRow = make([]any, d.Count())
		e.oldErr = d.Old(e.oldRow...)
		e.newRow = make([]any, d.Count())
		e.newErr = d.New(e.newRow...)
		if d.Op != SQLITE_DELETE {
			// Pointers receive converted values; a shorter dest reads fewer columns.
			var name string
			var id int
			var score float64
			var anyName any
			if err := d.New(&id, &name, &score); err != nil {
				t.Errorf("New into pointers: %v", err)
			}
			if err := d.New(nil, &anyName); err != nil {
				t.Errorf("New into *any: %v", err)
			}
			e.name, e.scannedID, e.score, e.namedAny = name, id, score, anyName
			if err := d.New(); err != nil {
				t.Errorf("New(): %v", err)
			}
		}
		got = append(got, e)
	})
	hkExec(t, c, "INSERT INTO t VALUES(1, 'ada', 1.5, x'0102', NULL)")
	hkExec(t, c, "UPDATE t SET name = 'grace', id = 2")
	hkExec(t, c, "DELETE FROM t")
	if len(got) != 3 {
		t.Fatalf("%d events, want 3", len(got))
	}
	ins, upd, del := got[0], got[1], got[2]
	if ins.op != SQLITE_INSERT || ins.newID != 1 || ins.count != 5 || ins.depth != 0 || ins.table != "t" {
		t.Errorf("insert event %+v", ins)
	}
	if ins.oldErr == nil {
		t.Error("Old on an INSERT: no error")
	}
	if ins.newErr != nil || ins.newRow[0] != int64(1) || string(ins.newRow[1].([]byte)) != "ada" ||
		ins.newRow[2] != 1.5 || string(ins.newRow[3].([]byte)) != "\x01\x02" || ins.newRow[4] != nil {
		t.Errorf("insert new row %#v (%v)", ins.newRow, ins.newErr)
	}
	if ins.name != "ada" || ins.scannedID != 1 || ins.score != 1.5 || string(ins.namedAny.([]byte)) != "ada" {
		t.Errorf("insert scanned %q %d %v %#v", ins.name, ins.scannedID, ins.score, ins.namedAny)
	}
	if upd.op != SQLITE_UPDATE || upd.oldID != 1 || upd.newID != 2 {
		t.Errorf("update event %+v", upd)
	}
	if upd.oldErr != nil || string(upd.oldRow[1].([]byte)) != "ada" || upd.newErr != nil || string(upd.newRow[1].([]byte)) != "grace" {
		t.Errorf("update rows old %#v (%v) new %#v (%v)", upd.oldRow, upd.oldErr, upd.newRow, upd.newErr)
	}
	if del.op != SQLITE_DELETE || del.oldID != 2 || del.newErr == nil || del.oldErr != nil || del.oldRow[0] != int64(2) {
		t.Errorf("delete event %+v", del)
	}

	// A NULL into a *string is an error, as in database/sql.
	c.RegisterPreUpdateHook(func(d SQLitePreUpdateData) {
		var s string
		if err := d.New(nil, nil, nil, nil, &s); err == nil {
			t.Error("NULL into *string: no error")
		}
	})
	hkExec(t, c, "INSERT INTO t VALUES(3, 'x', 0, x'', NULL)")
	c.RegisterPreUpdateHook(nil)
	hkExec(t, c, "INSERT INTO t VALUES(4, 'y', 0, x'', NULL)")
	if len(got) != 3 {
		t.Fatal("pre-update hook ran after removal")
	}
}

func TestAuthorizer(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE t(a, secret); INSERT INTO t VALUES(1, 'hidden')")
	// Warm the statement cache: the authorizer must still see the statement.
	if v := hkQuery(t, c, "SELECT secret FROM t"); len(v) != 1 || v[0] != "hidden" {
		t.Fatalf("before authorizer: %v", v)
	}
	var seen []string
	c.RegisterAuthorizer(func(action int, arg1, arg2, db string) int {
		if action == SQLITE_READ {
			seen = append(seen, arg1+"."+arg2+"@"+db)
			if arg2 == "secret" {
				return SQLITE_IGNORE
			}
		}
		if action == SQLITE_DELETE {
			return SQLITE_DENY
		}
		return SQLITE_OK
	})
	if v := hkQuery(t, c, "SELECT secret FROM t"); len(v) != 1 || v[0] != nil {
		t.Fatalf("SQLITE_IGNORE on a read column: %v, want NULL (cached statement re-authorized?)", v)
	}
	if len(seen) == 0 || seen[0] != "t.secret@main" {
		t.Errorf("authorizer saw %v, want t.secret@main", seen)
	}
	err := hkExecErr(c, "DELETE FROM t")
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("denied DELETE: %v, want ErrAuth", err)
	}
	c.RegisterAuthorizer(nil)
	if v := hkQuery(t, c, "SELECT secret FROM t"); len(v) != 1 || v[0] != "hidden" {
		t.Fatalf("after removing the authorizer: %v", v)
	}
	hkExec(t, c, "DELETE FROM t")
}

func TestWALHook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	c := hkOpen(t, path+"?_journal_mode=WAL")
	type ev struct {
		db    string
		pages int
	}
	var got []ev
	c.RegisterWALHook(func(db string, pages int) int {
		got = append(got, ev{db, pages})
		return SQLITE_OK
	})
	if n := hkQueryInt(t, c, "PRAGMA wal_autocheckpoint"); n != 0 {
		t.Errorf("wal_autocheckpoint = %d with a WAL hook, want 0", n)
	}
	hkExec(t, c, "CREATE TABLE t(x)")
	hkExec(t, c, "INSERT INTO t VALUES(1)")
	if len(got) != 2 || got[0].db != "main" || got[1].pages <= got[0].pages {
		t.Fatalf("WAL hook events %v", got)
	}
	// The hook may checkpoint on the same connection.
	c.RegisterWALHook(func(db string, pages int) int {
		if _, _, err := c.WALCheckpoint(db, CheckpointPassive); err != nil {
			t.Errorf("checkpoint in WAL hook: %v", err)
		}
		return SQLITE_OK
	})
	hkExec(t, c, "INSERT INTO t VALUES(2)")
	// An error code from the hook fails the statement; the commit stands.
	c.RegisterWALHook(func(string, int) int { return int(ErrIoErr) })
	if err := hkExecErr(c, "INSERT INTO t VALUES(3)"); err == nil {
		t.Fatalf("WAL hook returning SQLITE_IOERR: %v", err)
	}
	if n := hkQueryInt(t, c, "SELECT count(*) FROM t"); n != 3 {
		t.Fatalf("rows = %d, want 3", n)
	}
	c.RegisterWALHook(nil)
	if n := hkQueryInt(t, c, "PRAGMA wal_autocheckpoint"); n != 1000 {
		t.Errorf("wal_autocheckpoint = %d after removing the hook, want 1000", n)
	}
}

// hkLocked returns two connections to one file, the first holding its write
// lock until the test ends, and the second with no busy timeout.
func hkLocked(t *testing.T) (*SQLiteConn, *SQLiteConn) {
	path := filepath.Join(t.TempDir(), "busy.db")
	a := hkOpen(t, path)
	hkExec(t, a, "CREATE TABLE t(x)")
	b := hkOpen(t, path+"?_busy_timeout=0")
	hkExec(t, a, "BEGIN IMMEDIATE")
	t.Cleanup(func() { hkExecErr(a, "ROLLBACK") })
	return a, b
}

func TestBusyHandler(t *testing.T) {
	_, b := hkLocked(t)
	var counts []int
	if err := b.SetBusyHandler(func(count int) bool {
		counts = append(counts, count)
		return count < 3
	}); err != nil {
		t.Fatal(err)
	}
	err := hkExecErr(b, "INSERT INTO t VALUES(1)")
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("insert under a lock: %v, want ErrBusy", err)
	}
	if len(counts) != 4 || counts[0] != 0 || counts[3] != 3 {
		t.Fatalf("busy handler calls %v, want [0 1 2 3]", counts)
	}
	if n := hkQueryInt(t, b, "PRAGMA busy_timeout"); n != 0 {
		t.Errorf("PRAGMA busy_timeout = %d with a Go busy handler, want 0", n)
	}

	// A cancelled context stops the wait without asking the handler again.
	var calls atomic.Int64
	if err := b.SetBusyHandler(func(int) bool {
		calls.Add(1)
		time.Sleep(2 * time.Millisecond)
		return true // would wait forever
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = b.ExecContext(ctx, "INSERT INTO t VALUES(2)", nil)
	if !errors.Is(err, ErrBusy) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled busy wait: %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("cancelled busy wait took %v", el)
	}
	if calls.Load() == 0 {
		t.Fatal("the busy handler was never called")
	}

	// nil: no handler at all, a lock fails at once.
	if err := b.SetBusyHandler(nil); err != nil {
		t.Fatal(err)
	}
	n := calls.Load()
	if err := hkExecErr(b, "INSERT INTO t VALUES(3)"); !errors.Is(err, ErrBusy) {
		t.Fatalf("no busy handler: %v", err)
	}
	if calls.Load() != n {
		t.Fatal("removed busy handler was called")
	}
}

func TestBusyTimeoutContext(t *testing.T) {
	_, b := hkLocked(t)
	// Without a context, SetBusyTimeout waits its time, then fails.
	if err := b.SetBusyTimeout(150 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := hkExecErr(b, "INSERT INTO t VALUES(1)")
	el := time.Since(start)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("busy timeout: %v, want ErrBusy", err)
	}
	if el < 140*time.Millisecond || el > 3*time.Second {
		t.Fatalf("busy timeout of 150ms took %v", el)
	}

	// A long timeout ends as soon as the context does.
	if err := b.SetBusyTimeout(time.Minute); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = b.ExecContext(ctx, "INSERT INTO t VALUES(2)", nil)
	el = time.Since(start)
	if err == nil {
		t.Fatal("insert under a lock succeeded")
	}
	if el > 3*time.Second {
		t.Fatalf("cancelled wait with a one-minute busy timeout took %v", el)
	}

	// A later operation without a context waits again (the cancellation
	// belonged to the finished operation).
	if err := b.SetBusyTimeout(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := hkExecErr(b, "INSERT INTO t VALUES(3)"); !errors.Is(err, ErrBusy) {
		t.Fatalf("after a cancelled operation: %v", err)
	}
	if el := time.Since(start); el < 90*time.Millisecond {
		t.Fatalf("busy timeout after a cancelled operation gave up after %v", el)
	}

	// The lock released in time: the wait succeeds.
	a2, b2 := hkLocked(t)
	if err := b2.SetBusyTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(50 * time.Millisecond)
		hkExecErr(a2, "ROLLBACK")
	}()
	if err := hkExecErr(b2, "INSERT INTO t VALUES(4)"); err != nil {
		t.Fatalf("insert after the lock was released: %v", err)
	}
	<-done
	if err := b2.SetBusyTimeout(0); err != nil {
		t.Fatal(err)
	}
}

func TestTrace(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE t(x); CREATE TABLE log(y); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.x); END")
	var events []TraceInfo
	err := c.SetTrace(&TraceConfig{
		Callback:        func(info TraceInfo) int { events = append(events, info); return 0 },
		EventMask:       TraceStmt | TraceProfile | TraceRow | TraceClose,
		WantExpandedSQL: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, "INSERT INTO t VALUES(?)", "a long string of forty bytes or so......")
	hkQuery(t, c, "SELECT x FROM t UNION ALL SELECT 2")
	var stmts, profiles, rows, triggers int
	for _, e := range events {
		if e.ConnHandle == 0 {
			t.Errorf("event %d without ConnHandle", e.EventCode)
		}
		switch e.EventCode {
		case TraceStmt:
			if strings.HasPrefix(e.StmtOrTrigger, "--") {
				triggers++
				if e.ExpandedSQL != "" {
					t.Errorf("trigger event with expanded SQL %q", e.ExpandedSQL)
				}
				continue
			}
			stmts++
			if e.StmtHandle == 0 {
				t.Error("statement event without StmtHandle")
			}
			if strings.HasPrefix(e.StmtOrTrigger, "INSERT") {
				if e.StmtOrTrigger != "INSERT INTO t VALUES(?)" {
					t.Errorf("StmtOrTrigger = %q", e.StmtOrTrigger)
				}
				// SQLITE_TRACE_SIZE_LIMIT=15 cuts bound strings.
				if e.ExpandedSQL != "INSERT INTO t VALUES('a long string o'/*+25 bytes*/)" {
					t.Errorf("ExpandedSQL = %q", e.ExpandedSQL)
				}
				if !e.AutoCommit {
					t.Error("AutoCommit = false outside a transaction")
				}
			}
		case TraceProfile:
			profiles++
			if e.RunTimeNanosec < 0 {
				t.Errorf("RunTimeNanosec = %d", e.RunTimeNanosec)
			}
		case TraceRow:
			rows++
		}
	}
	// The trigger reports itself and its one statement as SQL comments.
	if stmts != 2 || profiles != 2 || rows != 2 || triggers != 2 {
		t.Fatalf("stmt %d, profile %d, row %d, trigger %d events; want 2, 2, 2, 2", stmts, profiles, rows, triggers)
	}

	// Only the events of the mask are reported; expansion only when asked.
	events = nil
	if err := c.SetTrace(&TraceConfig{Callback: func(info TraceInfo) int { events = append(events, info); return 0 }, EventMask: TraceStmt}); err != nil {
		t.Fatal(err)
	}
	hkQuery(t, c, "SELECT 1")
	if len(events) != 1 || events[0].EventCode != TraceStmt || events[0].ExpandedSQL != "" {
		t.Fatalf("events %+v", events)
	}
	if err := c.SetTrace(nil); err != nil {
		t.Fatal(err)
	}
	hkQuery(t, c, "SELECT 1")
	if len(events) != 1 {
		t.Fatal("trace callback ran after SetTrace(nil)")
	}

	// The close event arrives while the connection closes.
	closed := 0
	if err := c.SetTrace(&TraceConfig{Callback: func(info TraceInfo) int {
		if info.EventCode == TraceClose {
			closed++
		}
		return 0
	}, EventMask: TraceClose}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if closed != 1 {
		t.Fatalf("%d close events, want 1", closed)
	}
	if err := c.SetTrace(nil); err == nil {
		t.Error("SetTrace on a closed connection: no error")
	}
}

// Every registration is released: when replaced, when removed, and when the
// connection closes, even with a blob and a backup still open.
func TestHooksReleasedOnClose(t *testing.T) {
	base := hookCallbacks.live.Load()
	registerAll := func(c *SQLiteConn) {
		c.RegisterCommitHook(func() int { return 0 })
		c.RegisterRollbackHook(func() {})
		c.RegisterUpdateHook(func(int, string, string, int64) {})
		c.RegisterPreUpdateHook(func(SQLitePreUpdateData) {})
		c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK })
		c.RegisterWALHook(func(string, int) int { return 0 })
		if err := c.SetTrace(&TraceConfig{Callback: func(TraceInfo) int { return 0 }, EventMask: TraceStmt | TraceClose}); err != nil {
			t.Fatal(err)
		}
		if err := c.SetBusyHandler(func(int) bool { return false }); err != nil {
			t.Fatal(err)
		}
	}
	c := hkOpen(t, ":memory:")
	for i := 0; i < 3; i++ {
		registerAll(c)
	}
	if n := hookCallbacks.live.Load() - base; n != numSlots {
		t.Fatalf("%d live callbacks after registering every hook three times, want %d", n, numSlots)
	}
	hkExec(t, c, "CREATE TABLE t(b BLOB); INSERT INTO t VALUES(zeroblob(10))")
	c.RegisterCommitHook(nil)
	c.RegisterRollbackHook(nil)
	c.RegisterUpdateHook(nil)
	c.RegisterPreUpdateHook(nil)
	c.RegisterAuthorizer(nil)
	c.RegisterWALHook(nil)
	if err := c.SetTrace(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SetBusyHandler(nil); err != nil {
		t.Fatal(err)
	}
	if n := hookCallbacks.live.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after removing every hook, want 0", n)
	}

	// Closing with a blob and a backup open: the database is a zombie until
	// they end, and the trace callback still gets the close event.
	registerAll(c)
	closes := 0
	if err := c.SetTrace(&TraceConfig{Callback: func(info TraceInfo) int {
		if info.EventCode == TraceClose {
			closes++
		}
		return 0
	}, EventMask: TraceClose}); err != nil {
		t.Fatal(err)
	}
	blob, err := c.OpenBlob("", "t", "b", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	dst := hkOpen(t, ":memory:")
	bk, err := dst.Backup("main", c, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if closes != 1 {
		t.Errorf("%d close events, want 1", closes)
	}
	if n := hookCallbacks.live.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after Close, want 0", n)
	}
	if _, err := blob.Write([]byte("x")); err == nil {
		t.Error("write to a blob of a closed connection: no error")
	}
	if err := blob.Close(); err != nil {
		t.Errorf("blob.Close after the connection closed: %v", err)
	}
	if err := bk.Finish(); err == nil {
		t.Error("Finish of a backup cut short by Close: no error")
	}
	if err := bk.Finish(); err != nil {
		t.Errorf("second Finish: %v", err)
	}

	// Registering on a closed connection is a no-op that keeps nothing.
	registerAllClosed := func() {
		c.RegisterCommitHook(func() int { return 0 })
		c.RegisterUpdateHook(func(int, string, string, int64) {})
		c.RegisterPreUpdateHook(func(SQLitePreUpdateData) {})
		c.RegisterAuthorizer(func(int, string, string, string) int { return 0 })
		c.RegisterWALHook(func(string, int) int { return 0 })
		_ = c.SetBusyHandler(func(int) bool { return false })
		_ = c.SetBusyTimeout(time.Second)
	}
	registerAllClosed()
	if n := hookCallbacks.live.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after registering on a closed connection, want 0", n)
	}
}

// Hooks registered through database/sql's Raw keep working across queries
// and are released when the pool closes the connection.
func TestHooksThroughDatabaseSQL(t *testing.T) {
	base := hookCallbacks.live.Load()
	var updates atomic.Int64
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		c.RegisterUpdateHook(func(int, string, string, int64) { updates.Add(1) })
		return nil
	}})
	db, err := sql.Open(name, "file:"+filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	testMustExec(t, db, "CREATE TABLE t(x)")
	for i := 0; i < 5; i++ {
		testMustExec(t, db, "INSERT INTO t VALUES(?)", i)
	}
	if updates.Load() != 5 {
		t.Fatalf("%d updates seen, want 5", updates.Load())
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := hookCallbacks.live.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after db.Close, want 0", n)
	}
}

// A panic in a callback does not unwind through SQLite: the call that ran it
// fails with an error naming the panic, and the connection stays usable.
func TestHookPanics(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE t(x)")
	check := func(what string, err error, code error) {
		t.Helper()
		if err == nil {
			// The statement finished before SQLite noticed the interrupt:
			// the next failing call reports the panic.
			err, code = hkExecErr(c, "SELECT * FROM nosuch"), ErrError
		}
		if err == nil || !strings.Contains(err.Error(), "panic in "+what+": boom") || !errors.Is(err, code) {
			t.Fatalf("%s panic: %v, want an error naming the panic and matching %v", what, err, code)
		}
		// The connection still works, and the panic was reported once.
		hkExec(t, c, "SELECT 1")
		if err := hkExecErr(c, "SELECT * FROM nosuch"); err == nil || strings.Contains(err.Error(), "panic") {
			t.Fatalf("next error after a %s panic: %v", what, err)
		}
	}

	// A statement that loops over rows notices the interrupt and is undone.
	c.RegisterUpdateHook(func(int, string, string, int64) { panic("boom") })
	check("update hook", hkExecErr(c, "INSERT INTO t VALUES(1), (2), (3)"), ErrInterrupt)
	if n := hkQueryInt(t, c, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows: the interrupted insert was kept", n)
	}
	// A one-row statement may complete first.
	check("update hook", hkExecErr(c, "INSERT INTO t VALUES(1)"), ErrInterrupt)
	c.RegisterUpdateHook(nil)
	hkExec(t, c, "DELETE FROM t")

	c.RegisterPreUpdateHook(func(SQLitePreUpdateData) { panic("boom") })
	check("pre-update hook", hkExecErr(c, "INSERT INTO t VALUES(1), (2), (3)"), ErrInterrupt)
	c.RegisterPreUpdateHook(nil)
	hkExec(t, c, "DELETE FROM t")

	c.RegisterCommitHook(func() int { panic("boom") })
	check("commit hook", hkExecErr(c, "INSERT INTO t VALUES(2)"), ErrConstraintCommitHook)
	c.RegisterCommitHook(nil)
	if n := hkQueryInt(t, c, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows: the vetoed commit was kept", n)
	}

	c.RegisterRollbackHook(func() { panic("boom") })
	hkExec(t, c, "BEGIN; INSERT INTO t VALUES(3)")
	check("rollback hook", hkExecErr(c, "ROLLBACK"), ErrInterrupt)
	c.RegisterRollbackHook(nil)
	if !c.AutoCommit() {
		t.Fatal("still in a transaction after ROLLBACK")
	}

	c.RegisterAuthorizer(func(action int, _, _, _ string) int {
		if action == SQLITE_READ {
			panic("boom")
		}
		return SQLITE_OK
	})
	check("authorizer", hkExecErr(c, "SELECT x FROM t"), ErrAuth)
	c.RegisterAuthorizer(nil)

	if err := c.SetTrace(&TraceConfig{Callback: func(info TraceInfo) int {
		if strings.HasPrefix(info.StmtOrTrigger, "INSERT") {
			panic("boom")
		}
		return 0
	}, EventMask: TraceStmt}); err != nil {
		t.Fatal(err)
	}
	check("trace callback", hkExecErr(c, "INSERT INTO t VALUES(4)"), ErrInterrupt)
	if err := c.SetTrace(nil); err != nil {
		t.Fatal(err)
	}
}

func TestHookPanicsWALAndBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	c := hkOpen(t, path+"?_journal_mode=WAL")
	hkExec(t, c, "CREATE TABLE t(x)")
	c.RegisterWALHook(func(string, int) int { panic("boom") })
	if err := hkExecErr(c, "INSERT INTO t VALUES(1)"); err == nil || !strings.Contains(err.Error(), "panic in WAL hook: boom") {
		t.Fatalf("WAL hook panic: %v", err)
	}
	c.RegisterWALHook(nil)

	hkExec(t, c, "BEGIN IMMEDIATE")
	defer hkExecErr(c, "ROLLBACK")
	b := hkOpen(t, path)
	if err := b.SetBusyHandler(func(int) bool { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	err := hkExecErr(b, "INSERT INTO t VALUES(2)")
	if err == nil || !strings.Contains(err.Error(), "panic in busy handler: boom") || !errors.Is(err, ErrBusy) {
		t.Fatalf("busy handler panic: %v", err)
	}
}
