//go:build cgo

package sqlite3

// Benchmarks of the direct statement API (direct.go) beside the database/sql
// path on the same workloads, in the same run: BenchmarkDirect/<workload>/
// api=direct and api=sql, so that `benchstat -col /api` prints the two side by
// side. The workloads are those of bench_test.go and of the C program in
// bench/c/bench.c, whose loops the direct variants follow call for call. This
// file is not in bench_test.go because that one runs unchanged on any driver.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// benchDirect runs f with the DirectStmt API on db's one connection, as a
// program does with sql.Conn.Raw.
func benchDirect(b *testing.B, db *sql.DB, f func(c *SQLiteConn) error) {
	b.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error { return f(dc.(*SQLiteConn)) }); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkDirect(b *testing.B) {
	b.Run("IntScan/api=sql", BenchmarkIntScan)
	b.Run("IntScan/api=direct", func(b *testing.B) { benchDirectIntScan(b, false, false) })
	b.Run("IntScan/api=direct-ctx", func(b *testing.B) { benchDirectIntScan(b, true, false) })
	b.Run("IntScan/api=sql-ro", func(b *testing.B) { benchIntScan(b, true) })
	b.Run("IntScan/api=direct-ro", func(b *testing.B) { benchDirectIntScan(b, false, true) })
	b.Run("SortedScan/api=sql", func(b *testing.B) { benchSortedScan(b, false) })
	b.Run("SortedScan/api=sql-ro", func(b *testing.B) { benchSortedScan(b, true) })
	b.Run("WideScan/api=sql", BenchmarkWideScan)
	b.Run("WideScan/api=direct", benchDirectWideScan)
	b.Run("PointLookup/api=sql", func(b *testing.B) { benchPointLookup(b, false, false) })
	b.Run("PointLookup/api=direct", func(b *testing.B) { benchPointLookup(b, true, false) })
	b.Run("PointLookup/api=direct-ctx", func(b *testing.B) { benchPointLookup(b, true, true) })
	b.Run("PointLookup8/api=sql", func(b *testing.B) { benchPointLookup8(b, "") })
	b.Run("PointLookup8/api=sql-unixvfs", func(b *testing.B) { benchPointLookup8(b, "&vfs=unix") })
	b.Run("BatchInsert/api=sql", BenchmarkBatchInsert)
	b.Run("BatchInsert/api=direct", func(b *testing.B) { benchDirectBatchInsert(b, false) })
	b.Run("BatchInsert/api=columns", func(b *testing.B) { benchDirectBatchInsert(b, true) })
	b.Run("Stmt/api=sql", func(b *testing.B) { (&benchSuite{db: benchOpenMemory(b)}).stmt(b) })
	b.Run("Stmt/api=direct", benchDirectStmt)
}

// benchDirectIntScan scans the IntScan table; with ctx, under a context that
// can be cancelled (SetInterrupt), to show what watching it costs.
func benchDirectIntScan(b *testing.B, ctx, readOnly bool) {
	db := benchOpenMemory(b)
	err := benchExec(db,
		"CREATE TABLE ints (a INTEGER, b INTEGER, c REAL)",
		fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
			INSERT INTO ints SELECT x, x*3 - 1000, x*0.25 FROM r`, benchIntRows),
	)
	if err == nil && readOnly {
		err = benchExec(db, "PRAGMA query_only = 1") // rows stepped ahead
	}
	if err != nil {
		b.Fatal(err)
	}
	benchDirect(b, db, func(c *SQLiteConn) error {
		st, done, err := benchPrepareDirect(c, "SELECT a, b, c FROM ints", ctx)
		if err != nil {
			return err
		}
		defer done()
		var sink int64
		benchPerRow(b, benchIntRows, func() (int, error) {
			n := 0
			for {
				ok, err := st.Step()
				if err != nil || !ok {
					return n, err
				}
				sink += st.ColumnInt64(0) + st.ColumnInt64(1) + int64(st.ColumnFloat(2))
				n++
			}
		})
		return nil
	})
}

// benchDirectWideScan reads the WideScan table as views (RawBytes, the
// twin of database/sql's sql.RawBytes) and as strings (String).
func benchDirectWideScan(b *testing.B) {
	db := benchOpenMemory(b)
	var table benchOnce
	scan := func(b *testing.B, strings bool) {
		table.do(b, func() error { return benchFillWide(db) })
		benchDirect(b, db, func(c *SQLiteConn) error {
			st, err := c.PrepareDirect("SELECT * FROM wide")
			if err != nil {
				return err
			}
			defer st.Finalize()
			vals := make([]string, benchWideCols)
			var sink int
			benchPerRow(b, benchWideRows, func() (int, error) {
				n := 0
				for {
					ok, err := st.Step()
					if err != nil || !ok {
						return n, err
					}
					for i := range benchWideCols {
						if strings {
							vals[i] = st.ColumnText(i)
						} else {
							v := st.ColumnRawText(i)
							sink += int(v[benchWideWidth-1]) + len(v)
						}
					}
					n++
				}
			})
			return nil
		})
	}
	b.Run("String", func(b *testing.B) { scan(b, true) })
	b.Run("RawBytes", func(b *testing.B) { scan(b, false) })
}

// benchPointLookup looks up random keys of a 100,000-row WAL table by
// primary key, the bench/ PointLookup/1 workload, reading the value as a
// string on both paths; with ctx, the direct statement watches a context that
// can be cancelled.
func benchPointLookup(b *testing.B, direct, ctx bool) {
	const rows = 100000
	db, err := sql.Open("sqlite3", benchDSN(filepath.Join(b.TempDir(), "point.db")))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	err = benchExec(db, "PRAGMA journal_mode=WAL",
		"CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
		fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
			INSERT INTO kv SELECT x, printf('value-%%d', x) FROM r`, rows),
		"PRAGMA wal_checkpoint(TRUNCATE)")
	if err != nil {
		b.Fatal(err)
	}
	var x uint64 = 1
	key := func() int64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int64(x%rows) + 1
	}
	b.ReportAllocs()
	cpu := benchCPUStart()
	defer func() { cpu.stop(b, 1, "cpu-ns/op") }()
	if !direct {
		for b.Loop() {
			var v string
			if err := db.QueryRow("SELECT v FROM kv WHERE id = ?", key()).Scan(&v); err != nil {
				b.Fatal(err)
			}
			if v == "" {
				b.Fatal("empty value")
			}
		}
		return
	}
	benchDirect(b, db, func(c *SQLiteConn) error {
		st, done, err := benchPrepareDirect(c, "SELECT v FROM kv WHERE id = ?", ctx)
		if err != nil {
			return err
		}
		defer done()
		for b.Loop() {
			st.BindInt64(1, key())
			if ok, err := st.Step(); !ok {
				return errors.Join(errors.New("no row"), err)
			}
			if v := st.ColumnText(0); v == "" {
				return errors.New("empty value")
			}
			st.Reset()
		}
		return nil
	})
}

// benchSortedScan reads 100,000 rows of (INTEGER, INTEGER, REAL) in an
// order that needs a sort; with readOnly on a connection that cannot write
// (PRAGMA query_only).
func benchSortedScan(b *testing.B, readOnly bool) {
	const rows = 100000
	benchIntsScan(b, rows, fmt.Sprintf("(x * 7919) %% %d", rows), "SELECT a, b, c FROM ints ORDER BY b", readOnly)
}

// benchPointLookup8 is bench/'s PointLookup/8 workload: eight goroutines
// look up random keys of a 100,000-row WAL table through a pool of eight
// connections opened with the DSN of bench/cmd/ours (plus extra, e.g.
// "&vfs=unix" to leave out the shared-file VFS of bridge_share_vfs.c). ns/op is
// wall time per lookup, all goroutines together.
func benchPointLookup8(b *testing.B, extra string) {
	const rows, workers = 100000, 8
	dsn := "file:" + filepath.Join(b.TempDir(), "point.db") + "?_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate" + extra
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(workers)
	db.SetMaxIdleConns(workers)
	err = benchExec(db, "CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
		fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
			INSERT INTO kv SELECT x, printf('value-%%d', x) FROM r`, rows),
		"PRAGMA wal_checkpoint(TRUNCATE)")
	if err != nil {
		b.Fatal(err)
	}
	held := make([]*sql.Conn, 0, workers)
	for range workers {
		c, err := db.Conn(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.Close()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchCPUStart()
	for w := range workers {
		wg.Go(func() {
			x := uint64(w + 1)
			for next.Add(1) <= int64(b.N) {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				var v string
				if err := db.QueryRow("SELECT v FROM kv WHERE id = ?", int64(x%rows)+1).Scan(&v); err != nil || v == "" {
					b.Error("lookup:", v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	cpu.stop(b, 1, "cpu-ns/op")
}

// benchDirectBatchInsert inserts 100,000 rows in one transaction, as
// BenchmarkBatchInsert does: bind, step and reset per row, or, with
// columns, the whole batch with ExecColumns from Go slices (built untimed).
func benchDirectBatchInsert(b *testing.B, columns bool) {
	db := benchOpenMemory(b)
	if err := benchExec(db, "CREATE TABLE batch (id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT)"); err != nil {
		b.Fatal(err)
	}
	ids := make([]int64, benchBatchRows)
	ns := make([]int64, benchBatchRows)
	fs := make([]float64, benchBatchRows)
	ss := make([]string, benchBatchRows)
	for i := range ids {
		ids[i], ns[i], fs[i], ss[i] = int64(i), int64(i*7), float64(i)*0.5, "batch insert payload"
	}
	benchDirect(b, db, func(c *SQLiteConn) error {
		insert := func() error {
			if _, err := c.ExecContext(context.Background(), "BEGIN", nil); err != nil {
				return err
			}
			st, err := c.PrepareDirect("INSERT INTO batch (id, n, f, s) VALUES (?, ?, ?, ?)")
			if err != nil {
				return err
			}
			if columns {
				_, err = st.ExecColumns(ids, ns, fs, ss)
			} else {
				for i := range benchBatchRows {
					st.BindInt64(1, int64(i))
					st.BindInt64(2, int64(i*7))
					st.BindFloat(3, float64(i)*0.5)
					st.BindText(4, "batch insert payload")
					if _, err = st.Step(); err != nil {
						break
					}
					st.Reset()
				}
			}
			st.Finalize()
			if err != nil {
				return err
			}
			_, err = c.ExecContext(context.Background(), "COMMIT", nil)
			return err
		}
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if _, err := c.ExecContext(context.Background(), "DELETE FROM batch", nil); err != nil {
				return err
			}
			b.StartTimer()
			if err := insert(); err != nil {
				return err
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatchRows), "ns/row")
		return nil
	})
	var n int
	if err := db.QueryRow("SELECT count(*) FROM batch").Scan(&n); err != nil {
		b.Fatal(err)
	}
	if n != benchBatchRows {
		b.Fatalf("batch has %d rows, want %d", n, benchBatchRows)
	}
}

// benchDirectStmt is BenchmarkSuite/BenchmarkStmt: bind four values, step,
// read four columns, reset, as the C program does.
func benchDirectStmt(b *testing.B) {
	db := benchOpenMemory(b)
	benchDirect(b, db, func(c *SQLiteConn) error {
		st, err := c.PrepareDirect("select ?, ?, ?, ?")
		if err != nil {
			return err
		}
		defer st.Finalize()
		var sink int
		b.ReportAllocs()
		for b.Loop() {
			st.BindNull(1)
			st.BindInt64(2, 1)
			st.BindFloat(3, 1.1)
			st.BindText(4, "foo")
			if ok, err := st.Step(); !ok {
				return errors.Join(errors.New("no row"), err)
			}
			v := st.ColumnRawText(3)
			sink += int(st.ColumnType(0)) + int(st.ColumnInt64(1)) + int(st.ColumnFloat(2)) + len(v) + int(v[0])
			st.Reset()
		}
		return nil
	})
}

// benchPrepareDirect prepares query, with a cancellable context set when
// cancellable is true (the api=direct-ctx variants); done finalizes it.
func benchPrepareDirect(c *SQLiteConn, query string, cancellable bool) (*DirectStmt, func(), error) {
	st, err := c.PrepareDirect(query)
	if err != nil {
		return nil, nil, err
	}
	cancel := func() {}
	if cancellable {
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		st.SetInterrupt(ctx)
	}
	return st, func() { st.Finalize(); cancel() }, nil
}
