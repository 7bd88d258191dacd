package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The workloads beyond mattn's suite: scans, bulk insert, point lookups on a
// WAL file from one and eight goroutines, and context support.

const (
	wideRows  = 20000
	wideCols  = 30
	wideWidth = 64

	intRows   = 1000000
	batchRows = 100000

	pointRows    = 100000 // rows of the PointLookup table
	pointWorkers = 8

	contextCount = 100000 // rows counted by the Context query

	// cancelDelay is how long CancelLatency lets its query run before
	// cancelling it: long enough for the query to be inside SQLite on every
	// driver, short enough to keep the workload quick. It is not timed.
	cancelDelay = 2 * time.Millisecond
)

var (
	sqlWideCheck  = fmt.Sprintf("SELECT count(*), min(length(c00)), max(length(c%02d)) FROM wide", wideCols-1)
	sqlWideCreate = wideCreate()
	sqlWideFill   = wideFill()
	sqlIntFill    = fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO ints SELECT x, x*3 - 1000, x*0.25 FROM r`, intRows)
	sqlPointFill = fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO kv SELECT x, printf('value-%%d', x) FROM r`, pointRows)
	sqlContext = fmt.Sprintf(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d)
		SELECT count(*) FROM c`, contextCount)
)

const (
	sqlIntCreate   = "CREATE TABLE ints (a INTEGER, b INTEGER, c REAL)"
	sqlBatchCreate = "CREATE TABLE batch (id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT)"
	sqlPointCreate = "CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)"
	sqlCheckpoint  = "PRAGMA wal_checkpoint(TRUNCATE)"
	sqlWideScan    = "SELECT * FROM wide"
	sqlIntScan     = "SELECT a, b, c FROM ints"
	sqlBatchInsert = "INSERT INTO batch (id, n, f, s) VALUES (?, ?, ?, ?)"
	sqlBatchCount  = "SELECT count(*) FROM batch"
	sqlWAL         = "PRAGMA journal_mode=WAL"
	sqlPointCount  = "SELECT count(*) FROM kv"
	sqlPointLookup = "SELECT v FROM kv WHERE id = ?"
	// sqlCancel would count to a hundred million, seconds on any driver.
	sqlCancel = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000000)
		SELECT count(*) FROM c`
)

func ptrs[T any](vals []T) []any {
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	return dest
}

// wideCreate is the WideScan table's CREATE: wideCols TEXT columns c00, c01...
func wideCreate() string {
	defs := make([]string, wideCols)
	for i := range defs {
		defs[i] = fmt.Sprintf("c%02d TEXT", i)
	}
	return "CREATE TABLE wide (" + strings.Join(defs, ", ") + ")"
}

// wideFill builds the WideScan table with one recursive-CTE INSERT: each
// value is the column number and row number, zero-padded to 64 characters.
func wideFill() string {
	exprs := make([]string, wideCols)
	for i := range exprs {
		exprs[i] = fmt.Sprintf("printf('%02d%%0%dd', x)", i, wideWidth-2)
	}
	return fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO wide SELECT %s FROM r`, wideRows, strings.Join(exprs, ", "))
}

// wideScan reads 20,000 rows of 30 64-character TEXT columns, where the cost
// of moving text out of SQLite dominates. RawBytes shows the driver's own
// cost; String adds database/sql's copy into Go strings.
func wideScan[T any](b *testing.B, e *env, dest func([]T) []any) error {
	db, err := e.wideDB()
	if err != nil {
		return err
	}
	d := dest(make([]T, wideCols))
	return perRow(b, wideRows, func() (int, error) {
		rows, err := db.Query(sqlWideScan)
		if err != nil {
			return 0, err
		}
		return scanAll(rows, d...)
	})
}

// wideDB holds the WideScan table.
func (e *env) wideDB() (*sql.DB, error) {
	return once(e, "wide", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		if err := execAll(db, sqlWideCreate, sqlWideFill); err != nil {
			return nil, err
		}
		var n, minLen, maxLen int
		if err := db.QueryRow(sqlWideCheck).Scan(&n, &minLen, &maxLen); err != nil {
			return nil, err
		}
		if n != wideRows || minLen != wideWidth || maxLen != wideWidth {
			return nil, fmt.Errorf("wide table has %d rows of %d..%d chars", n, minLen, maxLen)
		}
		return db, nil
	})
}

// intScan reads 1,000,000 rows of (INTEGER, INTEGER, REAL), where per-row and
// per-column overhead dominates since no value needs copying.
func intScan(b *testing.B, e *env) error {
	db, err := e.intDB()
	if err != nil {
		return err
	}
	var x, y int64
	var z float64
	return perRow(b, intRows, func() (int, error) {
		rows, err := db.Query(sqlIntScan)
		if err != nil {
			return 0, err
		}
		return scanAll(rows, &x, &y, &z)
	})
}

// batchInsert inserts 100,000 rows per op in one transaction through one
// prepared statement: the bind/step/reset path with no commit cost per row.
func batchInsert(b *testing.B, e *env) error {
	db, err := e.batchDB()
	if err != nil {
		return err
	}
	insert := func() error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback() // no-op after Commit
		st, err := tx.Prepare(sqlBatchInsert)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range batchRows {
			if _, err := st.Exec(i, i*7, float64(i)*0.5, "batch insert payload"); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	b.ReportAllocs()
	var cpu cpuMeter
	for b.Loop() {
		// Emptying the table is setup, not the operation being measured.
		b.StopTimer()
		if err := execAll(db, "DELETE FROM batch"); err != nil {
			return err
		}
		b.StartTimer()
		cpu.begin()
		if err := insert(); err != nil {
			return err
		}
		cpu.end()
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchRows), "ns/row")
	var n int
	if err := db.QueryRow(sqlBatchCount).Scan(&n); err != nil {
		return err
	}
	if n != batchRows {
		return fmt.Errorf("batch has %d rows, want %d", n, batchRows)
	}
	return nil
}

// intDB holds the IntScan table.
func (e *env) intDB() (*sql.DB, error) {
	return once(e, "ints", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		return db, execAll(db, sqlIntCreate, sqlIntFill)
	})
}

// batchDB holds the BatchInsert table.
func (e *env) batchDB() (*sql.DB, error) {
	return once(e, "batch", func() (*sql.DB, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		return db, execAll(db, sqlBatchCreate)
	})
}

// pointDB is a WAL-mode file of 100,000 (id INTEGER PRIMARY KEY, v TEXT)
// rows, read through a pool of eight connections.
func (e *env) pointDB() (*sql.DB, error) {
	return once(e, "point", func() (*sql.DB, error) {
		db, err := e.file("point.db", pointWorkers)
		if err != nil {
			return nil, err
		}
		// WAL is a property of the file: set once, every connection sees it.
		var mode string
		if err := db.QueryRow(sqlWAL).Scan(&mode); err != nil {
			return nil, err
		}
		if !strings.EqualFold(mode, "wal") {
			return nil, fmt.Errorf("journal_mode is %q, want wal", mode)
		}
		if err := execAll(db, sqlPointCreate, sqlPointFill, sqlCheckpoint); err != nil {
			return nil, err
		}
		var n int
		if err := db.QueryRow(sqlPointCount).Scan(&n); err != nil {
			return nil, err
		}
		if n != pointRows {
			return nil, fmt.Errorf("kv has %d rows, want %d", n, pointRows)
		}
		return db, nil
	})
}

// xorshift is a tiny deterministic generator of lookup keys; the C program
// uses the same one.
type xorshift uint64

func (x *xorshift) key() int64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return int64(uint64(*x)%pointRows) + 1
}

// pointLookup looks up random primary keys with db.QueryRow, as an
// application would, from the given number of goroutines. With more than one,
// ns/op is wall time divided by the lookups of all goroutines together.
func pointLookup(b *testing.B, e *env, workers int) error {
	db, err := e.pointDB()
	if err != nil {
		return err
	}
	lookup := func(r *xorshift) error {
		var v string
		if err := db.QueryRow(sqlPointLookup, r.key()).Scan(&v); err != nil {
			return err
		}
		if v == "" {
			return errors.New("empty value")
		}
		return nil
	}
	b.ReportAllocs()
	if workers == 1 {
		r := xorshift(1)
		return loop(b, func() error { return lookup(&r) })
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	var cpu cpuMeter
	b.ResetTimer()
	cpu.begin()
	for w := range workers {
		wg.Go(func() {
			r := xorshift(w + 1)
			for next.Add(1) <= int64(b.N) {
				if err := lookup(&r); err != nil {
					errOnce.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	cpu.end()
	cpu.report(b)
	return first
}

// contextQuery runs a CPU-bound query that spends its time inside SQLite,
// with ctx. Comparing a context that can never be cancelled with one that
// could be shows what a driver's cancellation support costs a long query.
func contextQuery(b *testing.B, e *env, ctx context.Context) error {
	st, err := once(e, "context", func() (*sql.Stmt, error) {
		db, err := e.memory()
		if err != nil {
			return nil, err
		}
		st, err := db.Prepare(sqlContext)
		if err == nil {
			e.closers = append(e.closers, st)
		}
		return st, err
	})
	if err != nil {
		return err
	}
	return loop(b, func() error {
		var n int
		if err := st.QueryRowContext(ctx).Scan(&n); err != nil {
			return err
		}
		if n != contextCount {
			return fmt.Errorf("count(*) = %d, want %d", n, contextCount)
		}
		return nil
	})
}

// cancelLatency starts a query that would run for many seconds, lets it run
// for cancelDelay, cancels its context and reports, as ns/op, the median
// time from cancel() to the query returning its error: how quickly a driver
// notices. The median, not the mean, because on a shared machine a few
// cancels land while the query's thread is descheduled and take
// milliseconds. B/op and allocs/op are those of the whole query.
func cancelLatency(b *testing.B, e *env) error {
	db, err := once(e, "cancel", e.memory)
	if err != nil {
		return err
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if err := cancelOnce(db, &lat); err != nil {
			return err
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "ns/op")
	return nil
}

// cancelOnce runs and cancels the query once, appending the latency to lat.
func cancelOnce(db *sql.DB, lat *[]time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var n int64
		done <- db.QueryRowContext(ctx, sqlCancel).Scan(&n)
	}()
	time.Sleep(cancelDelay)
	start := time.Now()
	cancel()
	err := <-done
	*lat = append(*lat, time.Since(start))
	if err == nil {
		return errors.New("the query finished before it was cancelled")
	}
	// Any error will do: drivers report an interrupted query in different
	// ways, not all of them matching context.Canceled.
	return nil
}
