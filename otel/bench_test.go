package otelsqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/XSAM/otelsql"
	"github.com/fastsqlite/sqlite3"
	otelsqlite "github.com/fastsqlite/sqlite3/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkTracer is the cost of tracing per operation: an autocommit
// UPDATE of one row by primary key (Exec) and a QueryRow of one row by
// primary key (PointQuery) on a WAL file, with no tracer, with this
// adapter (one span per operation), and with github.com/XSAM/otelsql
// v0.44.0 wrapping the same connector: with its defaults (a span for the
// pool's session reset before each operation, one for the operation, and
// for a query one for its rows) and lean (SpanOptions OmitConnResetSession
// and OmitRows: one span per operation). All export to the same SDK:
// every span sampled, a batch span processor with an exporter that drops
// what it gets, and a meter provider whose reader never collects, so
// each operation pays for its spans and its histogram record as in a
// service. The caller's context carries a sampled parent span. cpu-ns/op
// is the process's CPU time per operation, every thread's (the batch
// processor's included), which other load on the machine moves less than
// ns/op.
//
//	go test -run '^$' -bench Tracer -count 6 . | tee new.txt
//	benchstat -col /tracer new.txt
func BenchmarkTracer(b *testing.B) {
	for _, w := range []struct {
		name string
		op   func(b *testing.B, ctx context.Context, db *sql.DB, i int)
	}{
		{"Exec", func(b *testing.B, ctx context.Context, db *sql.DB, i int) {
			if _, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", i%1000+1); err != nil {
				b.Fatal(err)
			}
		}},
		{"PointQuery", func(b *testing.B, ctx context.Context, db *sql.DB, i int) {
			var v int64
			if err := db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = ?", i%1000+1).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}},
	} {
		for _, tracer := range []string{"none", "adapter", "otelsql", "otelsql-lean"} {
			b.Run(w.name+"/tracer="+tracer, func(b *testing.B) {
				db, ctx := benchDB(b, tracer)
				b.ReportAllocs()
				cpu0, ok := benchCPUTime()
				for i := 0; b.Loop(); i++ {
					w.op(b, ctx, db, i)
				}
				if cpu1, _ := benchCPUTime(); ok {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// benchDB opens a pool on a new WAL file of 1,000 rows, traced as tracer
// says, and returns it with the context its operations run with.
func benchDB(b *testing.B, tracer string) (*sql.DB, context.Context) {
	b.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	dsn := filepath.Join(b.TempDir(), "bench.db") + "?_journal_mode=WAL&_sync=NORMAL&_txlock=immediate&_busy_timeout=5000"
	var opts []sqlite3.ConnectorOption
	if tracer == "adapter" {
		t, err := otelsqlite.NewTracer(otelsqlite.WithTracerProvider(tp), otelsqlite.WithMeterProvider(mp))
		if err != nil {
			b.Fatal(err)
		}
		opts = append(opts, sqlite3.WithTracer(t))
	}
	c, err := sqlite3.NewConnector(dsn, opts...)
	if err != nil {
		b.Fatal(err)
	}
	var db *sql.DB
	switch tracer {
	case "otelsql":
		db = otelsql.OpenDB(c, otelsql.WithTracerProvider(tp), otelsql.WithMeterProvider(mp),
			otelsql.WithAttributes(semconv.DBSystemNameSQLite))
	case "otelsql-lean":
		db = otelsql.OpenDB(c, otelsql.WithTracerProvider(tp), otelsql.WithMeterProvider(mp),
			otelsql.WithAttributes(semconv.DBSystemNameSQLite),
			otelsql.WithSpanOptions(otelsql.SpanOptions{OmitConnResetSession: true, OmitRows: true}))
	default:
		db = sql.OpenDB(c)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT)"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT i, 0 FROM n"); err != nil {
		b.Fatal(err)
	}
	ctx, _ = tp.Tracer("bench").Start(ctx, "request")
	return db, ctx
}

// BenchmarkTraceStartEnd is the adapter alone, TraceStart and TraceEnd of
// one exec event, with OpenTelemetry not set up (the no-op providers a
// library gets by default: provider=noop) and with the SDK of
// BenchmarkTracer (provider=sdk).
func BenchmarkTraceStartEnd(b *testing.B) {
	for _, provider := range []string{"noop", "sdk"} {
		b.Run("provider="+provider, func(b *testing.B) {
			var opts []otelsqlite.Option
			ctx := context.Background()
			if provider == "sdk" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
					sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				b.Cleanup(func() {
					tp.Shutdown(context.Background())
					mp.Shutdown(context.Background())
				})
				opts = append(opts, otelsqlite.WithTracerProvider(tp), otelsqlite.WithMeterProvider(mp))
				ctx, _ = tp.Tracer("bench").Start(ctx, "request")
			} else {
				opts = append(opts, otelsqlite.WithTracerProvider(tracenoop.NewTracerProvider()),
					otelsqlite.WithMeterProvider(metricnoop.NewMeterProvider()))
			}
			t, err := otelsqlite.NewTracer(opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ev := sqlite3.TraceEvent{Kind: sqlite3.TraceExec, SQL: "UPDATE t SET v = v + 1 WHERE id = ?", Conn: 1,
					Start: time.Now(), Duration: 20 * time.Microsecond, Rows: 1}
				t.TraceEnd(t.TraceStart(ctx, &ev), &ev)
			}
		})
	}
}
