//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// A write blocked only by Rows that this process dropped without Close gets
// its lock within the busy timeout. The dropped statement is reset by a
// cleanup (lifetime.go), which runs only after a collection, and nothing
// allocates while the writer sleeps in the busy handler: before the busy wait
// asked for a collection, the write failed with "database is locked" after
// the full timeout (GORM's suite lost 9 tests to one leaked Rows that way).
// Rollback-journal mode, where a reader's SHARED lock blocks a commit.
//
// The collector's own pacing is switched off (SetGCPercent(-1)) so that only
// the busy wait can start a collection, as in a program that waits with
// nothing else allocating.
func TestLeakedRowsDoNotOutwaitBusyTimeout(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	ctx := context.Background()

	// leak runs a query on db, reads one row and drops the rows without
	// Close, keeping the connection it used (returned) open.
	cases := []struct {
		name string
		leak func(t *testing.T, db *sql.DB) (writer func() error)
	}{
		{
			// database/sql keeps a leaked *sql.Rows' connection marked in use
			// for ever, but nothing of it refers to the Rows: with a context
			// that has no Done channel it starts no goroutine that would.
			"sql.Rows",
			func(t *testing.T, db *sql.DB) func() error {
				func() {
					rows, err := db.QueryContext(ctx, "SELECT x FROM t")
					if err != nil {
						t.Fatal(err)
					}
					if !rows.Next() {
						t.Fatal(rows.Err())
					}
				}()
				return func() error {
					_, err := db.ExecContext(ctx, "INSERT INTO t VALUES (9)")
					return err
				}
			},
		},
		{
			// Driver Rows leaked through Raw, with a cancellable context
			// that stays alive: the connection is idle (held by a sql.Conn),
			// and the context's AfterFunc does not keep the Rows.
			"driver Rows on an idle sql.Conn",
			func(t *testing.T, db *sql.DB) func() error {
				qctx, cancel := context.WithCancel(ctx)
				t.Cleanup(cancel)
				reader, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { reader.Close() })
				writer, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { writer.Close() })
				if err := reader.Raw(func(dc any) error {
					rows, err := dc.(driver.QueryerContext).QueryContext(qctx, "SELECT x FROM t", nil)
					if err != nil {
						return err
					}
					return rows.Next(make([]driver.Value, 1))
				}); err != nil {
					t.Fatal(err)
				}
				return func() error {
					_, err := writer.ExecContext(ctx, "INSERT INTO t VALUES (9)")
					return err
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The busy wait asks for a collection at most once per
			// busyCollectGap, process-wide (lockwait.go): start afresh.
			time.Sleep(busyCollectGap)
			path := filepath.Join(tempDirKeptOpen(t), "db")
			db := openTestDB(t, path+"?_journal_mode=DELETE&_busy_timeout=1000")
			db.SetMaxOpenConns(2)
			testMustExec(t, db, "CREATE TABLE t(x)")
			testMustExec(t, db, "INSERT INTO t VALUES (1), (2), (3)")
			write := tc.leak(t, db)

			// The leaked rows do hold their read lock.
			probe := openTestDB(t, path+"?_busy_timeout=0")
			if _, err := probe.Exec("INSERT INTO t VALUES (8)"); !errors.Is(err, ErrBusy) {
				t.Fatalf("write beside the leaked rows: %v, want ErrBusy", err)
			}

			start := time.Now()
			if err := write(); err != nil {
				t.Fatalf("write after %v: %v", time.Since(start).Round(time.Millisecond), err)
			}
			t.Logf("write waited %v", time.Since(start).Round(time.Millisecond))
			var n int
			if err := probe.QueryRow("SELECT count(*) FROM t WHERE x = 9").Scan(&n); err != nil || n != 1 {
				t.Fatalf("rows written: %d, %v", n, err)
			}
		})
	}
	runtime.GC()
}

// forcedCollections counts the collections started by runtime.GC.
func forcedCollections() uint64 {
	m := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// Waits for a lock that a live connection holds are not shortened or
// lengthened by the collections they ask for: each fails with ErrBusy after
// its timeout, or its context's end, as before. And many long waits at once
// start few collections: at most one per busyCollectGap, process-wide.
func TestBusyWaitCollectionsArePaced(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	time.Sleep(busyCollectGap)
	path := filepath.Join(t.TempDir(), "db")
	holder := openTestDB(t, path+"?_journal_mode=DELETE")
	testMustExec(t, holder, "CREATE TABLE t(x)")
	lock := testConn(t, holder)
	testMustExec(t, lock, "BEGIN IMMEDIATE")
	defer lock.ExecContext(context.Background(), "ROLLBACK")

	const waiters, timeout = 4, 1200 * time.Millisecond
	waiting := openTestDB(t, path+"?_busy_timeout="+strconv.Itoa(int(timeout.Milliseconds())))
	waiting.SetMaxOpenConns(waiters + 1)
	before := forcedCollections()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, waiters+1)
	for i := range waiters {
		wg.Go(func() { _, errs[i] = waiting.Exec("INSERT INTO t VALUES (1)") })
	}
	// One more, whose context ends before its timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var cancelled time.Duration
	wg.Go(func() {
		_, errs[waiters] = waiting.ExecContext(ctx, "INSERT INTO t VALUES (2)")
		cancelled = time.Since(start)
	})
	wg.Wait()
	elapsed := time.Since(start)
	n := forcedCollections() - before

	for i, err := range errs[:waiters] {
		if !errors.Is(err, ErrBusy) {
			t.Errorf("waiter %d: %v, want ErrBusy", i, err)
		}
	}
	if !errors.Is(errs[waiters], context.DeadlineExceeded) {
		t.Errorf("waiter with a context: %v, want context.DeadlineExceeded", errs[waiters])
	}
	if cancelled < 250*time.Millisecond || cancelled > timeout {
		t.Errorf("waiter with a 300ms context gave up after %v", cancelled)
	}
	if elapsed < timeout-50*time.Millisecond || elapsed > 3*timeout {
		t.Errorf("waits with a %v timeout took %v", timeout, elapsed)
	}
	// Each waiter asks 3 times (after 100, 600 and 1100 ms of its schedule).
	most := uint64(elapsed/busyCollectGap) + 1
	if n == 0 || n > most {
		t.Errorf("%d waiters for %v started %d collections, want 1 to %d", waiters+1, elapsed.Round(time.Millisecond), n, most)
	}
	t.Logf("%d waiters for %v started %d collections", waiters+1, elapsed.Round(time.Millisecond), n)
}
