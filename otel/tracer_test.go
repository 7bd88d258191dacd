package otelsqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fastsqlite/sqlite3"
	otelsqlite "github.com/fastsqlite/sqlite3/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// harness is the real SDK with in-memory exporters: a span recorder and a
// manual metric reader.
type harness struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	h.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	h.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		h.tp.Shutdown(context.Background())
		h.mp.Shutdown(context.Background())
	})
	return h
}

// open opens a pool on dsn traced by an adapter on h's providers.
func (h *harness) open(t *testing.T, dsn string, opts ...otelsqlite.Option) *sql.DB {
	t.Helper()
	tr, err := otelsqlite.NewTracer(append([]otelsqlite.Option{
		otelsqlite.WithTracerProvider(h.tp), otelsqlite.WithMeterProvider(h.mp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sqlite3.NewConnector(dsn, sqlite3.WithTracer(tr))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// parent starts a span of the test's own, as a handler would.
func (h *harness) parent(ctx context.Context, name string) (context.Context, trace.Span) {
	return h.tp.Tracer("test").Start(ctx, name)
}

// ended returns the spans ended so far that the adapter made.
func (h *harness) ended() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.InstrumentationScope().Name == otelsqlite.ScopeName {
			out = append(out, s)
		}
	}
	return out
}

func (h *harness) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func findMetric(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

func attrMap(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkAttrs reports the attributes of got that differ from want; a want
// value of none means the attribute must be absent.
func checkAttrs(t *testing.T, what string, got []attribute.KeyValue, want map[attribute.Key]attribute.Value) {
	t.Helper()
	m := attrMap(got)
	for k, w := range want {
		g, ok := m[k]
		switch {
		case w == none && ok:
			t.Errorf("%s: %s = %s, want none", what, k, g.String())
		case w != none && !ok:
			t.Errorf("%s: no %s, want %s", what, k, w.String())
		case w != none && g != w:
			t.Errorf("%s: %s = %s, want %s", what, k, g.String(), w.String())
		}
	}
}

var (
	str  = attribute.StringValue
	none = attribute.StringValue("\x00 absent") // in checkAttrs: not there
)

func mustExec(t *testing.T, ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		t.Fatal(err)
	}
}

// Each operation is a client span, the child of the caller's span, named by
// its query summary and carrying the stable attributes; a failed statement
// says SQLite's result code.
func TestSpans(t *testing.T) {
	h := newHarness(t)
	db := h.open(t, ":memory:")
	db.SetMaxOpenConns(1)
	ctx, root := h.parent(context.Background(), "handler")

	mustExec(t, ctx, db, "CREATE TABLE t(v INT UNIQUE)")
	mustExec(t, ctx, db, "INSERT INTO t VALUES (1), (2), (3)")
	rows, err := db.QueryContext(ctx, "SELECT v FROM t WHERE v > ?", 1)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close()
	_, dupErr := db.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if !errors.Is(dupErr, sqlite3.ErrConstraintUnique) {
		t.Fatalf("the duplicate INSERT: %v", dupErr)
	}
	st, err := db.PrepareContext(ctx, "UPDATE t SET v = v + 10 WHERE v >= ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExecContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	st.Close()
	root.End()

	type want struct {
		name  string
		attrs map[attribute.Key]attribute.Value
	}
	wants := []want{
		{"CREATE TABLE t", map[attribute.Key]attribute.Value{
			"db.operation.name": str("CREATE TABLE"), "db.collection.name": str("t"), "sqlite.rows_affected": attribute.Int64Value(0)}},
		{"INSERT t", map[attribute.Key]attribute.Value{
			"db.operation.name": str("INSERT"), "db.collection.name": str("t"), "sqlite.rows_affected": attribute.Int64Value(3)}},
		{"SELECT t", map[attribute.Key]attribute.Value{
			"db.operation.name": str("SELECT"), "db.collection.name": str("t"), "db.response.returned_rows": attribute.Int64Value(2)}},
		{"INSERT t", map[attribute.Key]attribute.Value{
			"error.type": str("19"), "db.response.status_code": str("19"), "sqlite.extended_result_code": attribute.Int64Value(2067)}},
		{"PREPARE UPDATE t", map[attribute.Key]attribute.Value{
			"db.operation.name": str("PREPARE"), "db.query.summary": str("PREPARE UPDATE t"), "db.collection.name": str("t")}},
		{"UPDATE t", map[attribute.Key]attribute.Value{
			"db.operation.name": str("UPDATE"), "sqlite.rows_affected": attribute.Int64Value(2)}},
	}
	spans := h.ended()
	if len(spans) != len(wants) {
		for _, s := range spans {
			t.Logf("span %q", s.Name())
		}
		t.Fatalf("%d spans, want %d", len(spans), len(wants))
	}
	conn := attrMap(spans[0].Attributes())[otelsqlite.ConnectionIDKey]
	for i, w := range wants {
		s := spans[i]
		what := fmt.Sprintf("span %d (%s)", i, w.name)
		if s.Name() != w.name {
			t.Errorf("%s: named %q", what, s.Name())
		}
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("%s: kind %v, want client", what, s.SpanKind())
		}
		if s.Parent().SpanID() != root.SpanContext().SpanID() || s.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s: not a child of the caller's span", what)
		}
		if !s.EndTime().After(s.StartTime()) {
			t.Errorf("%s: from %v to %v", what, s.StartTime(), s.EndTime())
		}
		w.attrs["db.system.name"] = str("sqlite")
		w.attrs["db.query.text"] = none // off by default
		w.attrs[otelsqlite.ConnectionIDKey] = conn
		if _, ok := w.attrs["error.type"]; !ok {
			w.attrs["error.type"] = none
			w.attrs["db.response.status_code"] = none
			if _, ok := w.attrs["db.query.summary"]; !ok {
				w.attrs["db.query.summary"] = str(w.name)
			}
			if s.Status().Code != codes.Unset {
				t.Errorf("%s: status %v", what, s.Status())
			}
		} else if s.Status().Code != codes.Error || s.Status().Description != dupErr.Error() {
			t.Errorf("%s: status %v, want an error that says %q", what, s.Status(), dupErr)
		}
		checkAttrs(t, what, s.Attributes(), w.attrs)
	}
}

// WithQueryText puts each statement's text on its span.
func TestQueryText(t *testing.T) {
	h := newHarness(t)
	db := h.open(t, ":memory:", otelsqlite.WithQueryText(),
		otelsqlite.WithAttributes(attribute.String("db.namespace", "main")))
	ctx := context.Background()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT 40 + ?", 2).Scan(&n); err != nil || n != 42 {
		t.Fatal(n, err)
	}
	spans := h.ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	checkAttrs(t, "the query", spans[0].Attributes(), map[attribute.Key]attribute.Value{
		"db.query.text": str("SELECT 40 + ?"), "db.query.summary": str("SELECT"), "db.namespace": str("main"),
		"db.collection.name": none, "db.response.returned_rows": attribute.Int64Value(1)})
	if spans[0].Name() != "SELECT" {
		t.Errorf("named %q", spans[0].Name())
	}
}

// A transaction's BEGIN, statements and COMMIT or ROLLBACK are children of
// the span of the context BeginTx was given, each a span of its own.
func TestTransactionSpans(t *testing.T) {
	h := newHarness(t)
	db := h.open(t, filepath.Join(t.TempDir(), "tx.db")+"?_journal_mode=WAL&_txlock=immediate")
	mustExec(t, context.Background(), db, "CREATE TABLE t(v INT)")
	h.spans.Reset()

	ctx, root := h.parent(context.Background(), "transfer")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, tx, "INSERT INTO t VALUES (1)")
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, tx, "DELETE FROM t")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	root.End()

	var names []string
	for _, s := range h.ended() {
		names = append(names, s.Name())
		if s.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Errorf("span %q: parent %v, want the caller's %v", s.Name(), s.Parent().SpanID(), root.SpanContext().SpanID())
		}
		op := attrMap(s.Attributes())["db.operation.name"].AsString()
		if op != s.Name() && s.Name() != "INSERT t" && s.Name() != "SELECT t" && s.Name() != "DELETE t" {
			t.Errorf("span %q: db.operation.name %q", s.Name(), op)
		}
	}
	want := []string{"BEGIN", "INSERT t", "SELECT t", "COMMIT", "BEGIN", "DELETE t", "ROLLBACK"}
	if !slices.Equal(names, want) {
		t.Errorf("spans %q, want %q", names, want)
	}
}

// db.client.operation.duration is a histogram in seconds with the semantic
// conventions' buckets and the spans' stable attributes; one point per
// operation; a failed one has error.type and db.response.status_code.
func TestDurationHistogram(t *testing.T) {
	h := newHarness(t)
	db := h.open(t, ":memory:", otelsqlite.WithQueryText())
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	mustExec(t, ctx, db, "CREATE TABLE t(v INT NOT NULL)")
	for i := range 3 {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (?)", i)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (NULL)"); !errors.Is(err, sqlite3.ErrConstraintNotNull) {
		t.Fatalf("inserting NULL: %v", err)
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM nowhere"); err == nil {
		t.Fatal("a query of a missing table did not fail")
	}

	rm := h.collect(t)
	m, ok := findMetric(rm, "db.client.operation.duration")
	if !ok {
		t.Fatal("no db.client.operation.duration")
	}
	if m.Unit != "s" {
		t.Errorf("unit %q, want s", m.Unit)
	}
	hist, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("data %T, want a float64 histogram", m.Data)
	}
	if hist.Temporality != metricdata.CumulativeTemporality {
		t.Errorf("temporality %v", hist.Temporality)
	}
	type key struct{ summary, errType, status string }
	counts := map[key]uint64{}
	var total uint64
	for _, dp := range hist.DataPoints {
		if !slices.Equal(dp.Bounds, []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}) {
			t.Errorf("bounds %v", dp.Bounds)
		}
		kvs := dp.Attributes.ToSlice()
		a := attrMap(kvs)
		if a["db.system.name"].AsString() != "sqlite" {
			t.Errorf("a point without db.system.name: %v", kvs)
		}
		if _, ok := a["db.query.text"]; ok {
			t.Errorf("db.query.text on the histogram: %v", kvs)
		}
		counts[key{a["db.query.summary"].AsString(), a["error.type"].AsString(), a["db.response.status_code"].AsString()}] += dp.Count
		total += dp.Count
		if dp.Sum <= 0 {
			t.Errorf("%v: sum %v", kvs, dp.Sum)
		}
	}
	want := map[key]uint64{
		{"CREATE TABLE t", "", ""}:   1,
		{"INSERT t", "", ""}:         3,
		{"INSERT t", "19", "19"}:     1,
		{"SELECT nowhere", "1", "1"}: 1,
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%+v: %d points, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	if spans := h.ended(); total != uint64(len(spans)) {
		t.Errorf("%d histogram points, %d spans", total, len(spans))
	}
}

// A write run in another connection's group (_group_commit=1) is still the
// child of its own caller's span, and says it was grouped and how long it
// waited for the write turn.
func TestGroupedWriteSpans(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "g.db")
	db := h.open(t, path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_group_commit=1")
	ctx := context.Background()
	mustExec(t, ctx, db, "CREATE TABLE t(v INT)")

	const writers = 4
	parents := make([]trace.SpanContext, writers)
	queueWrites(t, db, writers, func(i int) error {
		pctx, span := h.parent(ctx, fmt.Sprintf("writer %d", i))
		defer span.End()
		parents[i] = span.SpanContext()
		_, err := db.ExecContext(pctx, "INSERT INTO t VALUES (?)", i+1)
		return err
	})

	grouped, waited := 0, 0
	for i, p := range parents {
		var mine []sdktrace.ReadOnlySpan
		for _, s := range h.ended() {
			if s.Parent().SpanID() == p.SpanID() {
				mine = append(mine, s)
			}
		}
		if len(mine) != 1 {
			t.Errorf("writer %d: %d spans of its own, want its INSERT's", i, len(mine))
			continue
		}
		s := mine[0]
		a := attrMap(s.Attributes())
		if s.Name() != "INSERT t" || s.SpanContext().TraceID() != p.TraceID() {
			t.Errorf("writer %d: span %q in trace %v, want INSERT t in %v", i, s.Name(), s.SpanContext().TraceID(), p.TraceID())
		}
		if a[otelsqlite.WriteTurnWaitKey].AsFloat64() > 0 {
			waited++
		}
		if a[otelsqlite.GroupedKey].AsBool() {
			grouped++
			if n := a[otelsqlite.GroupWritesKey].AsInt64(); n < 2 || n > writers+1 {
				t.Errorf("writer %d: grouped, in a COMMIT of %d writes", i, n)
			}
			if _, ok := a[otelsqlite.GroupCommitKey]; !ok {
				t.Errorf("writer %d: grouped, without its COMMIT's duration", i)
			}
		}
	}
	// The writer that took the turn after the COMMIT waited for it; the
	// writes its group ran for the others never took it (their spans'
	// durations hold their time in line).
	if waited < 1 || grouped < 2 {
		t.Errorf("of %d queued writes, %d say they waited for the write turn (want 1 or more) and %d that they were grouped (want 2 or more)", writers, waited, grouped)
	}
}

// queueWrites runs n writes, write(0) to write(n-1), each on a goroutine of
// its own, queued one at a time behind a transaction that holds db's write
// turn; its COMMIT lets them go, and with _group_commit=1 the first to take
// the turn runs the others' writes in its group.
func queueWrites(t *testing.T, db *sql.DB, n int, write func(i int) error) {
	t.Helper()
	ctx := context.Background()
	hold, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, hold, "INSERT INTO t VALUES (0)")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- write(i) })
		waitQueued(t, db, i+1)
	}
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// waitQueued waits until n connections wait for the file's write turn.
func waitQueued(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := sqlite3.Stats(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if st.WriteQueue >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writers queued after 10 s, want %d", st.WriteQueue, n)
		}
		time.Sleep(time.Millisecond)
	}
}
