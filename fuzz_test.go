//go:build cgo

package sqlite3

// Fuzz targets. As plain tests (go test) they run their seed corpora from
// testdata/fuzz/<name>/ and the f.Add seeds; to fuzz:
//
//	go test -run '^$' -fuzz '^FuzzDSN$' -fuzztime 60s .
//	go test -run '^$' -fuzz '^FuzzBindRoundTrip$' -fuzztime 60s .
//	go test -run '^$' -fuzz '^FuzzSQL$' -fuzztime 60s .

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzDSN: parseDSN never panics; an error is the driver's own ("sqlite3: ...")
// and a parsed configuration is sane: every PRAGMA it will run is a single
// PRAGMA statement, and parsing is deterministic.
func FuzzDSN(f *testing.F) {
	for _, s := range []string{
		"", ":memory:", "file:test.db?cache=shared&mode=memory", "test.db?_journal_mode=WAL&_busy_timeout=5000&_fk=1",
		"file:x.db?_pragma=trusted_schema(0)&_pragma=cache_size=-2000&_defensive=1",
		"a.db?mode=ro&cache=private&_loc=auto&_txlock=immediate&_stmt_cache_size=0",
		"a.db?_sync=3&_vacuum=incremental&_secure_delete=fast&_locking=exclusive&_cache_size=-100",
		"a.db?%zz", "a.db?_pragma=x;DROP TABLE t", "a.db?_loc=Nowhere/City", "a.db?_busy_timeout=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		cfg, err := parseDSN(dsn)
		if err != nil {
			if cfg != nil {
				t.Errorf("parseDSN(%q) returned a config and an error", dsn)
			}
			if !strings.HasPrefix(err.Error(), "sqlite3: ") {
				t.Errorf("parseDSN(%q): error %q is not the driver's", dsn, err)
			}
			return
		}
		if !strings.HasPrefix(dsn, cfg.filename) {
			t.Errorf("parseDSN(%q): filename %q is not a prefix of the DSN", dsn, cfg.filename)
		}
		for _, p := range cfg.pragmas {
			if !strings.HasPrefix(p, "PRAGMA ") || strings.ContainsAny(p, ";\x00") {
				t.Errorf("parseDSN(%q): %q is not a single PRAGMA", dsn, p)
			}
		}
		switch cfg.txlock {
		case "BEGIN", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE":
		default:
			t.Errorf("parseDSN(%q): txlock %q", dsn, cfg.txlock)
		}
		if cfg.busyTimeout < 0 || cfg.stmtCacheSize < 0 {
			t.Errorf("parseDSN(%q): busy timeout %d, statement cache %d", dsn, cfg.busyTimeout, cfg.stmtCacheSize)
		}
		if cfg.flags&(openReadOnly|openReadWrite) == 0 {
			t.Errorf("parseDSN(%q): flags %#x open neither read-only nor read-write", dsn, cfg.flags)
		}
		again, err := parseDSN(dsn)
		if err != nil || !reflect.DeepEqual(cfg, again) {
			t.Errorf("parseDSN(%q) is not deterministic: %+v, then %+v, %v", dsn, cfg, again, err)
		}
	})
}

// FuzzBindRoundTrip: values bound through database/sql come back exactly, as
// SQLite stores them: NaN is stored as NULL, -0.0 keeps its sign in a column
// without affinity but becomes 0 in a REAL column (SQLite stores an integral
// REAL as an integer there), ±Inf survive, TEXT and BLOB bytes are kept as
// given (NUL bytes and invalid UTF-8 included), a non-nil empty []byte is an
// empty BLOB and a nil one NULL, bool is INTEGER 1/0 (bool again in a BOOLEAN
// column).
func FuzzBindRoundTrip(f *testing.F) {
	f.Add(int64(0), 0.0, "", []byte{}, false)
	f.Add(int64(math.MinInt64), math.Copysign(0, -1), "a\x00b", []byte{0, 1, 2}, true)
	f.Add(int64(math.MaxInt64), math.Inf(-1), "\xff\xfe invalid UTF-8", []byte(nil), true)
	f.Add(int64(-1), math.NaN(), "héllo, 世界", []byte("\xc3\x28"), false)
	f.Add(int64(1<<53+1), math.SmallestNonzeroFloat64, strings.Repeat("x", 70000), bytes.Repeat([]byte{0xff}, 70000), true)
	db := openTestDB(f, ":memory:")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE r(i, f, s, b, bo, fr REAL, bb BOOLEAN)"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, i int64, fl float64, s string, b []byte, bo bool) {
		if _, err := db.Exec("DELETE FROM r"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO r VALUES(?, ?, ?, ?, ?, ?, ?)", i, fl, s, b, bo, fl, bo); err != nil {
			t.Fatalf("insert: %v", err)
		}
		check := func(how string, gi, gf, gs, gb, gbo, gfr, gbb any) {
			if gi != any(i) {
				t.Errorf("%s: int64 %d read back as %T(%v)", how, i, gi, gi)
			}
			fuzzCheckFloat(t, how+" (no affinity)", fl, gf, false)
			if gfr != nil || how == "table" { // SELECT ? has no REAL affinity
				fuzzCheckFloat(t, how+" (REAL column)", fl, gfr, true)
			}
			if gs != any(s) {
				t.Errorf("%s: string %q read back as %T(%q)", how, s, gs, gs)
			}
			switch {
			case b == nil && gb != nil:
				t.Errorf("%s: nil []byte read back as %T(%v), want nil (NULL)", how, gb, gb)
			case b != nil:
				got, ok := gb.([]byte)
				if !ok || got == nil || !bytes.Equal(got, b) {
					t.Errorf("%s: []byte %q read back as %T(%q)", how, b, gb, gb)
				}
			}
			want := int64(0)
			if bo {
				want = 1
			}
			if gbo != any(want) {
				t.Errorf("%s: bool %v read back as %T(%v), want int64(%d)", how, bo, gbo, gbo, want)
			}
			if how == "table" && gbb != any(bo) {
				t.Errorf("%s: bool %v in a BOOLEAN column read back as %T(%v)", how, bo, gbb, gbb)
			}
		}
		var gi, gf, gs, gb, gbo, gfr, gbb any
		if err := db.QueryRow("SELECT i, f, s, b, bo, fr, bb FROM r").Scan(&gi, &gf, &gs, &gb, &gbo, &gfr, &gbb); err != nil {
			t.Fatalf("select: %v", err)
		}
		check("table", gi, gf, gs, gb, gbo, gfr, gbb)
		if err := db.QueryRow("SELECT ?, ?, ?, ?, ?", i, fl, s, b, bo).Scan(&gi, &gf, &gs, &gb, &gbo); err != nil {
			t.Fatalf("SELECT ?: %v", err)
		}
		check("SELECT ?", gi, gf, gs, gb, gbo, nil, nil)

		// Typed destinations.
		var ti int64
		var tf sql.NullFloat64
		var ts string
		var tb []byte
		var tbo bool
		if err := db.QueryRow("SELECT i, f, s, b, bo FROM r").Scan(&ti, &tf, &ts, &tb, &tbo); err != nil {
			t.Fatalf("typed scan: %v", err)
		}
		if ti != i || ts != s || tbo != bo || !bytes.Equal(tb, b) || (b == nil) != (tb == nil) {
			t.Errorf("typed scan: %d %q %q %v, want %d %q %q %v", ti, ts, tb, tbo, i, s, b, bo)
		}
		if tf.Valid == math.IsNaN(fl) || (tf.Valid && math.Float64bits(tf.Float64) != math.Float64bits(fl)) {
			t.Errorf("typed scan: float %v read back as %+v", fl, tf)
		}
	})
}

// fuzzCheckFloat checks how SQLite gave back the float64 want.
func fuzzCheckFloat(t *testing.T, how string, want float64, got any, realAffinity bool) {
	t.Helper()
	if math.IsNaN(want) {
		if got != nil {
			t.Errorf("%s: NaN read back as %T(%v), want nil (SQLite stores NaN as NULL)", how, got, got)
		}
		return
	}
	g, ok := got.(float64)
	if !ok {
		t.Errorf("%s: float64 %v read back as %T(%v)", how, want, got, got)
		return
	}
	if realAffinity && want == 0 {
		if g != 0 || math.Signbit(g) {
			t.Errorf("%s: %v read back as %v, want +0 (an integral REAL is stored as an integer)", how, want, g)
		}
		return
	}
	if math.Float64bits(g) != math.Float64bits(want) {
		t.Errorf("%s: float64 %v (%#x) read back as %v (%#x)", how, want, math.Float64bits(want), g, math.Float64bits(g))
	}
}

// fuzzSQLSchema is the database every FuzzSQL input starts from.
const fuzzSQLSchema = `CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e DATETIME, f BOOLEAN);
	INSERT INTO t VALUES(1, 'one', 1.5, x'00ff', '2024-01-02 03:04:05', 1), (2, NULL, -0.0, x'', 0, 0), (3, 'th''ree', 1e308, NULL, 'not a date', NULL);
	CREATE INDEX t_b ON t(b);
	CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1;
	CREATE TABLE u(x UNIQUE, y REFERENCES t(a));
	CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t SET c = c + 1 WHERE a = new.y; END`

// FuzzSQL: arbitrary SQL text through Exec, Query and a prepared statement
// (bound with the fuzzed values) on a fresh in-memory database, each call with
// a short deadline. Nothing may panic or hang; every error must be an
// sqlite3.Error, a context error, or the driver's own ("sqlite3: ..."); the
// connection must stay usable and close cleanly.
//
// The database lives in the memdb VFS, which ATTACH and VACUUM INTO inherit,
// and each input runs in a temporary working directory (t.Chdir: not f.Chdir,
// or the fuzzer would write failing inputs there), so fuzzed SQL does not
// write files where it runs. In a fresh process (a fuzzing worker) SQLite's heap is
// capped at 64 MiB, so that randomblob(1e9) fails with SQLITE_NOMEM (a single
// SQL function call, such as printf or randomblob building a huge value, is not
// interruptible, and copying such values to Go takes time too).
func FuzzSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "SELECT * FROM t", "SELECT ?1, :a, @b, $c", "INSERT INTO u VALUES(1, 2); SELECT * FROM t",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
		"BEGIN; INSERT INTO t(b) VALUES('x'); SELECT changes()", "SELEC 1", "SELECT zeroblob(2000000000)",
		"ATTACH 'other.db' AS o; CREATE TABLE o.z(x); VACUUM INTO 'copy.db'", "PRAGMA integrity_check",
	} {
		f.Add(s, int64(7), "text")
	}
	if enableMemStats() == nil {
		capDB, err := sql.Open("sqlite3", ":memory:")
		if err == nil {
			_, err = capDB.Exec("PRAGMA hard_heap_limit = 67108864")
			capDB.Close()
		}
		if err != nil {
			f.Fatal(err)
		}
	}
	connector, err := NewConnector("file:fuzz?vfs=memdb&_fk=1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string, i int64, s string) {
		if strings.Contains(strings.ToLower(query), "heap_limit") {
			t.Skip("process-wide heap limits would outlive this input")
		}
		t.Chdir(t.TempDir())
		start := time.Now()
		var phases []string // how long each call took
		phase := func(name string, from time.Time) {
			phases = append(phases, fmt.Sprintf("%s %v", name, time.Since(from).Round(time.Millisecond)))
		}
		watchdog := time.AfterFunc(20*time.Second, func() {
			panic("FuzzSQL: input still running after 20 s: " + query)
		})
		defer watchdog.Stop()
		db := sql.OpenDB(connector)
		defer db.Close()
		db.SetMaxOpenConns(1)
		bg := context.Background()
		conn, err := db.Conn(bg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(bg, fuzzSQLSchema); err != nil {
			t.Fatal(err)
		}

		phase("setup", start)

		at := time.Now()
		ctx, cancel := context.WithTimeout(bg, 100*time.Millisecond)
		_, err = conn.ExecContext(ctx, query)
		cancel()
		fuzzCheckErr(t, "Exec", err)
		phase("Exec", at)

		at = time.Now()
		ctx, cancel = context.WithTimeout(bg, 100*time.Millisecond)
		rows, err := conn.QueryContext(ctx, query)
		fuzzCheckErr(t, "Query", err)
		if err == nil {
			fuzzDrain(t, ctx, rows)
		}
		cancel()
		phase("Query", at)

		// Driver level: a prepared statement bound with the fuzzed values.
		at = time.Now()
		ctx, cancel = context.WithTimeout(bg, 100*time.Millisecond)
		err = conn.Raw(func(dc any) error {
			st, err := dc.(*SQLiteConn).PrepareContext(ctx, query)
			if err != nil {
				return err
			}
			defer st.Close()
			args := make([]driver.NamedValue, st.NumInput())
			for k := range args {
				args[k] = driver.NamedValue{Ordinal: k + 1, Value: any(i)}
				if k%2 == 1 {
					args[k].Value = s
				}
			}
			r, err := st.(*SQLiteStmt).QueryContext(ctx, args)
			if err != nil {
				return err
			}
			defer r.Close()
			dest := make([]driver.Value, len(r.Columns()))
			for n := 0; n < 1000; n++ {
				if err := r.Next(dest); err != nil {
					if err == io.EOF {
						return nil
					}
					return err
				}
			}
			return nil
		})
		cancel()
		fuzzCheckErr(t, "Prepare+Query", err)
		phase("Prepare+Query", at)

		var one int
		if err := conn.QueryRowContext(bg, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("connection unusable after the input: %d, %v", one, err)
		}
		conn.Close()
		if err := db.Close(); err != nil {
			t.Fatalf("db.Close: %v", err)
		}
		// Three calls of 100 ms each, and some set-up: seconds only on a
		// very loaded machine.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("input took %v (%s): a statement did not stop at its 100 ms deadline", d, strings.Join(phases, ", "))
		}
	})
}

// fuzzDrain reads up to 1000 rows.
func fuzzDrain(t *testing.T, ctx context.Context, rows *sql.Rows) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		fuzzCheckErr(t, "Columns", err)
		return
	}
	dest := make([]any, len(cols))
	for k := range dest {
		dest[k] = new(any)
	}
	for n := 0; n < 1000 && rows.Next(); n++ {
		if err := rows.Scan(dest...); err != nil {
			if ctx.Err() == nil { // database/sql closes the rows when ctx ends
				t.Errorf("Scan: %v", err)
			}
			return
		}
	}
	fuzzCheckErr(t, "Rows", rows.Err())
}

// fuzzCheckErr accepts nil, an sqlite3.Error, a context error, or an error of
// the driver's own.
func fuzzCheckErr(t *testing.T, what string, err error) {
	t.Helper()
	var e Error
	switch {
	case err == nil:
	case errors.As(err, &e):
		if e.Code == 0 {
			t.Errorf("%s: Error with code 0: %v", what, err)
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case strings.HasPrefix(err.Error(), "sqlite3: "):
	default:
		t.Errorf("%s: unexpected error %T: %v", what, err, err)
	}
}
