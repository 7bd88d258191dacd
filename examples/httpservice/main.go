// Command httpservice is a small JSON notes API on SQLite, laid out the way
// the README recommends for servers: one database file in WAL mode, opened
// with the README's server DSN (transactions begin IMMEDIATE, a busy
// timeout), and one pool for reads and writes. Readers never wait for the
// writer (WAL), and writers take turns in Go, in arrival order, instead of
// failing with "database is locked".
//
//	go run ./examples/httpservice -addr 127.0.0.1:8080
//	curl -d '{"body":"hello"}' localhost:8080/notes
//	curl localhost:8080/notes
//	curl localhost:8080/notes/1
//	curl -X DELETE localhost:8080/notes/1
//	curl localhost:8080/debug/vars    # expvars, the database's among them ("sqlite")
//
// Without -db the database is a file in a temporary directory, removed at
// exit. Interrupt (Ctrl-C) or SIGTERM shuts the server down gracefully:
// requests in flight finish, then the pool closes.
//
// The same service exporting OpenTelemetry traces and metrics (stdout, or
// OTLP behind a flag) is otel/examples/httpservice, in the adapter's own
// module so that this one keeps no dependencies (docs/tracing.md).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fastsqlite/sqlite3"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx is done, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("httpservice", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	path := fs.String("db", "", "database file (default: a new file in a temporary directory)")
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
	fmt.Fprintf(stdout, "listening on http://%s (database %s)\n", ln.Addr(), *path)

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
	return nil
}

// store holds the pool on one database file.
type store struct {
	db *sql.DB
}

// serverDSN is the README's "Recommended settings for servers": WAL (set
// once, it stays in the file), BEGIN IMMEDIATE so that a transaction takes
// the write lock when it starts, where the busy timeout can wait for it,
// rather than failing half way, and a busy timeout for other processes.
const serverDSN = "?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1"

// fileURI turns a path into a file: URI that SQLite reads on every OS
// (file:/C:/dir/x.db on Windows).
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file:" + (&url.URL{Path: p}).EscapedPath(), nil
}

func openStore(path string) (*store, error) {
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", uri+serverDSN)
	if err != nil {
		return nil, err
	}
	// Writers wait their turn in Go while readers run beside them, so the
	// pool needs room for both.
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
	return &store{db: db}, nil
}

func (s *store) Close() error {
	// PRAGMA optimize before the last connection closes, as SQLite advises.
	_, oerr := s.db.Exec(`PRAGMA optimize`)
	return errors.Join(oerr, s.db.Close())
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
	mux.HandleFunc("DELETE /notes/{id}", s.deleteNote)
	s.publishStats()
	mux.Handle("GET /debug/vars", expvar.Handler())
	return mux
}

// The database file's numbers (sqlite3.Stats: waits for the write turn, busy
// timeouts, the WAL's size and its bound's checkpoints), served with the
// process's other expvars at /debug/vars, read when a client asks. expvar
// writes them with FileStats.MarshalJSON, durations in seconds
// (WriteWaitSeconds, ...), which a dashboard plots as they come. expvar
// names are process-wide and published once: "sqlite" reports the store
// that published last.
var (
	statsOnce  sync.Once
	statsStore struct {
		sync.Mutex
		s *store
	}
)

func (s *store) publishStats() {
	statsStore.Lock()
	statsStore.s = s
	statsStore.Unlock()
	statsOnce.Do(func() {
		expvar.Publish("sqlite", expvar.Func(func() any {
			statsStore.Lock()
			s := statsStore.s
			statsStore.Unlock()
			st, err := sqlite3.Stats(context.Background(), s.db)
			if err != nil {
				return err.Error()
			}
			return st
		}))
	})
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
	// One statement needs no explicit transaction; the request's context
	// cancels it if the client goes away.
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

func (s *store) deleteNote(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad note id")
		return
	}
	res, err := s.db.ExecContext(r.Context(), `DELETE FROM notes WHERE id = ?`, id)
	if err != nil {
		serverError(w, err)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		httpError(w, http.StatusNotFound, "no such note")
		return
	}
	w.WriteHeader(http.StatusNoContent)
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
