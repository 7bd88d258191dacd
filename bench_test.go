//go:build cgo

package sqlite3

// Benchmarks for the driver, written against database/sql only so that the
// same file runs unchanged against any driver registered as "sqlite3".
//
// BenchmarkSuite mirrors the SQL and data of github.com/mattn/go-sqlite3's
// BenchmarkSuite (v1.14.53) and keeps its sub-benchmark names, so results can
// be compared across drivers with benchstat. The other benchmarks stress
// what that suite does not: wide and long scans, bulk inserts, multi-statement
// scripts and context support.
//
// Benchmarks use b.Loop, which runs each benchmark function once per
// measurement, so expensive setup before the loop is neither repeated for
// every b.N probe nor timed. Helpers below are prefixed with "bench" to stay
// clear of the driver's own identifiers in this package.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchOpenMemory opens a private in-memory database that is closed when b
// finishes. Every connection to ":memory:" gets its own empty database, so
// the pool is pinned to one connection that is never recycled; otherwise a
// query could land on a connection that has never seen the fixtures.
// benchDSNParams, from FASTSQLITE_BENCH_DSN (e.g. "_stmt_cache_size=0" or
// "_mutex=full"), is appended to every benchmark DSN, so that the effect of
// a driver setting can be measured with benchstat on the same binary.
var benchDSNParams = os.Getenv("FASTSQLITE_BENCH_DSN")

func benchDSN(base string) string {
	if benchDSNParams == "" {
		return base
	}
	return base + "?" + benchDSNParams
}

func benchOpenMemory(b *testing.B) *sql.DB {
	b.Helper()
	db, err := sql.Open("sqlite3", benchDSN(":memory:"))
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	b.Cleanup(func() {
		if err := db.Close(); err != nil {
			b.Error(err)
		}
	})
	if err := db.Ping(); err != nil {
		b.Fatal(err)
	}
	return db
}

// benchExec runs statements in order and stops at the first error.
func benchExec(db *sql.DB, stmts ...string) error {
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return nil
}

// benchOnce builds a fixture the first time a sub-benchmark asks for it.
// Sub-benchmarks (and repeated -count runs) then share one copy, and a -bench
// filter that selects none of them skips the setup entirely. Setup reports an
// error instead of calling b.Fatal so that a failure is remembered and fails
// every benchmark that depends on it.
type benchOnce struct {
	once sync.Once
	err  error
}

func (o *benchOnce) do(b *testing.B, setup func() error) {
	b.Helper()
	o.once.Do(func() { o.err = setup() })
	if o.err != nil {
		b.Fatal("fixture setup: ", o.err)
	}
}

// benchScan reads every row of rows into dest and closes rows.
func benchScan(rows *sql.Rows, dest ...any) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, rows.Close()
}

// benchPerRow times op, which must scan exactly rowsPerOp rows, and adds
// ns/row and allocs/row: per-op figures say little when one op is a whole
// table scan. testing only reports allocations per op, so allocs/row comes
// from the runtime's malloc counter around the loop.
func benchPerRow(b *testing.B, rowsPerOp int, op func() (int, error)) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		n, err := op()
		if err != nil {
			b.Fatal(err)
		}
		if n != rowsPerOp {
			b.Fatalf("scanned %d rows, want %d", n, rowsPerOp)
		}
	}
	runtime.ReadMemStats(&after)
	rows := float64(b.N) * float64(rowsPerOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rows, "allocs/row")
}

// benchSuiteDB plays the role of the shared TestDB in mattn's suite.
type benchSuiteDB struct {
	*sql.DB
	bench benchOnce // table "bench", needed only by Rows and StmtRows
}

// Fixed shape of the BenchmarkStmt10Cols row and the step scripts.
const (
	benchStepStmts = 1000
	benchBlobHex   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
)

func BenchmarkSuite(b *testing.B) {
	db := &benchSuiteDB{DB: benchOpenMemory(b)}
	// Tiny tables are created eagerly; sub-benchmarks must leave them
	// reusable because -count reruns each sub-benchmark on this database.
	err := benchExec(db.DB,
		`CREATE TABLE bench10cols (i1 INTEGER, i2 INTEGER, i3 INTEGER,
			f1 REAL, f2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB, n TEXT)`,
		`INSERT INTO bench10cols VALUES (42, -7, 9007199254740993,
			3.25, -0.000125, 'alpha', 'The quick brown fox jumps over the lazy dog',
			'naïve café ✓', x'`+benchBlobHex+`', NULL)`,
		`CREATE TABLE bench_step (x INTEGER)`,
	)
	if err != nil {
		b.Fatal(err)
	}

	for _, bm := range []struct {
		name string
		fn   func(*testing.B, *benchSuiteDB)
	}{
		// Same names, SQL and data as mattn/go-sqlite3's suite.
		{"BenchmarkExec", benchSuiteExec},
		{"BenchmarkQuery", benchSuiteQuery},
		{"BenchmarkParams", benchSuiteParams},
		{"BenchmarkStmt", benchSuiteStmt},
		{"BenchmarkRows", benchSuiteRows},
		{"BenchmarkStmtRows", benchSuiteStmtRows},
		{"BenchmarkQueryParallel", benchSuiteQueryParallel},
		// Additions of this driver.
		{"BenchmarkStmt10Cols", benchSuiteStmt10Cols},
		{"BenchmarkExecStep", benchSuiteExecStep},
		{"BenchmarkQueryStep", benchSuiteQueryStep},
	} {
		b.Run(bm.name, func(b *testing.B) { bm.fn(b, db) })
	}
	// mattn's BenchmarkCustomFunctions is a top-level benchmark, so it keeps
	// that name and level here too, in func_bench_test.go.
}

// The suite benchmarks below declare their scan targets inside the loop, as
// mattn's do, so that allocs/op stay comparable with its published numbers.

func benchSuiteExec(b *testing.B, db *benchSuiteDB) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Exec("select 1"); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSuiteQuery(b *testing.B, db *benchSuiteDB) {
	b.ReportAllocs()
	for b.Loop() {
		var n sql.NullString
		var i int
		var f float64
		var s string
		if err := db.QueryRow("select null, 1, 1.1, 'foo'").Scan(&n, &i, &f, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSuiteParams(b *testing.B, db *benchSuiteDB) {
	b.ReportAllocs()
	for b.Loop() {
		var n sql.NullString
		var i int
		var f float64
		var s string
		if err := db.QueryRow("select ?, ?, ?, ?", nil, 1, 1.1, "foo").Scan(&n, &i, &f, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSuiteStmt(b *testing.B, db *benchSuiteDB) {
	st, err := db.Prepare("select ?, ?, ?, ?")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ReportAllocs()
	for b.Loop() {
		var n sql.NullString
		var i int
		var f float64
		var s string
		if err := st.QueryRow(nil, 1, 1.1, "foo").Scan(&n, &i, &f, &s); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFillBench creates mattn's "bench" table: 100 rows with a NULL, an
// integer, a double, a short text and a datetime bound from a time.Time.
func benchFillBench(db *sql.DB) error {
	if err := benchExec(db, "create table bench (n varchar(32), i integer, d double, s varchar(32), t datetime)"); err != nil {
		return err
	}
	st, err := db.Prepare("insert into bench values (?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range 100 {
		if _, err := st.Exec(nil, i, float64(i), fmt.Sprint(i), time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// benchScanBench scans the "bench" table the way mattn's suite does,
// including its datetime column into a time.Time.
func benchScanBench(rows *sql.Rows) error {
	var n sql.NullString
	var i int
	var f float64
	var s string
	var t time.Time
	got, err := benchScan(rows, &n, &i, &f, &s, &t)
	if err == nil && got != 100 {
		err = fmt.Errorf("scanned %d rows of bench, want 100", got)
	}
	return err
}

func benchSuiteRows(b *testing.B, db *benchSuiteDB) {
	db.bench.do(b, func() error { return benchFillBench(db.DB) })
	b.ReportAllocs()
	for b.Loop() {
		r, err := db.Query("select * from bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := benchScanBench(r); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSuiteStmtRows(b *testing.B, db *benchSuiteDB) {
	db.bench.do(b, func() error { return benchFillBench(db.DB) })
	st, err := db.Prepare("select * from bench")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ReportAllocs()
	for b.Loop() {
		r, err := st.Query()
		if err != nil {
			b.Fatal(err)
		}
		if err := benchScanBench(r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSuiteQueryParallel runs mattn's query from GOMAXPROCS goroutines.
// mattn gives every goroutine its own ":memory:" database; here all of them
// share one pool of GOMAXPROCS connections, which is what an application
// does and also exercises the driver's per-connection locking. Pooled
// connections must all open the same database, which rules out ":memory:".
// A temporary file is used rather than a shared-cache in-memory database
// because shared cache makes connections contend on one shared b-tree and
// its table locks (SQLite discourages it), and a "file:...&cache=shared" URI
// would also depend on the driver's DSN parsing; a plain file path does not.
func benchSuiteQueryParallel(b *testing.B, _ *benchSuiteDB) {
	db, err := sql.Open("sqlite3", benchDSN(filepath.Join(b.TempDir(), "parallel.db")))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	procs := runtime.GOMAXPROCS(0)
	db.SetMaxOpenConns(procs)
	db.SetMaxIdleConns(procs) // the default of 2 would churn connections

	// Open every connection now so the timed loop measures queries, not
	// sqlite3_open.
	ctx := context.Background()
	conns := make([]*sql.Conn, procs)
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range conns {
		c.Close()
	}

	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var i int64
		for pb.Next() {
			if err := db.QueryRow("SELECT 1, 2, 3, 4").Scan(&i, &i, &i, &i); err != nil {
				b.Error(err) // b.Fatal may not be called from these goroutines
				return
			}
		}
	})
}

// benchSuiteStmt10Cols reads one row of ten mixed columns through a prepared
// statement, so per-column conversion cost dominates over per-query cost.
func benchSuiteStmt10Cols(b *testing.B, db *benchSuiteDB) {
	st, err := db.Prepare("SELECT i1, i2, i3, f1, f2, t1, t2, t3, b, n FROM bench10cols")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()

	var (
		i1, i3     int64
		i2         int
		f1, f2     float64
		t1, t2, t3 string
		blob       []byte
		null       sql.NullString
	)
	scan := func() error {
		return st.QueryRow().Scan(&i1, &i2, &i3, &f1, &f2, &t1, &t2, &t3, &blob, &null)
	}
	// Check the values once, untimed, so a driver that converts a column
	// wrongly fails here instead of producing a misleading number.
	if err := scan(); err != nil {
		b.Fatal(err)
	}
	if i1 != 42 || i2 != -7 || i3 != 9007199254740993 || f1 != 3.25 || f2 != -0.000125 ||
		t1 != "alpha" || t2 != "The quick brown fox jumps over the lazy dog" || t3 != "naïve café ✓" ||
		fmt.Sprintf("%x", blob) != benchBlobHex || null.Valid {
		b.Fatalf("wrong row: %v %v %v %v %v %q %q %q %x %v",
			i1, i2, i3, f1, f2, t1, t2, t3, blob, null)
	}

	b.ReportAllocs()
	for b.Loop() {
		if err := scan(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStepScript returns a script of n statements: a DELETE that makes
// reruns idempotent, then small INSERTs, then tail if it is not empty.
func benchStepScript(n int, tail string) string {
	var sb strings.Builder
	sb.WriteString("DELETE FROM bench_step;\n")
	inserts := n - 1
	if tail != "" {
		inserts--
	}
	for i := range inserts {
		fmt.Fprintf(&sb, "INSERT INTO bench_step (x) VALUES (%d);\n", i)
	}
	sb.WriteString(tail)
	return sb.String()
}

// benchSuiteExecStep measures the per-statement overhead of a multi-statement
// Exec: prepare, step and finalize for each of 1,000 statements in one call.
func benchSuiteExecStep(b *testing.B, db *benchSuiteDB) {
	script := benchStepScript(benchStepStmts, "")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Exec(script); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchStepStmts), "ns/stmt")

	// Prove the whole script ran, not just its first statement.
	var n int
	if err := db.QueryRow("SELECT count(*) FROM bench_step").Scan(&n); err != nil {
		b.Fatal(err)
	}
	if n != benchStepStmts-1 {
		b.Fatalf("script inserted %d rows, want %d", n, benchStepStmts-1)
	}
}

// benchSuiteQueryStep is ExecStep through Query: the leading 999 statements
// must run, and the rows of the last one are returned.
func benchSuiteQueryStep(b *testing.B, db *benchSuiteDB) {
	script := benchStepScript(benchStepStmts, "SELECT count(*), sum(x) FROM bench_step;")
	const inserted = benchStepStmts - 2
	b.ReportAllocs()
	for b.Loop() {
		rows, err := db.Query(script)
		if err != nil {
			b.Fatal(err)
		}
		var n, sum int64
		got, err := benchScan(rows, &n, &sum)
		if err != nil {
			b.Fatal(err)
		}
		if got != 1 || n != inserted || sum != inserted*(inserted-1)/2 {
			b.Fatalf("got %d rows, count %d, sum %d; want 1 row, count %d, sum %d",
				got, n, sum, inserted, inserted*(inserted-1)/2)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchStepStmts), "ns/stmt")
}

const (
	benchWideRows  = 20000
	benchWideCols  = 30
	benchWideWidth = 64
)

// benchFillWide builds the WideScan table with one recursive-CTE INSERT,
// which is much faster than binding 600,000 values from Go. Each value is the
// column number and row number, zero-padded to 64 characters.
func benchFillWide(db *sql.DB) error {
	defs := make([]string, benchWideCols)
	exprs := make([]string, benchWideCols)
	for i := range defs {
		defs[i] = fmt.Sprintf("c%02d TEXT", i)
		exprs[i] = fmt.Sprintf("printf('%02d%%0%dd', x)", i, benchWideWidth-2)
	}
	err := benchExec(db,
		"CREATE TABLE wide ("+strings.Join(defs, ", ")+")",
		fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
			INSERT INTO wide SELECT %s FROM r`, benchWideRows, strings.Join(exprs, ", ")),
	)
	if err != nil {
		return err
	}
	var n, minLen, maxLen int
	err = db.QueryRow(fmt.Sprintf("SELECT count(*), min(length(c00)), max(length(c%02d)) FROM wide",
		benchWideCols-1)).Scan(&n, &minLen, &maxLen)
	if err != nil {
		return err
	}
	if n != benchWideRows || minLen != benchWideWidth || maxLen != benchWideWidth {
		return fmt.Errorf("wide table has %d rows of %d..%d chars", n, minLen, maxLen)
	}
	return nil
}

// BenchmarkWideScan reads 20,000 rows of 30 64-character TEXT columns,
// where the cost of moving text out of SQLite dominates. RawBytes shows the
// driver's own cost; String adds database/sql's copy into Go strings.
func BenchmarkWideScan(b *testing.B) {
	db := benchOpenMemory(b)
	var table benchOnce
	query := "SELECT * FROM wide"

	b.Run("String", func(b *testing.B) {
		table.do(b, func() error { return benchFillWide(db) })
		vals := make([]string, benchWideCols)
		dest := make([]any, benchWideCols)
		for i := range vals {
			dest[i] = &vals[i]
		}
		benchPerRow(b, benchWideRows, func() (int, error) {
			rows, err := db.Query(query)
			if err != nil {
				return 0, err
			}
			return benchScan(rows, dest...)
		})
	})

	b.Run("RawBytes", func(b *testing.B) {
		table.do(b, func() error { return benchFillWide(db) })
		vals := make([]sql.RawBytes, benchWideCols)
		dest := make([]any, benchWideCols)
		for i := range vals {
			dest[i] = &vals[i]
		}
		benchPerRow(b, benchWideRows, func() (int, error) {
			rows, err := db.Query(query)
			if err != nil {
				return 0, err
			}
			return benchScan(rows, dest...)
		})
	})
}

const benchIntRows = 1000000

// BenchmarkIntScan reads 1,000,000 rows of (INTEGER, INTEGER, REAL), where
// per-row and per-column overhead dominates since no value needs copying.
func BenchmarkIntScan(b *testing.B) {
	db := benchOpenMemory(b)
	err := benchExec(db,
		"CREATE TABLE ints (a INTEGER, b INTEGER, c REAL)",
		fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
			INSERT INTO ints SELECT x, x*3 - 1000, x*0.25 FROM r`, benchIntRows),
	)
	if err != nil {
		b.Fatal(err)
	}

	var x, y int64
	var z float64
	benchPerRow(b, benchIntRows, func() (int, error) {
		rows, err := db.Query("SELECT a, b, c FROM ints")
		if err != nil {
			return 0, err
		}
		return benchScan(rows, &x, &y, &z)
	})
}

const benchBatchRows = 100000

// BenchmarkBatchInsert inserts 100,000 rows per op in one transaction through
// one prepared statement: the bind/step/reset path with no commit cost per row.
func BenchmarkBatchInsert(b *testing.B) {
	db := benchOpenMemory(b)
	if err := benchExec(db, "CREATE TABLE batch (id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT)"); err != nil {
		b.Fatal(err)
	}

	insert := func() error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback() // no-op after Commit
		st, err := tx.Prepare("INSERT INTO batch (id, n, f, s) VALUES (?, ?, ?, ?)")
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range benchBatchRows {
			if _, err := st.Exec(i, i*7, float64(i)*0.5, "batch insert payload"); err != nil {
				return err
			}
		}
		return tx.Commit()
	}

	b.ReportAllocs()
	for b.Loop() {
		// Emptying the table is setup, not the operation being measured.
		b.StopTimer()
		if err := benchExec(db, "DELETE FROM batch"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := insert(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatchRows), "ns/row")

	var n int
	if err := db.QueryRow("SELECT count(*) FROM batch").Scan(&n); err != nil {
		b.Fatal(err)
	}
	if n != benchBatchRows {
		b.Fatalf("batch has %d rows, want %d", n, benchBatchRows)
	}
}

// BenchmarkContext runs a CPU-bound query that spends its time inside
// SQLite, with a context that can never be cancelled and with one that
// could be. The difference is what the driver's cancellation support
// (interrupt watcher, progress handler, ...) costs a long-running query.
func BenchmarkContext(b *testing.B) {
	const (
		query = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000)
			SELECT count(*) FROM c`
		want = 100000
	)
	db := benchOpenMemory(b)
	st, err := db.Prepare(query)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()

	run := func(b *testing.B, ctx context.Context) {
		b.ReportAllocs()
		for b.Loop() {
			var n int
			if err := st.QueryRowContext(ctx).Scan(&n); err != nil {
				b.Fatal(err)
			}
			if n != want {
				b.Fatalf("count(*) = %d, want %d", n, want)
			}
		}
	}
	b.Run("Background", func(b *testing.B) { run(b, context.Background()) })
	b.Run("Cancellable", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		run(b, ctx)
	})
}

// BenchmarkCancelLatency starts a query that would run for seconds, cancels
// its context 2 ms later and waits for the query to return: the latency
// metric is the median time from cancel() to the error, B/op and allocs/op
// what a cancelled query costs (bench/ runs the same workload on every driver).
func BenchmarkCancelLatency(b *testing.B) {
	const query = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000000)
		SELECT count(*) FROM c`
	db := benchOpenMemory(b)
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			var n int64
			done <- db.QueryRowContext(ctx, query).Scan(&n)
		}()
		time.Sleep(2 * time.Millisecond)
		start := time.Now()
		cancel()
		err := <-done
		lat = append(lat, time.Since(start))
		if err == nil {
			b.Fatal("the query finished before it was cancelled")
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "latency-ns")
}
