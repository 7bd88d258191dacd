package workload

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The suite: the cases of mattn/go-sqlite3's BenchmarkSuite (v1.14.53) and
// its BenchmarkCustomFunctions, then this driver's additions, on the SQL and
// data of the root module's bench_test.go.

// The suite's SQL. nop.go keys the nop driver's canned answers by it.
const (
	sqlExec       = "select 1"
	sqlQuery      = "select null, 1, 1.1, 'foo'"
	sqlParams     = "select ?, ?, ?, ?"
	sqlRows       = "select * from bench"
	sqlStmt10Cols = "SELECT i1, i2, i3, f1, f2, t1, t2, t3, b, n FROM bench10cols"
	sqlStepCount  = "SELECT count(*) FROM bench_step"
	sqlParallel   = "SELECT 1, 2, 3, 4"
	sqlCustomAdd  = "SELECT custom_add(1,2)"
	sqlTiny       = "SELECT v FROM tiny WHERE id = ?"

	historyRows = 100  // rows of the "bench" table that Rows and StmtRows read
	stepStmts   = 1000 // statements in the ExecStep and QueryStep scripts
	tinyRows    = 1000 // rows of the "tiny" table that PreparedQueryRow looks up
	blobHex     = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

	// Texts of the one bench10cols row.
	s10t2 = "The quick brown fox jumps over the lazy dog"
	s10t3 = "naïve café ✓"
)

// The suite database's tables, and the statement that fills "bench" with
// historyRows rows of historyRow.
var sqlSuiteSchema = []string{
	`CREATE TABLE bench10cols (i1 INTEGER, i2 INTEGER, i3 INTEGER,
		f1 REAL, f2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB, n TEXT)`,
	`INSERT INTO bench10cols VALUES (42, -7, 9007199254740993,
		3.25, -0.000125, 'alpha', '` + s10t2 + `', '` + s10t3 + `', x'` + blobHex + `', NULL)`,
	`CREATE TABLE bench_step (x INTEGER)`,
	"create table bench (n varchar(32), i integer, d double, s varchar(32), t datetime)",
	`CREATE TABLE tiny (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`,
	`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 1000)
		INSERT INTO tiny SELECT x, x*1000 FROM r`,
}

const sqlHistoryInsert = "insert into bench values (?, ?, ?, ?, ?)"

var (
	sqlExecStep  = stepScript(stepStmts, "")
	sqlQueryStep = stepScript(stepStmts, "SELECT count(*), sum(x) FROM bench_step;")
)

// stepScript returns a script of n statements: a DELETE that makes reruns
// idempotent, then small INSERTs, then tail if it is not empty.
func stepScript(n int, tail string) string {
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

// onSuite turns w, a workload on the suite's shared database, into one of
// All's.
func onSuite(w func(b *testing.B, db *sql.DB) error) func(*testing.B, *env) error {
	return func(b *testing.B, e *env) error {
		db, err := e.suiteDB()
		if err != nil {
			return err
		}
		return w(b, db)
	}
}

// historyRow is row k of the "bench" table: a NULL, k as an integer, a
// double and decimal text, and the clock's time, bound as a time.Time so
// that each driver stores a datetime its own way.
func historyRow(k int) []any {
	return []any{nil, k, float64(k), strconv.Itoa(k), time.Now()}
}

// suiteDB is the one in-memory database of all the suite workloads, with
// every table they read, built on first use.
func (e *env) suiteDB() (*sql.DB, error) {
	return once(e, "suite", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		if err = execAll(db, sqlSuiteSchema...); err != nil {
			return nil, err
		}
		ins, err := db.Prepare(sqlHistoryInsert)
		if err != nil {
			return nil, err
		}
		defer ins.Close()
		for k := range historyRows {
			if _, err := ins.Exec(historyRow(k)...); err != nil {
				return nil, fmt.Errorf("bench row %d: %w", k, err)
			}
		}
		return db, nil
	})
}

func suiteExec(b *testing.B, db *sql.DB) error {
	return loop(b, func() error {
		_, err := db.Exec(sqlExec)
		return err
	})
}

// scanLiterals reads the single row of Query, Params and Stmt: a NULL, an
// integer, a real and a text. Its targets are new on every call, so every
// op allocates them, as the loops of the original suite do; that keeps
// allocs/op comparable with numbers measured there.
func scanLiterals(row *sql.Row) error {
	var (
		null  sql.NullString
		whole int
		frac  float64
		text  string
	)
	return row.Scan(&null, &whole, &frac, &text)
}

func suiteQuery(b *testing.B, db *sql.DB) error {
	return loop(b, func() error { return scanLiterals(db.QueryRow(sqlQuery)) })
}

func suiteParams(b *testing.B, db *sql.DB) error {
	return loop(b, func() error { return scanLiterals(db.QueryRow(sqlParams, nil, 1, 1.1, "foo")) })
}

func suiteStmt(b *testing.B, db *sql.DB) error {
	st, err := db.Prepare(sqlParams)
	if err != nil {
		return err
	}
	defer st.Close()
	return loop(b, func() error { return scanLiterals(st.QueryRow(nil, 1, 1.1, "foo")) })
}

// readHistory drains the result of sqlRows, the datetime column into a
// time.Time, and checks that every row came back. Like scanLiterals it
// declares its targets per call, once per op.
func readHistory(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	var (
		null  sql.NullString
		whole int
		dbl   float64
		text  string
		when  time.Time
	)
	n, err := scanAll(rows, &null, &whole, &dbl, &text, &when)
	if err == nil && n != historyRows {
		err = fmt.Errorf("bench gave %d rows, want %d", n, historyRows)
	}
	return err
}

func suiteRows(b *testing.B, db *sql.DB) error {
	return loop(b, func() error { return readHistory(db.Query(sqlRows)) })
}

func suiteStmtRows(b *testing.B, db *sql.DB) error {
	st, err := db.Prepare(sqlRows)
	if err != nil {
		return err
	}
	defer st.Close()
	return loop(b, func() error { return readHistory(st.Query()) })
}

// suiteStmt10Cols reads one row of ten mixed columns through a prepared
// statement, so per-column conversion cost dominates over per-query cost.
func suiteStmt10Cols(b *testing.B, db *sql.DB) error {
	st, err := db.Prepare(sqlStmt10Cols)
	if err != nil {
		return err
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
		return err
	}
	if i1 != 42 || i2 != -7 || i3 != 9007199254740993 || f1 != 3.25 || f2 != -0.000125 ||
		t1 != "alpha" || t2 != s10t2 || t3 != s10t3 || fmt.Sprintf("%x", blob) != blobHex || null.Valid {
		return fmt.Errorf("wrong row: %v %v %v %v %v %q %q %q %x %v",
			i1, i2, i3, f1, f2, t1, t2, t3, blob, null)
	}
	return loop(b, scan)
}

// perStmt adds ns/stmt, for ops that each run stepStmts statements.
func perStmt(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*stepStmts), "ns/stmt")
}

// suiteExecStep measures the per-statement overhead of a multi-statement
// Exec: prepare, step and finalize for each of 1,000 statements in one call.
func suiteExecStep(b *testing.B, db *sql.DB) error {
	err := loop(b, func() error {
		_, err := db.Exec(sqlExecStep)
		return err
	})
	if err != nil {
		return err
	}
	perStmt(b)
	// Prove the whole script ran, not just its first statement.
	var n int
	if err := db.QueryRow(sqlStepCount).Scan(&n); err != nil {
		return err
	}
	if n != stepStmts-1 {
		return fmt.Errorf("script inserted %d rows, want %d", n, stepStmts-1)
	}
	return nil
}

// suiteQueryStep is ExecStep through Query: the leading 999 statements must
// run, and the rows of the last one are returned.
func suiteQueryStep(b *testing.B, db *sql.DB) error {
	const inserted = stepStmts - 2
	err := loop(b, func() error {
		rows, err := db.Query(sqlQueryStep)
		if err != nil {
			return err
		}
		var n, sum int64
		got, err := scanAll(rows, &n, &sum)
		if err != nil {
			return err
		}
		if got != 1 || n != inserted || sum != inserted*(inserted-1)/2 {
			return fmt.Errorf("got %d rows, count %d, sum %d; want 1 row, count %d, sum %d",
				got, n, sum, inserted, inserted*(inserted-1)/2)
		}
		return nil
	})
	if err == nil {
		perStmt(b)
	}
	return err
}

// suiteQueryParallel sends the original suite's four-integer query from
// GOMAXPROCS goroutines that share one pool of GOMAXPROCS connections to a
// temporary file (on ":memory:" each connection would have its own
// database).
func suiteQueryParallel(b *testing.B, e *env) error {
	workers := runtime.GOMAXPROCS(0)
	db, err := once(e, "parallel", func() (*sql.DB, error) { return e.file("parallel.db", workers) })
	if err != nil {
		return err
	}
	// The first failure of any goroutine; RunParallel's goroutines may not
	// end the benchmark themselves.
	failed := make(chan error, workers)
	var cpu cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	cpu.begin()
	b.RunParallel(func(pb *testing.PB) {
		var v int64
		for pb.Next() {
			if err := db.QueryRow(sqlParallel).Scan(&v, &v, &v, &v); err != nil {
				failed <- err
				return
			}
		}
	})
	cpu.end()
	cpu.report(b)
	select {
	case err := <-failed:
		return err
	default:
		return nil
	}
}

// customFunctions keeps the query and function of mattn's
// BenchmarkCustomFunctions: one query per op whose only work is a call of a
// Go function, registered as not deterministic as there.
func customFunctions(b *testing.B, e *env) error {
	db, err := once(e, "custom", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		return db, registerAdd(e.d, db)
	})
	if err != nil {
		return err
	}
	var first int64
	if err := db.QueryRow(sqlCustomAdd).Scan(&first); err != nil {
		return err
	}
	if first != 3 {
		return fmt.Errorf("custom_add(1,2) = %d", first)
	}
	return loop(b, func() error {
		var sum int64 // a fresh target per op, as in the original, for equal allocs/op
		return db.QueryRow(sqlCustomAdd).Scan(&sum)
	})
}

// registerAdd registers custom_add on db's only connection, which the pool
// keeps open, so that every later query of db can call it.
func registerAdd(d Driver, db *sql.DB) error {
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		if d.RegisterAdd != nil {
			return d.RegisterAdd(dc)
		}
		r, ok := dc.(interface {
			RegisterFunc(name string, impl any, pure bool) error
		})
		if !ok {
			return skip("%T has no RegisterFunc method", dc)
		}
		return r.RegisterFunc("custom_add", func(x, y int64) int64 { return x + y }, false)
	})
}

// suitePreparedQueryRow looks up one INTEGER column by primary key through a
// statement prepared once, st.QueryRow(key).Scan(&v), keys cycling through
// the 1,000 rows of "tiny" (keys and values past 255 are boxed, as an
// application's are): a tiny query, so the time is mostly each driver's
// per-execution path (bind, step, its Rows, reset), with no prepare and no
// statement-cache lookup.
func suitePreparedQueryRow(b *testing.B, db *sql.DB) error {
	st, err := db.Prepare(sqlTiny)
	if err != nil {
		return err
	}
	defer st.Close()
	var key int64
	return loop(b, func() error {
		key = key%tinyRows + 1
		var v int64
		if err := st.QueryRow(key).Scan(&v); err != nil {
			return err
		}
		if v <= 0 || v%1000 != 0 { // the nop driver answers 1000 for every key
			return fmt.Errorf("tiny row %d has v = %d", key, v)
		}
		return nil
	})
}
