//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// A read-only query's rows of numbers are stepped ahead in batches
// (bridge_step_batch); a row with TEXT or BLOB ends a batch. Every row must
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
