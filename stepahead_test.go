//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A program that writes, on the connection a SELECT is reading from, rows
// the SELECT has not reached yet sees them changed, as with one step per row
// (mattn/go-sqlite3): rows are not stepped ahead on a connection that can
// write. Issue 22, row 6 (repro aheadwrite).
func TestWritesAheadOfOpenRowsAreSeen(t *testing.T) {
	db := openTestDB(t, "file:"+filepath.Join(t.TempDir(), "ahead.db"))
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER)")
	testMustExec(t, db, "CREATE TABLE ev(id INTEGER PRIMARY KEY, k TEXT)")
	for i := 1; i <= 100; i++ {
		testMustExec(t, db, "INSERT INTO acct VALUES(?, 100)", i)
		testMustExec(t, db, "INSERT INTO ev(k) VALUES(?)", fmt.Sprint("k", i%3))
	}

	// Carry: each row moves 10 to the next account, read after the move.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query("SELECT id, bal FROM acct ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, bal int
		if err := rows.Scan(&id, &bal); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 100, false: 110}[id == 1]; bal != want {
			t.Fatalf("carry: account %d read as %d, want %d (the write before it was not seen)", id, bal, want)
		}
		if _, err := tx.Exec("UPDATE acct SET bal = bal + 10 WHERE id = ?", id+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// Dedup: delete every later row with the key of the current one; no
	// deleted row is returned.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err = tx.Query("SELECT id, k FROM ev ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	for rows.Next() {
		var id int
		var k string
		if err := rows.Scan(&id, &k); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, id)
		if _, err := tx.Exec("DELETE FROM ev WHERE k = ? AND id > ?", k, id); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	tx.Commit()
	if fmt.Sprint(seen) != "[1 2 3]" {
		t.Fatalf("dedup: rows seen %v, want [1 2 3] (rows already deleted were returned)", seen)
	}
}

// The same through DirectStmts on one connection.
func TestDirectWritesAheadOfStepAreSeen(t *testing.T) {
	c := rawConn(t, "file:"+filepath.Join(t.TempDir(), "ahead.db"))
	directExec(t, c, "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER)")
	directExec(t, c, "INSERT INTO acct WITH RECURSIVE k(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM k WHERE value < 100) SELECT value, 100 FROM k")
	directExec(t, c, "BEGIN")
	sel := mustPrepareDirect(t, c, "SELECT id, bal FROM acct ORDER BY id")
	upd := mustPrepareDirect(t, c, "UPDATE acct SET bal = bal + 10 WHERE id = ?")
	for {
		ok, err := sel.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		id, bal := sel.ColumnInt64(0), sel.ColumnInt64(1)
		if want := map[bool]int64{true: 100, false: 110}[id == 1]; bal != want {
			t.Fatalf("account %d read as %d, want %d", id, bal, want)
		}
		if err := upd.Exec(id + 1); err != nil {
			t.Fatal(err)
		}
	}
	sel.Finalize()
	upd.Finalize()
	directExec(t, c, "COMMIT")
}

// Where nothing can write on the connection (a read-only transaction,
// _query_only=1), rows are still stepped ahead, several per cgo call.
func TestStepAheadWhereNothingCanWrite(t *testing.T) {
	if !stepsAheadBuilt() {
		t.Skip("this build steps one row per call (the amalgamation is not compiled into the bridge)")
	}
	path := filepath.Join(t.TempDir(), "ro.db")
	db := openTestDB(t, "file:"+path)
	testMustExec(t, db, "CREATE TABLE t(x INTEGER)")
	testMustExec(t, db, "INSERT INTO t WITH RECURSIVE k(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM k WHERE value < 500) SELECT value FROM k")
	batched := func(db *sql.DB, readOnlyTx bool) (most int) {
		t.Helper()
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = conn.Raw(func(dc any) error {
			c := dc.(*SQLiteConn)
			if readOnlyTx {
				tx, err := c.BeginTx(context.Background(), driver.TxOptions{ReadOnly: true})
				if err != nil {
					return err
				}
				defer tx.Rollback()
			}
			rows, err := c.QueryContext(context.Background(), "SELECT x FROM t", nil)
			if err != nil {
				return err
			}
			defer rows.Close()
			dest := make([]driver.Value, 1)
			n := 0
			for ; rows.Next(dest) == nil; n++ {
				most = max(most, rows.(*SQLiteRows).s.run.nb)
			}
			if n != 500 {
				t.Errorf("%d rows, want 500", n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return most
	}
	if n := batched(db, false); n > 1 {
		t.Errorf("a connection that can write stepped %d rows ahead", n)
	}
	if n := batched(db, true); n < 2 {
		t.Errorf("a read-only transaction stepped no row ahead (batches of %d)", n)
	}
	ro := openTestDB(t, "file:"+path+"?_query_only=1")
	if n := batched(ro, false); n < 2 {
		t.Errorf("a _query_only connection stepped no row ahead (batches of %d)", n)
	}
	if _, err := ro.Exec("INSERT INTO t VALUES (0)"); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("write on _query_only: %v", err)
	}
}

// The last row of a lookup by key (or of a SELECT of constants) ends the
// statement in the call that steps it: the read transaction is over before
// the caller asks for more, nothing is left for Close to reset, and the
// values are those of the row, TEXT and BLOB copied out. A row with more
// bytes than a batch row holds, a scan and EXPLAIN are left as they were.
// Issue 31.
func TestLastRowEndsTheStatement(t *testing.T) {
	c := rawConn(t, "file:"+filepath.Join(t.TempDir(), "last.db")+"?_journal_mode=WAL")
	ctx := context.Background()
	long := strings.Repeat("x", 300)
	for _, q := range []string{
		"CREATE TABLE kv(id INTEGER PRIMARY KEY, v TEXT, b BLOB)",
		"INSERT INTO kv VALUES (1, 'one', x'0102'), (2, '" + long + "', NULL), (3, '', x'')",
	} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		query string
		arg   int64
		want  []driver.Value
		ended bool // stepped to its end with the row
	}{
		{"SELECT v, b FROM kv WHERE id = ?", 1, []driver.Value{"one", []byte{1, 2}}, true},
		{"SELECT v, b FROM kv WHERE id = ?", 3, []driver.Value{"", []byte{}}, true},
		{"SELECT v, b FROM kv WHERE id = ?", 2, []driver.Value{long, nil}, false},
		{"SELECT ?1, 'two', 3.5", 7, []driver.Value{int64(7), "two", 3.5}, true},
		{"SELECT v FROM kv WHERE id >= ? ORDER BY id", 1, []driver.Value{"one"}, false},
	} {
		rows, err := c.QueryContext(ctx, tc.query, []driver.NamedValue{{Ordinal: 1, Value: tc.arg}})
		if err != nil {
			t.Fatal(err)
		}
		r := rows.(*SQLiteRows)
		// Only the amalgamation compiled into the bridge shows the program.
		tc.ended = tc.ended && stepsAheadBuilt()
		dest := make([]driver.Value, len(tc.want))
		if err := r.Next(dest); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if fmt.Sprint(dest) != fmt.Sprint(tc.want) {
			t.Errorf("%s (%d): %v, want %v", tc.query, tc.arg, dest, tc.want)
		}
		if ended := stmtAfter(r.s.h) == sqliteDone; ended != tc.ended {
			t.Errorf("%s (%d): stepped to the end: %v, want %v", tc.query, tc.arg, ended, tc.ended)
		}
		if tc.ended && !cTxnNone(c.h) {
			t.Errorf("%s (%d): a transaction is left after the last row", tc.query, tc.arg)
		}
		if tc.ended {
			if err := r.Next(dest); err != io.EOF {
				t.Errorf("%s: second Next: %v, want io.EOF", tc.query, err)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if !cTxnNone(c.h) {
			t.Errorf("%s: a transaction is left after Close", tc.query)
		}
	}
	// With another connection of the process on the file, the read ends at
	// Close, as before (SQLiteStmt.query).
	other := rawConn(t, "file:"+c.GetFilename("main"))
	rows, err := c.QueryContext(ctx, "SELECT v FROM kv WHERE id = ?", []driver.NamedValue{{Ordinal: 1, Value: int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if stmtAfter(rows.(*SQLiteRows).s.h) != 0 || cTxnNone(c.h) {
		t.Error("stepped past the last row with another connection on the file")
	}
	rows.Close()
	other.Close()
	// EXPLAIN lists the program: every row of it comes.
	rows, err = c.QueryContext(ctx, "EXPLAIN SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	dest := make([]driver.Value, len(rows.Columns()))
	for rows.Next(dest) == nil {
		n++
	}
	rows.Close()
	if n < 3 {
		t.Errorf("EXPLAIN SELECT 1: %d rows", n)
	}
}

// Rows that come out of a sort (ORDER BY without an index) are made before
// the first is returned: a write between two Next calls cannot change them,
// so they are stepped ahead on a connection that can write too, with the
// rows of one step per row. A scan of the table itself is not. Issue 31.
func TestSortedRowsSteppedAheadOnWritableConn(t *testing.T) {
	c := rawConn(t, "file:"+filepath.Join(t.TempDir(), "sorted.db"))
	ctx := context.Background()
	exec := func(q string, args ...driver.NamedValue) {
		t.Helper()
		if _, err := c.ExecContext(ctx, q, args); err != nil {
			t.Fatal(q, err)
		}
	}
	exec("CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER, name TEXT)")
	exec("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 200) INSERT INTO acct SELECT x, 1000-x, 'n' || x FROM r")
	read := func(query string, between func(id int64)) (got []string, ahead bool) {
		t.Helper()
		rows, err := c.QueryContext(ctx, query, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		r := rows.(*SQLiteRows)
		dest := make([]driver.Value, 3)
		for r.Next(dest) == nil {
			got = append(got, fmt.Sprint(dest))
			ahead = ahead || r.s.run.nb > 1
			if between != nil {
				between(dest[0].(int64))
			}
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		return got, ahead
	}
	for _, tc := range []struct {
		query string
		ahead bool
	}{
		{"SELECT id, bal, name FROM acct ORDER BY bal", true},
		{"SELECT id, bal, name FROM acct ORDER BY bal LIMIT 150 OFFSET 3", true},
		{"SELECT id, bal, name FROM acct ORDER BY id", false},
		{"SELECT DISTINCT id, bal, name FROM acct", false},
		{"SELECT id, bal, upper(name) FROM acct ORDER BY bal", true},
	} {
		want, _ := read(tc.query, nil)
		exec("BEGIN")
		got, ahead := read(tc.query, func(id int64) {
			// Change every row not read yet, and run another statement.
			exec("UPDATE acct SET bal = bal + 1, name = name || 'x' WHERE id <> ?", driver.NamedValue{Ordinal: 1, Value: id})
			if _, err := c.queryInt("SELECT 1"); err != nil {
				t.Fatal(err)
			}
		})
		exec("ROLLBACK")
		if ahead != tc.ahead && stepsAheadBuilt() {
			t.Errorf("%s: stepped ahead %v, want %v", tc.query, ahead, tc.ahead)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", tc.query, len(got), len(want))
		}
		// Sorted rows keep the values they were sorted with; a scan of the
		// table sees the writes made before it reached a row.
		if same := fmt.Sprint(got) == fmt.Sprint(want); same != tc.ahead {
			t.Errorf("%s: rows as before the writes: %v, want %v\n got %v\nwant %v", tc.query, same, tc.ahead, got[:3], want[:3])
		}
	}
}
