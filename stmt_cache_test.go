//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// rawConn opens one driver connection directly, without database/sql.
func rawConn(t testing.TB, dsn string) *SQLiteConn {
	t.Helper()
	c, err := (&SQLiteDriver{}).Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*SQLiteConn)
}

func TestStmtCacheReusesStatements(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(x)", nil); err != nil {
		t.Fatal(err)
	}
	insert := "INSERT INTO t VALUES (?)"
	for i := 0; i < 3; i++ {
		if _, err := c.ExecContext(ctx, insert, []driver.NamedValue{{Ordinal: 1, Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	first := c.cache.take(insert)
	if first == nil {
		t.Fatal("the INSERT is not in the cache after use")
	}
	c.cache.put(first)
	if _, err := c.ExecContext(ctx, insert, []driver.NamedValue{{Ordinal: 1, Value: int64(9)}}); err != nil {
		t.Fatal(err)
	}
	if again := c.cache.take(insert); again != first {
		t.Fatalf("the INSERT was prepared again instead of reused")
	}
}

func TestStmtCacheBounded(t *testing.T) {
	c := rawConn(t, ":memory:?_stmt_cache_size=3")
	ctx := context.Background()
	for _, q := range []string{"SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4", "SELECT 5"} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	for _, s := range c.cache.idle {
		keys = append(keys, s.cacheKey)
	}
	if want := []string{"SELECT 3", "SELECT 4", "SELECT 5"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("cache holds %q, want the 3 most recent %q", keys, want)
	}
}

func TestStmtCacheDisabled(t *testing.T) {
	c := rawConn(t, ":memory:?_stmt_cache_size=0")
	if _, err := c.ExecContext(context.Background(), "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(c.cache.idle); n != 0 {
		t.Fatalf("_stmt_cache_size=0 keeps %d statements", n)
	}
}

func TestStmtCacheMultiStatementNotCached(t *testing.T) {
	c := rawConn(t, ":memory:")
	if _, err := c.ExecContext(context.Background(), "SELECT 1; SELECT 2", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(c.cache.idle); n != 0 {
		t.Fatalf("a multi-statement script left %d statements in the cache", n)
	}
}

// A cached "SELECT *" must follow the table when a column is added: SQLite
// re-prepares it and the bridge must describe the new columns.
func TestStmtCacheSchemaChange(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE t(a INTEGER, b TEXT)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'one')")
	readAll := func() []any {
		rows, err := db.Query("SELECT * FROM t")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rows.Next() {
			t.Fatalf("no row: %v", rows.Err())
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		return append([]any{cols}, vals...)
	}
	before := readAll()
	if want := []any{[]string{"a", "b"}, int64(1), "one"}; !reflect.DeepEqual(before, want) {
		t.Fatalf("before: %#v, want %#v", before, want)
	}
	mustExec(t, db, "ALTER TABLE t ADD COLUMN c DATETIME DEFAULT '2026-01-02 03:04:05'")
	mustExec(t, db, "ALTER TABLE t ADD COLUMN d BLOB DEFAULT x'00ff'")
	after := readAll()
	if len(after) != 5 {
		t.Fatalf("after ALTER TABLE: %#v, want 4 columns", after)
	}
	if cols := after[0].([]string); !reflect.DeepEqual(cols, []string{"a", "b", "c", "d"}) {
		t.Fatalf("columns after ALTER TABLE: %q", cols)
	}
	if _, ok := after[3].(interface{ Year() int }); !ok {
		t.Fatalf("new DATETIME column read as %T, want time.Time", after[3])
	}
	if b, ok := after[4].([]byte); !ok || len(b) != 2 || b[1] != 0xff {
		t.Fatalf("new BLOB column read as %#v", after[4])
	}
}

func TestPrepareRejectsSeveralStatements(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:?_strict=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Prepare("SELECT 1; SELECT 2"); err == nil {
		t.Fatal("Prepare of two statements succeeded; the second would be silently dropped")
	}
	st, err := db.Prepare("SELECT 1; -- trailing comment\n;")
	if err != nil {
		t.Fatalf("Prepare with trailing comment: %v", err)
	}
	st.Close()
}

// Running a statement again while rows of its previous run are open ends the
// old rows with an error instead of letting them read the new run.
func TestStmtRerunEndsOpenRows(t *testing.T) {
	c := rawConn(t, ":memory:")
	ds, err := c.Prepare("SELECT value FROM generate_series(1, 3)")
	if err != nil {
		// generate_series is not compiled in; use a recursive CTE instead
		ds, err = c.Prepare("WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM s WHERE value < 3) SELECT value FROM s")
		if err != nil {
			t.Fatal(err)
		}
	}
	defer ds.Close()
	s := ds.(*SQLiteStmt)
	r1, err := s.QueryContext(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := r1.Next(dest); err != nil || dest[0] != int64(1) {
		t.Fatalf("first row: %v %v", dest[0], err)
	}
	r2, err := s.QueryContext(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r1.Next(dest); err == nil {
		t.Fatalf("old rows still read %v after the statement was run again", dest[0])
	}
	// Closing the old rows leaves the statement's new run alone.
	if err := r2.Next(dest); err != nil || dest[0] != int64(1) {
		t.Fatalf("new rows, first row: %v %v", dest[0], err)
	}
	r1.Close()
	n := 1
	for r2.Next(dest) == nil {
		n++
	}
	if n != 3 {
		t.Fatalf("new rows gave %d rows, want 3", n)
	}
	r2.Close()
}

// Closing a connection with statements and rows still open frees them, and
// later use of those handles is an error, not a crash.
func TestConnCloseWithOpenStatements(t *testing.T) {
	d := &SQLiteDriver{}
	dc, err := d.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*SQLiteConn)
	st, err := c.Prepare("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(context.Background(), "SELECT 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := st.(*SQLiteStmt).ExecContext(context.Background(), nil); err == nil {
		t.Fatal("Exec on a statement of a closed connection succeeded")
	}
	if err := rows.Next(make([]driver.Value, 1)); err == nil {
		t.Fatal("Next on rows of a closed connection succeeded")
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(context.Background(), "SELECT 1", nil); err != driver.ErrBadConn {
		t.Fatalf("Exec on closed connection: %v, want driver.ErrBadConn", err)
	}
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) sql.Result {
	t.Helper()
	res, err := db.Exec(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// A statement that served db.Query and went back to the cache, then taken by
// db.Prepare, belongs to the prepared statement: closing its rows must not
// hand it back to the cache.
func TestStmtCacheQueryThenPrepare(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRow("SELECT ?", 1).Scan(&n); err != nil {
		t.Fatal(err)
	}
	st, err := db.Prepare("SELECT ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < 3; i++ {
		if err := st.QueryRow(i).Scan(&n); err != nil || n != i {
			t.Fatalf("prepared statement, run %d: %d, %v", i, n, err)
		}
	}
}

// An Exec at the driver level allocates less than one object in steady state:
// its result is cut from a block of results (newResult), the statement comes
// from the cache, and its arguments are bound through C memory.
func TestExecAllocatesNothing(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(x INTEGER, y TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(7)}, {Ordinal: 2, Value: "seven"}}
	var last driver.Result
	allocs := testing.AllocsPerRun(1000, func() {
		res, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?, ?)", args)
		if err != nil {
			t.Fatal(err)
		}
		last = res
	})
	if allocs != 0 { // AllocsPerRun rounds down: resultBlock Execs share one allocation
		t.Errorf("%v allocations per cached Exec", allocs)
	}
	// Results stay what they were through later Execs.
	first, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?, ?)", args)
	if err != nil {
		t.Fatal(err)
	}
	for range 5000 {
		if _, err := c.ExecContext(ctx, "DELETE FROM t WHERE rowid = (SELECT min(rowid) FROM t)", nil); err != nil {
			t.Fatal(err)
		}
	}
	if id, _ := first.LastInsertId(); id != 1002 {
		t.Errorf("first result's LastInsertId = %d after later Execs, want 1002", id)
	}
	if n, _ := first.RowsAffected(); n != 1 {
		t.Errorf("first result's RowsAffected = %d after later Execs, want 1", n)
	}
	if id, _ := last.LastInsertId(); id != 1001 {
		t.Errorf("LastInsertId = %d, want 1001", id)
	}
}

// The statement cache must not change a result: each scenario runs with the
// default cache and with _stmt_cache_size=0, and both must give the same
// outcomes, step by step.

func cacheScenario(t *testing.T, run func(t *testing.T, c *SQLiteConn) []string) {
	t.Helper()
	withCache := run(t, rawConn(t, ":memory:"))
	without := run(t, rawConn(t, ":memory:?_stmt_cache_size=0"))
	if strings.Join(withCache, "\n") != strings.Join(without, "\n") {
		t.Fatalf("results differ with the statement cache:\ncached:   %q\nuncached: %q", withCache, without)
	}
}

// outcome names the result of one step of a scenario.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var e Error
	if errors.As(err, &e) {
		return e.Code.Error()
	}
	return err.Error()
}

func TestStmtCacheAuthorizerDecidesEachTime(t *testing.T) {
	cacheScenario(t, func(t *testing.T, c *SQLiteConn) []string {
		ctx := context.Background()
		if _, err := c.ExecContext(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", nil); err != nil {
			t.Fatal(err)
		}
		deny := false
		calls := 0
		c.RegisterAuthorizer(func(op int, a, b, db string) int {
			calls++
			if deny && op == SQLITE_UPDATE {
				return SQLITE_DENY
			}
			return SQLITE_OK
		})
		var got []string
		for _, d := range []bool{false, false, true, true, false} {
			deny = d
			_, err := c.ExecContext(ctx, "UPDATE t SET x = x + 1", nil)
			got = append(got, outcome(err))
			rows, err := c.QueryContext(ctx, "SELECT x FROM t", nil)
			got = append(got, outcome(err))
			if err == nil {
				rows.Close()
			}
		}
		c.RegisterAuthorizer(nil)
		_, err := c.ExecContext(ctx, "UPDATE t SET x = x + 1", nil)
		got = append(got, outcome(err), "authorizer calls while registered: "+itoa(calls))
		return got
	})
}

func TestStmtCacheLimitAppliesToCachedStatements(t *testing.T) {
	cacheScenario(t, func(t *testing.T, c *SQLiteConn) []string {
		ctx := context.Background()
		if _, err := c.ExecContext(ctx, "CREATE TABLE t(x)", nil); err != nil {
			t.Fatal(err)
		}
		insert := "INSERT INTO t VALUES (?)" + strings.Repeat(", (?)", 799)
		args := make([]driver.NamedValue, 800)
		for i := range args {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: int64(i)}
		}
		var got []string
		_, err := c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 500)
		_, err = c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_SQL_LENGTH, 100)
		_, err = c.ExecContext(ctx, "SELECT count(*) FROM t WHERE x > 0 AND x < 1000000 AND x <> 5 AND x <> 6 AND x <> 7", nil)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_SQL_LENGTH, 1000000)
		c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 1000)
		_, err = c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		return got
	})
}

// A limit lowered while a cached statement is in use (its rows open) applies
// to the next run: the statement is finalized when released, not kept.
func TestStmtCacheLimitRetiresStatementInUse(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	q := "SELECT ?, ?, ?"
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(1)}, {Ordinal: 2, Value: int64(2)}, {Ordinal: 3, Value: int64(3)}}
	rows, err := c.QueryContext(ctx, q, args)
	if err != nil {
		t.Fatal(err)
	}
	c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 2)
	rows.Close()
	if _, err := c.QueryContext(ctx, q, args); err == nil {
		t.Fatal("a statement compiled before SetLimit lowered the variable limit ran again from the cache")
	}
}
