//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"testing"
)

// Once the query's context has ended, Next hands out no further row, even one
// that was already stepped: the first (stepped by the query call), the rows
// of a batch stepped ahead, and rows stepped one at a time.
func TestRowsContextEndsBetweenRows(t *testing.T) {
	c := rawConn(t, ":memory:")
	bg := context.Background()
	if _, err := c.ExecContext(bg, "CREATE TABLE t(x INTEGER PRIMARY KEY, y TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(bg, "INSERT INTO t(y) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT 'v' || i FROM n", nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		query  string
		before int // rows read before the cancel
	}{
		{"first row", "SELECT x, y FROM t", 0},
		{"batched rows", "SELECT x, y FROM t", 5},
		{"one at a time", "UPDATE t SET y = y RETURNING x, y", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			rows, err := c.QueryContext(ctx, tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			dest := make([]driver.Value, 2)
			for i := 0; i < tc.before; i++ {
				if err := rows.Next(dest); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
			}
			cancel()
			err = rows.Next(dest)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Next after cancel = %v, want context.Canceled", err)
			}
			if err := rows.Next(dest); !errors.Is(err, context.Canceled) && err != io.EOF {
				t.Fatalf("Next again = %v", err)
			}
		})
	}
	// The connection stays usable.
	rows, err := c.QueryContext(bg, "SELECT count(*) FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil || dest[0] != int64(200) {
		t.Fatalf("count after cancelled scans: %v %v", dest[0], err)
	}
	rows.Close()
}
