//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// testRawConn runs f on the driver connection behind conn.
func testRawConn(t testing.TB, conn *sql.Conn, f func(c *SQLiteConn)) {
	t.Helper()
	if err := conn.Raw(func(dc any) error { f(dc.(*SQLiteConn)); return nil }); err != nil {
		t.Fatalf("conn.Raw: %v", err)
	}
}

// A ReadOnly transaction stays read-only when SQLite re-prepared the cached
// statements (RegisterAuthorizer expires every statement). Built against
// another SQLite, BeginTx reads "PRAGMA query_only": the value must be read
// from the re-described columns, not from the block the re-prepare freed.
func TestReadOnlyTxAfterReprepare(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	ctx := context.Background()
	testMustExec(t, conn, "CREATE TABLE t(x)")
	testMustExec(t, conn, "INSERT INTO t VALUES (1), (2)")
	for i := range 3 {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		testRawConn(t, conn, func(c *SQLiteConn) {
			c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK })
		})
		tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec("DELETE FROM t")
		tx.Rollback()
		if err == nil {
			t.Fatalf("round %d: DELETE succeeded in a ReadOnly transaction after the statements were expired", i)
		}
		if e := testAsError(t, err); e.Code != ErrReadonly {
			t.Fatalf("round %d: DELETE in a ReadOnly transaction: %v, want ErrReadonly", i, err)
		}
	}
	if n := testQueryInt(t, conn, "SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("%d rows left, want 2", n)
	}
}

var testSchemaSeq int

// testExpirers are the ways a statement gets expired, so that SQLite
// re-prepares it at its next run and the bridge describes its columns again
// (freeing the block Go viewed): an authorizer, a schema change, a limit, a
// function replaced.
var testExpirers = []struct {
	name string
	f    func(c *SQLiteConn) error
}{
	{"authorizer", func(c *SQLiteConn) error {
		c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK })
		return nil
	}},
	{"schema", func(c *SQLiteConn) error {
		// A new table each time: DROP TABLE fails while a statement reads.
		testSchemaSeq++
		_, err := c.ExecContext(context.Background(), "CREATE TABLE scratch"+itoa(testSchemaSeq)+"(x)", nil)
		return err
	}},
	{"limit", func(c *SQLiteConn) error {
		c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, c.GetLimit(SQLITE_LIMIT_VARIABLE_NUMBER))
		return nil
	}},
	{"function", func(c *SQLiteConn) error {
		// Replacing a function expires every statement; SQLite refuses it
		// (SQLITE_BUSY) while a statement runs.
		err := c.RegisterFunc("twice", func(x int64) int64 { return 2 * x }, true)
		if e, ok := err.(Error); ok && e.Code == ErrBusy {
			return nil
		}
		return err
	}},
}

// Every reader of the bridge's memory (rows, column names and types,
// declared types, queryInt, scripts, prepared statements, and under Go 1.27
// the column scanner behind Scan) gives the right results when statements
// are expired between and inside operations. Under go test -asan a read of a
// freed column block fails the run.
func TestReprepareUnderEveryReader(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	testMustExec(t, conn, `CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL, d DATETIME, f BOOLEAN);
		CREATE TABLE w(x INTEGER)`)
	const n = 40
	for i := range n {
		testMustExec(t, conn, "INSERT INTO t VALUES (?, ?, ?, ?)", i, "row "+itoa(i), time.Unix(int64(i)*86400, 0).UTC(), i%2 == 0)
	}
	// The driver connection, kept past Raw: expiries happen while rows are
	// open on conn, and this goroutine alone uses it.
	var dc *SQLiteConn
	testRawConn(t, conn, func(c *SQLiteConn) { dc = c })
	if err := testExpirers[3].f(dc); err != nil { // registers twice()
		t.Fatal(err)
	}
	for _, ex := range testExpirers {
		t.Run(ex.name, func(t *testing.T) {
			expire := func() {
				t.Helper()
				if err := ex.f(dc); err != nil {
					t.Fatalf("%s: %v", ex.name, err)
				}
			}
			for round := range 3 {
				testReprepareRound(t, conn, dc, round, n, expire, ex.f)
			}
		})
	}
}

// testReprepareRound is one round of TestReprepareUnderEveryReader; what it
// opens is closed on return, so that a failure does not block the
// connection's close.
func testReprepareRound(t *testing.T, conn *sql.Conn, dc *SQLiteConn, round, n int, expire func(), ex func(*SQLiteConn) error) {
	ctx := context.Background()
	raw := func(f func(c *SQLiteConn)) { f(dc) }
	// Rows, with expiries before the query, before the column
	// descriptions and between rows.
	expire()
	rows, err := conn.QueryContext(ctx, "SELECT a, b, d, f, twice(a) FROM t ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	expire()
	cols, err := rows.Columns()
	if err != nil || len(cols) != 5 || cols[1] != "b" {
		t.Fatalf("round %d: columns %q, %v", round, cols, err)
	}
	types, err := rows.ColumnTypes()
	if err != nil || len(types) != 5 || types[2].DatabaseTypeName() != "DATETIME" {
		t.Fatalf("round %d: column types %v, %v", round, types, err)
	}
	if null, ok := types[1].Nullable(); !ok || null {
		t.Fatalf("round %d: column b nullable %v %v", round, null, ok)
	}
	i := 0
	for rows.Next() {
		var a, a2 int64
		var b string
		var d time.Time
		var f bool
		if err := rows.Scan(&a, &b, &d, &f, &a2); err != nil {
			t.Fatal(err)
		}
		if a != int64(i) || b != "row "+itoa(i) || !d.Equal(time.Unix(int64(i)*86400, 0)) || f != (i%2 == 0) || a2 != 2*a {
			t.Fatalf("round %d, row %d: %d %q %v %v %d", round, i, a, b, d, f, a2)
		}
		if i%7 == 3 {
			expire()
		}
		i++
	}
	if err := rows.Err(); err != nil || i != n {
		t.Fatalf("round %d: %d rows, %v", round, i, err)
	}
	rows.Close()

	// queryInt: a ReadOnly transaction stays read-only.
	expire()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("DELETE FROM t")
	tx.Rollback()
	if err == nil {
		t.Fatalf("round %d: DELETE ran in a ReadOnly transaction", round)
	}

	// A script, and a query after a script.
	expire()
	res := testMustExec(t, conn, "DELETE FROM w; INSERT INTO w VALUES (1), (2); INSERT INTO w SELECT twice(x) FROM w")
	if k, _ := res.RowsAffected(); k != 2 {
		t.Fatalf("round %d: script changed %d rows", round, k)
	}
	if s := testQueryInt(t, conn, "UPDATE w SET x = x + 1 WHERE x > 100; SELECT sum(x) FROM w"); s != 9 {
		t.Fatalf("round %d: sum %d", round, s)
	}

	// A prepared statement, expired between its runs.
	st, err := conn.PrepareContext(ctx, "SELECT b, twice(a) FROM t WHERE a = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for k := range 3 {
		expire()
		var b string
		var a2 int64
		if err := st.QueryRowContext(ctx, k).Scan(&b, &a2); err != nil || b != "row "+itoa(k) || a2 != int64(2*k) {
			t.Fatalf("round %d: prepared run %d: %q %d %v", round, k, b, a2, err)
		}
	}
	st.Close()

	// Declared types, read from the driver's rows.
	raw(func(c *SQLiteConn) {
		if err := ex(c); err != nil {
			t.Fatal(err)
		}
		dr, err := c.QueryContext(ctx, "SELECT a, d, f FROM t", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dr.Close()
		if err := ex(c); err != nil {
			t.Fatal(err)
		}
		if decl := dr.(*SQLiteRows).DeclTypes(); len(decl) != 3 || decl[1] != "datetime" || decl[2] != "boolean" {
			t.Fatalf("round %d: declared types %q", round, decl)
		}
	})
}

// A cached "SELECT *" follows a schema change between its runs, and also
// when the change is made by a callback of another statement.
func TestReprepareShapeChange(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	ctx := context.Background()
	testMustExec(t, conn, "CREATE TABLE s(c0 INTEGER); INSERT INTO s VALUES (0)")
	// expire_inside() expires every statement from inside a step: the
	// running statement goes on, the next run of any cached one re-prepares.
	testRawConn(t, conn, func(c *SQLiteConn) {
		if err := c.RegisterFunc("expire_inside", func(x int64) int64 {
			c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK })
			return x
		}, false); err != nil {
			t.Fatal(err)
		}
	})
	for k := 1; k <= 8; k++ {
		rows, err := conn.QueryContext(ctx, "SELECT * FROM s")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		if len(cols) != k {
			t.Fatalf("%d columns, want %d", len(cols), k)
		}
		vals := make([]any, k)
		ptrs := make([]any, k)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if v != int64(i) {
				t.Fatalf("with %d columns: column %d is %v", k, i, v)
			}
		}
		rows.Close()
		if got := testQueryInt(t, conn, "SELECT expire_inside(c0) + count(*) FROM s"); got != 1 {
			t.Fatalf("expire_inside: %d", got)
		}
		testMustExec(t, conn, "ALTER TABLE s ADD COLUMN c"+itoa(k)+" INTEGER DEFAULT "+itoa(k))
	}
}
