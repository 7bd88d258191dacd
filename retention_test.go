//go:build cgo

package sqlite3

// Retention: a value handed to database/sql keeps alive only itself, plus a
// small constant as Go's own allocator does (docs/queries.md promises it).
// A program that keeps a part of what it scans (a cache, an index built from
// a scan, a few fields of each row) must keep only that part, not the blocks
// it was cut from nor the rest of the rows. A change to the value path
// (values.go, SQLiteRows.value) is measured here as well as for speed.

import (
	"bytes"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

const retentionRows = 50000

// retentionCase scans the table (id INTEGER, name TEXT, body TEXT) the way a
// program would, keeping part of each row; clone copies what was kept with
// Go's own allocations (a string, []byte or interface box each), which is
// what the kept values need at the allocator's granularity.
type retentionCase struct {
	name  string
	query string
	scan  func(t *testing.T, rows *sql.Rows) any
	clone func(kept any) any
}

var retentionCases = []retentionCase{
	{
		name:  "every name as string",
		query: "SELECT id, name, body FROM t",
		scan: func(t *testing.T, rows *sql.Rows) any {
			kept := make([]string, 0, retentionRows)
			var id int64
			var name, body string
			for rows.Next() {
				if err := rows.Scan(&id, &name, &body); err != nil {
					t.Fatal(err)
				}
				kept = append(kept, name)
			}
			return kept
		},
		clone: func(kept any) any {
			k := kept.([]string)
			c := make([]string, len(k))
			for i, s := range k {
				c[i] = strings.Clone(s)
			}
			return c
		},
	},
	{
		name:  "name and id of one row in a hundred as any",
		query: "SELECT id, name, body FROM t",
		scan: func(t *testing.T, rows *sql.Rows) any {
			kept := make([]any, 0, 2*retentionRows/100)
			var id, name, body any
			for rows.Next() {
				if err := rows.Scan(&id, &name, &body); err != nil {
					t.Fatal(err)
				}
				if id.(int64)%100 == 0 {
					kept = append(kept, id, name)
				}
			}
			return kept
		},
		clone: cloneValues,
	},
	{
		name:  "body of one row in ten as any",
		query: "SELECT id, name, body FROM t",
		scan: func(t *testing.T, rows *sql.Rows) any {
			kept := make([]any, 0, retentionRows/10)
			var id int64
			var name string
			var body any
			for rows.Next() {
				if err := rows.Scan(&id, &name, &body); err != nil {
					t.Fatal(err)
				}
				if id%10 == 0 {
					kept = append(kept, body)
				}
			}
			return kept
		},
		clone: cloneValues,
	},
	{
		name:  "every name as []byte, body as RawBytes",
		query: "SELECT id, name, body FROM t",
		scan: func(t *testing.T, rows *sql.Rows) any {
			kept := make([][]byte, 0, retentionRows)
			var id int64
			var name []byte
			var body sql.RawBytes
			for rows.Next() {
				if err := rows.Scan(&id, &name, &body); err != nil {
					t.Fatal(err)
				}
				kept = append(kept, name)
			}
			return kept
		},
		clone: func(kept any) any {
			k := kept.([][]byte)
			c := make([][]byte, len(k))
			for i, b := range k {
				c[i] = bytes.Clone(b)
			}
			return c
		},
	},
	{
		name:  "BLOB name and id of one row in a hundred as any, body as RawBytes",
		query: "SELECT id, CAST(name AS BLOB), body FROM t",
		scan: func(t *testing.T, rows *sql.Rows) any {
			kept := make([]any, 0, 2*retentionRows/100)
			var id, name any
			var body sql.RawBytes
			for rows.Next() {
				if err := rows.Scan(&id, &name, &body); err != nil {
					t.Fatal(err)
				}
				if id.(int64)%100 == 0 {
					kept = append(kept, id, name)
				}
			}
			return kept
		},
		clone: cloneValues,
	},
}

// cloneValues copies interface values with Go's own boxing.
func cloneValues(kept any) any {
	k := kept.([]any)
	c := make([]any, len(k))
	for i, v := range k {
		switch v := v.(type) {
		case int64:
			c[i] = v + 0 // boxed again: a new box past 255, as Next's was
		case string:
			c[i] = strings.Clone(v)
		case []byte:
			c[i] = bytes.Clone(v)
		default:
			panic(fmt.Sprintf("unexpected %T", v))
		}
	}
	return c
}

// liveHeap returns how much the live heap grew while f ran and what it
// returned was still reachable.
func liveHeap(f func() any) (grew int64) {
	var before, after runtime.MemStats
	// Twice: what a sync.Pool held is freed only at the second collection.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := f()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestRetention keeps part of a 50,000-row scan and checks that the live heap
// grows by about what the kept values need, not by what was scanned: at most
// 1.5 times their own copies, plus 64 KiB for the connection's and database/sql's
// own state.
func TestRetention(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 400,000 rows")
	}
	for _, bodyLen := range []int{200, 1000} {
		t.Run(fmt.Sprintf("body %d bytes", bodyLen), func(t *testing.T) {
			db := openTestDB(t, ":memory:")
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE t (id INTEGER, name TEXT, body TEXT);
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
				INSERT INTO t SELECT i, printf('name-%%010d', i), printf('%%.*c', %d, 'b') FROM n`,
				retentionRows, bodyLen)); err != nil {
				t.Fatal(err)
			}
			for _, c := range retentionCases {
				t.Run(c.name, func(t *testing.T) {
					scan := func() any {
						rows, err := db.Query(c.query)
						if err != nil {
							t.Fatal(err)
						}
						defer rows.Close()
						kept := c.scan(t, rows)
						if err := rows.Err(); err != nil {
							t.Fatal(err)
						}
						return kept
					}
					scan() // caches the statement and warms database/sql's pool
					var kept any
					got := liveHeap(func() any { kept = scan(); return kept })
					want := liveHeap(func() any { return c.clone(kept) })
					runtime.KeepAlive(kept)
					t.Logf("live heap: %d KiB kept by the scan, %d KiB by copies of the kept values", got>>10, want>>10)
					if limit := want*3/2 + 64<<10; got > limit {
						t.Errorf("the scan keeps %d KiB alive, want at most %d KiB (1.5 x %d KiB of copies + 64 KiB)",
							got>>10, limit>>10, want>>10)
					}
				})
			}
		})
	}
}
