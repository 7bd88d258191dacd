// Package workload holds the benchmark workloads that bench/cmd/<driver> runs
// on one database/sql driver each, printing Go benchmark lines that benchstat
// and bench/cmd/compare read.
//
// Each workload is timed with testing.Benchmark, outside "go test". The SQL
// and data are those of the driver's own bench_test.go (BenchmarkSuite and the
// scans after it), so numbers here and there describe the same work. A
// workload's fixtures are built the first time it asks for them and then kept
// for the life of the process; building them is never timed.
package workload

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Driver describes the driver that one process benchmarks.
type Driver struct {
	// Label names the driver in the output ("ours", "mattn", ...).
	Label string
	// SQLName is the name the driver is registered under in database/sql.
	SQLName string
	// RegisterAdd registers the SQL function custom_add(a, b) = a + b
	// (integers, not deterministic) on a driver connection, as handed out by
	// sql.Conn.Raw. Nil means: call RegisterFunc("custom_add", f, false) if
	// the connection has mattn's RegisterFunc method, else skip the
	// CustomFunctions workload.
	RegisterAdd func(driverConn any) error
	// Skip names workloads the driver cannot run, with the reason.
	Skip map[string]string
	// Direct, when set, makes the program run the driver's direct API
	// instead of database/sql: the workloads it names (of DirectWorkloads)
	// with their functions, the others skipped.
	Direct map[string]DirectFunc
	// Own, when set, makes the program run a direct API that has no
	// database/sql driver (SQLName is not used): the workloads it names, each
	// on a connection of its own with the workload's fixture (DirectFixture),
	// the others skipped.
	Own *Own
	// SyncParam, when set, is the DSN parameter that sets PRAGMA synchronous
	// on every connection (mattn's _sync): the concurrent workloads then
	// pass ConcurrentOptions.Synchronous in the DSN rather than as a PRAGMA
	// run after open, which a grouping driver (issue 30) takes as the
	// connection's own setting.
	SyncParam string
	// WALDSN, when set, returns the DSN of the file at path in the driver's
	// own syntax with WAL journaling, a busy timeout of BusyTimeout and
	// BEGIN IMMEDIATE transactions (database/sql's Begin), everything else
	// at the driver's defaults: the database of the concurrent workloads
	// (-concurrent).
	WALDSN func(path string) string
}

// Workload is one benchmark. Names are stable: they are the benchmark names
// (after "Benchmark") that results files and tables are keyed by.
type Workload struct {
	Name string
	run  func(b *testing.B, e *env) error
}

// All lists every workload in the order they run.
var All = []Workload{
	// mattn/go-sqlite3's BenchmarkSuite and the driver's additions to it.
	{"Exec", onSuite(suiteExec)},
	{"Query", onSuite(suiteQuery)},
	{"Params", onSuite(suiteParams)},
	{"Stmt", onSuite(suiteStmt)},
	{"Rows", onSuite(suiteRows)},
	{"StmtRows", onSuite(suiteStmtRows)},
	{"Stmt10Cols", onSuite(suiteStmt10Cols)},
	{"ExecStep", onSuite(suiteExecStep)},
	{"QueryStep", onSuite(suiteQueryStep)},
	{"QueryParallel", suiteQueryParallel},
	{"CustomFunctions", customFunctions},
	// Scans, bulk insert, point lookups and context support.
	{"WideScan/String", func(b *testing.B, e *env) error {
		return wideScan(b, e, func(vals []string) []any { return ptrs(vals) })
	}},
	{"WideScan/RawBytes", func(b *testing.B, e *env) error {
		return wideScan(b, e, func(vals []sql.RawBytes) []any { return ptrs(vals) })
	}},
	{"IntScan", intScan},
	{"BatchInsert", batchInsert},
	{"BatchInsert/Bulk", directOnly},
	{"PointLookup/1", func(b *testing.B, e *env) error { return pointLookup(b, e, 1) }},
	{"PointLookup/8", func(b *testing.B, e *env) error { return pointLookup(b, e, pointWorkers) }},
	{"PreparedQueryRow", onSuite(suitePreparedQueryRow)},
	{"Context/Background", func(b *testing.B, e *env) error {
		return contextQuery(b, e, context.Background())
	}},
	{"Context/Cancellable", func(b *testing.B, e *env) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return contextQuery(b, e, ctx)
	}},
	{"CancelLatency", cancelLatency},
	// Application-shaped workloads (shapes.go).
	{"ReadOnlyTx/1", func(b *testing.B, e *env) error { return readOnlyTx(b, e, 1) }},
	{"ReadOnlyTx/10", func(b *testing.B, e *env) error { return readOnlyTx(b, e, readOnlyReads) }},
	{"PointLookup/Stmt", pointStmt},
	{"Populate", populate},
	{"Blog/writes=10/tx=no", func(b *testing.B, e *env) error { return blog(b, e, 10, false) }},
	{"Blog/writes=10/tx=yes", func(b *testing.B, e *env) error { return blog(b, e, 10, true) }},
	{"Blog/writes=90/tx=no", func(b *testing.B, e *env) error { return blog(b, e, 90, false) }},
	{"Blog/writes=90/tx=yes", func(b *testing.B, e *env) error { return blog(b, e, 90, true) }},
	{"Analytic/JSON", func(b *testing.B, e *env) error { return analytic(b, e, analyticJSON) }},
	{"Analytic/Window", func(b *testing.B, e *env) error { return analytic(b, e, analyticWindow) }},
	{"Analytic/GroupBy", func(b *testing.B, e *env) error { return analytic(b, e, analyticGroupBy) }},
}

// Names returns the names of the workloads that match re (all when re is nil).
func Names(re *regexp.Regexp) []string {
	var names []string
	for _, w := range All {
		if re == nil || re.MatchString(w.Name) {
			names = append(names, w.Name)
		}
	}
	return names
}

// SkipError marks a workload that a driver cannot run; it is reported, not
// counted as a failure.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

func skip(format string, args ...any) error {
	return &SkipError{Reason: fmt.Sprintf(format, args...)}
}

// Result is the outcome of one workload.
type Result struct {
	Name   string
	Bench  testing.BenchmarkResult
	Skip   string // reason, when skipped
	Err    error  // when failed
	Header string // the benchmark line, when it ran
}

// Run runs the named workloads (all when names is empty) once each and calls
// report after each. The benchmark time is testing's -test.benchtime flag,
// which the caller sets (see Main).
func Run(d Driver, names []string, report func(Result)) error {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for n := range want {
		if !known(n) {
			return fmt.Errorf("unknown workload %q (have %s)", n, strings.Join(Names(nil), ", "))
		}
	}
	e := newEnv(d)
	defer e.close()
	for _, w := range All {
		if len(want) > 0 && !want[w.Name] {
			continue
		}
		if why, ok := d.Skip[w.Name]; ok {
			report(Result{Name: w.Name, Skip: why})
			continue
		}
		if d.Direct == nil && d.Own == nil && DirectOnly[w.Name] {
			report(Result{Name: w.Name, Skip: "a direct-API workload; database/sql has no bulk path"})
			continue
		}
		if d.Own != nil {
			if f, ok := d.Own.Workloads[w.Name]; ok {
				report(runOwn(e, w.Name, f))
			} else {
				report(Result{Name: w.Name, Skip: "not a direct-API workload; this program runs a direct API"})
			}
			continue
		}
		if d.Direct != nil {
			if f, ok := d.Direct[w.Name]; ok {
				report(runDirect(e, w.Name, f))
			} else {
				report(Result{Name: w.Name, Skip: "a database/sql workload; this program runs the direct API"})
			}
			continue
		}
		report(runOne(e, w))
	}
	return nil
}

func known(name string) bool {
	for _, w := range All {
		if w.Name == name {
			return true
		}
	}
	return false
}

func runOne(e *env, w Workload) Result {
	var err error
	r := testing.Benchmark(func(b *testing.B) {
		if err != nil {
			b.FailNow()
		}
		if err = w.run(b, e); err != nil {
			b.FailNow()
		}
	})
	res := Result{Name: w.Name, Bench: r}
	var s *SkipError
	switch {
	case errors.As(err, &s):
		res.Skip = s.Reason
	case err != nil:
		res.Err = err
	case r.N == 0:
		res.Err = errors.New("benchmark did not run")
	default:
		res.Header = Line(w.Name, r)
	}
	return res
}

// Line formats r as a Go benchmark result line.
func Line(name string, r testing.BenchmarkResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Benchmark%s-%d\t%8d\t%s ns/op", name, runtime.GOMAXPROCS(0), r.N, fmtFloat(nsPerOp(r)))
	var extra []string
	for unit := range r.Extra {
		if unit != "ns/op" {
			extra = append(extra, unit)
		}
	}
	sort.Strings(extra)
	for _, unit := range extra {
		fmt.Fprintf(&sb, "\t%s %s", fmtFloat(r.Extra[unit]), unit)
	}
	fmt.Fprintf(&sb, "\t%d B/op\t%d allocs/op", r.AllocedBytesPerOp(), r.AllocsPerOp())
	return sb.String()
}

// nsPerOp is r's ns/op with full precision (BenchmarkResult.NsPerOp
// truncates to an integer, too coarse for the fastest workloads).
func nsPerOp(r testing.BenchmarkResult) float64 {
	if v, ok := r.Extra["ns/op"]; ok {
		return v
	}
	if r.N <= 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

func fmtFloat(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// Main is the whole program of bench/cmd/<driver>: it parses the flags,
// runs the workloads on d and prints benchmark lines to stdout, skips and
// failures as "#" comment lines (which benchstat ignores). It exits non-zero
// if a workload failed.
func Main(d Driver) {
	testing.Init()
	benchtime := flag.String("benchtime", "1s", "run each workload for this long, or Nx times (as go test -benchtime)")
	only := flag.String("only", "", "run only the workloads whose name matches this regular expression")
	namesFlag := flag.String("names", "", "comma-separated workload names to run (overrides -only)")
	list := flag.Bool("list", false, "list the workload names and exit")
	concurrent := flag.Bool("concurrent", false, "run the concurrent workloads (writers, WAL growth) instead of the benchmarks")
	refs := flag.Bool("refs", false, "with -concurrent: also run the reference rows (serial writer, single-writer pool, WAL with one reader)")
	txScale := flag.Float64("txscale", 1, "with -concurrent: multiply the transactions per writer (a smoke run uses a fraction)")
	walFor := flag.Duration("walfor", 10*time.Second, "with -concurrent: how long WALGrowth writes and reads")
	walRate := flag.Float64("walrate", 2000, "with -concurrent: WALGrowth's rows per second (0: as fast as the writer can)")
	synchronous := flag.String("synchronous", "", "with -concurrent: PRAGMA synchronous on every connection (default: the driver's)")
	flag.Parse()
	if *concurrent {
		concurrentMain(d, *only, *list, *refs, ConcurrentOptions{
			TxScale: *txScale, WALFor: *walFor, WALRate: *walRate, Synchronous: *synchronous,
		})
		return
	}
	if *list {
		fmt.Println(strings.Join(Names(nil), "\n"))
		return
	}
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fatalf("-benchtime: %v", err)
	}
	var names []string
	switch {
	case *namesFlag != "":
		names = strings.Split(*namesFlag, ",")
	case *only != "":
		re, err := regexp.Compile(*only)
		if err != nil {
			fatalf("-only: %v", err)
		}
		if names = Names(re); len(names) == 0 {
			fatalf("-only %q matches no workload", *only)
		}
	}
	fmt.Printf("goos: %s\ngoarch: %s\npkg: github.com/fastsqlite/sqlite3/bench\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuName(); cpu != "" {
		fmt.Printf("cpu: %s\n", cpu)
	}
	fmt.Printf("driver: %s\n", d.Label)
	failed := false
	err := Run(d, names, func(r Result) {
		switch {
		case r.Skip != "":
			fmt.Printf("# SKIP Benchmark%s: %s\n", r.Name, oneLine(r.Skip))
		case r.Err != nil:
			failed = true
			fmt.Printf("# FAIL Benchmark%s: %s\n", r.Name, oneLine(r.Err.Error()))
		default:
			fmt.Println(r.Header)
		}
	})
	if err != nil {
		fatalf("%v", err)
	}
	if failed {
		os.Exit(1)
	}
}

// concurrentMain is Main for -concurrent: it prints the effective settings
// as a comment line, then one benchmark line per case, and exits non-zero if
// a case failed.
func concurrentMain(d Driver, only string, list, refs bool, o ConcurrentOptions) {
	var re *regexp.Regexp
	if only != "" {
		var err error
		if re, err = regexp.Compile(only); err != nil {
			fatalf("-only: %v", err)
		}
	}
	names := ConcurrentNames(re, refs)
	if list {
		fmt.Println(strings.Join(names, "\n"))
		return
	}
	if len(names) == 0 {
		fatalf("-only %q matches no concurrent workload", only)
	}
	if d.WALDSN == nil {
		fatalf("%s: no WALDSN, so no concurrent workloads", d.Label)
	}
	dir, err := os.MkdirTemp("", "sqlite-bench-conc-*")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("goos: %s\ngoarch: %s\npkg: github.com/fastsqlite/sqlite3/bench\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuName(); cpu != "" {
		fmt.Printf("cpu: %s\n", cpu)
	}
	fmt.Printf("driver: %s\n", d.Label)
	cfg, err := ConcurrentConfig(d, dir, o)
	if err != nil {
		fatalf("%s: %v", d.Label, err)
	}
	fmt.Printf("# DSN %s\n# settings %s\n", d.WALDSN("PATH"), cfg)
	failed := false
	err = RunConcurrent(d, dir, names, o, func(line string, f bool) {
		failed = failed || f
		fmt.Println(line)
	})
	if err != nil {
		fatalf("%v", err)
	}
	if failed {
		os.RemoveAll(dir)
		os.Exit(1)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// env is one process's state: the driver, its databases and fixtures.
type env struct {
	d       Driver
	dir     string // temporary directory for file databases
	dirErr  error
	fixture map[string]*fixture
	closers []io.Closer
}

type fixture struct {
	v   any
	err error
}

func newEnv(d Driver) *env {
	e := &env{d: d, fixture: map[string]*fixture{}}
	e.dir, e.dirErr = os.MkdirTemp("", "sqlite-bench-*")
	return e
}

func (e *env) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i].Close()
	}
	if e.dirErr == nil {
		os.RemoveAll(e.dir)
	}
}

// once returns the fixture called key, building it with setup the first
// time. A failed setup is remembered and fails every later caller too.
func once[T any](e *env, key string, setup func() (T, error)) (T, error) {
	f, ok := e.fixture[key]
	if !ok {
		v, err := setup()
		if err != nil {
			err = fmt.Errorf("fixture %s: %w", key, err)
		}
		f = &fixture{v: v, err: err}
		e.fixture[key] = f
	}
	v, _ := f.v.(T)
	return v, f.err
}

// open opens a database with a pool of exactly conns connections, which are
// opened now and never recycled, and closes it with the env.
func (e *env) open(dsn string, conns int) (*sql.DB, error) {
	db, err := sql.Open(e.d.SQLName, dsn)
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, db)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	ctx := context.Background()
	cs := make([]*sql.Conn, conns)
	for i := range cs {
		if cs[i], err = db.Conn(ctx); err != nil {
			return nil, err
		}
	}
	for _, c := range cs {
		c.Close()
	}
	return db, nil
}

// memory opens a private in-memory database on one connection. A second
// connection to ":memory:" would open a second, empty database, so the pool
// is held to one.
func (e *env) memory() (*sql.DB, error) { return e.open(":memory:", 1) }

// file opens the file name in the env's temporary directory.
func (e *env) file(name string, conns int) (*sql.DB, error) {
	if e.dirErr != nil {
		return nil, e.dirErr
	}
	return e.open(e.dir+string(os.PathSeparator)+name, conns)
}

func execAll(db *sql.DB, stmts ...string) error {
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return nil
}

// scanAll reads every row of rows into dest, closes rows and returns the
// number of rows read.
func scanAll(rows *sql.Rows, dest ...any) (int, error) {
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

// cpuMeter measures the process's CPU time over the timed part of a
// benchmark, reported as cpu-ns/op beside testing's wall-clock ns/op. On a
// shared machine, wall time also counts the time other processes hold the
// CPU; CPU time mostly does not, so it is the steadier of the two. For a
// workload on several goroutines it is the total CPU per op, not the latency.
type cpuMeter struct {
	start, total time.Duration
	ok           bool
}

func (m *cpuMeter) begin() { m.start, m.ok = cpuTime() }

func (m *cpuMeter) end() {
	t, ok := cpuTime()
	m.ok = m.ok && ok
	m.total += t - m.start
}

func (m *cpuMeter) report(b *testing.B) {
	if m.ok && b.N > 0 {
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// loop runs op with b.Loop and reports allocations and CPU time.
func loop(b *testing.B, op func() error) error {
	b.ReportAllocs()
	var cpu cpuMeter
	started := false
	for b.Loop() {
		if !started {
			cpu.begin()
			started = true
		}
		if err := op(); err != nil {
			return err
		}
	}
	cpu.end()
	cpu.report(b)
	return nil
}

// perRow is loop for an op that scans rowsPerOp rows, adding ns/row.
func perRow(b *testing.B, rowsPerOp int, op func() (int, error)) error {
	err := loop(b, func() error {
		n, err := op()
		if err == nil && n != rowsPerOp {
			err = fmt.Errorf("scanned %d rows, want %d", n, rowsPerOp)
		}
		return err
	})
	if err == nil {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(rowsPerOp)), "ns/row")
	}
	return err
}
