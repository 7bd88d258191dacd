package otelsqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fastsqlite/sqlite3"
	otelsqlite "github.com/fastsqlite/sqlite3/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The adapter on a connector: each operation is a span under the caller's
// (here "handler"), named by its query summary, with SQLite's result code
// when it fails; and a point of db.client.operation.duration. A service
// would give NewTracer nothing (the global providers) or its own
// providers with exporters (examples/httpservice in this module); this
// example records in memory to print what was made.
func ExampleNewTracer() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	tracer, err := otelsqlite.NewTracer(otelsqlite.WithTracerProvider(tp), otelsqlite.WithMeterProvider(mp))
	if err != nil {
		panic(err)
	}
	connector, err := sqlite3.NewConnector(":memory:", sqlite3.WithTracer(tracer))
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	ctx, handler := tp.Tracer("app").Start(context.Background(), "handler")
	db.ExecContext(ctx, "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE)")
	db.ExecContext(ctx, "INSERT INTO users(email) VALUES (?)", "a@example.com")
	db.ExecContext(ctx, "INSERT INTO users(email) VALUES (?)", "a@example.com")
	var n int
	db.QueryRowContext(ctx, "SELECT count(*) FROM users").Scan(&n)
	handler.End()

	for _, s := range spans.Ended() {
		if s.Name() == "handler" {
			continue
		}
		attrs := attribute.NewSet(s.Attributes()...)
		code, _ := attrs.Value("db.response.status_code")
		fmt.Printf("%-15s kind=%s child=%v status_code=%q\n", s.Name(), s.SpanKind(),
			s.Parent().SpanID() == handler.SpanContext().SpanID(), code.AsString())
	}
	var rm metricdata.ResourceMetrics
	reader.Collect(ctx, &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		var points uint64
		for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
			points += dp.Count
		}
		fmt.Printf("%s (%s): %d operations\n", m.Name, m.Unit, points)
	}
	// Output:
	// CREATE TABLE users kind=client child=true status_code=""
	// INSERT users    kind=client child=true status_code=""
	// INSERT users    kind=client child=true status_code="19"
	// SELECT users    kind=client child=true status_code=""
	// db.client.operation.duration (s): 4 operations
}

// The file's FileStats as metrics, read at each collection.
func ExampleRegisterFileStats() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.Exec("CREATE TABLE t(v)")

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg, err := otelsqlite.RegisterFileStats(mp.Meter("app"), db, attribute.String("db.namespace", "app.db"))
	if err != nil {
		panic(err)
	}
	defer reg.Unregister()

	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "sqlite.wal.size" || m.Name == "sqlite.write_turn.wait_time" || m.Name == "sqlite.checkpoints" {
			fmt.Printf("%s (%s)\n", m.Name, m.Unit)
		}
	}
	// Output:
	// sqlite.write_turn.wait_time (s)
	// sqlite.wal.size (By)
	// sqlite.checkpoints ({checkpoint})
}
