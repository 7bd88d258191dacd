//go:build go1.27 && cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ScanColumn's fast paths must give exactly what sql.ConvertAssign gives for
// the value Next produces: same result, or an error in both.
func TestScanColumnMatchesConvertAssign(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, `CREATE TABLE v (x ANY, b BOOLEAN, d DATETIME, n INTEGER);
		INSERT INTO v VALUES
		  (42, 1, '2026-11-29 10:00:00', 1),
		  (-7, 0, 1764410400, 2),
		  (3000000000, 2, 1764410400000, 3),
		  (2.5, NULL, 'not a date', 4),
		  ('text', 'yes', '2026-11-29T10:00:00+02:00', 5),
		  ('', 1, '2026-11-29', 6),
		  ('12', 0, NULL, 7),
		  (x'00ff10', 1, 2.5, 8),
		  (x'', 0, '', 9),
		  (NULL, NULL, NULL, 10)`, nil); err != nil {
		t.Fatal(err)
	}
	dests := []func() any{
		func() any { return new(int64) }, func() any { return new(int) }, func() any { return new(int32) },
		func() any { return new(float64) }, func() any { return new(bool) }, func() any { return new(string) },
		func() any { return new([]byte) }, func() any { return new(sql.RawBytes) }, func() any { return new(time.Time) },
		func() any { return new(sql.NullInt64) }, func() any { return new(sql.NullFloat64) },
		func() any { return new(sql.NullString) }, func() any { return new(sql.NullBool) },
		func() any { return new(sql.NullTime) }, func() any { return new(any) }, func() any { return new(uint8) },
	}
	dr, err := c.QueryContext(ctx, "SELECT x, b, d, n FROM v ORDER BY n", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := dr.(*SQLiteRows)
	defer r.Close()
	checked := 0
	for r.NextRow() == nil {
		for col := 0; col < 3; col++ {
			v := r.value(col, r.classes()[col])
			for _, mk := range dests {
				fast, slow := mk(), mk()
				errFast := r.ScanColumn(driver.ScanContext{}, col, fast)
				errSlow := sql.ConvertAssign(driver.ScanContext{}, slow, v)
				where := fmt.Sprintf("column %d value %#v into %T", col, v, fast)
				if (errFast == nil) != (errSlow == nil) {
					t.Errorf("%s: ScanColumn error %v, ConvertAssign error %v", where, errFast, errSlow)
					continue
				}
				if errFast == nil && !equalScanned(fast, slow) {
					t.Errorf("%s: ScanColumn gave %#v, ConvertAssign %#v", where, reflect.ValueOf(fast).Elem(), reflect.ValueOf(slow).Elem())
				}
				checked++
			}
		}
	}
	if checked < 400 {
		t.Fatalf("only %d combinations checked", checked)
	}
}

func equalScanned(a, b any) bool {
	ta, okA := a.(*time.Time)
	tb, okB := b.(*time.Time)
	if okA && okB {
		return ta.Equal(*tb) && ta.Location().String() == tb.Location().String()
	}
	if ra, ok := a.(*sql.RawBytes); ok {
		rb := b.(*sql.RawBytes)
		return string(*ra) == string(*rb) && (*ra == nil) == (*rb == nil) // nil tells NULL apart
	}
	if na, ok := a.(*sql.NullTime); ok {
		nb := b.(*sql.NullTime)
		return na.Valid == nb.Valid && na.Time.Equal(nb.Time)
	}
	return reflect.DeepEqual(a, b)
}

// Scanning through database/sql on Go 1.27 allocates nothing per row for
// numeric columns.
func TestScanColumnNoAllocs(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE n (a INTEGER, b INTEGER, c REAL);
		WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 1000)
		INSERT INTO n SELECT i, i*1000000, i/3.0 FROM s`); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT a, b, c FROM n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var a, b int64
	var c float64
	rows.Next() // warm up
	allocs := testing.AllocsPerRun(500, func() {
		if !rows.Next() {
			t.Fatal("ran out of rows")
		}
		if err := rows.Scan(&a, &b, &c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per row scanning int64, int64, float64", allocs)
	}
}

// A nil destination pointer is an error, never a crash (the fast paths must not
// write through it). A nil sql.Scanner such as (*sql.NullInt64)(nil) panics in
// database/sql itself, on every Go version, so it is not listed.
func TestScanColumnNilDestination(t *testing.T) {
	c := rawConn(t, ":memory:")
	dr, err := c.QueryContext(context.Background(), "SELECT 1, 2.5, 'x', x'00', 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := dr.(*SQLiteRows)
	defer r.Close()
	if err := r.NextRow(); err != nil {
		t.Fatal(err)
	}
	for i, dest := range []any{(*int64)(nil), (*float64)(nil), (*string)(nil), (*sql.RawBytes)(nil), (*int)(nil), (*time.Time)(nil)} {
		col := min(i, 4)
		if err := r.ScanColumn(driver.ScanContext{}, col, dest); err == nil {
			t.Errorf("ScanColumn(%d, %T(nil)) succeeded", col, dest)
		}
	}
}

// sql.RawBytes from ScanColumn may point into SQLite's memory; it must stay
// as scanned until its own Rows moves on or closes, even when the same
// statement runs again on the connection (a transaction re-running a
// prepared statement, or the same SQL through the statement cache).
func TestRawBytesStableWhileStatementRunsAgain(t *testing.T) {
	db := openTestDB(t, ":memory:")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	long := func(c byte) string { return strings.Repeat(string(c), 1000) } // not copied into a batch
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	testMustExec(t, db, "INSERT INTO t VALUES (1, ?), (2, ?)", long('a'), long('b'))
	const q = "SELECT v FROM t WHERE id = ?"

	for _, how := range []string{"tx.Stmt", "tx.Query", "tx.QueryRow"} {
		t.Run(how, func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			var st *sql.Stmt
			query := func(id int) (*sql.Rows, error) { return tx.QueryContext(ctx, q, id) }
			if how == "tx.Stmt" {
				if st, err = tx.PrepareContext(ctx, q); err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				query = func(id int) (*sql.Rows, error) { return st.QueryContext(ctx, id) }
			}
			rows, err := query(1)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatal(rows.Err())
			}
			var raw sql.RawBytes
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if string(raw) != long('a') {
				t.Fatalf("scanned %.10q...", raw)
			}
			// The same statement again, for another row, while rows is open.
			if how == "tx.QueryRow" {
				var s string
				if err := tx.QueryRowContext(ctx, q, 2).Scan(&s); err != nil || s != long('b') {
					t.Fatalf("second query: %.10q %v", s, err)
				}
			} else {
				rows2, err := query(2)
				if err != nil {
					t.Fatal(err)
				}
				if !rows2.Next() {
					t.Fatal(rows2.Err())
				}
				var raw2 sql.RawBytes
				if err := rows2.Scan(&raw2); err != nil {
					t.Fatal(err)
				}
				if string(raw2) != long('b') {
					t.Fatalf("second query scanned %.10q...", raw2)
				}
				rows2.Close()
			}
			if !bytes.Equal(raw, []byte(long('a'))) {
				t.Fatalf("RawBytes of the open rows changed to %.10q... when the statement ran again", raw)
			}
		})
	}
}

// An empty TEXT scanned into sql.RawBytes is what database/sql's own
// conversion of the empty string gives, as under Go 1.26 (where the driver's
// Next value goes through it) and on mattn/go-sqlite3: nil in a fresh Rows,
// so programs that test RawBytes against nil see the same thing; an empty
// BLOB stays a non-nil empty slice, NULL nil.
func TestRawBytesEmptyTextAsConvertAssign(t *testing.T) {
	db := openTestDB(t, ":memory:")
	testMustExec(t, db, "CREATE TABLE t(n INTEGER PRIMARY KEY, c TEXT, d)")
	testMustExec(t, db, "INSERT INTO t VALUES (1, '', ''), (2, '', x''), (3, NULL, NULL)")
	for _, tc := range []struct {
		n      int
		nc, nd bool // nil wanted for c, d
	}{{1, true, true}, {2, true, false}, {3, true, true}} {
		var c, d sql.RawBytes
		rows, err := db.Query("SELECT c, d FROM t WHERE n = ?", tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if err := rows.Scan(&c, &d); err != nil {
			t.Fatal(err)
		}
		if len(c) != 0 || (c == nil) != tc.nc || len(d) != 0 || (d == nil) != tc.nd {
			t.Errorf("row %d: scanned %#v, %#v; want nil: %v, %v", tc.n, c, d, tc.nc, tc.nd)
		}
		rows.Close()
	}
}
