// Command ours runs difftest's programs on this driver (the parent
// directory, through go.mod's replace directive). The difftest command
// (the module root) builds it.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	sqlite3 "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/difftest/harness"
)

func main() {
	harness.Main(harness.Driver{
		Label: "ours",
		Stats: func(db *sql.DB) string {
			st, _ := sqlite3.Stats(context.Background(), db)
			return fmt.Sprintf("grouped %d %d", st.GroupCommits, st.GroupedWrites)
		},
		Code: func(err error) (int, int, bool) {
			var e sqlite3.Error
			if errors.As(err, &e) {
				return int(e.Code), int(e.ExtendedCode), true
			}
			var p *sqlite3.Error
			if errors.As(err, &p) {
				return int(p.Code), int(p.ExtendedCode), true
			}
			return 0, 0, false
		},
		Register: func(name string, hook func(harness.HookConn) error) {
			sql.Register(name, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error { return hook(c) }})
		},
		Direct: direct,
		Blob: func(dc any, rowid int64, off int, p []byte, write bool) error {
			b, err := dc.(*sqlite3.SQLiteConn).OpenBlob("main", "b", "data", rowid, write)
			if err != nil {
				return err
			}
			if write {
				_, err = b.WriteAt(p, int64(off))
			} else {
				_, err = b.ReadAt(p, int64(off))
			}
			if cerr := b.Close(); err == nil {
				err = cerr
			}
			return err
		},
	})
}

// direct runs query with a DirectStmt: bound, stepped to its end, every
// row read with the column's own type, finalized.
func direct(dc any, query string, args []any) ([][]any, error) {
	st, err := dc.(*sqlite3.SQLiteConn).PrepareDirect(query)
	if err != nil {
		return nil, err
	}
	defer st.Finalize()
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			err = st.BindInt64(i+1, a)
		case string:
			err = st.BindText(i+1, a)
		default:
			err = fmt.Errorf("difftest: cannot bind %T", a)
		}
		if err != nil {
			return nil, err
		}
	}
	var rows [][]any
	for {
		row, err := st.Step()
		if err != nil {
			return nil, err
		}
		if !row {
			return rows, nil
		}
		vals := make([]any, st.ColumnCount())
		for i := range vals {
			switch st.ColumnType(i) {
			case sqlite3.TypeInteger:
				vals[i] = st.ColumnInt64(i)
			case sqlite3.TypeFloat:
				vals[i] = st.ColumnFloat(i)
			case sqlite3.TypeText:
				vals[i] = st.ColumnText(i)
			case sqlite3.TypeBlob:
				vals[i] = append([]byte(nil), st.ColumnBytes(i)...)
			}
		}
		rows = append(rows, vals)
	}
}
