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

// The arena hands out aligned words, capped byte slices and header slots, and
// never gives out the same memory twice.
func TestValueArenaPieces(t *testing.T) {
	var a valueArena
	seen := map[uintptr]bool{}
	var kept [][]byte
	for i := range 5000 {
		n := i%37 + 1
		if i%500 == 0 {
			n = ownAllocation + i // large: an allocation of its own
		}
		src := bytes.Repeat([]byte{byte(i)}, n)
		b := a.copyBytes(src)
		if !bytes.Equal(b, src) || cap(b) != n {
			t.Fatalf("copyBytes(%d bytes) = len %d cap %d", n, len(b), cap(b))
		}
		kept = append(kept, b)
		p := a.word()
		if uintptr(p)%8 != 0 {
			t.Fatalf("word %p not 8-aligned", p)
		}
		if seen[uintptr(p)] {
			t.Fatalf("word %p handed out twice", p)
		}
		seen[uintptr(p)] = true
		*(*uint64)(p) = ^uint64(0) // must not touch any byte slice
	}
	runtime.GC()
	for i, b := range kept {
		for _, c := range b {
			if c != byte(i) {
				t.Fatalf("slice %d overwritten: %v", i, b[:min(len(b), 8)])
			}
		}
		// Appending to a value reallocates; it cannot reach its neighbour.
		_ = append(b, 0xEE)
	}
	for i := 1; i < len(kept); i++ {
		if kept[i-1][0] != byte(i-1) {
			t.Fatalf("append to slice %d overwrote slice %d", i, i-1)
		}
	}
	if a.copyBytes(nil) != nil || a.copyString(nil) != "" {
		t.Fatal("empty values must not take arena memory")
	}
	s1, s2 := a.stringHeader("x"), a.stringHeader("y")
	if s1 == s2 || *(*string)(s1) != "x" || *(*string)(s2) != "y" {
		t.Fatal("string header slots shared")
	}
	for i := range arenaSlices * 3 {
		p := a.sliceHeader([]byte{byte(i)})
		if seen[uintptr(p)] {
			t.Fatal("slice header slot handed out twice")
		}
		seen[uintptr(p)] = true
	}
}

// Values of one query stay intact while later queries on the connection fill
// the same arena blocks, through garbage collections.
func TestArenaValuesSurviveLaterQueries(t *testing.T) {
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

// Blocks are allocator size classes: in steady state a string header costs
// its 16 bytes, a []byte header its 24, and value bytes themselves, with
// nothing lost to rounding (a block that misses its size class, for example
// by the allocator's header on pointerful objects, fails this).
func TestValueArenaCostsNoRounding(t *testing.T) {
	var a valueArena
	src := bytes.Repeat([]byte{'v'}, 64)
	for range 200 { // past the small first blocks
		a.stringHeader(a.copyString(src))
		a.sliceHeader(a.copyBytes(src))
	}
	// Whole header blocks, and enough of them that a few KiB allocated by
	// other goroutines meanwhile weigh under 0.05 bytes per pair.
	const n = arenaStrings * 128
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		a.stringHeader(a.copyString(src))
		a.sliceHeader(a.copyBytes(src))
	}
	runtime.ReadMemStats(&after)
	perValue := float64(after.TotalAlloc-before.TotalAlloc) / n
	if want := 64*2 + 16 + 24 + 0.05; perValue > want {
		t.Fatalf("%.2f bytes per (string, []byte) pair of 64-byte values, want at most %.2f", perValue, want)
	}
}

// Date/time values read through Next come from the arena's blocks of times
// (no allocation per value) and stay intact through later rows, queries and
// garbage collections.
func TestArenaTimeValues(t *testing.T) {
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
	// The last query kept nothing, so what it allocated is the arena's
	// blocks (10,000 times: five of 2,048), not a box per value; the dest
	// slices are the test's own (5,000).
	if n := after.Mallocs - before.Mallocs; n > 5000+50 {
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
