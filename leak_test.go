//go:build cgo

package sqlite3

// Leaks: after connections are opened and closed, statements run, rows
// abandoned, queries cancelled and errors hit, the goroutine count and
// SQLite's heap must come back to where they were.
//
// SQLite counts its heap only when a fresh process enables the count before its
// first connection (enableMemStats, bridge.go), so TestLeak re-executes the
// test binary to run TestLeakChild alone. Under valgrind (the bridge's own
// malloc'd buffers are not in SQLite's count; valgrind sees them):
//
//	go test -c -tags fastsqlite_dev -o /tmp/sqlite3.test .
//	FASTSQLITE_LEAK_CHILD=1 LEAK_ROUNDS=1 valgrind --leak-check=full --show-leak-kinds=definite \
//	    /tmp/sqlite3.test -test.run '^TestLeakChild$' -test.v

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

const leakChildEnv = "FASTSQLITE_LEAK_CHILD"

func TestLeak(t *testing.T) {
	if os.Getenv(leakChildEnv) != "" {
		t.Skip("inside the child")
	}
	cmd := testBinaryCommand("-test.run=^TestLeakChild$", "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), leakChildEnv+"=1")
	if testing.Short() {
		cmd.Env = append(cmd.Env, "LEAK_ROUNDS=1")
	}
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, msg, ok := strings.Cut(line, "leak_test.go:"); ok {
			if _, msg, ok = strings.Cut(msg, ": "); ok {
				t.Log("child: " + msg)
			}
		}
	}
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestLeakChild")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestLeakChild runs the workload once to reach a steady state (SQLite's
// one-time allocations), then LEAK_ROUNDS times more (default 3), and
// requires SQLite's heap and the goroutine count to be back exactly where the
// steady state left them.
func TestLeakChild(t *testing.T) {
	if os.Getenv(leakChildEnv) == "" {
		t.Skip("helper process of TestLeak (runs only when re-executed with " + leakChildEnv + ")")
	}
	if err := enableMemStats(); err != nil {
		t.Fatal(err)
	}
	rounds := 3
	if v := os.Getenv("LEAK_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("LEAK_ROUNDS=%q", v)
		}
		rounds = n
	}
	dir := t.TempDir()
	g0 := runtime.NumGoroutine()
	if used := memoryUsed(); used != 0 {
		t.Fatalf("SQLite heap %d bytes before the first connection", used)
	}
	var w leakWork
	w.run(t, dir, 0)
	if t.Failed() {
		return
	}
	leakSettle(t, g0)
	base := memoryUsed()
	// The count is live: an open connection shows.
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if open := memoryUsed(); open <= base {
		t.Fatalf("SQLite heap %d bytes with a connection open, %d without: memory statistics are not on", open, base)
	}
	leakBoundValues(t, db)
	db.Close()
	w = leakWork{}
	t.Logf("steady state after one round: SQLite heap %d bytes, %d goroutines", base, g0)
	var peak int64
	for r := 1; r <= rounds; r++ {
		w.run(t, dir, r)
		if t.Failed() {
			return
		}
		leakSettle(t, g0)
		used := memoryUsed()
		peak = max(peak, used)
		if used != base {
			t.Errorf("round %d: SQLite heap %d bytes after everything was closed, steady state %d (%+d)", r, used, base, used-base)
		}
	}
	t.Logf("%d more rounds: %s; SQLite heap back to %d bytes each time, goroutines back to %d", rounds, w.summary(), base, g0)
}

// leakBoundValues checks that a statement waiting in the cache keeps no large
// bound values: SQLite holds its copy of each TEXT or BLOB argument until it
// is bound over or released (the bridge's bridge_unbind_large), also when
// the statement's plan depends on a bound value (LIMIT ?), whose bindings
// the bridge otherwise keeps, and through the direct API.
func leakBoundValues(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const q = "SELECT length(?) + length(?)"
	half := strings.Repeat("x", 40<<10) // two of them: above the bridge's limit, each copied by SQLite
	runs := map[string]func(a, b any) error{
		"exec": func(a, b any) error { _, err := conn.ExecContext(ctx, q, a, b); return err },
		"query read to the end": func(a, b any) error {
			rows, err := conn.QueryContext(ctx, q, a, b)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			return errors.Join(rows.Err(), rows.Close())
		},
		"query row": func(a, b any) error { var n int64; return conn.QueryRowContext(ctx, q, a, b).Scan(&n) },
		"query row, rows left, LIMIT ?": func(a, b any) error {
			var n int64
			return conn.QueryRowContext(ctx, q+" FROM (SELECT 1 UNION ALL SELECT 2) LIMIT ?", a, b, 2).Scan(&n)
		},
		"direct statement": func(a, b any) error {
			return conn.Raw(func(dc any) error {
				ds, err := dc.(*SQLiteConn).PrepareDirect(q + " FROM (SELECT 1 UNION ALL SELECT 2) LIMIT ?")
				if err != nil {
					return err
				}
				defer ds.Finalize()
				if err := errors.Join(ds.BindText(1, a.(string)), ds.BindText(2, b.(string)), ds.BindInt64(3, 2)); err != nil {
					return err
				}
				_, err = ds.Step()
				return err
			})
		},
	}
	for name, run := range runs {
		if err := run("a", "b"); err != nil { // the statement is prepared and cached
			t.Fatal(err)
		}
		before := memoryUsed()
		if err := run(half, half); err != nil {
			t.Fatal(err)
		}
		if grown := memoryUsed() - before; grown > 8<<10 {
			t.Errorf("%s: SQLite heap %+d bytes after a run with %d bytes of arguments: the idle statement keeps them", name, grown, 2*len(half))
		}
	}
}

// leakSettle waits for the goroutine count to come back to baseline.
func leakSettle(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, baseline %d:\n%s", runtime.NumGoroutine(), baseline, buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leakWork counts what the workload did.
type leakWork struct {
	opens, statements, abandoned, cancelled, errs int
}

func (w *leakWork) summary() string {
	return fmt.Sprintf("%d connections opened and closed, %d statements, %d rows/statements abandoned, %d cancellations, %d errors",
		w.opens, w.statements, w.abandoned, w.cancelled, w.errs)
}

// run is one round of the workload. Everything it opens, it closes (or
// abandons to a Close that must clean up after it).
func (w *leakWork) run(t *testing.T, dir string, round int) {
	path := filepath.Join(dir, fmt.Sprintf("leak%d.db", round))
	w.openClose(t, path)
	w.statementsOn(t, path+"?_journal_mode=WAL&_busy_timeout=5000")
	w.statementsOn(t, "file:leakmem?mode=memory&cache=shared")
	w.statementsOn(t, ":memory:?_stmt_cache_size=0")
	w.abandon(t, path)
	w.cancel(t, path)
	w.failures(t, path)
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
}

func (w *leakWork) mustExec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	w.statements++
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%.80s: %v", query, err)
	}
}

// openClose opens and closes many connections: sql.DBs, pooled
// connections, and driver connections directly.
func (w *leakWork) openClose(t *testing.T, path string) {
	for i := 0; i < 40; i++ {
		dsn := path
		switch i % 4 {
		case 1:
			dsn += "?_journal_mode=WAL&_fk=1&_cache_size=-2000&_pragma=temp_store(memory)"
		case 2:
			dsn = ":memory:"
		case 3:
			dsn = "file:" + path + "?mode=rwc&_txlock=immediate&_defensive=1"
		}
		db, err := sql.Open("sqlite3", dsn)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(3)
		w.mustExec(t, db, "CREATE TABLE IF NOT EXISTS t(x)")
		conns := make([]*sql.Conn, 3)
		for j := range conns {
			if conns[j], err = db.Conn(context.Background()); err != nil {
				t.Fatal(err)
			}
			w.opens++
		}
		for _, c := range conns {
			c.Close()
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		c, err := (&SQLiteDriver{}).Open(path)
		if err != nil {
			t.Fatal(err)
		}
		w.opens++
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Failed opens free what they allocated.
	for _, dsn := range []string{filepath.Join(path, "no", "such", "dir.db"), "file:" + path + "?mode=ro&vfs=nosuchvfs", path + "?_pragma=no_such_pragma(1);"} {
		db, err := sql.Open("sqlite3", dsn)
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			t.Fatalf("open %q succeeded", dsn)
		}
		w.errs++
	}
}

// statementsOn runs many statements of every kind on one pool.
func (w *leakWork) statementsOn(t *testing.T, dsn string) {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(2)
	w.mustExec(t, db, `DROP TABLE IF EXISTS v; CREATE TABLE v(id INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB, ts DATETIME, ok BOOLEAN)`)
	big := bytes.Repeat([]byte("0123456789abcdef"), 8<<10) // 128 KiB: bound from its own C buffer
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		var b any = []byte{byte(i)}
		if i%50 == 0 {
			b = big
		}
		w.mustExec(t, tx, "INSERT INTO v(i, f, s, b, ts, ok) VALUES(?, ?, ?, ?, ?, ?)",
			i, float64(i)/3, strings.Repeat("s", i), b, time.Unix(int64(i), 0), i%2 == 0)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// More distinct statements than the statement cache holds.
	for i := 0; i < 60; i++ {
		var n int
		w.statements++
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) + %d FROM v WHERE i >= ?", i), i).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	// Full scans with every type, and a large text result.
	for i := 0; i < 5; i++ {
		rows, err := db.Query("SELECT id, i, f, s, b, ts, ok, ? FROM v", strings.Repeat("x", 70000))
		if err != nil {
			t.Fatal(err)
		}
		w.statements++
		for rows.Next() {
			var id, i int64
			var f float64
			var s, x string
			var b []byte
			var ts time.Time
			var ok bool
			if err := rows.Scan(&id, &i, &f, &s, &b, &ts, &ok, &x); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	// Prepared statements, named parameters, scripts, schema changes.
	st, err := db.Prepare("SELECT s FROM v WHERE id = :id")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		var s string
		w.statements++
		if err := st.QueryRow(sql.Named("id", i)).Scan(&s); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	w.mustExec(t, db, "UPDATE v SET s = upper(s) WHERE id < 10; DELETE FROM v WHERE id > 150; INSERT INTO v(i) VALUES(?)", -1)
	w.mustExec(t, db, "ALTER TABLE v ADD COLUMN extra TEXT DEFAULT 'e'")
	var cols []string
	if rows, err := db.Query("SELECT * FROM v LIMIT 1"); err == nil {
		cols, _ = rows.Columns()
		rows.Close()
	}
	if len(cols) != 8 {
		t.Fatalf("SELECT * after ALTER TABLE: columns %v", cols)
	}
	w.mustExec(t, db, "CREATE VIRTUAL TABLE IF NOT EXISTS ft USING fts4(body); INSERT INTO ft SELECT s FROM v")
	w.mustExec(t, db, "DROP TABLE ft; DROP TABLE v")
	// A read-only transaction and a rolled-back one.
	rtx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rtx.Rollback()
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w.mustExec(t, tx, "CREATE TABLE gone(x)")
	tx.Rollback()
}

// abandon leaves rows and statements open and closes what they belong to.
func (w *leakWork) abandon(t *testing.T, path string) {
	// Driver level: rows and statements never closed; Conn.Close finalizes them.
	for i := 0; i < 20; i++ {
		dc, err := (&SQLiteDriver{}).Open(path)
		if err != nil {
			t.Fatal(err)
		}
		c := dc.(*SQLiteConn)
		rows, err := c.QueryContext(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT x, randomblob(100) FROM c", nil)
		if err != nil {
			t.Fatal(err)
		}
		dest := make([]driver.Value, 2)
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		st, err := c.Prepare("SELECT ?")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.(*SQLiteStmt).Query([]driver.Value{int64(1)}); err != nil {
			t.Fatal(err)
		}
		w.abandoned += 2
		w.statements += 2
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		// After Close, the abandoned objects fail cleanly and free nothing twice.
		if err := rows.Next(dest); err == nil || err == io.EOF {
			t.Fatalf("rows.Next after Conn.Close: %v", err)
		}
		rows.Close()
		st.Close()
	}
	// database/sql: rows left open until their context ends, which closes them.
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT x FROM c")
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		w.abandoned++
		cancel()
		_ = rows // abandoned: database/sql closes it when ctx ends
	}
	// database/sql: a transaction abandoned with its context cancelled.
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("CREATE TABLE IF NOT EXISTS ab(x); INSERT INTO ab VALUES(1)"); err != nil {
			t.Fatal(err)
		}
		w.abandoned++
		cancel()
	}
	deadline := time.Now().Add(5 * time.Second)
	for db.Stats().InUse > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := db.Stats().InUse; n > 0 {
		t.Fatalf("%d connections still in use after every context ended", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// cancel cancels queries at random points.
func (w *leakWork) cancel(t *testing.T, path string) {
	db, err := sql.Open("sqlite3", path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(2)
	const long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) SELECT sum(x) FROM c"
	for i := 0; i < 30; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%5)*time.Millisecond)
		var n int64
		err := db.QueryRowContext(ctx, long).Scan(&n)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("long query: %v", err)
		}
		w.cancelled++
	}
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x, hex(randomblob(64)) FROM c")
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; rows.Next() && n < 10*i; n++ {
		}
		cancel()
		for rows.Next() {
		}
		rows.Close()
		w.cancelled++
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.ExecContext(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	w.cancelled++
}

// failures hits error paths: each must free what it allocated.
func (w *leakWork) failures(t *testing.T, path string) {
	db, err := sql.Open("sqlite3", path+"?_fk=1&_defer_fk=1&_strict=1") // strict: argument mismatches fail too
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w.mustExec(t, db, "CREATE TABLE IF NOT EXISTS p(id INTEGER PRIMARY KEY); CREATE TABLE IF NOT EXISTS c(p REFERENCES p(id)); CREATE TABLE IF NOT EXISTS u(x UNIQUE)")
	big := strings.Repeat("b", 100000)
	bad := []struct {
		query string
		args  []any
	}{
		{"SELEC 1", nil},
		{"SELECT * FROM nosuchtable", nil},
		{"SELECT ?", []any{big, big}},                                         // too many arguments, one of them large
		{"SELECT ?, ?", []any{big}},                                           // too few
		{"SELECT :a", []any{sql.Named("b", big)}},                             // unknown name
		{"SELECT 1; SELEC 2", nil},                                            // second statement fails to prepare
		{"INSERT INTO u VALUES(?); INSERT INTO u VALUES(?)", []any{big, big}}, // constraint on the second, large values
		{"SELECT ?", []any{struct{}{}}},                                       // unsupported type
		{"SELECT 1\x00", nil},                                                 // NUL byte
		{"SELECT zeroblob(2000000000)", nil},                                  // too big
		{"SELECT abs(-9223372036854775808)", nil},                             // integer overflow at run time
	}
	for i := 0; i < 5; i++ {
		for _, b := range bad {
			w.statements++
			if _, err := db.Exec(b.query, b.args...); err == nil {
				t.Fatalf("%q succeeded", b.query)
			}
			rows, err := db.Query(b.query, b.args...)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			if err == nil {
				t.Fatalf("query %q succeeded", b.query)
			}
			w.errs += 2
		}
		db.Exec("DELETE FROM u")
		// A commit that fails (deferred foreign key) rolls back.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		w.mustExec(t, tx, "INSERT INTO c VALUES(42)")
		if err := tx.Commit(); err == nil {
			t.Fatal("commit with a dangling foreign key succeeded")
		}
		w.errs++
	}
}
