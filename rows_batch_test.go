//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
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
