//go:build go1.27 && cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
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
			v := r.value(col)
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
