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
)

// Values produced by Next point into shared per-row blocks (box.go), or into
// the static copies of 0-255. They must equal what SQLite holds, survive later
// rows and garbage collection, and a []byte value must not be able to
// overwrite its neighbours.
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
