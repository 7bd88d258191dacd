//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
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
