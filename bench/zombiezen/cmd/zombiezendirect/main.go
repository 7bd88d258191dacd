// Command zombiezendirect runs the direct-API workloads on
// zombiezen.com/go/sqlite's own API (sqlite.Conn and sqlite.Stmt), call for
// call as bench/c/bench.c drives SQLite and cmd/direct drives this driver's
// DirectStmt. zombiezen has no database/sql driver, so each fixture is built
// on a zombiezen connection opened with the package's defaults, from the
// same SQL and data as the other programs' (workload.DirectFixture).
//
// It lives in a module of its own (bench/zombiezen): zombiezen is built on
// modernc.org/sqlite and modernc.org/libc, and its requirements in bench/'s
// go.mod could move the versions the modernc column measures. Here they
// join bench/'s through its replace directive, so zombiezen runs on the
// modernc.org/sqlite that bench/ pins (see the README).
package main

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"zombiezen.com/go/sqlite"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{Label: "zombiezendirect", Own: &workload.Own{
		Build: build,
		Workloads: map[string]workload.OwnFunc{
			"Stmt":              stmt,
			"WideScan/String":   func(b *testing.B, c io.Closer) error { return wideScan(b, c, true) },
			"WideScan/RawBytes": func(b *testing.B, c io.Closer) error { return wideScan(b, c, false) },
			"IntScan":           intScan,
			"BatchInsert":       batchInsert,
			"PointLookup/1":     pointLookup,
		},
	}})
}

// sink and value take what the loops read, so that no read is optimized
// away; they are printed to nobody.
var (
	sink  int64
	value string
)

func init() { fmt.Fprint(io.Discard, sink, value) }

// build opens path with OpenConn's defaults (read-write, create, URI
// names, and journal_mode=WAL, which an in-memory database ignores) and runs
// the fixture's steps on it.
func build(f workload.Fixture, path string) (io.Closer, error) {
	c, err := sqlite.OpenConn(path)
	if err != nil {
		return nil, err
	}
	for _, s := range f.Steps {
		if s.Rows != nil {
			err = insertRows(c, s.SQL, s.Rows)
		} else {
			var row []string
			if row, err = run(c, s.SQL, nil); err == nil {
				err = s.Check(row)
			}
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("%.60s: %w", s.SQL, err)
		}
	}
	return c, nil
}

// run runs one statement as sqlite3_exec does (prepare, step to the end,
// finalize) and returns its first row, each column read as text.
func run(c *sqlite.Conn, query string, args []any) ([]string, error) {
	st, trailing, err := c.PrepareTransient(query)
	if err != nil {
		return nil, err
	}
	defer st.Finalize()
	if trailing != 0 {
		return nil, errors.New("more than one statement")
	}
	if err := bind(st, args); err != nil {
		return nil, err
	}
	var row []string
	for {
		ok, err := st.Step()
		if !ok {
			return row, err
		}
		if row == nil {
			row = make([]string, st.ColumnCount())
			for i := range row {
				row[i] = st.ColumnText(i)
			}
		}
	}
}

func insertRows(c *sqlite.Conn, query string, rows [][]any) error {
	st, _, err := c.PrepareTransient(query)
	if err != nil {
		return err
	}
	defer st.Finalize()
	for _, r := range rows {
		if err := bind(st, r); err != nil {
			return err
		}
		if _, err := st.Step(); err != nil {
			return err
		}
		if err := st.Reset(); err != nil {
			return err
		}
	}
	return nil
}

func bind(st *sqlite.Stmt, args []any) error {
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			st.BindNull(i + 1)
		case int64:
			st.BindInt64(i+1, v)
		case float64:
			st.BindFloat(i+1, v)
		case string:
			st.BindText(i+1, v)
		default:
			return fmt.Errorf("parameter %d: cannot bind a %T", i+1, a)
		}
	}
	return nil
}

// prepared runs f with query prepared once on conn, outside the timed loop,
// as the C program prepares it. Conn.Prepare makes a persistent statement,
// cached by its text on the connection; Finalize takes it out of the cache.
func prepared(conn io.Closer, query string, f func(st *sqlite.Stmt) error) error {
	st, err := conn.(*sqlite.Conn).Prepare(query)
	if err != nil {
		return err
	}
	defer st.Finalize()
	return f(st)
}

var errNoRow = errors.New("no row")

func stmt(b *testing.B, conn io.Closer) error {
	return prepared(conn, workload.SQLStmt, func(st *sqlite.Stmt) error {
		return workload.Loop(b, func() error {
			st.BindNull(1)
			st.BindInt64(2, 1)
			st.BindFloat(3, 1.1)
			st.BindText(4, "foo")
			if ok, err := st.Step(); !ok {
				return errors.Join(errNoRow, err)
			}
			// ColumnReader is zombiezen's view of a value in SQLite's
			// memory (sqlite3_column_blob and _bytes), valid until the
			// statement moves; ColumnText copies into a Go string.
			v := st.ColumnReader(3)
			first, err := v.ReadByte()
			if err != nil {
				return err
			}
			sink += int64(st.ColumnType(0)) + st.ColumnInt64(1) + int64(st.ColumnFloat(2)) + v.Size() + int64(first)
			return st.Reset()
		})
	})
}

func wideScan(b *testing.B, conn io.Closer, strings bool) error {
	vals := make([]string, workload.WideCols)
	var last [1]byte
	return prepared(conn, workload.SQLWideScan, func(st *sqlite.Stmt) error {
		return workload.PerRow(b, workload.WideRows, func() (int, error) {
			n := 0
			for {
				ok, err := st.Step()
				if err != nil {
					return n, err
				}
				if !ok {
					return n, st.Reset()
				}
				for i := range workload.WideCols {
					if strings {
						vals[i] = st.ColumnText(i)
					} else {
						v := st.ColumnReader(i)
						if _, err := v.ReadAt(last[:], workload.WideWidth-1); err != nil {
							return n, err
						}
						sink += int64(last[0]) + v.Size()
					}
				}
				n++
			}
		})
	})
}

func intScan(b *testing.B, conn io.Closer) error {
	return prepared(conn, workload.SQLIntScan, func(st *sqlite.Stmt) error {
		return workload.PerRow(b, workload.IntRows, func() (int, error) {
			n := 0
			for {
				ok, err := st.Step()
				if err != nil {
					return n, err
				}
				if !ok {
					return n, st.Reset()
				}
				sink += st.ColumnInt64(0) + st.ColumnInt64(1) + int64(st.ColumnFloat(2))
				n++
			}
		})
	})
}

func batchInsert(b *testing.B, conn io.Closer) error {
	c := conn.(*sqlite.Conn)
	exec := func(q string) error {
		_, err := run(c, q, nil)
		return err
	}
	insert := func() error {
		if err := exec("BEGIN"); err != nil {
			return err
		}
		// Prepared and finalized in every op, as the C program and the other
		// direct programs do; PrepareTransient is sqlite3_prepare without
		// zombiezen's cache.
		st, _, err := c.PrepareTransient(workload.SQLBatchInsert)
		if err != nil {
			return err
		}
		for i := range int64(workload.BatchRows) {
			st.BindInt64(1, i)
			st.BindInt64(2, i*7)
			st.BindFloat(3, float64(i)*0.5)
			st.BindText(4, "batch insert payload")
			if _, err = st.Step(); err != nil {
				break
			}
			if err = st.Reset(); err != nil {
				break
			}
		}
		st.Finalize()
		if err != nil {
			return err
		}
		return exec("COMMIT")
	}
	count := func() (int64, error) {
		st, _, err := c.PrepareTransient("SELECT count(*) FROM batch")
		if err != nil {
			return 0, err
		}
		defer st.Finalize()
		if ok, err := st.Step(); !ok {
			return 0, errors.Join(errNoRow, err)
		}
		return st.ColumnInt64(0), nil
	}
	return workload.BatchLoop(b, exec, insert, count)
}

func pointLookup(b *testing.B, conn io.Closer) error {
	key := workload.Keys()
	return prepared(conn, workload.SQLPointLookup, func(st *sqlite.Stmt) error {
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
