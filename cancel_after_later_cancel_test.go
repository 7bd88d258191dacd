//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"sync/atomic"
	"testing"
	"time"
)

// The slow steps of these tests: a first row at once, then a second that
// comes seconds later, or never (only a cancellation ends that step). The
// blob, too long to be copied into a batch of rows stepped ahead, makes a
// DirectStmt's first Step return the first row alone.
const (
	lateRow  = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 20000000) SELECT i, zeroblob(300) FROM c WHERE i = 1 OR i = 20000000`
	neverRow = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT i, zeroblob(300) FROM c WHERE i = 1 OR i < 0`
	endless  = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT count(*) FROM c`
)

// cancelLaterOp runs an operation on c that its own context stops while it
// runs: it raises the connection's cancellation word to its generation,
// later than that of anything opened before it.
func cancelLaterOp(t *testing.T, c *SQLiteConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.ExecContext(ctx, endless, nil); err != context.DeadlineExceeded {
		t.Fatalf("the later operation: %v, want context.DeadlineExceeded", err)
	}
}

// awaitStep runs step, whose context is cancelled 100 ms in, and fails unless
// it returns soon after that without a row. A step that the cancellation
// misses is stopped by other means, so that a failing test ends.
func awaitStep(t *testing.T, c *SQLiteConn, cancel context.CancelFunc, step func() (bool, error)) (bool, error) {
	t.Helper()
	type result struct {
		row bool
		err error
	}
	ch := make(chan result, 1)
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	go func() {
		row, err := step()
		ch <- result{row, err}
	}()
	select {
	case r := <-ch:
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("the step returned %v after its context ended", d-100*time.Millisecond)
		}
		return r.row, r.err
	case <-time.After(3 * time.Second):
		// Store what the progress handler waits for: the armed generation.
		for {
			select {
			case r := <-ch:
				t.Fatalf("the step went on for seconds after its context ended (then returned %v, %v)", r.row, r.err)
			default:
				atomic.StoreUint64(c.word.p, uint64(c.h.armed))
				time.Sleep(time.Millisecond)
			}
		}
	}
}

// Rows opened before another operation on the connection was cancelled still
// end at once when their own context does, with its error and no row, as on
// mattn/go-sqlite3 (whose cancel interrupts whatever runs).
func TestRowsCancelAfterLaterCancel(t *testing.T) {
	for _, tc := range []struct{ name, query string }{{"late row", lateRow}, {"no row", neverRow}} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ":memory:")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rows, err := c.QueryContext(ctx, tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			dest := make([]driver.Value, 2)
			if err := rows.Next(dest); err != nil || dest[0] != int64(1) {
				t.Fatalf("first row %v, %v", dest[0], err)
			}
			cancelLaterOp(t, c)
			row, err := awaitStep(t, c, cancel, func() (bool, error) {
				err := rows.Next(dest)
				return err == nil, err
			})
			if row || err != context.Canceled {
				t.Fatalf("Next = row %v (%v), %v; want context.Canceled", row, dest[0], err)
			}
		})
	}
}

// The same for a DirectStmt run with SetInterrupt, whose every step takes the
// connection's newest generation.
func TestDirectCancelAfterLaterCancel(t *testing.T) {
	for _, tc := range []struct{ name, query string }{{"late row", lateRow}, {"no row", neverRow}} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ":memory:")
			s := mustPrepareDirect(t, c, tc.query)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.SetInterrupt(ctx)
			mustStep(t, s, true)
			if v := s.ColumnInt64(0); v != 1 {
				t.Fatalf("first row %d", v)
			}
			cancelLaterOp(t, c)
			row, err := awaitStep(t, c, cancel, s.Step)
			if row || err != context.Canceled {
				t.Fatalf("Step = row %v, %v; want context.Canceled", row, err)
			}
		})
	}
}
