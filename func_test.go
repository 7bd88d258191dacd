//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var funcTestDrivers atomic.Int64

// openFuncDB opens an in-memory database through a driver registered under a
// name of its own, whose ConnectHook is hook. The pool keeps one connection,
// so every query sees the same database.
func openFuncDB(t testing.TB, hook func(*SQLiteConn) error) *sql.DB {
	t.Helper()
	return openFuncDSN(t, ":memory:", hook)
}

// openFuncDSN is openFuncDB on dsn.
func openFuncDSN(t testing.TB, dsn string, hook func(*SQLiteConn) error) *sql.DB {
	t.Helper()
	name := fmt.Sprintf("sqlite3_func_test_%d", funcTestDrivers.Add(1))
	sql.Register(name, &SQLiteDriver{ConnectHook: hook})
	db, err := sql.Open(name, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return db
}

// registerAll registers name -> impl with RegisterFunc.
func registerAll(funcs map[string]any, pure bool) func(*SQLiteConn) error {
	return func(c *SQLiteConn) error {
		for name, impl := range funcs {
			if err := c.RegisterFunc(name, impl, pure); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	}
}

type queryCase struct {
	query string
	want  any // scanned into a new value of want's type and compared
}

func checkQueries(t *testing.T, db *sql.DB, cases []queryCase) {
	t.Helper()
	for _, tc := range cases {
		got := reflect.New(reflect.TypeOf(tc.want))
		if err := db.QueryRow(tc.query).Scan(got.Interface()); err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if !reflect.DeepEqual(got.Elem().Interface(), tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.query, got.Elem().Interface(), tc.want)
		}
	}
}

// scanAny runs a one-value query and returns the driver's value.
func scanAny(t *testing.T, db *sql.DB, query string, args ...any) any {
	t.Helper()
	var v any
	if err := db.QueryRow(query, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

func TestFuncSignatures(t *testing.T) {
	// Named types, converted by their underlying kind.
	type (
		meters  int64
		celsius float64
		tag     string
		raw     []byte
		flag    bool
		unary   func(int64) int64
	)
	funcs := map[string]any{
		// Fast paths.
		"inc":      func(a int64) int64 { return a + 1 },
		"plus":     func(a, b int64) int64 { return a + b },
		"inci":     func(a int) int { return a + 1 },
		"addi":     func(a, b int) int { return a + b },
		"half":     func(a float64) float64 { return a / 2 },
		"hypot":    func(a, b float64) float64 { return math.Hypot(a, b) },
		"upper":    strings.ToUpper,
		"quote":    func(s string) (string, error) { return "'" + s + "'", nil },
		"len64":    func(s string) int64 { return int64(len(s)) },
		"len":      func(s string) int { return len(s) },
		"has":      strings.Contains,
		"matches":  regexp.MatchString,
		"rev":      func(b []byte) []byte { r := append([]byte{}, b...); reverse(r); return r },
		"typeof_":  func(v any) any { return fmt.Sprintf("%T", v) },
		"ident":    func(v any) (any, error) { return v, nil },
		"count_":   func(v ...any) any { return int64(len(v)) },
		"first":    func(v ...any) (any, error) { return v[0], nil },
		"answer":   func() int64 { return 42 },
		"none_":    func() any { return nil },
		"namedfn":  unary(func(a int64) int64 { return -a }),
		"echoblob": func(b []byte) []byte { return b },
		// Through reflection.
		"mul_i8_i16":   func(a int8, b int16) int32 { return int32(a) * int32(b) },
		"sub_u8_u16":   func(a uint8, b uint16) uint32 { return uint32(b) - uint32(a) },
		"sub_u64":      func(a, b uint64) uint64 { return a - b },
		"sub_int_uint": func(a int, b uint) int64 { return int64(a) - int64(b) },
		"mul_f32_f64":  func(a float32, b float64) float64 { return float64(a) * b },
		"negate":       func(a bool) bool { return !a },
		"weighted": func(scale, base int64, terms ...int64) int64 {
			for _, x := range terms {
				base += scale * x
			}
			return base
		},
		"joinv":    func(sep string, parts ...string) string { return strings.Join(parts, sep) },
		"seconds":  func(n int64) time.Duration { return time.Duration(n) * time.Second },
		"fathoms":  func(f, m meters) meters { return 2*f + m },
		"fahr":     func(c celsius) celsius { return c*9/5 + 32 },
		"hashtag":  func(s tag) tag { return "#" + s },
		"bytes_":   func(s string) raw { return raw(s) },
		"toggle":   func(f flag) flag { return !f },
		"when_":    func() any { return time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC) },
		"anyint":   func() any { return uint16(7) },
		"anynamed": func() any { return tag("named") },
		"check_": func(n int64) error {
			if n < 0 {
				return errors.New("negative")
			}
			return nil
		},
		"pair": func(a string, b int64) (string, error) { return fmt.Sprint(a, b), nil },
	}
	db := openFuncDB(t, registerAll(funcs, true))
	checkQueries(t, db, []queryCase{
		{"SELECT inc(41)", int64(42)},
		{"SELECT plus(40, 2)", int64(42)},
		{"SELECT inci(-1)", int64(0)},
		{"SELECT addi(1, 2)", int64(3)},
		{"SELECT half(5)", 2.5}, // an INTEGER passed to a float parameter
		{"SELECT half(5.0)", 2.5},
		{"SELECT hypot(3, 4.0)", 5.0},
		{"SELECT upper('abc')", "ABC"},
		{"SELECT upper(x'616263')", "ABC"}, // a BLOB to a string parameter
		{"SELECT quote('x')", "'x'"},
		{"SELECT len64('héllo')", int64(6)},
		{"SELECT len('')", int64(0)},
		{"SELECT has('seafood', 'foo')", true},
		{"SELECT has('seafood', 'bar')", false},
		{"SELECT matches('^[0-9]+$', '2024')", true},
		{"SELECT matches('^[0-9]+$', '20x4')", false},
		{"SELECT rev(x'010203')", []byte{3, 2, 1}},
		{"SELECT rev('ab')", []byte("ba")},
		{"SELECT rev(x'') IS NULL", true}, // an empty []byte result is NULL, as in mattn
		{"SELECT typeof_(1)", "int64"},
		{"SELECT typeof_(1.5)", "float64"},
		{"SELECT typeof_('s')", "string"},
		{"SELECT typeof_(x'00')", "[]uint8"},
		{"SELECT typeof_(NULL)", "[]uint8"}, // NULL is a nil []byte in an any, as in mattn
		{"SELECT ident(7)", int64(7)},
		{"SELECT ident(2.5)", 2.5},
		{"SELECT ident('t')", "t"},
		{"SELECT ident(x'0102')", []byte{1, 2}},
		{"SELECT ident(NULL) IS NULL", true},
		{"SELECT count_()", int64(0)},
		{"SELECT count_(x'00', -1, 'bar', NULL, 0.5)", int64(5)},
		{"SELECT first('a', 2)", "a"},
		{"SELECT answer()", int64(42)},
		{"SELECT none_() IS NULL", true},
		{"SELECT namedfn(5)", int64(-5)},
		{"SELECT mul_i8_i16(-3, 4)", int32(-12)},
		{"SELECT sub_u8_u16(1, 9)", uint32(8)},
		{"SELECT sub_u64(7, 2)", uint64(5)},
		{"SELECT sub_int_uint(2, 5)", int64(-3)},
		{"SELECT mul_f32_f64(1.5, 4.0)", 6.0},
		{"SELECT mul_f32_f64(2, 3)", 6.0}, // INTEGERs to float parameters
		{"SELECT negate(1)", false},
		{"SELECT negate(0)", true},
		{"SELECT weighted(3, 5)", int64(5)},
		{"SELECT weighted(3, 5, 1, 2)", int64(14)},
		{"SELECT weighted(1, 0, " + strings.Repeat("2, ", 19) + "2)", int64(40)}, // more than the bridge's 8 stack slots
		{"SELECT joinv('-')", ""},
		{"SELECT joinv('-', 'a', 'b', 'c')", "a-b-c"},
		{"SELECT seconds(2)", int64(2e9)},
		{"SELECT fathoms(20, 2)", int64(42)},
		{"SELECT fahr(100)", 212.0},
		{"SELECT hashtag('sqlite')", "#sqlite"},
		{"SELECT bytes_('ab')", []byte("ab")},
		{"SELECT bytes_('') IS NULL", true}, // an empty []byte result is NULL
		{"SELECT toggle(1)", false},
		{"SELECT when_()", "2024-02-03 04:05:06+00:00"},
		{"SELECT anyint()", int64(7)},
		{"SELECT anynamed()", "named"},
		{"SELECT check_(1) IS NULL", true},
		{"SELECT pair('a', 1)", "a1"},
	})

	// Values cross intact: NUL bytes, empty strings, large values (set by a
	// cgo call rather than through the scratch buffer), extreme numbers.
	for _, s := range []string{"", "foo\x00bar", strings.Repeat("x", smallResult), strings.Repeat("y", smallResult+1), strings.Repeat("z", 1<<20)} {
		var got string
		if err := db.QueryRow("SELECT upper(?)", s).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != strings.ToUpper(s) {
			t.Errorf("upper of %d bytes: got %d bytes", len(s), len(got))
		}
		var n int64
		if err := db.QueryRow("SELECT len64(?)", s).Scan(&n); err != nil || n != int64(len(s)) {
			t.Errorf("len64 of %d bytes = %d, %v", len(s), n, err)
		}
		if got := scanAny(t, db, "SELECT echoblob(?)", []byte(s)); len(s) > 0 && !reflect.DeepEqual(got, []byte(s)) {
			t.Errorf("echoblob of %d bytes: got %d bytes", len(s), len(got.([]byte)))
		}
	}
	if got := scanAny(t, db, "SELECT typeof(upper(''))"); got != "text" {
		t.Errorf("an empty string result has type %v, want text", got)
	}
	checkQueries(t, db, []queryCase{
		{fmt.Sprintf("SELECT inc(%d)", math.MaxInt64-1), int64(math.MaxInt64)},
		{fmt.Sprintf("SELECT ident(%d)", math.MinInt64), int64(math.MinInt64)},
		{"SELECT ident(1e308)", 1e308},
	})
}

// series is a subquery of the integers 1..n in a column named value
// (generate_series is not compiled in).
func series(n int) string {
	return fmt.Sprintf("(WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < %d) SELECT value FROM s)", n)
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// TestFuncErrors runs in strict mode, where out-of-range integers and an
// error returned alone fail the call (strict_test.go has the default).
func TestFuncErrors(t *testing.T) {
	var calls atomic.Int64
	db := openFuncDSN(t, ":memory:?_strict=1", registerAll(map[string]any{
		"fails":    func(s string) (string, error) { return "", errors.New("no good: " + s) },
		"failsr":   func(a, b uint8) (int64, error) { return 0, fmt.Errorf("wrapped: %w", ErrConstraint) },
		"constr":   func() (any, error) { return nil, Error{Code: ErrConstraint, ExtendedCode: ErrConstraintCheck} },
		"panics":   func(int64) int64 { calls.Add(1); panic("boom") },
		"panicsr":  func(a int8) int8 { panic(fmt.Errorf("boom %d", a)) },
		"panicidx": func(i int64) any { return []int{1}[i] },
		"inc":      func(a int64) int64 { return a + 1 },
		"inc8":     func(a int8) int8 { return a + 1 },
		"incu":     func(a uint64) uint64 { return a + 1 },
		"negate":   func(a bool) bool { return !a },
		"big":      func() uint64 { return math.MaxUint64 },
		"upper":    strings.ToUpper,
		"min2":     func(a, b int64, rest ...int64) int64 { return a },
		"onlyerr":  func(n int64) error { return errors.New("only an error") },
		"badany":   func() any { return struct{}{} },
		"half":     func(a float64) float64 { return a / 2 },
	}, false))
	cases := []struct {
		query string
		want  string
		code  error
	}{
		{"SELECT fails('x')", "no good: x", ErrError},
		{"SELECT failsr(1, 2)", "wrapped: constraint failed", ErrConstraint},
		{"SELECT constr()", "", ErrConstraintCheck},
		{"SELECT panics(1)", "panics(): panic: boom", ErrError},
		{"SELECT panicsr(3)", "panicsr(): panic: boom 3", ErrError},
		{"SELECT panicidx(5)", "panicidx(): panic: runtime error: index out of range [5] with length 1", ErrError},
		{"SELECT inc(NULL)", "inc(): argument 1 must be an INTEGER, not NULL", ErrError},
		{"SELECT inc('1')", "inc(): argument 1 must be an INTEGER, not TEXT", ErrError},
		{"SELECT inc(1.5)", "inc(): argument 1 must be an INTEGER, not a REAL", ErrError},
		{"SELECT inc8(300)", "inc8(): argument 1: 300 overflows int8", ErrError},
		{"SELECT incu(-1)", "incu(): argument 1: -1 overflows uint64", ErrError},
		{"SELECT negate(NULL)", "negate(): argument 1 must be an INTEGER, not NULL", ErrError},
		{"SELECT upper(NULL)", "upper(): argument 1 must be TEXT or a BLOB, not NULL", ErrError},
		{"SELECT upper(1)", "upper(): argument 1 must be TEXT or a BLOB, not an INTEGER", ErrError},
		{"SELECT half(NULL)", "half(): argument 1 must be a REAL or an INTEGER, not NULL", ErrError},
		{"SELECT big()", "big(): result 18446744073709551615 overflows SQLite's 64-bit signed INTEGER", ErrError},
		{"SELECT min2(1)", "min2(): needs at least 2 arguments, got 1", ErrError},
		{"SELECT onlyerr(1)", "only an error", ErrError},
		{"SELECT badany()", "badany(): cannot return a value of type struct {}", ErrError},
		{"SELECT inc(1, 2)", "wrong number of arguments to function inc()", ErrError},
	}
	for _, tc := range cases {
		var v any
		err := db.QueryRow(tc.query).Scan(&v)
		if err == nil {
			t.Errorf("%s: no error", tc.query)
			continue
		}
		if tc.want != "" && err.Error() != tc.want {
			t.Errorf("%s: error %q, want %q", tc.query, err, tc.want)
		}
		if !errors.Is(err, tc.code) {
			t.Errorf("%s: error %v (%#v) is not %v", tc.query, err, err, tc.code)
		}
		// The connection stays usable.
		var n int64
		if err := db.QueryRow("SELECT inc(1)").Scan(&n); err != nil || n != 2 {
			t.Fatalf("after %s: inc(1) = %d, %v", tc.query, n, err)
		}
	}
	// An error stops the statement: the function is not called for later rows.
	calls.Store(0)
	if _, err := db.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query("SELECT panics(x) FROM t"); err == nil {
		t.Fatal("no error")
	}
	if calls.Load() != 1 {
		t.Errorf("panicking function called %d times, want 1", calls.Load())
	}
	// Inside a transaction, the failed statement leaves the transaction usable.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (inc(NULL))"); err == nil {
		t.Fatal("no error")
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (inc(9))"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scanAny(t, db, "SELECT count(*) FROM t WHERE x = 10"); got != int64(1) {
		t.Errorf("count = %v", got)
	}
}

func TestFuncTooBig(t *testing.T) {
	db := openFuncDB(t, func(c *SQLiteConn) error {
		c.SetLimit(SQLITE_LIMIT_LENGTH, 1000)
		if err := c.RegisterFunc("repeat", strings.Repeat, true); err != nil {
			return err
		}
		return c.RegisterFunc("repeatb", func(n int) []byte { return make([]byte, n+1) }, true)
	})
	for _, q := range []string{
		"SELECT repeat('x', 1001)",   // through the scratch buffer
		"SELECT repeat('x', 100000)", // set by a cgo call
		"SELECT repeatb(1000)",       // BLOB
		"SELECT repeatb(100000)",     // BLOB, set by a cgo call
	} {
		var v any
		err := db.QueryRow(q).Scan(&v)
		if !errors.Is(err, ErrTooBig) {
			t.Errorf("%s: error %v, want ErrTooBig", q, err)
		}
	}
	if got := scanAny(t, db, "SELECT length(repeat('x', 1000))"); got != int64(1000) {
		t.Errorf("length = %v", got)
	}
}

func TestFuncDeterministicIndex(t *testing.T) {
	for _, pure := range []bool{true, false} {
		t.Run(fmt.Sprint("pure=", pure), func(t *testing.T) {
			var calls atomic.Int64
			db := openFuncDB(t, func(c *SQLiteConn) error {
				return c.RegisterFunc("double", func(x int64) int64 { calls.Add(1); return 2 * x }, pure)
			})
			if _, err := db.Exec("CREATE TABLE t(x INTEGER)"); err != nil {
				t.Fatal(err)
			}
			_, err := db.Exec("CREATE INDEX t_double ON t(double(x))")
			if !pure {
				if err == nil || !strings.Contains(err.Error(), "non-deterministic functions prohibited in index expressions") {
					t.Fatalf("impure function in an index: error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO t SELECT value FROM " + series(100)); err != nil {
				t.Fatal(err)
			}
			var plan string
			rows, err := db.Query("EXPLAIN QUERY PLAN SELECT x FROM t WHERE double(x) = 84")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan += detail
			}
			rows.Close()
			if !strings.Contains(plan, "t_double") {
				t.Errorf("query plan %q does not use the index", plan)
			}
			calls.Store(0)
			if got := scanAny(t, db, "SELECT x FROM t WHERE double(x) = 84"); got != int64(42) {
				t.Errorf("got %v", got)
			}
			if calls.Load() != 0 { // the indexed values are read from the index
				t.Errorf("double called %d times through the index, want 0", calls.Load())
			}
		})
	}
}

// sumAgg is an integer sum (fast paths: Step(int64), Done() int64).
type sumAgg struct{ n int64 }

func (s *sumAgg) Step(x int64) { s.n += x }
func (s *sumAgg) Done() int64  { return s.n }

// stddevAgg is the sample standard deviation, with Welford's algorithm
// (fast paths: Step(float64), Done() (float64, error)).
type stddevAgg struct {
	n          int
	mean, m2   float64
	doneCalled *atomic.Int64
}

func (s *stddevAgg) Step(x float64) {
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

func (s *stddevAgg) Done() (float64, error) {
	if s.doneCalled != nil {
		s.doneCalled.Add(1)
	}
	if s.n < 2 {
		return 0, errors.New("stddev needs at least 2 values")
	}
	return math.Sqrt(s.m2 / float64(s.n-1)), nil
}

// modeAgg returns the most frequent value (any parameter and result).
type modeAgg struct {
	counts map[any]int
	top    any
	best   int
}

func (m *modeAgg) Step(x any) {
	if b, ok := x.([]byte); ok {
		x = string(b)
	}
	m.counts[x]++
	if c := m.counts[x]; c > m.best {
		m.top, m.best = x, c
	}
}

func (m *modeAgg) Done() any { return m.top }

// weightedAgg takes two arguments (reflection): sum(x*w)/sum(w).
type weightedAgg struct{ sum, weights float64 }

func (a *weightedAgg) Step(x float64, w int64) error {
	if w < 0 {
		return errors.New("negative weight")
	}
	a.sum += x * float64(w)
	a.weights += float64(w)
	return nil
}

func (a *weightedAgg) Done() (float64, error) {
	if a.weights == 0 {
		return 0, nil
	}
	return a.sum / a.weights, nil
}

// concatAgg is variadic (reflection) and returns a named string type.
type concatAgg struct{ parts []string }

type label string

func (a *concatAgg) Step(parts ...string) { a.parts = append(a.parts, strings.Join(parts, "+")) }
func (a *concatAgg) Done() label          { return label(strings.Join(a.parts, ",")) }

// countAgg takes no argument: count(*).
type countAgg struct{ n int }

func (a *countAgg) Step()             { a.n++ }
func (a *countAgg) Done() int         { return a.n }
func newCountAgg() (*countAgg, error) { return &countAgg{}, nil }

// Aggregator is an interface constructor result.
type aggregator interface {
	Step(int64)
	Done() int64
}

func TestAggregator(t *testing.T) {
	var stddevDone atomic.Int64
	var ctorFail atomic.Bool
	db := openFuncDB(t, func(c *SQLiteConn) error {
		for name, impl := range map[string]any{
			"mysum":    func() *sumAgg { return &sumAgg{} },
			"stddev":   func() *stddevAgg { return &stddevAgg{doneCalled: &stddevDone} },
			"mode":     func() *modeAgg { return &modeAgg{counts: map[any]int{}} },
			"weighted": func() *weightedAgg { return &weightedAgg{} },
			"concat":   func() *concatAgg { return &concatAgg{} },
			"cnt":      newCountAgg,
			"isum":     func() aggregator { return &sumAgg{} },
			"fragile": func() (*sumAgg, error) {
				if ctorFail.Load() {
					return nil, errors.New("cannot start")
				}
				return &sumAgg{}, nil
			},
			"nilagg": func() *sumAgg { return nil },
		} {
			if err := c.RegisterAggregator(name, impl, true); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})
	if _, err := db.Exec(`CREATE TABLE t(dept INTEGER, profit INTEGER, w INTEGER, name TEXT);
		INSERT INTO t VALUES (1, 10, 1, 'a'), (1, 20, 3, 'b'), (2, 42, 1, 'c'), (2, 42, 0, 'd'), (2, 7, 2, 'e'), (3, 5, 1, 'f')`); err != nil {
		t.Fatal(err)
	}
	checkQueries(t, db, []queryCase{
		{"SELECT mysum(profit) FROM t", int64(126)},
		{"SELECT group_concat(s) FROM (SELECT mysum(profit) AS s FROM t GROUP BY dept ORDER BY dept)", "30,91,5"},
		{"SELECT mysum(profit) FROM t WHERE 0", int64(0)}, // no rows: Done on a fresh value
		{"SELECT isum(profit) FROM t", int64(126)},
		{"SELECT round(stddev(profit), 6) FROM t WHERE dept = 2", 20.207259},
		{"SELECT mode(profit) FROM t", int64(42)},
		{"SELECT mode(name) FROM t WHERE dept = 3", "f"},
		{"SELECT weighted(profit, w) FROM t WHERE dept = 1", 17.5},
		{"SELECT concat(name, CAST(dept AS TEXT)) FROM t WHERE dept = 1", "a+1,b+1"},
		{"SELECT concat() FROM t WHERE dept = 3", ""},
		{"SELECT cnt() FROM t", int64(6)},
		{"SELECT fragile(profit) FROM t", int64(126)},
		{"SELECT mysum(profit) FILTER (WHERE dept = 2) FROM t", int64(91)},
		{"SELECT mysum(DISTINCT profit) FROM t", int64(84)},
	})
	for _, tc := range []struct{ query, want string }{
		{"SELECT stddev(profit) FROM t WHERE dept = 3", "stddev needs at least 2 values"},
		{"SELECT weighted(profit, -1) FROM t", "negative weight"},
		{"SELECT mysum(name) FROM t", "mysum(): argument 1 must be an INTEGER, not TEXT"},
		{"SELECT weighted(profit, 'x') FROM t", "weighted(): argument 2 must be an INTEGER, not TEXT"},
		{"SELECT nilagg(profit) FROM t", "nilagg(): the aggregator constructor returned nil"},
	} {
		var v any
		if err := db.QueryRow(tc.query).Scan(&v); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.query, err, tc.want)
		}
	}
	ctorFail.Store(true)
	var v any
	if err := db.QueryRow("SELECT fragile(profit) FROM t").Scan(&v); err == nil || err.Error() != "cannot start" {
		t.Errorf("failing constructor: error %v", err)
	}
	ctorFail.Store(false)

	// Done is not called for a group whose Step failed.
	stddevDone.Store(0)
	if err := db.QueryRow("SELECT stddev(name) FROM t").Scan(&v); err == nil {
		t.Error("no error")
	}
	if n := stddevDone.Load(); n != 0 {
		t.Errorf("Done called %d times after a failed Step", n)
	}

	// Many groups at once: each has its own value.
	if _, err := db.Exec("CREATE TABLE g(k, v); INSERT INTO g SELECT value % 1000, value FROM " + series(20000)); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT k, mysum(v), sum(v), cnt() FROM g GROUP BY k")
	if err != nil {
		t.Fatal(err)
	}
	groups := 0
	for rows.Next() {
		var k, mine, want, n int64
		if err := rows.Scan(&k, &mine, &want, &n); err != nil {
			t.Fatal(err)
		}
		if mine != want || n != 20 {
			t.Fatalf("group %d: mysum %d, sum %d, cnt %d", k, mine, want, n)
		}
		groups++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if groups != 1000 {
		t.Errorf("%d groups", groups)
	}

	// A query abandoned mid-way (rows closed) does not leak group state.
	var ai *aggInfo
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		// Look the aggregate up through a fresh registration on this connection.
		ai2, _, _, err := newAggInfo("mysum2", func() *sumAgg { return &sumAgg{} })
		if err != nil {
			return err
		}
		ai = ai2
		return dc.(*SQLiteConn).createFunction("mysum2", 1, true, callStep, &udf{agg: ai2})
	}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rows, err := conn.QueryContext(context.Background(), "SELECT k, mysum2(v) FROM g GROUP BY k")
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		rows.Close()
	}
	live := 0
	for _, s := range ai.slots {
		if s.obj != nil {
			live++
		}
	}
	if live != 0 {
		t.Errorf("%d aggregate instances alive after the queries ended", live)
	}
	if len(ai.slots) > 2 {
		t.Errorf("%d slots used for a sorted GROUP BY, want reuse", len(ai.slots))
	}
}

// movingSum is a window function (fast paths: Step/Inverse(int64), Value/Done() int64).
type movingSum struct{ n int64 }

func (s *movingSum) Step(x int64)    { s.n += x }
func (s *movingSum) Inverse(x int64) { s.n -= x }
func (s *movingSum) Value() int64    { return s.n }
func (s *movingSum) Done() int64     { return s.n }

// movingStats is a window function through reflection: two arguments,
// named result types and errors.
type movingStats struct {
	n   int
	sum float64
}

type score float64

func (s *movingStats) Step(x float64, w int8) error {
	s.n += int(w)
	s.sum += x * float64(w)
	return nil
}

func (s *movingStats) Inverse(x float64, w int8) error {
	s.n -= int(w)
	s.sum -= x * float64(w)
	return nil
}

func (s *movingStats) Value() (score, error) {
	if s.n == 0 {
		return 0, errors.New("empty frame")
	}
	return score(s.sum / float64(s.n)), nil
}

func (s *movingStats) Done() (score, error) { return s.Value() }

// valuerOnly has a Value method (as a driver.Valuer would) but no Inverse:
// a plain aggregate.
type valuerOnly struct{ sumAgg }

func (v *valuerOnly) Value() (any, error) { return nil, nil }

func TestAggregatorWindow(t *testing.T) {
	db := openFuncDB(t, func(c *SQLiteConn) error {
		if err := c.RegisterAggregator("msum", func() *movingSum { return &movingSum{} }, true); err != nil {
			return err
		}
		if err := c.RegisterAggregator("mavg", func() *movingStats { return &movingStats{} }, true); err != nil {
			return err
		}
		return c.RegisterAggregator("vsum", func() *valuerOnly { return &valuerOnly{} }, true)
	})
	if _, err := db.Exec("CREATE TABLE t(x INTEGER, p INTEGER); INSERT INTO t SELECT value, value % 3 FROM " + series(50)); err != nil {
		t.Fatal(err)
	}
	for _, frame := range []string{
		"ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
		"ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
		"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
		"ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING", // empty frames at the end
		"PARTITION BY p ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	} {
		over := frame
		if !strings.HasPrefix(frame, "PARTITION") {
			over = "ORDER BY x " + frame
		}
		q := fmt.Sprintf("SELECT x, msum(x) OVER (%[1]s), coalesce(sum(x) OVER (%[1]s), 0) FROM t ORDER BY x", over)
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var x, got, want int64
			if err := rows.Scan(&x, &got, &want); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: x=%d: msum %d, sum %d", frame, x, got, want)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if n != 50 {
			t.Errorf("%s: %d rows", frame, n)
		}
	}
	checkQueries(t, db, []queryCase{
		{"SELECT group_concat(v) FROM (SELECT mavg(x, 1) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS v FROM t WHERE x <= 4)", "1.5,2.0,3.0,3.5"},
		{"SELECT msum(x) FROM t", int64(1275)}, // still a plain aggregate
		{"SELECT vsum(x) FROM t", int64(1275)},
	})
	var v any
	err := db.QueryRow("SELECT vsum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t").Scan(&v)
	if err == nil || !strings.Contains(err.Error(), "vsum") {
		t.Errorf("a plain aggregate with a moving frame: error %v", err)
	}
	// The first row's frame is empty: Value runs on a fresh value.
	err = db.QueryRow("SELECT mavg(x, 1) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM t").Scan(&v)
	if err == nil || err.Error() != "empty frame" {
		t.Errorf("Value error: %v", err)
	}
}

func TestFuncRegisterErrors(t *testing.T) {
	c := openRawConn(t)
	for _, tc := range []struct {
		impl any
		want string
	}{
		{nil, "impl must be a non-nil func, not nil"},
		{42, "impl must be a non-nil func, not int"},
		{(func(int64) int64)(nil), "impl must be a non-nil func"},
		{func() {}, "must return a value, optionally followed by an error"},
		{func() (int, int) { return 0, 0 }, "the second result must be an error"},
		{func(complex128) int { return 0 }, "parameter 1: unsupported type complex128"},
		{func([]int) int { return 0 }, "the only slice type is []byte"},
		{func(fmt.Stringer) int { return 0 }, "the only interface type is any"},
		{func(...*int) int { return 0 }, "variadic parameter: unsupported type *int"},
		{func() *int { return nil }, "result: unsupported type *int"},
		{func() []string { return nil }, "result: unsupported type []string"},
		{func(*SQLiteContext) int { return 0 }, "parameter 1: unsupported type *sqlite3.SQLiteContext"},
	} {
		err := c.RegisterFunc("f", tc.impl, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RegisterFunc(%T): error %v, want %q", tc.impl, err, tc.want)
		}
	}
	if err := c.RegisterFunc("bad\x00name", func() int { return 0 }, true); err == nil {
		t.Error("a NUL in the name: no error")
	}
	if err := c.RegisterFunc(strings.Repeat("n", 300), func() int { return 0 }, true); !errors.Is(err, ErrMisuse) {
		t.Errorf("a 300-byte name: error %v, want ErrMisuse", err)
	}

	for _, tc := range []struct {
		impl any
		want string
	}{
		{func() int { return 0 }, "must return a pointer or an interface, not int"},
		{func(int) *sumAgg { return nil }, "the constructor must take no arguments"},
		{func() *struct{} { return nil }, "has no Step method"},
		{func() *badStep { return nil }, "Step: must return nothing or an error"},
		{func() *noDone { return nil }, "has no Done method"},
		{func() *badDone { return nil }, "Done: must take no arguments"},
		{func() *noValue { return nil }, "has an Inverse method but no Value method"},
		{func() *badInverse { return nil }, "Inverse must take the same arguments as Step"},
		{func() (*sumAgg, int) { return nil, 0 }, "optionally followed by an error"},
	} {
		err := c.RegisterAggregator("a", tc.impl, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RegisterAggregator(%T): error %v, want %q", tc.impl, err, tc.want)
		}
	}

	c.Close()
	if err := c.RegisterFunc("f", func() int { return 0 }, true); err == nil {
		t.Error("RegisterFunc on a closed connection: no error")
	}
	if err := c.RegisterAggregator("a", func() *sumAgg { return nil }, true); err == nil {
		t.Error("RegisterAggregator on a closed connection: no error")
	}
	if err := c.RegisterCollation("c", strings.Compare); err == nil {
		t.Error("RegisterCollation on a closed connection: no error")
	}
}

type badStep struct{}

func (*badStep) Step(int64) int { return 0 }
func (*badStep) Done() int64    { return 0 }

type noDone struct{}

func (*noDone) Step(int64) {}

type badDone struct{}

func (*badDone) Step(int64)       {}
func (*badDone) Done(int64) int64 { return 0 }

type noValue struct{ sumAgg }

func (*noValue) Inverse(int64) {}

type badInverse struct{ sumAgg }

func (*badInverse) Inverse(int64, int64) {}
func (*badInverse) Value() int64         { return 0 }

// openRawConn opens a connection without database/sql.
func openRawConn(t testing.TB) *SQLiteConn {
	t.Helper()
	dc, err := (&SQLiteDriver{}).Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*SQLiteConn)
	t.Cleanup(func() { c.Close() })
	return c
}

func rot13(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case r >= 'A' && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	}
	return r
}

func TestCollation(t *testing.T) {
	var panicky atomic.Bool
	var seen atomic.Value
	db := openFuncDB(t, func(c *SQLiteConn) error {
		if err := c.RegisterCollation("rot13", func(a, b string) int {
			if panicky.Load() {
				panic("collation trouble")
			}
			if strings.ContainsRune(a, 0) {
				seen.Store(a)
			}
			return strings.Compare(strings.Map(rot13, a), strings.Map(rot13, b))
		}); err != nil {
			return err
		}
		// A result far outside int32 must keep its sign.
		return c.RegisterCollation("bigrev", func(a, b string) int { return -strings.Compare(a, b) << 40 })
	})
	if _, err := db.Exec(`CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('aaaa'), ('ffff'), ('qqqq'), ('tttt'), ('zzzz')`); err != nil {
		t.Fatal(err)
	}
	order := func(q string) string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	for q, want := range map[string]string{
		"SELECT s FROM t ORDER BY s COLLATE rot13":                                           "qqqq tttt zzzz aaaa ffff",
		"SELECT s FROM t ORDER BY s COLLATE rot13 DESC":                                      "ffff aaaa zzzz tttt qqqq",
		"SELECT s FROM t ORDER BY s COLLATE bigrev":                                          "zzzz tttt qqqq ffff aaaa",
		"SELECT s FROM t WHERE s = 'dddd' COLLATE rot13 OR s > 'x' COLLATE rot13 ORDER BY s": "aaaa ffff zzzz",
	} {
		if got := order(q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	// A panic interrupts the statement (SQLite notices at its next step: a
	// sort may still hand out its first row); the connection stays usable.
	panicky.Store(true)
	rows, err := db.Query("SELECT s FROM t ORDER BY s COLLATE rot13")
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if !errors.Is(err, ErrInterrupt) {
		t.Errorf("panicking collation: error %v, want ErrInterrupt", err)
	}
	// A one-row result computed before SQLite notices the interrupt is still
	// returned (the bridge does not check sqlite3_is_interrupted after a row);
	// the interrupt must not leak into the next statement.
	var v any
	_ = db.QueryRow("SELECT 'a' < 'b' COLLATE rot13").Scan(&v)
	panicky.Store(false)
	if got := order("SELECT s FROM t ORDER BY s COLLATE rot13 LIMIT 1"); got != "qqqq" {
		t.Errorf("after a panic: %s", got)
	}

	// An index with the collation.
	if _, err := db.Exec("CREATE INDEX t_rot ON t(s COLLATE rot13)"); err != nil {
		t.Fatal(err)
	}
	if got := order("SELECT s FROM t INDEXED BY t_rot WHERE s COLLATE rot13 > 'zzzz' ORDER BY s COLLATE rot13"); got != "aaaa ffff" {
		t.Errorf("through the index: %s", got)
	}
	// NUL bytes reach the comparison.
	if got := scanAny(t, db, "SELECT ? = ? COLLATE rot13", "a\x00b", "a\x00c"); got != int64(0) {
		t.Errorf("NUL-containing strings compare equal: %v", got)
	}
	if s, _ := seen.Load().(string); s != "a\x00b" && s != "a\x00c" {
		t.Errorf("collation saw %q", s)
	}

	// nil removes the collation (the index using it must go first).
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "DROP INDEX t_rot"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Raw(func(dc any) error { return dc.(*SQLiteConn).RegisterCollation("rot13", nil) }); err != nil {
		t.Fatal(err)
	}
	_, err = conn.QueryContext(context.Background(), "SELECT s FROM t ORDER BY s COLLATE rot13")
	if err == nil || !strings.Contains(err.Error(), "no such collation sequence: rot13") {
		t.Errorf("removed collation: error %v", err)
	}
}

func TestFuncRaw(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		c := dc.(*SQLiteConn)
		if err := c.RegisterFunc("triple", func(x int64) int64 { return 3 * x }, true); err != nil {
			return err
		}
		return c.RegisterAggregator("total", func() *sumAgg { return &sumAgg{} }, true)
	}); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRowContext(ctx, "SELECT total(triple(value)) FROM "+series(10)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 165 {
		t.Errorf("got %d", n)
	}
	// Replacing a function takes effect in statements prepared (and cached) before.
	if err := conn.Raw(func(dc any) error {
		return dc.(*SQLiteConn).RegisterFunc("triple", func(x int64) int64 { return 30 * x }, true)
	}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT total(triple(value)) FROM "+series(10)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1650 {
		t.Errorf("after replacing: got %d", n)
	}
	// Registering while a statement of the connection runs is refused by SQLite.
	rows, err := conn.QueryContext(ctx, "SELECT triple(value) FROM "+series(10))
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	err = conn.Raw(func(dc any) error {
		return dc.(*SQLiteConn).RegisterFunc("triple", func(x int64) int64 { return x }, true)
	})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("replacing a running function: error %v, want ErrBusy", err)
	}
	rows.Close()
}

// TestFuncContext sets results through SQLiteContext, as virtual tables do.
func TestFuncContext(t *testing.T) {
	c := openRawConn(t)
	fi := &funcInfo{name: "ctx", call: func(f fcall) {
		ctx := f.context()
		switch f.args[0].int64() {
		case 0:
			ctx.ResultNull()
		case 1:
			ctx.ResultBool(true)
		case 2:
			ctx.ResultInt(-7)
		case 3:
			ctx.ResultInt64(math.MaxInt64)
		case 4:
			ctx.ResultDouble(2.5)
		case 5:
			ctx.ResultText("te\x00xt")
		case 6:
			ctx.ResultText("")
		case 7:
			ctx.ResultBlob([]byte{1, 2})
		case 8:
			ctx.ResultBlob(nil)
		case 9:
			ctx.ResultZeroblob(3)
		case 10:
			ctx.ResultText(strings.Repeat("x", 2000)) // beyond the limit set below
		}
	}}
	if err := c.createFunction("ctx", 1, true, callFunc, &udf{fn: fi}); err != nil {
		t.Fatal(err)
	}
	c.SetLimit(SQLITE_LIMIT_LENGTH, 1000)
	for i, want := range []any{nil, int64(1), int64(-7), int64(math.MaxInt64), 2.5, "te\x00xt", "", []byte{1, 2}, nil, []byte{0, 0, 0}} {
		rows, err := c.QueryContext(context.Background(), "SELECT ctx(?)", []driver.NamedValue{{Ordinal: 1, Value: int64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]driver.Value, 1)
		if err := rows.Next(vals); err != nil {
			t.Fatalf("ctx(%d): %v", i, err)
		}
		rows.Close()
		if !reflect.DeepEqual(vals[0], want) {
			t.Errorf("ctx(%d) = %#v, want %#v", i, vals[0], want)
		}
	}
	_, err := c.QueryContext(context.Background(), "SELECT ctx(10)", nil)
	if !errors.Is(err, ErrTooBig) {
		t.Errorf("ResultText beyond the limit: error %v, want ErrTooBig", err)
	}
}

// TestFuncHandleLeak checks that SQLite's destructors release every handle:
// when a function, aggregate or collation is replaced, when registration
// fails and when the connection closes.
func TestFuncHandleLeak(t *testing.T) {
	base := liveUDFHandles.Load()
	c := openRawConn(t)
	for range 100 {
		if err := c.RegisterFunc("f", func(x int64) int64 { return x }, true); err != nil {
			t.Fatal(err)
		}
		if err := c.RegisterAggregator("a", func() *sumAgg { return &sumAgg{} }, true); err != nil {
			t.Fatal(err)
		}
		if err := c.RegisterAggregator("w", func() *movingSum { return &movingSum{} }, true); err != nil {
			t.Fatal(err)
		}
		if err := c.RegisterCollation("c", strings.Compare); err != nil {
			t.Fatal(err)
		}
	}
	if got := liveUDFHandles.Load() - base; got != 4 {
		t.Errorf("%d live handles after replacing, want 4", got)
	}
	// Overloads by argument count are distinct functions.
	if err := c.RegisterFunc("f", func(x, y int64) int64 { return x }, true); err != nil {
		t.Fatal(err)
	}
	if got := liveUDFHandles.Load() - base; got != 5 {
		t.Errorf("%d live handles with an overload, want 5", got)
	}
	// Failed registrations keep nothing.
	if err := c.RegisterFunc(strings.Repeat("n", 300), func() int { return 0 }, true); err == nil {
		t.Fatal("no error")
	}
	rows, err := c.QueryContext(context.Background(), "SELECT f(value) FROM "+series(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterFunc("f", func(x int64) int64 { return x }, true); !errors.Is(err, ErrBusy) {
		t.Fatalf("replacing a running function: error %v", err)
	}
	if err := c.RegisterCollation("c", strings.Compare); !errors.Is(err, ErrBusy) {
		t.Fatalf("replacing a collation while a statement runs: error %v", err)
	}
	rows.Close()
	if got := liveUDFHandles.Load() - base; got != 5 {
		t.Errorf("%d live handles after failed registrations, want 5", got)
	}
	// Removing a collation releases it.
	if err := c.RegisterCollation("c", nil); err != nil {
		t.Fatal(err)
	}
	if got := liveUDFHandles.Load() - base; got != 4 {
		t.Errorf("%d live handles after removing the collation, want 4", got)
	}
	c.Close()
	if got := liveUDFHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}

	// Through database/sql: every pooled connection registers in its hook
	// and releases at close.
	db := openFuncDB(t, func(c *SQLiteConn) error {
		if err := c.RegisterFunc("f", func(x int64) int64 { return x }, true); err != nil {
			return err
		}
		return c.RegisterAggregator("a", func() *sumAgg { return &sumAgg{} }, true)
	})
	db.SetMaxOpenConns(4)
	ctx := context.Background()
	var conns []*sql.Conn
	for range 4 {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	if got := liveUDFHandles.Load() - base; got != 8 {
		t.Errorf("%d live handles with 4 connections, want 8", got)
	}
	for _, conn := range conns {
		// An aggregation in progress when the connection closes.
		rows, err := conn.QueryContext(ctx, "SELECT value, a(value) FROM "+series(100)+" GROUP BY value % 7")
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		conn.Raw(func(dc any) error { return dc.(*SQLiteConn).Close() })
		rows.Close()
		conn.Close()
	}
	db.Close()
	if got := liveUDFHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after db.Close, want 0", got)
	}
}

// TestFuncConcurrent runs functions, aggregates and collations on several
// connections at once (run with -race): each registration has its own state.
func TestFuncConcurrent(t *testing.T) {
	var calls atomic.Int64
	db := openFuncDB(t, func(c *SQLiteConn) error {
		if err := c.RegisterFunc("inc", func(x int64) int64 { calls.Add(1); return x + 1 }, true); err != nil {
			return err
		}
		if err := c.RegisterFunc("pad", func(s string, n int) string { return s + strings.Repeat(".", n) }, true); err != nil {
			return err
		}
		if err := c.RegisterAggregator("mysum", func() *sumAgg { return &sumAgg{} }, true); err != nil {
			return err
		}
		if err := c.RegisterAggregator("msum", func() *movingSum { return &movingSum{} }, true); err != nil {
			return err
		}
		return c.RegisterCollation("rev", func(a, b string) int { return strings.Compare(b, a) })
	})
	db.SetMaxOpenConns(4)
	const workers, rounds = 8, 30
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			errs <- func() error {
				for r := range rounds {
					var sum, msum int64
					var last string
					q := "SELECT mysum(inc(value)), max(m), max(p COLLATE rev) FROM (SELECT value, msum(value) OVER (ORDER BY value ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS m, pad('x', value % 5) AS p FROM " + series(100+w) + ")"
					if err := db.QueryRow(q).Scan(&sum, &msum, &last); err != nil {
						return err
					}
					n := int64(100 + w)
					if sum != n*(n+1)/2+n || msum != 2*n-1 || last != "x" {
						return fmt.Errorf("worker %d round %d: %d %d %q", w, r, sum, msum, last)
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() == 0 {
		t.Error("inc never called")
	}
}

// A Go function may run SQL on the connection that is calling it, even in
// the middle of a multi-statement Exec, without disturbing the outer statement.
func TestFuncNestedSQLOnSameConnection(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE log(x); CREATE TABLE t(v)", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterFunc("logged", func(v int64) (int64, error) {
		// A different SQL text from the outer one, long enough to outgrow its buffer.
		_, err := c.ExecContext(ctx, "INSERT INTO log VALUES (?); -- "+strings.Repeat("x", 200), []driver.NamedValue{{Ordinal: 1, Value: v}})
		return v * 10, err
	}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (logged(1)); INSERT INTO t VALUES (logged(2)); INSERT INTO t VALUES (3)", nil); err != nil {
		t.Fatalf("outer multi-statement Exec: %v", err)
	}
	rows, err := c.QueryContext(ctx, "SELECT (SELECT group_concat(v) FROM t), (SELECT group_concat(x) FROM log)", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 2)
	if err := rows.Next(dest); err != nil {
		t.Fatal(err)
	}
	if dest[0] != "10,20,3" || dest[1] != "1,2" {
		t.Fatalf("t = %v, log = %v; want 10,20,3 and 1,2", dest[0], dest[1])
	}
}
