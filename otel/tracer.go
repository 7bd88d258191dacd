package otelsqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fastsqlite/sqlite3"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/fastsqlite/sqlite3/otel"

// Attributes of this package, beside the semantic conventions' own.
const (
	// ConnectionIDKey is the connection that ran the operation
	// (TraceEvent.Conn: a number unique in the process).
	ConnectionIDKey = attribute.Key("sqlite.connection.id")
	// RowsAffectedKey is the number of rows an exec changed.
	RowsAffectedKey = attribute.Key("sqlite.rows_affected")
	// WriteTurnWaitKey is how long, in seconds, the operation waited for its
	// file's write turn (TraceEvent.TurnWait); absent when it did not wait.
	WriteTurnWaitKey = attribute.Key("sqlite.write_turn.wait")
	// GroupedKey is true when the operation's write shared a COMMIT with
	// other connections' writes (_group_commit=1, TraceEvent.Grouped);
	// absent otherwise.
	GroupedKey = attribute.Key("sqlite.group_commit.grouped")
	// GroupWritesKey is the number of writes the COMMIT of the operation's
	// group held, its own included, and GroupCommitKey how long, in seconds,
	// that COMMIT took (TraceEvent.GroupWrites, GroupCommit); absent when
	// not grouped.
	GroupWritesKey = attribute.Key("sqlite.group_commit.size")
	GroupCommitKey = attribute.Key("sqlite.group_commit.commit_duration")
	// BusyWaitKey is how long, in seconds, SQLite waited for a lock held
	// elsewhere (TraceEvent.BusyWait: another process, or a connection
	// outside the write turn); absent when it did not wait.
	BusyWaitKey = attribute.Key("sqlite.busy.wait")
	// WALBoundHeldKey is how long, in seconds, the WAL bound held the
	// operation's reads while it restarted the WAL (TraceEvent.Held);
	// absent when not held.
	WALBoundHeldKey = attribute.Key("sqlite.wal_bound.held")
	// CheckpointKey is how long, in seconds, the operation spent in the WAL
	// bound's checkpoints (TraceEvent.Checkpoint); absent when it ran none.
	CheckpointKey = attribute.Key("sqlite.wal_bound.checkpoint")
	// BytesReadKey is the bytes of TEXT and BLOB values in a query's rows
	// (TraceEvent.Bytes).
	BytesReadKey = attribute.Key("sqlite.rows.bytes")
	// ExtendedResultCodeKey is SQLite's extended result code of a failed
	// operation (2067: SQLITE_CONSTRAINT_UNIQUE), where
	// db.response.status_code has the primary one (19: SQLITE_CONSTRAINT).
	ExtendedResultCodeKey = attribute.Key("sqlite.extended_result_code")
)

// durationBuckets are the explicit bucket boundaries, in seconds, that the
// semantic conventions give db.client.operation.duration.
var durationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}

// Tracer is a sqlite3.Tracer that makes OpenTelemetry spans and the
// db.client.operation.duration histogram of a pool's operations. Set it on
// a connector:
//
//	t, err := otelsqlite.NewTracer()
//	connector, err := sqlite3.NewConnector(dsn, sqlite3.WithTracer(t))
//	db := sql.OpenDB(connector)
//
// One Tracer may serve any number of connectors, from any goroutines.
type Tracer struct {
	tracer    trace.Tracer
	duration  metric.Float64Histogram
	queryText bool
	attrs     []attribute.KeyValue // WithAttributes'

	mu    sync.Mutex                        // serializes writers of infos
	infos atomic.Pointer[map[opKey]*opInfo] // copied on write: reads take no lock
}

var _ sqlite3.Tracer = (*Tracer)(nil)

// Option configures NewTracer.
type Option func(*config)

type config struct {
	tp        trace.TracerProvider
	mp        metric.MeterProvider
	queryText bool
	attrs     []attribute.KeyValue
}

// WithTracerProvider sets where spans go; the default is the global one
// (otel.GetTracerProvider) at the time of NewTracer.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets where the duration histogram goes; the default is
// the global one (otel.GetMeterProvider) at the time of NewTracer.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithQueryText records each statement's text as db.query.text on its span
// (not on the histogram). It is off by default: the semantic conventions
// collect a parameterized statement's text by default, but not one whose
// values are written into the text, which may hold what must not leave
// the process, and the driver cannot tell them apart.
func WithQueryText() Option {
	return func(c *config) { c.queryText = true }
}

// WithAttributes adds attributes to every span and histogram point, such
// as db.namespace (semconv.DBNamespace) naming the database file, to tell
// pools apart.
func WithAttributes(kv ...attribute.KeyValue) Option {
	return func(c *config) { c.attrs = append(c.attrs, kv...) }
}

// NewTracer returns a Tracer for a connector (sqlite3.WithTracer). Its
// error is the meter provider's, when it refuses the histogram.
func NewTracer(opts ...Option) (*Tracer, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	meter := c.mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	h, err := meter.Float64Histogram("db.client.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of database client operations."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	return &Tracer{
		tracer:    c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		duration:  h,
		queryText: c.queryText,
		attrs:     c.attrs,
	}, nil
}

// TraceStart starts the operation's span, a child of the caller's span in
// ctx, and returns the context that carries it.
func (t *Tracer) TraceStart(ctx context.Context, ev *sqlite3.TraceEvent) context.Context {
	in := t.info(ev.Kind, ev.SQL)
	ctx, _ = t.tracer.Start(ctx, in.name, in.kind, in.attrs, trace.WithTimestamp(ev.Start))
	return ctx
}

// TraceEnd ends the operation's span with what the event tells (rows, the
// write turn's wait, the group, the error) and records its duration.
func (t *Tracer) TraceEnd(ctx context.Context, ev *sqlite3.TraceEvent) {
	in := t.info(ev.Kind, ev.SQL)
	var fail failure
	if ev.Err != nil {
		fail = classify(ev.Err)
	}
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		kv := make([]attribute.KeyValue, 0, 8)
		kv = append(kv, ConnectionIDKey.Int64(ev.Conn))
		switch ev.Kind {
		case sqlite3.TraceExec:
			kv = append(kv, RowsAffectedKey.Int64(ev.Rows))
		case sqlite3.TraceQuery:
			kv = append(kv, semconv.DBResponseReturnedRowsKey.Int64(ev.Rows), BytesReadKey.Int64(ev.Bytes))
		}
		if ev.TurnWait > 0 {
			kv = append(kv, WriteTurnWaitKey.Float64(ev.TurnWait.Seconds()))
		}
		if ev.BusyWaits > 0 {
			kv = append(kv, BusyWaitKey.Float64(ev.BusyWait.Seconds()))
		}
		if ev.Held > 0 {
			kv = append(kv, WALBoundHeldKey.Float64(ev.Held.Seconds()))
		}
		if ev.Checkpoints > 0 {
			kv = append(kv, CheckpointKey.Float64(ev.Checkpoint.Seconds()))
		}
		if ev.Grouped {
			kv = append(kv, GroupedKey.Bool(true), GroupWritesKey.Int(ev.GroupWrites), GroupCommitKey.Float64(ev.GroupCommit.Seconds()))
		}
		if ev.Err != nil {
			kv = fail.append(kv)
			if fail.extended != 0 {
				kv = append(kv, ExtendedResultCodeKey.Int(fail.extended))
			}
			span.SetStatus(codes.Error, ev.Err.Error())
		}
		span.SetAttributes(kv...)
		span.End(trace.WithTimestamp(ev.Start.Add(ev.Duration)))
	} else {
		span.End() // not sampled, or no SDK: nothing to time
	}

	if !t.duration.Enabled(ctx) {
		return
	}
	if ev.Err == nil {
		t.duration.Record(ctx, ev.Duration.Seconds(), in.record...)
		return
	}
	kv := make([]attribute.KeyValue, 0, len(in.metric)+2)
	kv = fail.append(append(kv, in.metric...))
	t.duration.Record(ctx, ev.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(kv...)))
}

// failure is how an operation failed, for error.type and
// db.response.status_code.
type failure struct {
	errorType  string // SQLite's primary result code ("19"), or the error's class
	statusCode string // SQLite's primary result code, when SQLite reported the error
	extended   int    // SQLite's extended result code, when SQLite reported the error
}

// classify reads an operation's error: SQLite's result code when SQLite
// reported it (errors.As into sqlite3.Error, an interrupted statement's
// included: 9), else the context's end, a bad connection, or "_OTHER" for
// the driver's own errors (misuse, bad arguments).
func classify(err error) failure {
	var se sqlite3.Error
	if errors.As(err, &se) {
		code := strconv.Itoa(int(se.Code))
		return failure{errorType: code, statusCode: code, extended: int(se.ExtendedCode)}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return failure{errorType: "context.Canceled"}
	case errors.Is(err, context.DeadlineExceeded):
		return failure{errorType: "context.DeadlineExceeded"}
	case errors.Is(err, driver.ErrBadConn):
		return failure{errorType: "driver.ErrBadConn"}
	}
	return failure{errorType: semconv.ErrorTypeOther.Value.AsString()}
}

func (f failure) append(kv []attribute.KeyValue) []attribute.KeyValue {
	kv = append(kv, semconv.ErrorTypeKey.String(f.errorType))
	if f.statusCode != "" {
		kv = append(kv, semconv.DBResponseStatusCodeKey.String(f.statusCode))
	}
	return kv
}

// opKey names what an operation's attributes are made of.
type opKey struct {
	kind sqlite3.TraceKind
	sql  string
}

// opInfo is what a kind of operation on a statement's text gets, worked out
// once: its span's name and start attributes, and its histogram attributes.
type opInfo struct {
	name   string
	kind   trace.SpanStartOption // client
	attrs  trace.SpanStartOption // the span's start attributes
	metric []attribute.KeyValue
	record []metric.RecordOption // metric's, as a set
}

// Statements whose text is at most maxCachedSQL bytes keep their opInfo,
// up to maxCached of them; beyond, each operation works its own out.
const (
	maxCached    = 1024
	maxCachedSQL = 4096
)

func (t *Tracer) info(kind sqlite3.TraceKind, sql string) *opInfo {
	k := opKey{kind, sql}
	if m := t.infos.Load(); m != nil {
		if in, ok := (*m)[k]; ok {
			return in
		}
	}
	in := t.newInfo(kind, sql)
	if len(sql) > maxCachedSQL {
		return in
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var old map[opKey]*opInfo
	if m := t.infos.Load(); m != nil {
		old = *m
	}
	if len(old) >= maxCached {
		return in
	}
	if prev, ok := old[k]; ok {
		return prev
	}
	m := make(map[opKey]*opInfo, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[k] = in
	t.infos.Store(&m)
	return in
}

func (t *Tracer) newInfo(kind sqlite3.TraceKind, sql string) *opInfo {
	q := summarize(sql)
	if q.summary == "" {
		// BEGIN's event has no SQL; a statement made of comments has nothing to tell
		switch kind {
		case sqlite3.TraceBegin, sqlite3.TraceCommit, sqlite3.TraceRollback:
			q.operation = strings.ToUpper(kind.String())
			q.summary = q.operation
		}
	}
	if kind == sqlite3.TracePrepare {
		q.operation = "PREPARE"
		q.summary = strings.TrimSpace("PREPARE " + q.summary)
	}
	name := q.summary
	if name == "" {
		name = "sqlite"
	}
	kv := make([]attribute.KeyValue, 0, 5+len(t.attrs))
	kv = append(kv, semconv.DBSystemNameSQLite)
	if q.operation != "" {
		kv = append(kv, semconv.DBOperationNameKey.String(q.operation))
	}
	if q.summary != "" {
		kv = append(kv, semconv.DBQuerySummaryKey.String(q.summary))
	}
	if q.collection != "" {
		kv = append(kv, semconv.DBCollectionNameKey.String(q.collection))
	}
	kv = append(kv, t.attrs...)
	metricKV := kv[:len(kv):len(kv)]
	spanKV := metricKV
	if t.queryText && sql != "" {
		spanKV = append(spanKV, semconv.DBQueryTextKey.String(sql))
	}
	return &opInfo{
		name:   name,
		kind:   trace.WithSpanKind(trace.SpanKindClient),
		attrs:  trace.WithAttributes(spanKV...),
		metric: metricKV,
		record: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(metricKV...))},
	}
}
