//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"
)

// preparedLookup returns a connection with a table of 100 (id, id*2) rows and
// the statement "SELECT v FROM t WHERE id = ?" prepared on it.
func preparedLookup(t *testing.T) (*SQLiteConn, *SQLiteStmt) {
	t.Helper()
	c := rawConn(t, ":memory:")
	_, err := c.ExecContext(context.Background(), `CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);
		WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 100)
		INSERT INTO t SELECT x, x*2 FROM r`, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare("SELECT v FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return c, st.(*SQLiteStmt)
}

func lookupArgs(id int64) []driver.NamedValue {
	return []driver.NamedValue{{Ordinal: 1, Value: id}}
}

// Rows of a statement come from blocks (newRows), yet a caller that keeps
// closed Rows and calls them again, through as many runs as several blocks
// hold, sees them closed: never the row of a later run, and never taking a
// row from the Rows that are open.
func TestClosedRowsNeverSeeALaterRun(t *testing.T) {
	_, st := preparedLookup(t)
	ctx := context.Background()
	dest := make([]driver.Value, 1)
	var closed []driver.Rows
	seen := map[driver.Rows]bool{}
	for id := int64(1); id <= 3*int64(rowsBlockMax); id++ {
		rows, err := st.QueryContext(ctx, lookupArgs(id))
		if err != nil {
			t.Fatal(err)
		}
		if seen[rows] {
			t.Fatalf("run %d got Rows already handed out", id)
		}
		seen[rows] = true
		for i, old := range closed {
			if err := old.Next(dest); err != io.EOF {
				t.Fatalf("run %d: Next on the Rows closed at run %d = %v, %v; want io.EOF", id, i+1, err, dest[0])
			}
			if cols := old.Columns(); len(cols) != 1 || cols[0] != "v" {
				t.Fatalf("Columns of closed Rows = %q", cols)
			}
		}
		if err := rows.Next(dest); err != nil || dest[0] != 2*id {
			t.Fatalf("run %d: Next = %v, %v; want %d", id, err, dest[0], 2*id)
		}
		if err := rows.Next(dest); err != io.EOF {
			t.Fatalf("run %d: second Next = %v, want io.EOF", id, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		closed = append(closed, rows)
	}
}

// Rows left open when their statement runs again end with an error, in every
// slot of a block, and the runs after them read their own rows.
func TestDetachedRowsInBlocks(t *testing.T) {
	_, st := preparedLookup(t)
	ctx := context.Background()
	dest := make([]driver.Value, 1)
	var open []driver.Rows
	for id := int64(1); id <= 2*int64(rowsBlockMax); id++ {
		rows, err := st.QueryContext(ctx, lookupArgs(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range open {
			if err := old.Next(dest); err == nil || err == io.EOF {
				t.Fatalf("run %d: Next on Rows detached by a later run = %v, want an error", id, err)
			}
		}
		open = append(open, rows)
	}
	last := open[len(open)-1]
	if err := last.Next(dest); err != nil || dest[0] != int64(4*rowsBlockMax) {
		t.Fatalf("last run: Next = %v, %v", err, dest[0])
	}
	for _, r := range open {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A statement run again and again allocates nothing of the driver's own per
// run with a context that cannot be cancelled (its Rows come rowsBlockMax to
// an allocation, and AllocsPerRun rounds down), and with one that can, only
// what context.AfterFunc allocates itself: the generation and the function
// it runs are reused from one operation to the next (watchCell).
func TestPreparedQueryAllocations(t *testing.T) {
	_, st := preparedLookup(t)
	args := lookupArgs(7) // values below 256 are boxed without an allocation
	dest := make([]driver.Value, 1)
	query := func(ctx context.Context) {
		rows, err := st.QueryContext(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.Next(dest); err != nil || dest[0] != int64(14) {
			t.Fatalf("Next = %v, %v", err, dest[0])
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	bg := context.Background()
	query(bg)
	if a := testing.AllocsPerRun(1000, func() { query(bg) }); a != 0 {
		t.Errorf("%v allocations per run with context.Background", a)
	}

	if asanBuild {
		return // context's Done allocates on each call under -asan (asan_build_test.go)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	query(ctx)
	afterFunc := testing.AllocsPerRun(1000, func() { context.AfterFunc(ctx, func() {})() })
	if a := testing.AllocsPerRun(1000, func() { query(ctx) }); a > afterFunc {
		t.Errorf("%v allocations per run with a cancellable context; context.AfterFunc alone makes %v", a, afterFunc)
	}
}

// Cancellation reaches a statement whose watch reuses the cell of earlier
// operations, and a late cancellation of an earlier operation does not stop
// a later one.
func TestReusedWatchCellCancels(t *testing.T) {
	c, st := preparedLookup(t)
	dest := make([]driver.Value, 1)
	for i := range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := st.QueryContext(ctx, lookupArgs(int64(i%100+1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		cancel() // after the run: nothing to stop, and nothing later may stop
	}
	if _, err := st.QueryContext(context.Background(), lookupArgs(1)); err != nil {
		t.Fatal(err)
	}
	slow, err := c.Prepare(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 1000000000)
		SELECT count(*) FROM r`)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		rows, err := slow.(*SQLiteStmt).QueryContext(ctx, nil)
		if err == nil {
			err = rows.Next(dest)
			rows.Close()
		}
		timer.Stop()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled query: %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("cancellation took %v", d)
		}
		// The next operation, with a new cell or the same one, runs.
		rows, err = st.QueryContext(context.Background(), lookupArgs(3))
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.Next(dest); err != nil || dest[0] != int64(6) {
			t.Fatalf("after a cancellation: Next = %v, %v", err, dest[0])
		}
		rows.Close()
	}
}

// Closed Rows, which their block keeps while the statement runs on, do not
// keep their run's context alive.
func TestClosedRowsDropTheirContext(t *testing.T) {
	_, st := preparedLookup(t)
	type key struct{}
	freed := make(chan struct{})
	run := func() driver.Rows {
		big := new([1 << 16]byte)
		runtime.AddCleanup(big, func(ch chan struct{}) { close(ch) }, freed)
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, big))
		defer cancel()
		rows, err := st.QueryContext(ctx, lookupArgs(1))
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		return rows
	}
	for id := range int64(2) { // the kept Rows come first in a block of two
		rows, err := st.QueryContext(context.Background(), lookupArgs(id+1))
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	kept := run()
	// The statement's next run comes from the same block.
	rows, err := st.QueryContext(context.Background(), lookupArgs(2))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for range 20 {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(kept)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the context of closed Rows is still alive")
}
