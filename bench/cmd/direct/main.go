// Command direct runs the direct-API workloads on this driver's DirectStmt
// (github.com/fastsqlite/sqlite3, the parent directory): the connection of a
// database/sql pool, reached with sql.Conn.Raw, driven with SQLite's C API
// names, as bench/c/bench.c drives SQLite.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"testing"

	sqlite3 "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{Label: "direct", SQLName: "sqlite3", Direct: map[string]workload.DirectFunc{
		"Stmt":              stmt,
		"WideScan/String":   func(b *testing.B, db *sql.DB) error { return wideScan(b, db, true) },
		"WideScan/RawBytes": func(b *testing.B, db *sql.DB) error { return wideScan(b, db, false) },
		"IntScan":           intScan,
		"BatchInsert":       batchInsert,
		"BatchInsert/Bulk":  batchBulk,
		"PointLookup/1":     pointLookup,
	}})
}

// sink and value take what the loops read, so that no read is optimized
// away; they are printed to nobody.
var (
	sink  int64
	value string
)

func init() { fmt.Fprint(io.Discard, sink, value) }

// prepared runs f with a statement prepared on one connection of db.
func prepared(db *sql.DB, query string, f func(c *sqlite3.SQLiteConn, st *sqlite3.DirectStmt) error) error {
	return workload.Raw(db, func(dc any) error {
		c := dc.(*sqlite3.SQLiteConn)
		st, err := c.PrepareDirect(query)
		if err != nil {
			return err
		}
		defer st.Finalize()
		return f(c, st)
	})
}

var errNoRow = errors.New("no row")

func stmt(b *testing.B, db *sql.DB) error {
	return prepared(db, workload.SQLStmt, func(_ *sqlite3.SQLiteConn, st *sqlite3.DirectStmt) error {
		return workload.Loop(b, func() error {
			st.BindNull(1)
			st.BindInt64(2, 1)
			st.BindFloat(3, 1.1)
			st.BindText(4, "foo")
			if ok, err := st.Step(); !ok {
				return errors.Join(errNoRow, err)
			}
			v := st.ColumnRawText(3)
			sink += int64(st.ColumnType(0)) + st.ColumnInt64(1) + int64(st.ColumnFloat(2)) + int64(len(v)+int(v[0]))
			return st.Reset()
		})
	})
}

func wideScan(b *testing.B, db *sql.DB, strings bool) error {
	vals := make([]string, workload.WideCols)
	return prepared(db, workload.SQLWideScan, func(_ *sqlite3.SQLiteConn, st *sqlite3.DirectStmt) error {
		return workload.PerRow(b, workload.WideRows, func() (int, error) {
			n := 0
			for {
				ok, err := st.Step()
				if !ok {
					return n, err
				}
				for i := range workload.WideCols {
					if strings {
						vals[i] = st.ColumnText(i)
					} else {
						v := st.ColumnRawText(i)
						sink += int64(v[workload.WideWidth-1]) + int64(len(v))
					}
				}
				n++
			}
		})
	})
}

func intScan(b *testing.B, db *sql.DB) error {
	return prepared(db, workload.SQLIntScan, func(_ *sqlite3.SQLiteConn, st *sqlite3.DirectStmt) error {
		return workload.PerRow(b, workload.IntRows, func() (int, error) {
			n := 0
			for {
				ok, err := st.Step()
				if !ok {
					return n, err
				}
				sink += st.ColumnInt64(0) + st.ColumnInt64(1) + int64(st.ColumnFloat(2))
				n++
			}
		})
	})
}

// batch times insert, which inserts BatchInsert's rows with st (prepared in
// the op's transaction, as the C program prepares its statement), on one
// connection of db.
func batch(b *testing.B, db *sql.DB, insert func(st *sqlite3.DirectStmt) error) error {
	return workload.Raw(db, func(dc any) error {
		c := dc.(*sqlite3.SQLiteConn)
		exec := func(q string) error {
			_, err := c.ExecContext(context.Background(), q, nil)
			return err
		}
		op := func() error {
			if err := exec("BEGIN"); err != nil {
				return err
			}
			st, err := c.PrepareDirect(workload.SQLBatchInsert)
			if err != nil {
				return err
			}
			err = insert(st)
			st.Finalize()
			if err != nil {
				return err
			}
			return exec("COMMIT")
		}
		count := func() (int64, error) {
			st, err := c.PrepareDirect("SELECT count(*) FROM batch")
			if err != nil {
				return 0, err
			}
			defer st.Finalize()
			st.Step()
			return st.ColumnInt64(0), nil
		}
		return workload.BatchLoop(b, exec, op, count)
	})
}

func batchInsert(b *testing.B, db *sql.DB) error {
	return batch(b, db, func(st *sqlite3.DirectStmt) error {
		for i := range int64(workload.BatchRows) {
			st.BindInt64(1, i)
			st.BindInt64(2, i*7)
			st.BindFloat(3, float64(i)*0.5)
			st.BindText(4, "batch insert payload")
			if _, err := st.Step(); err != nil {
				return err
			}
			st.Reset()
		}
		return nil
	})
}

// batchBulk inserts BatchInsert's rows with ExecColumns, from columns an
// importing program would hold: made once, before the timer, as the C
// program's values are at hand (a counter and a constant string).
func batchBulk(b *testing.B, db *sql.DB) error {
	n := workload.BatchRows
	ids, ns, fs, ss := make([]int64, n), make([]int64, n), make([]float64, n), make([]string, n)
	for i := range int64(n) {
		ids[i], ns[i], fs[i], ss[i] = i, i*7, float64(i)*0.5, "batch insert payload"
	}
	return batch(b, db, func(st *sqlite3.DirectStmt) error {
		_, err := st.ExecColumns(ids, ns, fs, ss)
		return err
	})
}

func pointLookup(b *testing.B, db *sql.DB) error {
	key := workload.Keys()
	return prepared(db, workload.SQLPointLookup, func(_ *sqlite3.SQLiteConn, st *sqlite3.DirectStmt) error {
		return workload.Loop(b, func() error {
			st.BindInt64(1, key())
			if ok, err := st.Step(); !ok {
				return errors.Join(errNoRow, err)
			}
			// Kept, as a program keeps what it looks up: the string is made.
			if value = st.ColumnText(0); value == "" {
				return errors.New("empty value")
			}
			return st.Reset()
		})
	})
}
