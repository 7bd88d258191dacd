// Command ncrucesdirect runs the direct-API workloads on
// github.com/ncruces/go-sqlite3's own API (sqlite3.Conn and sqlite3.Stmt),
// reached from its database/sql driver's connection with Raw, as cmd/direct
// does for this driver.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{Label: "ncrucesdirect", SQLName: "sqlite3", Direct: map[string]workload.DirectFunc{
		"Stmt":              stmt,
		"WideScan/String":   func(b *testing.B, db *sql.DB) error { return wideScan(b, db, true) },
		"WideScan/RawBytes": func(b *testing.B, db *sql.DB) error { return wideScan(b, db, false) },
		"IntScan":           intScan,
		"BatchInsert":       batchInsert,
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

func conn(db *sql.DB, f func(c *sqlite3.Conn) error) error {
	return workload.Raw(db, func(dc any) error {
		c, ok := dc.(interface{ Raw() *sqlite3.Conn })
		if !ok {
			return fmt.Errorf("%T has no Raw method", dc)
		}
		return f(c.Raw())
	})
}

func prepared(db *sql.DB, query string, f func(st *sqlite3.Stmt) error) error {
	return conn(db, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(query)
		if err != nil {
			return err
		}
		defer st.Close()
		return f(st)
	})
}

func noRow(st *sqlite3.Stmt) error { return errors.Join(errors.New("no row"), st.Err()) }

func stmt(b *testing.B, db *sql.DB) error {
	return prepared(db, workload.SQLStmt, func(st *sqlite3.Stmt) error {
		return workload.Loop(b, func() error {
			st.BindNull(1)
			st.BindInt64(2, 1)
			st.BindFloat(3, 1.1)
			st.BindText(4, "foo")
			if !st.Step() {
				return noRow(st)
			}
			v := st.ColumnRawText(3)
			sink += int64(st.ColumnType(0)) + st.ColumnInt64(1) + int64(st.ColumnFloat(2)) + int64(len(v)+int(v[0]))
			return st.Reset()
		})
	})
}

func wideScan(b *testing.B, db *sql.DB, strings bool) error {
	vals := make([]string, workload.WideCols)
	return prepared(db, workload.SQLWideScan, func(st *sqlite3.Stmt) error {
		return workload.PerRow(b, workload.WideRows, func() (int, error) {
			n := 0
			for st.Step() {
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
			return n, st.Reset()
		})
	})
}

func intScan(b *testing.B, db *sql.DB) error {
	return prepared(db, workload.SQLIntScan, func(st *sqlite3.Stmt) error {
		return workload.PerRow(b, workload.IntRows, func() (int, error) {
			n := 0
			for st.Step() {
				sink += st.ColumnInt64(0) + st.ColumnInt64(1) + int64(st.ColumnFloat(2))
				n++
			}
			return n, st.Reset()
		})
	})
}

func batchInsert(b *testing.B, db *sql.DB) error {
	return conn(db, func(c *sqlite3.Conn) error {
		insert := func() error {
			if err := c.Exec("BEGIN"); err != nil {
				return err
			}
			st, _, err := c.Prepare(workload.SQLBatchInsert)
			if err != nil {
				return err
			}
			for i := range int64(workload.BatchRows) {
				st.BindInt64(1, i)
				st.BindInt64(2, i*7)
				st.BindFloat(3, float64(i)*0.5)
				st.BindText(4, "batch insert payload")
				if err = st.Exec(); err != nil {
					break
				}
			}
			st.Close()
			if err != nil {
				return err
			}
			return c.Exec("COMMIT")
		}
		count := func() (int64, error) {
			st, _, err := c.Prepare("SELECT count(*) FROM batch")
			if err != nil {
				return 0, err
			}
			defer st.Close()
			st.Step()
			return st.ColumnInt64(0), st.Err()
		}
		return workload.BatchLoop(b, c.Exec, insert, count)
	})
}

func pointLookup(b *testing.B, db *sql.DB) error {
	key := workload.Keys()
	return prepared(db, workload.SQLPointLookup, func(st *sqlite3.Stmt) error {
		return workload.Loop(b, func() error {
			st.BindInt64(1, key())
			if !st.Step() {
				return noRow(st)
			}
			// Kept, as a program keeps what it looks up: the string is made.
			if value = st.ColumnText(0); value == "" {
				return errors.New("empty value")
			}
			return st.Reset()
		})
	})
}
