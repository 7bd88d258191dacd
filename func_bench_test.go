//go:build cgo

package sqlite3

// Benchmarks of Go functions called from SQL. They use only the API shared
// with github.com/mattn/go-sqlite3, so this file runs unchanged against it
// (change the import path) for a benchstat comparison.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// BenchmarkCustomFunctions has the name, query and function of a benchmark
// in mattn/go-sqlite3's tests, so that benchstat pairs the two drivers'
// results: each op is one query through database/sql whose only work is one
// call of a Go function taking two integers.
func BenchmarkCustomFunctions(b *testing.B) {
	db := benchOpenMemory(b) // bench_test.go: a pool of one connection, kept open
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*SQLiteConn)
		if !ok {
			return fmt.Errorf("driver connection is a %T", dc)
		}
		// pure=false, as in the original: SQLite calls a function that is
		// not deterministic wherever it is evaluated, never folding it into
		// a constant, so every query calls into Go.
		return sc.RegisterFunc("custom_add", func(x, y int64) int64 { return x + y }, false)
	})
	// Released to the pool, the connection serves every query below, and
	// they all see the function.
	conn.Close()
	if err != nil {
		b.Fatal(err)
	}

	for b.Loop() {
		var sum int64 // a fresh target per op, as in the original, for equal allocs/op
		if err := db.QueryRow("SELECT custom_add(1,2)").Scan(&sum); err != nil {
			b.Fatal(err)
		}
		if sum != 3 {
			b.Fatalf("custom_add(1,2) = %d", sum)
		}
	}
}

// funcBenchRows is the number of function calls per op in BenchmarkFuncCalls.
const funcBenchRows = 1000

type benchSum struct{ n int64 }

func (s *benchSum) Step(x int64) { s.n += x }
func (s *benchSum) Done() int64  { return s.n }

type benchAvg struct {
	sum float64
	n   int8
}

func (s *benchAvg) Step(x float64, w int16) { s.sum += x * float64(w); s.n++ }
func (s *benchAvg) Done() float32           { return float32(s.sum) / float32(s.n) }

var (
	funcCallsOnce sync.Once
	comparisons   int64 // counted, as a sort's number of comparisons varies
)

func funcCallsHook(c *SQLiteConn) error {
	for name, impl := range map[string]any{
		"f_int64":    func(a int64) int64 { return a + 1 },
		"f_float":    func(a, b float64) float64 { return a * b },
		"f_string":   strings.ToUpper,
		"f_reflect":  func(a int32, b int8) int32 { return a + int32(b) },
		"f_variadic": func(args ...any) any { return len(args) },
	} {
		if err := c.RegisterFunc(name, impl, false); err != nil {
			return err
		}
	}
	if err := c.RegisterAggregator("a_sum", func() *benchSum { return &benchSum{} }, false); err != nil {
		return err
	}
	if err := c.RegisterAggregator("a_reflect", func() *benchAvg { return &benchAvg{} }, false); err != nil {
		return err
	}
	if err := c.RegisterCollation("c_binary", func(a, b string) int {
		comparisons++
		return strings.Compare(a, b)
	}); err != nil {
		return err
	}
	return c.RegisterCollation("c_fold", func(a, b string) int {
		comparisons++
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
}

// BenchmarkFuncCalls measures the cost of one call of a Go function from SQL
// (reported as ns/call): each op runs one query calling it funcBenchRows
// times over a table, so the database/sql cost per query is amortized.
func BenchmarkFuncCalls(b *testing.B) {
	funcCallsOnce.Do(func() {
		sql.Register("sqlite3_BenchmarkFuncCalls", &SQLiteDriver{ConnectHook: funcCallsHook})
	})
	db, err := sql.Open("sqlite3_BenchmarkFuncCalls", ":memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE t(i INTEGER, f REAL, s TEXT);
		WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < %d)
		INSERT INTO t SELECT v, v * 0.5, printf('Name number %%05d', (v * 7919) %% 1000) FROM n`, funcBenchRows)); err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name, query string
		calls       float64 // per query; 0: count the comparisons
	}{
		// The same query with SQL's own + instead of a Go function: the
		// difference from Scalar/int64 is what calling Go costs.
		{"Scalar/builtinBaseline", "SELECT sum(i + 1) FROM t", funcBenchRows},
		{"Scalar/int64", "SELECT sum(f_int64(i)) FROM t", funcBenchRows},
		{"Scalar/float64x2", "SELECT sum(f_float(f, f)) FROM t", funcBenchRows},
		{"Scalar/string", "SELECT max(f_string(s)) FROM t", funcBenchRows},
		{"Scalar/reflect", "SELECT sum(f_reflect(i, 3)) FROM t", funcBenchRows},
		{"Scalar/variadicAny", "SELECT sum(f_variadic(i, f, s)) FROM t", funcBenchRows},
		{"Aggregate/int64", "SELECT a_sum(i) FROM t", funcBenchRows},
		{"Aggregate/reflect", "SELECT a_reflect(f, 2) FROM t", funcBenchRows},
		{"Collation/binary", "SELECT s FROM t ORDER BY s COLLATE c_binary LIMIT 1", 0},
		{"Collation/fold", "SELECT s FROM t ORDER BY s COLLATE c_fold LIMIT 1", 0},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			comparisons = 0
			for i := 0; i < b.N; i++ {
				var v any
				if err := db.QueryRow(bm.query).Scan(&v); err != nil {
					b.Fatal(err)
				}
			}
			calls := bm.calls * float64(b.N)
			if bm.calls == 0 {
				calls = float64(comparisons)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/calls, "ns/call")
		})
	}
}
