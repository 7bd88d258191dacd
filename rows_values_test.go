//go:build cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// Values produced by Next are the caller's own (or Go's static copies of
// 0-255). They must equal what SQLite holds, survive later rows and garbage
// collection, and a []byte value must not be able to overwrite its neighbours.
func TestNextValuesAreIndependent(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, `CREATE TABLE r (i INTEGER, f REAL, s TEXT, b BLOB, big TEXT, n);
		WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM k WHERE x < 500)
		INSERT INTO r SELECT x*1000003, x/7.0, 'row ' || x, CAST(zeroblob(x % 5) || x'ff' AS BLOB), CASE WHEN x % 100 = 0 THEN printf('%.*c', 5000, 'z') END, NULL FROM k`, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, "SELECT i, f, s, b, big, n, '', i / 1000003, i / 1000003 - 250 FROM r ORDER BY i", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all [][]driver.Value
	for {
		dest := make([]driver.Value, 9)
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		all = append(all, dest)
	}
	runtime.GC()
	runtime.GC()
	if len(all) != 500 {
		t.Fatalf("%d rows", len(all))
	}
	for k, row := range all {
		x := int64(k + 1)
		want := []driver.Value{x * 1000003, float64(x) / 7.0, fmt.Sprintf("row %d", x), append(make([]byte, x%5), 0xff), nil, nil, "", x, x - 250}
		if x%100 == 0 {
			want[4] = string(bytes.Repeat([]byte{'z'}, 5000))
		}
		for i := range want {
			if fmt.Sprintf("%T %v", row[i], row[i]) != fmt.Sprintf("%T %v", want[i], want[i]) {
				t.Fatalf("row %d column %d: %T %v, want %T %v", x, i, row[i], row[i], want[i], want[i])
			}
		}
		// Appending to a BLOB value must not write into the next value.
		b := row[3].([]byte)
		_ = append(b, 1, 2, 3, 4, 5, 6, 7, 8)
		if row[2].(string) != fmt.Sprintf("row %d", x) {
			t.Fatalf("row %d: appending to a BLOB value changed the TEXT value to %q", x, row[2])
		}
	}
}

func BenchmarkDecodeRow(b *testing.B) {
	c := rawConn(b, ":memory:")
	rows, err := c.QueryContext(context.Background(),
		"WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM k WHERE x < 100000) SELECT x, x*2, x/3.0, 'text value', 'another text' FROM k", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 5)
	b.ReportAllocs()
	for b.Loop() {
		if err := rows.Next(dest); err != nil {
			b.Fatal(err)
		}
	}
}

// Values of one query stay intact through later queries on the connection and
// garbage collections.
func TestValuesSurviveLaterQueries(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	type kept struct {
		v    []driver.Value
		want []driver.Value
	}
	var all []kept
	for q := range 300 {
		rows, err := c.QueryContext(ctx, "SELECT ?, ? + 0.5, 'text ' || ?, CAST(printf('%.*c', ? % 50 + 1, 'b') AS BLOB), ?", []driver.NamedValue{
			{Ordinal: 1, Value: int64(q)}, {Ordinal: 2, Value: int64(q)}, {Ordinal: 3, Value: int64(q)},
			{Ordinal: 4, Value: int64(q)}, {Ordinal: 5, Value: bytes.Repeat([]byte{'L'}, q*7)},
		})
		if err != nil {
			t.Fatal(err)
		}
		dest := make([]driver.Value, 5)
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		if err := rows.Next(make([]driver.Value, 5)); err != io.EOF {
			t.Fatalf("second row: %v", err)
		}
		rows.Close()
		all = append(all, kept{dest, []driver.Value{
			int64(q), float64(q) + 0.5, fmt.Sprintf("text %d", q), bytes.Repeat([]byte{'b'}, q%50+1), bytes.Repeat([]byte{'L'}, q*7),
		}})
		if q%50 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for q, k := range all {
		for i := range k.v {
			got, want := k.v[i], k.want[i]
			if gb, ok := got.([]byte); ok {
				if wb := want.([]byte); !bytes.Equal(gb, wb) || (gb == nil) {
					t.Fatalf("query %d column %d = %q, want %q", q, i, gb, wb)
				}
				continue
			}
			if got != want {
				t.Fatalf("query %d column %d = %#v, want %#v", q, i, got, want)
			}
		}
	}
	// A string value does not alias the bytes of a later []byte value.
	s := all[10].v[2].(string)
	b := all[11].v[3].([]byte)
	if len(b) > 0 && unsafe.StringData(s) == &b[0] {
		t.Fatal("string and blob share memory")
	}
}

// Date/time values read through Next cost one allocation each (Go's own
// interface box) and stay intact through later rows, queries and garbage
// collections.
func TestTimeValues(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, `CREATE TABLE ts (d DATETIME, u TIMESTAMP);
		WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)
		INSERT INTO ts SELECT strftime('%Y-%m-%d %H:%M:%f+01:00', 1.7e9 + i * 3600.5, 'unixepoch'), 1.7e9 + i FROM n`, nil); err != nil {
		t.Fatal(err)
	}
	var kept [][]driver.Value
	var before, after runtime.MemStats
	for q := range 3 {
		rows, err := c.QueryContext(ctx, "SELECT d, u FROM ts", nil)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&before)
		for i := 0; ; i++ {
			dest := make([]driver.Value, 2)
			if err := rows.Next(dest); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if q == 0 {
				kept = append(kept, dest)
			}
			if q == 0 && i%1000 == 0 {
				runtime.GC()
			}
		}
		runtime.ReadMemStats(&after)
		rows.Close()
	}
	// The last query kept nothing; it allocated a box per value (10,000) and
	// nothing more, besides the test's own dest slices (5,000).
	if n := after.Mallocs - before.Mallocs; n > 5000+10000+50 {
		t.Errorf("%d allocations to read 5,000 rows of two date/time columns", n)
	}
	runtime.GC()
	for i, v := range kept {
		// UTC's wall clock written as +01:00: an hour earlier.
		wantD := time.Unix(1.7e9, 0).Add(time.Duration(i)*3600500*time.Millisecond - time.Hour)
		d, ok1 := v[0].(time.Time)
		u, ok2 := v[1].(time.Time)
		if !ok1 || !ok2 {
			t.Fatalf("row %d = %#v, want two time.Time", i, v)
		}
		if !u.Equal(time.Unix(1.7e9+int64(i), 0)) || u.Location() != time.UTC {
			t.Fatalf("row %d: u = %v", i, u)
		}
		if _, off := d.Zone(); !d.Equal(wantD) || off != 3600 {
			t.Fatalf("row %d: d = %v, want %v", i, d, wantD)
		}
	}
}

// Strings and []byte values of every length around sharedHeaderMin, some
// sharing one block with their header (values.go), stay intact while the
// collector runs and other values are allocated and dropped, whether the
// caller keeps the driver.Value or only the string or slice in it; appending
// to a []byte value leaves the value itself unchanged.
func TestValuesWithHeaderSurviveCollection(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	rows, err := c.QueryContext(ctx, `WITH RECURSIVE k(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM k WHERE x < 3000)
		SELECT substr(printf('%.*c', 300, char(65 + x % 26)), 1, x % 300),
			CAST(substr(printf('%.*c', 300, char(97 + x % 26)), 1, x % 300) AS BLOB) FROM k`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var values []driver.Value
	var strs []string
	var blobs [][]byte
	for x := 0; ; x++ {
		dest := make([]driver.Value, 2)
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if x%2 == 0 {
			values = append(values, dest...)
		} else {
			strs = append(strs, dest[0].(string))
			blobs = append(blobs, dest[1].([]byte))
		}
		if x%500 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	runtime.GC()
	check := func(x int, s string, b []byte) {
		t.Helper()
		n := x % 300
		if s != string(bytes.Repeat([]byte{byte(65 + x%26)}, n)) || !bytes.Equal(b, bytes.Repeat([]byte{byte(97 + x%26)}, n)) || b == nil {
			t.Fatalf("row %d: %q, %q", x, s, b)
		}
		grown := append(b, '!')
		if n >= sharedHeaderMin && &grown[0] == &b[0] {
			t.Fatalf("row %d: appending to a %d-byte value wrote into its block", x, n)
		}
	}
	for i := range len(values) / 2 {
		check(2*i, values[2*i].(string), values[2*i+1].([]byte))
	}
	for i := range strs {
		check(2*i+1, strs[i], blobs[i])
	}
}
