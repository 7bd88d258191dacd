// Command httpservice is the driver's examples/httpservice (a JSON notes
// API on one SQLite file in WAL mode, the README's server DSN) with
// OpenTelemetry: each request is a server span, each of its statements a
// client span beneath it (otelsqlite.Tracer), each statement a point of
// db.client.operation.duration, and the file's FileStats (waits for the
// write turn, busy timeouts, the WAL's size, checkpoints, group commits)
// are metrics under sqlite.*. It lives in the adapter's module so that the
// driver's own module keeps no dependencies.
//
//	go run ./examples/httpservice -addr 127.0.0.1:8080    # spans and metrics as JSON lines on stdout
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run ./examples/httpservice -exporter otlp -metrics-every 10s
//	curl -d '{"body":"hello"}' localhost:8080/notes
//	curl localhost:8080/notes
//	curl localhost:8080/notes/1
//
// (run from the otel directory of the driver's repository). -exporter otlp
// sends OTLP over HTTP to a collector, configured by the standard
// OTEL_EXPORTER_OTLP_* variables (without them: https://localhost:4318).
// Without -db the database is a file in a temporary directory, removed at
// exit. Interrupt (Ctrl-C) or SIGTERM shuts the server down gracefully,
// then flushes the spans and a last collection of the metrics.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fastsqlite/sqlite3"
	otelsqlite "github.com/fastsqlite/sqlite3/otel"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx is done, then shuts down gracefully and flushes
// what the exporters hold.
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("httpservice", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	path := fs.String("db", "", "database file (default: a new file in a temporary directory)")
	exporter := fs.String("exporter", "stdout", "where spans and metrics go: stdout (JSON lines) or otlp (OTLP over HTTP, configured by the OTEL_EXPORTER_OTLP_* variables)")
	every := fs.Duration("metrics-every", time.Minute, "how often metrics are collected and exported (and once at exit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		dir, err := os.MkdirTemp("", "httpservice")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*path = filepath.Join(dir, "notes.db")
	}

	tp, mp, err := setupOTel(ctx, *exporter, stdout, *every)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = errors.Join(err, tp.Shutdown(sctx), mp.Shutdown(sctx))
	}()

	st, err := openStore(*path)
	if err != nil {
		return err
	}
	defer st.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: st.routes(), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s (database %s, exporter %s)\n", ln.Addr(), *path, *exporter)

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "shut down")
	// A last collection while the pool is open, for the file's numbers.
	return errors.Join(tp.ForceFlush(shutdownCtx), mp.ForceFlush(shutdownCtx))
}

// setupOTel sets the global tracer and meter providers, exporting to
// stdout or over OTLP/HTTP, and returns them to flush and shut down.
func setupOTel(ctx context.Context, exporter string, stdout io.Writer, every time.Duration) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider, error) {
	var (
		spans   sdktrace.SpanExporter
		metrics sdkmetric.Exporter
		err     error
	)
	switch exporter {
	case "stdout":
		if spans, err = stdouttrace.New(stdouttrace.WithWriter(stdout)); err == nil {
			metrics, err = stdoutmetric.New(stdoutmetric.WithWriter(stdout))
		}
	case "otlp":
		if spans, err = otlptracehttp.New(ctx); err == nil {
			metrics, err = otlpmetrichttp.New(ctx)
		}
	default:
		err = fmt.Errorf("-exporter %q: want stdout or otlp", exporter)
	}
	if err != nil {
		return nil, nil, err
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("httpservice")))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(every))))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	return tp, mp, nil
}

// store holds the pool on one database file and what observes it.
type store struct {
	db    *sql.DB
	stats metric.Registration
}

// serverDSN is the README's "Recommended settings for servers" (see the
// driver's examples/httpservice).
const serverDSN = "?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1"

func openStore(path string) (*store, error) {
	// The adapter takes the global providers set by setupOTel.
	tracer, err := otelsqlite.NewTracer(otelsqlite.WithAttributes(semconv.DBNamespace(path)))
	if err != nil {
		return nil, err
	}
	connector, err := sqlite3.NewConnector(path+serverDSN, sqlite3.WithTracer(tracer))
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS notes (
		id      INTEGER PRIMARY KEY,
		body    TEXT NOT NULL,
		created DATETIME NOT NULL
	)`); err != nil {
		db.Close()
		return nil, err
	}
	// The file's numbers, read at each collection through a connection of
	// the pool.
	reg, err := otelsqlite.RegisterFileStats(otel.Meter("httpservice"), db, semconv.DBNamespace(path))
	if err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db, stats: reg}, nil
}

func (s *store) Close() error {
	uerr := s.stats.Unregister()
	_, oerr := s.db.Exec(`PRAGMA optimize`)
	return errors.Join(uerr, oerr, s.db.Close())
}

type note struct {
	ID      int64     `json:"id"`
	Body    string    `json:"body"`
	Created time.Time `json:"created"`
}

func (s *store) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", s.createNote)
	mux.HandleFunc("GET /notes", s.listNotes)
	mux.HandleFunc("GET /notes/{id}", s.getNote)
	return traced(mux)
}

// traced makes each request a server span, in whose context the handler's
// statements run: their spans are its children. (A service would use
// go.opentelemetry.io/contrib's otelhttp, which also reads a caller's
// trace context from the request's headers.)
func traced(mux *http.ServeMux) http.Handler {
	tracer := otel.Tracer("httpservice")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r) // "GET /notes/{id}": the method and the route
		name, attrs := r.Method, []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(r.Method), semconv.URLPath(r.URL.Path)}
		if _, route, ok := strings.Cut(pattern, " "); ok {
			name = pattern
			attrs = append(attrs, semconv.HTTPRoute(route))
		}
		ctx, span := tracer.Start(r.Context(), name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		mux.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(semconv.HTTPResponseStatusCode(rec.status))
		if rec.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.status))
		}
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (s *store) createNote(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil || in.Body == "" {
		httpError(w, http.StatusBadRequest, `want a JSON object {"body": "..."}`)
		return
	}
	n := note{Body: in.Body, Created: time.Now().UTC().Truncate(time.Millisecond)}
	err := s.db.QueryRowContext(r.Context(),
		`INSERT INTO notes (body, created) VALUES (?, ?) RETURNING id`, n.Body, n.Created).Scan(&n.ID)
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, n)
}

func (s *store) listNotes(w http.ResponseWriter, r *http.Request) {
	rows, err := s.db.QueryContext(r.Context(), `SELECT id, body, created FROM notes ORDER BY id`)
	if err != nil {
		serverError(w, err)
		return
	}
	defer rows.Close()
	notes := []note{}
	for rows.Next() {
		var n note
		if err := rows.Scan(&n.ID, &n.Body, &n.Created); err != nil {
			serverError(w, err)
			return
		}
		notes = append(notes, n)
	}
	if err := rows.Err(); err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, notes)
}

func (s *store) getNote(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad note id")
		return
	}
	var n note
	err = s.db.QueryRowContext(r.Context(), `SELECT id, body, created FROM notes WHERE id = ?`, id).
		Scan(&n.ID, &n.Body, &n.Created)
	if errors.Is(err, sql.ErrNoRows) {
		httpError(w, http.StatusNotFound, "no such note")
		return
	}
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, n)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func serverError(w http.ResponseWriter, err error) {
	log.Printf("httpservice: %v", err)
	httpError(w, http.StatusInternalServerError, "internal error")
}
