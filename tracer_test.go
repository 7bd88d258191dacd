//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// recTracer records the events a pool's tracer sees, and checks that each
// TraceEnd gets the context its TraceStart returned.
type recTracer struct {
	mu     sync.Mutex
	events []TraceEvent
	bad    []string
}

type traceKey struct{}

func (t *recTracer) TraceStart(ctx context.Context, ev *TraceEvent) context.Context {
	return context.WithValue(ctx, traceKey{}, ev)
}

func (t *recTracer) TraceEnd(ctx context.Context, ev *TraceEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if got, _ := ctx.Value(traceKey{}).(*TraceEvent); got != ev {
		t.bad = append(t.bad, ev.Kind.String()+" "+ev.SQL+": TraceEnd did not get TraceStart's context")
	}
	t.events = append(t.events, *ev)
}

func (t *recTracer) take() []TraceEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.events
	t.events = nil
	return e
}

func openTraced(t *testing.T, dsn string, tr Tracer) *sql.DB {
	t.Helper()
	c, err := NewConnector(dsn, WithTracer(tr))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// Every operation of a traced pool reaches the tracer once, with its kind,
// SQL, rows and error, and runs with the context TraceStart returned.
func TestTracerOperations(t *testing.T) {
	tr := &recTracer{}
	db := openTraced(t, ":memory:", tr)
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	mustExec("CREATE TABLE t(v INT UNIQUE)")
	mustExec("INSERT INTO t VALUES (1), (2), (3)")
	rows, err := db.QueryContext(ctx, "SELECT v FROM t ORDER BY v")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close()
	_, dupErr := db.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	st, err := db.PrepareContext(ctx, "UPDATE t SET v = v + 10 WHERE v >= ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExecContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	st.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM t"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	type want struct {
		kind TraceKind
		sql  string
		rows int64
		err  bool
	}
	wants := []want{
		{TraceExec, "CREATE TABLE t(v INT UNIQUE)", 0, false},
		{TraceExec, "INSERT INTO t VALUES (1), (2), (3)", 3, false},
		{TraceQuery, "SELECT v FROM t ORDER BY v", 3, false},
		{TraceExec, "INSERT INTO t VALUES (1)", 0, true},
		{TracePrepare, "UPDATE t SET v = v + 10 WHERE v >= ?", 0, false},
		{TraceExec, "UPDATE t SET v = v + 10 WHERE v >= ?", 2, false},
		{TraceBegin, "", 0, false},
		{TraceExec, "DELETE FROM t", 3, false},
		{TraceRollback, "ROLLBACK", 0, false},
		{TraceBegin, "", 0, false},
		{TraceCommit, "COMMIT", 0, false},
	}
	got := tr.take()
	if len(got) != len(wants) {
		for _, e := range got {
			t.Logf("%s %q rows=%d err=%v", e.Kind, e.SQL, e.Rows, e.Err)
		}
		t.Fatalf("%d events, want %d", len(got), len(wants))
	}
	conn := got[0].Conn
	// A duration may be 0 where the monotonic clock ticks coarsely (Windows:
	// 0.5-16 ms), never negative.
	for i, w := range wants {
		e := got[i]
		if e.Kind != w.kind || e.SQL != w.sql || e.Rows != w.rows || (e.Err != nil) != w.err || e.Conn != conn || e.Duration < 0 || e.Start.IsZero() {
			t.Errorf("event %d: %s %q rows=%d err=%v conn=%d duration=%v; want %s %q rows=%d err=%v conn=%d", i,
				e.Kind, e.SQL, e.Rows, e.Err, e.Conn, e.Duration, w.kind, w.sql, w.rows, w.err, conn)
		}
	}
	if e := got[3].Err; e == nil || e.Error() != dupErr.Error() {
		t.Errorf("the failed INSERT's event has %v, its caller got %v", e, dupErr)
	}
	for _, b := range tr.bad {
		t.Error(b)
	}
}

// cancelTracer hands every operation a cancelled context.
type cancelTracer struct{ recTracer }

func (t *cancelTracer) TraceStart(ctx context.Context, ev *TraceEvent) context.Context {
	ctx, cancel := context.WithCancel(t.recTracer.TraceStart(ctx, ev))
	cancel()
	return ctx
}

// The context TraceStart returns is the one the operation runs with.
func TestTracerContextRunsTheOperation(t *testing.T) {
	tr := &cancelTracer{}
	db := openTraced(t, ":memory:", tr)
	_, err := db.Exec("SELECT 1")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Exec under a tracer that cancels: %v, want context.Canceled", err)
	}
	got := tr.take()
	if len(got) != 1 || !errors.Is(got[0].Err, context.Canceled) {
		t.Fatalf("events %+v, want one exec ended by context.Canceled", got)
	}
}

// A write that waits for a lock another process holds says how long SQLite's
// busy handler waited, in how many waits.
func TestTracerBusyWait(t *testing.T) {
	if os.Getenv(lockHolderChildEnv) != "" {
		t.Skip("inside the child")
	}
	_, path := lockHolderDB(t, "WAL", "")
	tr := &recTracer{}
	db := openTraced(t, "file:"+path+"?_busy_timeout=10000", tr)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	ch := startLockHolderChild(t, path, "IMMEDIATE")
	// The child lets go holdFor after the write is seen waiting in the
	// queue for the lock (FileStats.WriteQueue): the wait lasts at least
	// that long, however late the write got there on a loaded machine.
	const holdFor = 100 * time.Millisecond
	released := make(chan error, 1)
	go func() {
		for {
			st, err := Stats(context.Background(), db)
			if err != nil || st.WriteQueue > 0 {
				time.Sleep(holdFor)
				_, werr := ch.in.Write([]byte("pause\n"))
				released <- errors.Join(err, werr)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	tr.take()
	start := time.Now()
	if _, err := db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	evs := tr.take()
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1", len(evs))
	}
	if e := evs[0]; e.BusyWaits != 1 || e.BusyWait > took || e.BusyWait < holdFor || e.TurnWait != 0 {
		t.Errorf("BusyWait %v in %d waits, TurnWait %v, for an Exec of %v behind a lock held %v after it queued; want one wait of at least that", e.BusyWait, e.BusyWaits, e.TurnWait, took, holdFor)
	}
}

// The WAL bound's checkpoints are in the events of the writes that ran
// them, and its holds of readers in the events of the reads it held: over
// a traced pool alone on a file, the events add up to the file's FileStats.
func TestTracerBoundCheckpointsAndHolds(t *testing.T) {
	tr := &recTracer{}
	path := filepath.Join(t.TempDir(), "b.db")
	db := openTraced(t, path+"?_journal_mode=WAL&_txlock=immediate&_wal_bound=262144", tr)
	db.SetMaxOpenConns(5)
	db.SetMaxIdleConns(5)
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
	conns := make([]*sql.Conn, 5) // open before counting: no connection opens meanwhile
	for i := range conns {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Close()
	}
	st0, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	tr.take()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// Write until the bound has checkpointed a few times and held a reader
	// (the holds depend on timing: the sums must agree either way).
	deadline := time.Now().Add(5 * time.Second)
	var st FileStats
	for {
		if _, err := db.Exec("INSERT INTO t(v) VALUES (randomblob(4096))"); err != nil {
			t.Fatal(err)
		}
		st, err = Stats(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if st.Checkpoints-st0.Checkpoints >= 3 && st.ReadersHeld > st0.ReadersHeld || time.Now().After(deadline) {
			break
		}
	}
	close(stop)
	wg.Wait()
	st, _ = Stats(context.Background(), db)
	var held, ckptTime time.Duration
	var ckpts int
	for _, e := range tr.take() {
		held += e.Held
		ckptTime += e.Checkpoint
		ckpts += e.Checkpoints
		if e.Checkpoints > 0 && e.Kind != TraceExec {
			t.Errorf("a %s ran %d checkpoints", e.Kind, e.Checkpoints)
		}
	}
	t.Logf("FileStats: %d checkpoints in %v, %d readers held for %v; events: %d checkpoint passes in %v, held %v",
		st.Checkpoints-st0.Checkpoints, st.CheckpointTime-st0.CheckpointTime, st.ReadersHeld-st0.ReadersHeld, st.ReadersHeldTime-st0.ReadersHeldTime, ckpts, ckptTime, held)
	if st.Checkpoints-st0.Checkpoints < 1 {
		t.Fatalf("no checkpoint in 5 s of writes past the bound")
	}
	// The events count every pass the bound ran (FileStats: those that
	// truncated or failed), and their time.
	if int64(ckpts) < st.Checkpoints-st0.Checkpoints || ckptTime < st.CheckpointTime-st0.CheckpointTime {
		t.Errorf("events: %d checkpoint passes in %v; FileStats: %d in %v", ckpts, ckptTime, st.Checkpoints-st0.Checkpoints, st.CheckpointTime-st0.CheckpointTime)
	}
	if held != st.ReadersHeldTime-st0.ReadersHeldTime {
		t.Errorf("events held %v, FileStats %v", held, st.ReadersHeldTime-st0.ReadersHeldTime)
	}
}
