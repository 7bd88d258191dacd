package workload

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The suite workloads: mattn/go-sqlite3's BenchmarkSuite (v1.14.53) and the
// driver's additions to it, with the SQL and data of bench_test.go.

// Queries, shared with the nop driver's canned answers (nop.go).
const (
	sqlExec       = "select 1"
	sqlQuery      = "select null, 1, 1.1, 'foo'"
	sqlParams     = "select ?, ?, ?, ?"
	sqlRows       = "select * from bench"
	sqlStmt10Cols = "SELECT i1, i2, i3, f1, f2, t1, t2, t3, b, n FROM bench10cols"
	sqlStepCount  = "SELECT count(*) FROM bench_step"
	sqlParallel   = "SELECT 1, 2, 3, 4"
	sqlCustomAdd  = "SELECT custom_add(1,2)"

	stepStmts = 1000 // statements in the ExecStep and QueryStep scripts
	blobHex   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

	// Values of the one bench10cols row.
	s10t2 = "The quick brown fox jumps over the lazy dog"
	s10t3 = "naïve café ✓"
)

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

// suiteDB is the in-memory database the suite workloads share, as mattn's
// suite shares its TestDB.
func (e *env) suiteDB() (*sql.DB, error) {
	return once(e, "suite", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		err = execAll(db,
			`CREATE TABLE bench10cols (i1 INTEGER, i2 INTEGER, i3 INTEGER,
				f1 REAL, f2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB, n TEXT)`,
			`INSERT INTO bench10cols VALUES (42, -7, 9007199254740993,
				3.25, -0.000125, 'alpha', '`+s10t2+`', '`+s10t3+`', x'`+blobHex+`', NULL)`,
			`CREATE TABLE bench_step (x INTEGER)`,
			"create table bench (n varchar(32), i integer, d double, s varchar(32), t datetime)",
		)
		if err != nil {
			return nil, err
		}
		// mattn's "bench" table: 100 rows with a NULL, an integer, a double,
		// a short text and a datetime bound from a time.Time.
		st, err := db.Prepare("insert into bench values (?, ?, ?, ?, ?)")
		if err != nil {
			return nil, err
		}
		defer st.Close()
		for i := range 100 {
			if _, err := st.Exec(nil, i, float64(i), fmt.Sprint(i), time.Now()); err != nil {
				return nil, err
			}
		}
		return db, nil
	})
}

// The suite workloads declare their scan targets inside the loop, as mattn's
// do, so that allocs/op stay comparable with its published numbers.

func suiteExec(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	return loop(b, func() error {
		_, err := db.Exec(sqlExec)
		return err
	})
}

func suiteQuery(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	return loop(b, func() error {
		var n sql.NullString
		var i int
		var f float64
		var s string
		return db.QueryRow(sqlQuery).Scan(&n, &i, &f, &s)
	})
}

func suiteParams(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	return loop(b, func() error {
		var n sql.NullString
		var i int
		var f float64
		var s string
		return db.QueryRow(sqlParams, nil, 1, 1.1, "foo").Scan(&n, &i, &f, &s)
	})
}

func suiteStmt(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	st, err := db.Prepare(sqlParams)
	if err != nil {
		return err
	}
	defer st.Close()
	return loop(b, func() error {
		var n sql.NullString
		var i int
		var f float64
		var s string
		return st.QueryRow(nil, 1, 1.1, "foo").Scan(&n, &i, &f, &s)
	})
}

// scanBench scans the "bench" table the way mattn's suite does, including
// its datetime column into a time.Time.
func scanBench(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	var n sql.NullString
	var i int
	var f float64
	var s string
	var t time.Time
	got, err := scanAll(rows, &n, &i, &f, &s, &t)
	if err == nil && got != 100 {
		err = fmt.Errorf("scanned %d rows of bench, want 100", got)
	}
	return err
}

func suiteRows(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	return loop(b, func() error { return scanBench(db.Query(sqlRows)) })
}

func suiteStmtRows(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	st, err := db.Prepare(sqlRows)
	if err != nil {
		return err
	}
	defer st.Close()
	return loop(b, func() error { return scanBench(st.Query()) })
}

// suiteStmt10Cols reads one row of ten mixed columns through a prepared
// statement, so per-column conversion cost dominates over per-query cost.
func suiteStmt10Cols(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
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

// suiteExecStep measures the per-statement overhead of a multi-statement
// Exec: prepare, step and finalize for each of 1,000 statements in one call.
func suiteExecStep(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	err = loop(b, func() error {
		_, err := db.Exec(sqlExecStep)
		return err
	})
	if err != nil {
		return err
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*stepStmts), "ns/stmt")
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
func suiteQueryStep(b *testing.B, e *env) error {
	db, err := e.suiteDB()
	if err != nil {
		return err
	}
	const inserted = stepStmts - 2
	err = loop(b, func() error {
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
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*stepStmts), "ns/stmt")
	}
	return err
}

// suiteQueryParallel runs mattn's query from GOMAXPROCS goroutines sharing
// one pool of GOMAXPROCS connections to a temporary file (":memory:" would
// give each connection its own database).
func suiteQueryParallel(b *testing.B, e *env) error {
	procs := runtime.GOMAXPROCS(0)
	db, err := once(e, "parallel", func() (*sql.DB, error) { return e.file("parallel.db", procs) })
	if err != nil {
		return err
	}
	errc := make(chan error, procs)
	var cpu cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	cpu.begin()
	b.RunParallel(func(pb *testing.PB) {
		var i int64
		for pb.Next() {
			if err := db.QueryRow(sqlParallel).Scan(&i, &i, &i, &i); err != nil {
				errc <- err
				return
			}
		}
	})
	cpu.end()
	cpu.report(b)
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// customFunctions is mattn's BenchmarkCustomFunctions: a Go function called
// from SQL, registered as not deterministic so that SQLite calls it on every
// query.
func customFunctions(b *testing.B, e *env) error {
	db, err := once(e, "custom", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		conn, err := db.Conn(context.Background())
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		// The pool has one connection, never recycled: registering the
		// function on it registers it for every query below.
		return db, conn.Raw(func(dc any) error {
			if e.d.RegisterAdd != nil {
				return e.d.RegisterAdd(dc)
			}
			r, ok := dc.(interface {
				RegisterFunc(name string, impl any, pure bool) error
			})
			if !ok {
				return skip("%T has no RegisterFunc method", dc)
			}
			return r.RegisterFunc("custom_add", func(a, b int64) int64 { return a + b }, false)
		})
	})
	if err != nil {
		return err
	}
	var sum int64
	if err := db.QueryRow(sqlCustomAdd).Scan(&sum); err != nil {
		return err
	}
	if sum != 3 {
		return fmt.Errorf("custom_add(1,2) = %d", sum)
	}
	return loop(b, func() error {
		var i int64
		return db.QueryRow(sqlCustomAdd).Scan(&i)
	})
}
