//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only query's rows of numbers are stepped ahead in batches
// (bridge_step_batch); here a row with TEXT ends a batch only when it is the
// batch's last (TestRowsBatchesCopyShortText covers longer values). Every row must
// come back in order, whatever the mix, and a statement closed half way runs
// again from the start.
func TestRowsBatchesInOrder(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	const n = 1000
	if _, err := c.ExecContext(ctx, `CREATE TABLE seq (x INTEGER, f REAL, t TEXT);
		WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM k WHERE x < 1000)
		INSERT INTO seq SELECT x, CASE WHEN x % 7 = 0 THEN NULL ELSE x / 4.0 END,
			CASE WHEN x % 97 = 0 OR x BETWEEN 500 AND 503 THEN 'text ' || x END FROM k`, nil); err != nil {
		t.Fatal(err)
	}
	check := func(query string, stopAt int) {
		t.Helper()
		rows, err := c.QueryContext(ctx, query, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for x := 1; ; x++ {
			dest := make([]driver.Value, 3)
			err := rows.Next(dest)
			if x > n {
				if err != io.EOF {
					t.Fatalf("%s: after %d rows: %v, want io.EOF", query, n, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: row %d: %v", query, x, err)
			}
			var f driver.Value = float64(x) / 4
			if x%7 == 0 {
				f = nil
			}
			var txt driver.Value
			if x%97 == 0 || x >= 500 && x <= 503 {
				txt = fmt.Sprintf("text %d", x)
			}
			if dest[0] != int64(x) || dest[1] != f || dest[2] != txt {
				t.Fatalf("%s: row %d = %v, want [%d %v %v]", query, x, dest, x, f, txt)
			}
			if x == stopAt {
				return
			}
		}
	}
	q := "SELECT x, f, t FROM seq ORDER BY x"
	check(q, 3)   // closed inside the first batch
	check(q, 150) // closed inside a later batch
	check(q, 0)   // to the end
	check(q, 0)   // the cached statement again
}

// An error that follows rows stepped ahead comes after those rows, and is the
// statement's own error even when other SQL ran on the connection meanwhile.
func TestRowsBatchErrorAfterRows(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	rows, err := c.QueryContext(ctx, `WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM k WHERE x < 100)
		SELECT CASE WHEN x = 40 THEN abs(-9223372036854775807 - 1) ELSE x END FROM k`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	for x := 1; x < 40; x++ {
		if err := rows.Next(dest); err != nil || dest[0] != int64(x) {
			t.Fatalf("row %d: %v %v", x, dest[0], err)
		}
		if x == 35 {
			// Another statement fails on the connection between two rows, after
			// the batch that ends with the error was stepped (rows 32 to 39).
			if _, err := c.ExecContext(ctx, "SELECT * FROM no_such_table", nil); err == nil {
				t.Fatal("query of a missing table succeeded")
			}
		}
	}
	err = rows.Next(dest)
	var se Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "integer overflow") {
		t.Fatalf("row 40: %v, want SQLite's integer overflow error", err)
	}
	if err2 := rows.Next(dest); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("after the error: %v, want the same error", err2)
	}
}

// Statements that write are never stepped ahead: each row of RETURNING is
// stepped when asked, and closing early leaves the statement's effects as
// SQLite defines them (all of the DML runs at the first step).
func TestRowsNoBatchForWrites(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE w (x INTEGER)", nil); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, `WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM k WHERE x < 50)
		INSERT INTO w SELECT x FROM k RETURNING x`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows.(*SQLiteRows).s.Readonly() {
		t.Fatal("INSERT ... RETURNING reported read-only")
	}
	dest := make([]driver.Value, 1)
	for x := 1; x <= 50; x++ {
		if err := rows.Next(dest); err != nil || dest[0] != int64(x) {
			t.Fatalf("row %d: %v %v", x, dest[0], err)
		}
	}
	if err := rows.Next(dest); err != io.EOF {
		t.Fatalf("after 50 rows: %v", err)
	}
	rows.Close()
	if n, err := c.queryInt("SELECT count(*) FROM w"); err != nil || n != 50 {
		t.Fatalf("count = %d, %v", n, err)
	}
}

// Rows whose TEXT and BLOB values are short are stepped ahead too, their
// values copied out of SQLite's memory (bridge_step_batch); longer rows end a
// batch. Every value of every row must come back intact, through Next and,
// in database/sql, through sql.RawBytes (which points at the copies under Go
// 1.27), with other statements running on the connection between rows.
func TestRowsBatchesCopyShortText(t *testing.T) {
	const n = 3000
	setup := `CREATE TABLE v (i INTEGER, t TEXT, b BLOB);
		WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM k WHERE i < 2999)
		INSERT INTO v SELECT i,
			CASE WHEN i % 11 = 3 THEN NULL ELSE replace(hex(zeroblob(i * 37 % 300)), '00', char(97 + i % 26)) END,
			CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN x'' ELSE CAST(replace(hex(zeroblob(i % 50)), '00', char(65 + i % 26)) AS BLOB) END
		FROM k`
	wantT := func(i int) any {
		if i%11 == 3 {
			return nil
		}
		return strings.Repeat(string(rune('a'+i%26)), i*37%300)
	}
	wantB := func(i int) any {
		switch i % 5 {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		return []byte(strings.Repeat(string(rune('A'+i%26)), i%50))
	}

	t.Run("Next", func(t *testing.T) {
		c := rawConn(t, ":memory:")
		ctx := context.Background()
		// Rows are stepped ahead only where nothing can write.
		if _, err := c.ExecContext(ctx, setup+"; PRAGMA query_only = 1", nil); err != nil {
			t.Fatal(err)
		}
		rows, err := c.QueryContext(ctx, "SELECT i, t, b FROM v ORDER BY i", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		batched := 0
		for i := 0; i < n; i++ {
			dest := make([]driver.Value, 3)
			if err := rows.Next(dest); err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			batched = max(batched, rows.(*SQLiteRows).s.run.nb)
			if dest[0] != int64(i) || dest[1] != wantT(i) || fmt.Sprint(dest[2]) != fmt.Sprint(wantB(i)) ||
				(dest[2] == nil) != (wantB(i) == nil) {
				t.Fatalf("row %d = %q, want [%d %q %q]", i, dest, i, wantT(i), wantB(i))
			}
			if i%100 == 7 {
				if _, err := c.ExecContext(ctx, "SELECT 'other', x'00ff', ?", []driver.NamedValue{{Ordinal: 1, Value: "bound text"}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := rows.Next(make([]driver.Value, 3)); err != io.EOF {
			t.Fatalf("after %d rows: %v", n, err)
		}
		if batched < 8 && stepsAheadBuilt() {
			t.Errorf("at most %d rows per batch; short TEXT rows should be stepped ahead", batched)
		}
	})

	t.Run("RawBytes", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(setup + "; PRAGMA query_only = 1"); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query("SELECT i, t, b FROM v ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		i := 0
		for ; rows.Next(); i++ {
			var got int
			var tv, bv sql.RawBytes
			if err := rows.Scan(&got, &tv, &bv); err != nil {
				t.Fatal(err)
			}
			wt, _ := wantT(i).(string)
			wb, _ := wantB(i).([]byte)
			// NULL must scan as nil (an empty value may too, under Go 1.26).
			if got != i || string(tv) != wt || wantT(i) == nil && tv != nil || string(bv) != string(wb) || wantB(i) == nil && bv != nil {
				t.Fatalf("row %d = %d %q %q, want %q %q", i, got, tv, bv, wantT(i), wantB(i))
			}
		}
		if err := rows.Err(); err != nil || i != n {
			t.Fatalf("%d rows, %v", i, err)
		}
	})
}

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
