//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeLitestream is Litestream's control socket as far as POST /sync goes:
// its replica is a copy of the database's rows as they were when each
// request came (read through a pool of its own, as Litestream reads the
// WAL), so a test can ask whether an acknowledged row is on it.
type fakeLitestream struct {
	socket  string
	db      *sql.DB
	delay   time.Duration // before answering
	answer  atomic.Value  // func(w http.ResponseWriter) to answer otherwise, or nil
	mu      sync.Mutex
	replica map[int64]bool
	calls   atomic.Int64
	paths   sync.Map // the paths asked for
}

func newFakeLitestream(t *testing.T, dbPath string, delay time.Duration) *fakeLitestream {
	t.Helper()
	dir, err := os.MkdirTemp("", "ls") // a short path: a socket's name is at most 104-108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := &fakeLitestream{socket: filepath.Join(dir, "s"), delay: delay, replica: map[int64]bool{}}
	l, err := net.Listen("unix", f.socket)
	if err != nil {
		t.Fatal(err)
	}
	f.db, err = sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve)}
	go srv.Serve(l)
	t.Cleanup(func() {
		srv.Close()
		f.db.Close()
	})
	return f
}

func (f *fakeLitestream) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	var req struct {
		Path    string `json:"path"`
		Wait    bool   `json:"wait"`
		Timeout int    `json:"timeout"`
	}
	if r.Method != "POST" || r.URL.Path != "/sync" || json.NewDecoder(r.Body).Decode(&req) != nil || !req.Wait || req.Timeout < 1 {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"bad request %s %s %+v"}`, r.Method, r.URL.Path, req)
		return
	}
	f.paths.Store(req.Path, true)
	if a, _ := f.answer.Load().(func(http.ResponseWriter)); a != nil {
		a(w)
		return
	}
	// What the WAL holds now is what this request uploads.
	rows, err := f.db.Query("SELECT id FROM t")
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":%q}`, err.Error())
		return
	}
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	time.Sleep(f.delay)
	f.mu.Lock()
	for _, id := range ids {
		f.replica[id] = true
	}
	f.mu.Unlock()
	fmt.Fprintf(w, `{"status":"synced","path":%q,"txid":7,"replicated_txid":7}`, req.Path)
}

func (f *fakeLitestream) has(id int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replica[id]
}

// needUnixSockets skips a test where unix sockets cannot be listened on
// (Wine), before the test makes anything to clean up: Litestream's control
// socket is one.
func needUnixSockets(t *testing.T) {
	dir, err := os.MkdirTemp("", "ls")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	l.Close()
}

// replicaPool opens a WAL file with a table t and a pool whose writes wait
// for f (created by setup with the file's path).
func replicaPool(t *testing.T, extra string, delay time.Duration) (*sql.DB, *fakeLitestream, string) {
	t.Helper()
	needUnixSockets(t)
	path := filepath.Join(t.TempDir(), "r.db")
	setup, err := sql.Open("sqlite3", path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	setup.Close()
	f := newFakeLitestream(t, path, delay)
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_replicate_wait="+f.socket+extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, f, path
}

// Every way a write is acknowledged waits for one confirmation that covers
// it; reads ask for none.
func TestReplicateWaitEveryAcknowledgement(t *testing.T) {
	db, f, path := replicaPool(t, "", 0)
	ctx := context.Background()
	calls := f.calls.Load()
	expect := func(what string, id int64, requests int64) {
		t.Helper()
		if got := f.calls.Load() - calls; got != requests {
			t.Errorf("%s: %d requests to Litestream, want %d", what, got, requests)
		}
		calls = f.calls.Load()
		if id != 0 && !f.has(id) {
			t.Errorf("%s: row %d acknowledged before it was on the replica", what, id)
		}
	}

	if _, err := db.Exec("INSERT INTO t VALUES (1, 'exec')"); err != nil {
		t.Fatal(err)
	}
	expect("Exec", 1, 1)

	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	expect("a read", 0, 0)

	st, err := db.Prepare("INSERT INTO t VALUES (?, 'stmt')")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(2); err != nil {
		t.Fatal(err)
	}
	st.Close()
	expect("Stmt.Exec", 2, 1)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (3, 'tx')"); err != nil {
		t.Fatal(err)
	}
	expect("a write inside a transaction", 0, 0)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	expect("Tx.Commit", 3, 1)

	tx, _ = db.BeginTx(ctx, nil)
	tx.Exec("INSERT INTO t VALUES (99, 'rolled back')")
	tx.Rollback()
	expect("Tx.Rollback", 0, 0)

	var id int64
	if err := db.QueryRow("INSERT INTO t VALUES (4, 'returning') RETURNING id").Scan(&id); err != nil || id != 4 {
		t.Fatal(id, err)
	}
	expect("Query ... RETURNING", 4, 1)

	rows, err := db.Query("INSERT INTO t VALUES (5, 'a'), (6, 'b') RETURNING id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	expect("Query ... RETURNING read to its end", 6, 1)

	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		ds, err := dc.(*SQLiteConn).PrepareDirect("INSERT INTO t VALUES (?, 'direct')")
		if err != nil {
			return err
		}
		defer ds.Finalize()
		if err := ds.Exec(int64(7)); err != nil {
			return err
		}
		expect("DirectStmt.Exec", 7, 1)
		if err := ds.BindInt64(1, 8); err != nil {
			return err
		}
		if row, err := ds.Step(); row || err != nil {
			return fmt.Errorf("Step: %v %v", row, err)
		}
		expect("DirectStmt.Step", 8, 1)
		if _, err := ds.ExecColumns([]int64{9, 10}); err != nil {
			return err
		}
		expect("DirectStmt.ExecColumns", 10, 1)
		return nil
	})
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := db.Exec("CREATE TABLE u(x)"); err != nil {
		t.Fatal(err)
	}
	expect("DDL", 0, 1)

	abs, _ := filepath.Abs(path)
	if _, ok := f.paths.Load(abs); !ok {
		var asked []any
		f.paths.Range(func(k, _ any) bool { asked = append(asked, k); return true })
		t.Errorf("Litestream was asked for %v, want the file's absolute path %s", asked, abs)
	}
	st2, err := Stats(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Replications != 9 || st2.ReplicatedWrites != 9 || st2.ReplicationFailures != 0 || st2.ReplicationWaitTime <= 0 {
		t.Errorf("FileStats: %d confirmations, %d writes, %d failures, waited %v; want 9, 9, 0, > 0",
			st2.Replications, st2.ReplicatedWrites, st2.ReplicationFailures, st2.ReplicationWaitTime)
	}
}

// insertConcurrently runs writers goroutines that each insert each rows
// of t, one Exec a row, calling after with the row's id once it is
// acknowledged; the first error fails t.
func insertConcurrently(t *testing.T, db *sql.DB, writers, each int, after func(id int64) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := int64(w*each + i + 1)
				if _, err := db.Exec("INSERT INTO t VALUES (?, 'x')", id); err != nil {
					errs <- err
					return
				}
				if err := after(id); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Writers share confirmations: a commit that ended before a request was
// sent is covered by it, the ones that end meanwhile share the next one,
// and no write is acknowledged before the replica holds it. With and
// without group commit.
func TestReplicateWaitShared(t *testing.T) {
	for _, extra := range []string{"", "&_group_commit=1"} {
		t.Run("dsn"+extra, func(t *testing.T) {
			db, f, _ := replicaPool(t, extra, 20*time.Millisecond)
			const writers, each = 16, 20
			insertConcurrently(t, db, writers, each, func(id int64) error {
				if !f.has(id) {
					return fmt.Errorf("row %d acknowledged, not on the replica", id)
				}
				return nil
			})
			st, err := Stats(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			requests := f.calls.Load()
			t.Logf("%d writes, %d requests to Litestream (%.1f writes each), FileStats %d confirmations, wait %v in all",
				writers*each, requests, float64(writers*each)/float64(requests), st.Replications, st.ReplicationWaitTime)
			if st.ReplicatedWrites != writers*each || st.Replications != requests {
				t.Errorf("FileStats: %d writes in %d confirmations; want %d in %d", st.ReplicatedWrites, st.Replications, writers*each, requests)
			}
			// One request in flight at a time, each taking 20 ms: 320
			// writes of 16 writers cannot need more than one per write
			// round of the 16; sharing makes it far fewer.
			if requests > writers*each/4 {
				t.Errorf("%d requests for %d writes of %d writers: not shared", requests, writers*each, writers)
			}
		})
	}
}

// Writers released by a confirmation that take more than half a request's
// time to commit again still share the next one: the request waits for them
// up to as long as a request takes, which is what each would otherwise wait
// for the request after it. (A hold of half the request's time split them
// in two confirmations a cycle.)
func TestReplicateWaitHoldsForReleasedWriters(t *testing.T) {
	// Long enough for a loaded machine and -asan: a request of 400 ms, the
	// writers back 240 ms after its answer, beyond half of it, 160 ms
	// inside the whole (40 ms was too little under -asan beside CI).
	const delay, pause = 400 * time.Millisecond, 240 * time.Millisecond
	defer func(d time.Duration) { maxReplHold = d }(maxReplHold)
	maxReplHold = time.Second
	db, _, _ := replicaPool(t, "&_group_commit=1", delay)
	const writers, each = 16, 8
	insertConcurrently(t, db, writers, each, func(int64) error {
		time.Sleep(pause)
		return nil
	})
	st, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	perConfirmation := float64(st.ReplicatedWrites) / float64(st.Replications)
	t.Logf("%d writes in %d confirmations: %.1f each", st.ReplicatedWrites, st.Replications, perConfirmation)
	// All 16 in each confirmation but the first (the writers start apart)
	// and a straggler now and then; halves give 8.
	if perConfirmation < 11 {
		t.Errorf("%.1f writes per confirmation, want nearly all %d writers in each", perConfirmation, writers)
	}
}

// A write Litestream does not confirm is committed locally, and its caller
// is told so with ErrNotReplicated; reads are never delayed.
func TestReplicateWaitFailures(t *testing.T) {
	db, f, _ := replicaPool(t, "&_replicate_timeout=300ms", 0)
	count := func() int {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(what string, err error, cause string) *ReplicationError {
		t.Helper()
		var re *ReplicationError
		if !errors.Is(err, ErrNotReplicated) || !errors.As(err, &re) {
			t.Fatalf("%s: got %v, want ErrNotReplicated", what, err)
		}
		if cause != "" && !strings.Contains(err.Error(), cause) {
			t.Errorf("%s: %v does not say %q", what, err, cause)
		}
		return re
	}

	f.answer.Store(func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"database not found: /x"}`)
	})
	_, err := db.Exec("INSERT INTO t(v) VALUES ('refused')")
	re := check("a refusal", err, "404: database not found")
	if re.Result == nil {
		t.Error("the ReplicationError of an Exec has no Result")
	} else if id, _ := re.Result.LastInsertId(); id != 1 {
		t.Errorf("Result.LastInsertId = %d, want 1", id)
	}
	if n := count(); n != 1 {
		t.Errorf("after the refusal, %d rows; the commit must stand", n)
	}

	f.answer.Store(func(w http.ResponseWriter) {
		fmt.Fprint(w, `{"status":"synced_local","txid":9,"replicated_txid":8}`)
	})
	_, err = db.Exec("INSERT INTO t(v) VALUES ('not waited for')")
	check("an answer that did not wait", err, `answered "synced_local"`)

	release := make(chan struct{})
	f.answer.Store(func(w http.ResponseWriter) { <-release })
	start := time.Now()
	_, err = db.Exec("INSERT INTO t(v) VALUES ('timeout')")
	check("no answer", err, "_replicate_timeout")
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("no answer: returned after %v, want about 300ms", d)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	start = time.Now()
	_, err = db.ExecContext(ctx, "INSERT INTO t(v) VALUES ('deadline')")
	cancel()
	check("the context's deadline", err, "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v: errors.Is(err, context.DeadlineExceeded) is false", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("the deadline: returned after %v, before it", d)
	}

	// Reads go on while Litestream does not answer (one that waited would
	// fail with ErrNotReplicated at the timeout), and ask it nothing.
	calls := f.calls.Load()
	if n := count(); n != 4 {
		t.Errorf("%d rows, want the 4 committed", n)
	}
	if c := f.calls.Load(); c != calls {
		t.Errorf("a read asked Litestream %d times", c-calls)
	}
	close(release)

	f.answer.Store((func(http.ResponseWriter))(nil))
	if _, err := db.Exec("INSERT INTO t(v) VALUES ('fine again')"); err != nil {
		t.Errorf("once Litestream answers again: %v", err)
	}
	tx, _ := db.Begin()
	tx.Exec("INSERT INTO t(v) VALUES ('tx')")
	os.Remove(f.socket)
	err = tx.Commit()
	check("Litestream gone (Commit)", err, "connect")
	if n := count(); n != 6 {
		t.Errorf("%d rows, want 6: the commit stands", n)
	}
	st, _ := Stats(context.Background(), db)
	if st.ReplicationFailures != 5 {
		t.Errorf("FileStats.ReplicationFailures = %d, want 5", st.ReplicationFailures)
	}
}

// Litestream's 200 answer to a sync that waited confirms the request's
// commits even when its replicated_txid trails its txid: another sync (a
// request of another process or pool, or Litestream's own every second)
// made an LTX file after this one's upload, before the answer read them.
// Litestream v0.5.18 answered so for 2,452 of 6,053 writes of two pools of
// 16 writers on one file in 5 s, each pool with its own requests.
func TestReplicateWaitAnotherSyncMeanwhile(t *testing.T) {
	db, f, _ := replicaPool(t, "", 0)
	for i, body := range []string{
		`{"status":"synced","txid":12,"replicated_txid":11}`,
		`{"status":"no_change","txid":13,"replicated_txid":11}`,
	} {
		f.answer.Store(func(w http.ResponseWriter) { fmt.Fprint(w, body) })
		if _, err := db.Exec("INSERT INTO t(v) VALUES (?)", i); err != nil {
			t.Errorf("answer %s: %v, want the write acknowledged", body, err)
		}
	}
	st, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if st.Replications != 2 || st.ReplicatedWrites != 2 || st.ReplicationFailures != 0 {
		t.Errorf("FileStats: %d confirmations, %d writes, %d failures; want 2, 2, 0",
			st.Replications, st.ReplicatedWrites, st.ReplicationFailures)
	}
}

// _replicate_wait refuses what Litestream cannot replicate, and bad values.
func TestReplicateWaitDSN(t *testing.T) {
	dir := t.TempDir()
	for dsn, want := range map[string]string{
		":memory:?_replicate_wait=/tmp/x":                                          "needs a database file",
		filepath.Join(dir, "a.db") + "?_replicate_wait=/tmp/x":                     "needs journal_mode=WAL",
		filepath.Join(dir, "c.db") + "?_replicate_wait=/x&_replicate_timeout=0":    "_replicate_timeout",
		filepath.Join(dir, "d.db") + "?_replicate_wait=/x&_replicate_timeout=soon": "_replicate_timeout",
	} {
		db, err := sql.Open("sqlite3", dsn)
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", dsn, err, want)
		}
	}
}
