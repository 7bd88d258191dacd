//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strconv"
	"testing"
	"time"
)

// directNestedTable fills t(x, y) with n rows: x from 1, y = 'y' || x.
func directNestedTable(t *testing.T, c *SQLiteConn, n int) {
	t.Helper()
	directExec(t, c, "CREATE TABLE t(x INTEGER PRIMARY KEY, y TEXT)")
	directExec(t, c, "CREATE TABLE log(v)")
	directExec(t, c, "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "+strconv.Itoa(n)+") SELECT i, 'y' || i FROM n")
}

// registerInner registers lookup(k) on c: with DirectStmts of its own on c,
// it reads the rows x <= k of t (numbers and text, batched), logs k with
// Exec and ExecColumns, finalizes them, and returns the sum of x (checked
// against k). A failure is the function's error.
func registerInner(t *testing.T, c *SQLiteConn) {
	t.Helper()
	err := c.RegisterFunc("lookup", func(k int64) (int64, error) {
		q, err := c.PrepareDirect("SELECT x, y, x * 0.5 FROM t WHERE x <= ?1 ORDER BY x")
		if err != nil {
			return 0, err
		}
		defer q.Finalize()
		if err := q.BindInt64(1, k); err != nil {
			return 0, err
		}
		var sum int64
		for i := int64(1); ; i++ {
			ok, err := q.Step()
			if err != nil {
				return 0, err
			}
			if !ok {
				break
			}
			x := q.ColumnInt64(0)
			if x != i || q.ColumnText(1) != "y"+strconv.FormatInt(i, 10) || q.ColumnFloat(2) != float64(i)/2 {
				return 0, errors.New("inner row " + strconv.FormatInt(i, 10) + ": " + q.ColumnText(0) + ", " + q.ColumnText(1))
			}
			sum += x
		}
		if sum != k*(k+1)/2 {
			return 0, errors.New("inner sum " + strconv.FormatInt(sum, 10))
		}
		ins, err := c.PrepareDirect("INSERT INTO log VALUES (?)")
		if err != nil {
			return 0, err
		}
		defer ins.Finalize()
		if err := ins.Exec(k); err != nil {
			return 0, err
		}
		if n, err := ins.ExecColumns([]int64{-k}); n != 1 || err != nil {
			return 0, errors.Join(errors.New("ExecColumns"), err)
		}
		return sum, nil
	}, false)
	if err != nil {
		t.Fatal(err)
	}
}

// The outer query's columns, as lookup leaves them.
const directOuterQuery = "SELECT x, y, lookup(x % 5 + 1), 'o' || y, x * 0.25 FROM t"

// checkOuterRow checks row i (from 1) of directOuterQuery.
func checkOuterRow(t *testing.T, i int64, x int64, y string, in int64, oy string, f float64) {
	t.Helper()
	k := i%5 + 1
	sy := "y" + strconv.FormatInt(i, 10)
	if x != i || y != sy || in != k*(k+1)/2 || oy != "o"+sy || f != float64(i)/4 {
		t.Fatalf("outer row %d: %d %q %d %q %v", i, x, y, in, oy, f)
	}
}

// DirectStmts prepared, stepped, executed and finalized inside a Go function
// leave the statement that calls it, database/sql's or a DirectStmt, as it
// was: every row and column of the outer statement is right.
func TestDirectNestedInFunction(t *testing.T) {
	const n = 150
	t.Run("outer=sql", func(t *testing.T) {
		c := rawConn(t, ":memory:")
		directNestedTable(t, c, n)
		registerInner(t, c)
		rows, err := c.QueryContext(context.Background(), directOuterQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		dest := make([]driver.Value, 5)
		i := int64(0)
		for {
			err := rows.Next(dest)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			i++
			checkOuterRow(t, i, dest[0].(int64), dest[1].(string), dest[2].(int64), dest[3].(string), dest[4].(float64))
		}
		if i != n {
			t.Fatalf("%d outer rows", i)
		}
		if got := testDirectInt(t, c, "SELECT count(*) FROM log"); got != 2*n {
			t.Fatalf("%d log rows, want %d", got, 2*n)
		}
	})
	t.Run("outer=direct", func(t *testing.T) {
		c := rawConn(t, ":memory:")
		directNestedTable(t, c, n)
		registerInner(t, c)
		for _, query := range []string{
			directOuterQuery, // read-only: rows stepped ahead, lookup running between them
			"UPDATE t SET y = y RETURNING " + directOuterQuery[len("SELECT "):len(directOuterQuery)-len(" FROM t")], // one row per call
		} {
			s := mustPrepareDirect(t, c, query)
			i := int64(0)
			for {
				ok, err := s.Step()
				if err != nil {
					t.Fatalf("%s: %v", query, err)
				}
				if !ok {
					break
				}
				i++
				checkOuterRow(t, i, s.ColumnInt64(0), s.ColumnText(1), s.ColumnInt64(2), s.ColumnText(3), s.ColumnFloat(4))
			}
			if i != n {
				t.Fatalf("%s: %d outer rows", query, i)
			}
			s.Finalize()
		}
		// The outer as Exec and ExecColumns.
		ins := mustPrepareDirect(t, c, "INSERT INTO log SELECT lookup(?1)")
		if err := ins.Exec(4); err != nil {
			t.Fatal(err)
		}
		if done, err := ins.ExecColumns([]int64{1, 2, 3}); done != 3 || err != nil {
			t.Fatalf("ExecColumns: %d, %v", done, err)
		}
		// lookup(k) logs k: 1..5 each n/5 times per outer query; the INSERTs
		// log lookup's k and then its result.
		if got := testDirectInt(t, c, "SELECT sum(v) FROM log WHERE v > 0"); got != 2*(n/5)*15+(4+10)+(1+1)+(2+3)+(3+6) {
			t.Fatalf("log sum %d", got)
		}
	})
}

// registerNestd registers nestd(x) on c: it runs DirectStmts on c (Step,
// Exec, ExecColumns; one with a context of its own) and returns x.
func registerNestd(t *testing.T, c *SQLiteConn) {
	t.Helper()
	err := c.RegisterFunc("nestd", func(x int64) (int64, error) {
		q, err := c.PrepareDirect("SELECT 1 UNION ALL SELECT 2")
		if err != nil {
			return 0, err
		}
		defer q.Finalize()
		for {
			ok, err := q.Step()
			if err != nil || !ok {
				break
			}
		}
		e, err := c.PrepareDirect("SELECT ?1")
		if err != nil {
			return 0, err
		}
		defer e.Finalize()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		e.SetInterrupt(ctx) // a cancellable one arms the connection anew
		if err := e.Exec(x); err != nil {
			return 0, err
		}
		e.SetInterrupt(context.Background())
		if _, err := e.ExecColumns([]int64{x}); err != nil {
			return 0, err
		}
		return x, nil
	}, false)
	if err != nil {
		t.Fatal(err)
	}
}

// The outer statement's cancellation survives the DirectStmts that a Go
// function runs: its timeout still stops it. Un-cancelled, the outer
// statement counts 5e7 rows (seconds).
func TestDirectNestedKeepsOuterTimeout(t *testing.T) {
	const query = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000000)
		SELECT count(*) FROM c WHERE CASE WHEN x <= 3 THEN nestd(x) ELSE 1 END`
	t.Run("outer=sql", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		conn := testConn(t, db)
		testRawConn(t, conn, func(c *SQLiteConn) { registerNestd(t, c) })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		// ExecContext: a run that the timeout no longer stops ends without
		// error (Rows.Next would report the ended context all the same).
		_, err := conn.ExecContext(ctx, query)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("outer statement after nested DirectStmts: %v, want context.DeadlineExceeded", err)
		}
		if got := testQueryInt(t, conn, "SELECT nestd(7)"); got != 7 {
			t.Fatalf("nestd(7) = %d", got)
		}
	})
	t.Run("outer=direct", func(t *testing.T) {
		c := rawConn(t, ":memory:")
		registerNestd(t, c)
		s := mustPrepareDirect(t, c, query)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		s.SetInterrupt(ctx)
		ok, err := s.Step()
		if ok || err != context.DeadlineExceeded {
			t.Fatalf("outer DirectStmt after nested ones: %v (n=%d), %v; want context.DeadlineExceeded", ok, s.ColumnInt64(0), err)
		}
		if got := testDirectInt(t, c, "SELECT nestd(7)"); got != 7 {
			t.Fatalf("nestd(7) = %d", got)
		}
	})
}

// A statement used from a callback of its own step is ErrMisuse, never a
// crash, a hang or a corrupted run: the outer run goes on unharmed, and the
// statement is usable once its step has returned.
func TestDirectNestedOwnStatement(t *testing.T) {
	c := rawConn(t, ":memory:")
	directNestedTable(t, c, 10)
	var outer *DirectStmt
	var misuses, calls int
	var other []string
	check := func(what string, err error) {
		if isCode(err, ErrMisuse) {
			misuses++
		} else {
			other = append(other, what+": "+errString(err))
		}
	}
	err := c.RegisterFunc("selfuse", func(x int64) int64 {
		calls++
		_, err := outer.Step()
		check("Step", err)
		check("Exec", outer.Exec())
		_, err = outer.ExecColumns([]int64{1})
		check("ExecColumns", err)
		check("Reset", outer.Reset())
		check("ClearBindings", outer.ClearBindings())
		check("BindInt64", outer.BindInt64(1, 1))
		check("Finalize", outer.Finalize())
		if outer.ColumnType(0) != TypeNull || outer.ColumnText(0) != "" || outer.ColumnRawText(1) != nil || outer.ColumnInt64(0) != 0 {
			other = append(other, "a column read during the step was not NULL")
		}
		outer.SetInterrupt(context.Background()) // allowed: for the next run
		return x * 2
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{
		"SELECT x, selfuse(x) FROM t WHERE x >= ?",                // rows stepped ahead
		"UPDATE t SET y = y WHERE x >= ? RETURNING x, selfuse(x)", // one row per call
	} {
		misuses, calls, other = 0, 0, nil
		outer = mustPrepareDirect(t, c, query)
		outer.BindInt64(1, 1)
		for i := int64(1); ; i++ {
			ok, err := outer.Step()
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			if !ok {
				if i != 11 {
					t.Fatalf("%s: %d rows", query, i-1)
				}
				break
			}
			if outer.ColumnInt64(0) != i || outer.ColumnInt64(1) != 2*i {
				t.Fatalf("%s: row %d: %d, %d", query, i, outer.ColumnInt64(0), outer.ColumnInt64(1))
			}
		}
		if len(other) > 0 || misuses != 7*calls || calls == 0 {
			t.Fatalf("%s: %d calls, %d misuses; others: %v", query, calls, misuses, other)
		}
		// Usable again once the step returned.
		outer.Reset()
		mustStep(t, outer, true)
		if err := outer.Finalize(); err != nil {
			t.Fatal(err)
		}
	}
	// The same through Exec and ExecColumns of the outer statement.
	misuses, calls, other = 0, 0, nil
	outer = mustPrepareDirect(t, c, "INSERT INTO log SELECT selfuse(?)")
	if err := outer.Exec(3); err != nil {
		t.Fatal(err)
	}
	if done, err := outer.ExecColumns([]int64{4, 5}); done != 2 || err != nil {
		t.Fatalf("ExecColumns: %d, %v", done, err)
	}
	if len(other) > 0 || misuses != 7*calls || calls != 3 {
		t.Fatalf("Exec, ExecColumns: %d calls, %d misuses; others: %v", calls, misuses, other)
	}
	if got := testDirectInt(t, c, "SELECT sum(v) FROM log"); got != 24 {
		t.Fatalf("log sum %d, want 24", got)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// A DirectStmt read from a Go function converts TEXT of a row stepped ahead
// through a statement of its own (SELECT ?1): preparing it must not take the
// SQL buffer of the outer script, whose later statements still run from it.
func TestDirectNestedKeepsOuterScript(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE log(v)")
	err := c.RegisterFunc("textnum", func() (int64, error) {
		q, err := c.PrepareDirect("SELECT '12' UNION ALL SELECT '13'")
		if err != nil {
			return 0, err
		}
		defer q.Finalize()
		var sum int64
		for {
			ok, err := q.Step()
			if err != nil {
				return 0, err
			}
			if !ok {
				return sum, nil
			}
			sum += q.ColumnInt64(0) // TEXT: SQLite converts it
		}
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	directExec(t, c, "INSERT INTO log VALUES (textnum()); INSERT INTO log VALUES (2); INSERT INTO log VALUES (3)")
	s := mustPrepareDirect(t, c, "SELECT group_concat(v, ',') FROM log")
	mustStep(t, s, true)
	if got := s.ColumnText(0); got != "25,2,3" {
		t.Fatalf("log %q, want \"25,2,3\"", got)
	}
}

// DirectStmts in the callbacks SQLite makes while it compiles or runs a
// statement: an authorizer (while a statement is compiled, its SQL parsed in
// place in the connection's SQL buffer) and the update, commit and rollback
// hooks (SQLite's documentation asks hooks not to use the connection; doing
// so must still not harm the outer statement). The outer script runs to the
// end as written: its ROLLBACK undoes its INSERT.
func TestDirectNestedInHooks(t *testing.T) {
	for _, hook := range []string{"authorizer", "authorizer-sql", "update", "commit", "rollback"} {
		t.Run(hook, func(t *testing.T) {
			c := rawConn(t, ":memory:")
			directExec(t, c, "CREATE TABLE t(x)")
			busy := false // the inner statement's own compilation asks the authorizer too
			var inner []string
			use := func() {
				if busy {
					return
				}
				busy = true
				defer func() { busy = false }()
				if hook == "authorizer-sql" {
					// The same through database/sql's path on the connection.
					rows, err := c.QueryContext(context.Background(), "SELECT count(*) FROM t", nil)
					if err != nil {
						inner = append(inner, "query: "+err.Error())
						return
					}
					defer rows.Close()
					dest := make([]driver.Value, 1)
					if err := rows.Next(dest); err != nil {
						inner = append(inner, "next: "+err.Error())
						return
					}
					inner = append(inner, "n="+strconv.FormatInt(dest[0].(int64), 10))
					return
				}
				q, err := c.PrepareDirect("SELECT count(*) FROM t")
				if err != nil {
					inner = append(inner, "prepare: "+err.Error())
					return
				}
				defer q.Finalize()
				if ok, err := q.Step(); !ok || err != nil {
					inner = append(inner, "step: "+errString(err))
					return
				}
				inner = append(inner, "n="+q.ColumnText(0))
			}
			switch hook {
			case "authorizer", "authorizer-sql":
				c.RegisterAuthorizer(func(op int, _, _, _ string) int {
					if op == SQLITE_INSERT {
						use()
					}
					return SQLITE_OK
				})
			case "update":
				c.RegisterUpdateHook(func(int, string, string, int64) { use() })
			case "commit":
				c.RegisterCommitHook(func() int { use(); return 0 })
			case "rollback":
				c.RegisterRollbackHook(use)
			}
			ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?)")
			if err := ins.Exec(1); err != nil {
				t.Fatal(err)
			}
			directExec(t, c, "BEGIN; INSERT INTO t VALUES (2); ROLLBACK")
			directExec(t, c, "INSERT INTO t VALUES (3); INSERT INTO t VALUES (4)")
			s := mustPrepareDirect(t, c, "SELECT group_concat(x, ',') FROM t")
			mustStep(t, s, true)
			if got := s.ColumnText(0); got != "1,3,4" {
				t.Fatalf("t holds %q, want \"1,3,4\" (inner: %v)", got, inner)
			}
			if len(inner) == 0 {
				t.Fatal("the hook never ran")
			}
			if hook == "authorizer" || hook == "authorizer-sql" {
				// Compiled before each INSERT ran: what the table held then.
				if want := []string{"n=0", "n=1", "n=1", "n=2"}; strconv.Quote(joinStrings(inner)) != strconv.Quote(joinStrings(want)) {
					t.Fatalf("inner reads %v, want %v", inner, want)
				}
			}
			t.Logf("inner reads: %v", inner)
		})
	}
}

func joinStrings(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out
}

// directAgg is dsum(x): the sum of 2*x, each doubled by a DirectStmt of its
// own on the connection, in Step and in Done.
type directAgg struct {
	c   *SQLiteConn
	sum int64
	err error
}

func (a *directAgg) double(x int64) int64 {
	q, err := a.c.PrepareDirect("SELECT ?1 * 2")
	if err != nil {
		a.err = err
		return 0
	}
	defer q.Finalize()
	q.BindInt64(1, x)
	if ok, err := q.Step(); !ok || err != nil {
		a.err = errors.Join(errors.New("no row"), err)
		return 0
	}
	return q.ColumnInt64(0)
}

func (a *directAgg) Step(x int64) { a.sum += a.double(x) }

func (a *directAgg) Done() (int64, error) { return a.double(a.sum) / 2, a.err }

// The same inside an aggregate's Step and Done, grouped, under an outer
// statement of database/sql and a DirectStmt.
func TestDirectNestedInAggregate(t *testing.T) {
	c := rawConn(t, ":memory:")
	directNestedTable(t, c, 90)
	if err := c.RegisterAggregator("dsum", func() *directAgg { return &directAgg{c: c} }, false); err != nil {
		t.Fatal(err)
	}
	const query = "SELECT x % 3, dsum(x), 'g' || (x % 3), count(*) FROM t GROUP BY 1 ORDER BY 1"
	want := func(g int64) int64 { // 2 * the sum of x <= 90 with x % 3 == g
		var s int64
		for x := int64(1); x <= 90; x++ {
			if x%3 == g {
				s += x
			}
		}
		return 2 * s
	}
	rows, err := c.QueryContext(context.Background(), query, nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 4)
	for g := int64(0); g < 3; g++ {
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		if dest[0] != g || dest[1] != want(g) || dest[2] != "g"+strconv.FormatInt(g, 10) || dest[3] != int64(30) {
			t.Fatalf("database/sql group %d: %v", g, dest)
		}
	}
	if err := rows.Next(dest); err != io.EOF {
		t.Fatalf("after the groups: %v", err)
	}
	rows.Close()
	s := mustPrepareDirect(t, c, query)
	for g := int64(0); g < 3; g++ {
		mustStep(t, s, true)
		if s.ColumnInt64(0) != g || s.ColumnInt64(1) != want(g) || s.ColumnText(2) != "g"+strconv.FormatInt(g, 10) || s.ColumnInt64(3) != 30 {
			t.Fatalf("DirectStmt group %d: %d %d %q %d", g, s.ColumnInt64(0), s.ColumnInt64(1), s.ColumnText(2), s.ColumnInt64(3))
		}
	}
	mustStep(t, s, false)
}
