//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A database/sql program whose hot loops use the direct statement API:
// sql.Conn.Raw hands over the driver's connection, inside the transaction
// the program began, and the loops bind, step and read with one cgo call per
// row and no allocation for numbers. Everything else (schema, the
// transaction, the final query) stays plain database/sql.
func Example_directAPI() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // ":memory:" is a database per connection
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE points(id INTEGER PRIMARY KEY, x REAL, label TEXT)"); err != nil {
		panic(err)
	}

	conn, err := db.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		panic(err)
	}
	defer tx.Rollback()

	err = conn.Raw(func(dc any) error {
		c := dc.(*SQLiteConn)

		// Writes: bind, step and reset are one cgo call per row.
		ins, err := c.PrepareDirect("INSERT INTO points(x, label) VALUES (?, ?)")
		if err != nil {
			return err
		}
		defer ins.Finalize()
		for i := 1; i <= 1000; i++ {
			ins.BindFloat(1, float64(i)/2)
			ins.BindText(2, fmt.Sprint("p", i))
			if _, err := ins.Step(); err != nil {
				return err
			}
			ins.Reset()
		}

		// Many rows from Go slices: one cgo call per 256 rows.
		n, err := ins.ExecColumns([]float64{-1, -2}, []string{"left", "right"})
		if err != nil {
			return fmt.Errorf("after %d rows: %w", n, err)
		}

		// Reads: the columns come from the row Step described, no cgo call.
		sel, err := c.PrepareDirect("SELECT id, x, label FROM points WHERE x > :min ORDER BY id")
		if err != nil {
			return err
		}
		defer sel.Finalize()
		sel.BindFloat(sel.BindParameterIndex(":min"), 499)
		var sum float64
		var last string
		for {
			row, err := sel.Step()
			if err != nil {
				return err
			}
			if !row {
				break
			}
			sum += sel.ColumnFloat(1)
			if sel.ColumnInt64(0) == 1000 {
				last = sel.ColumnText(2) // a string of its own, to keep
			}
		}
		fmt.Println("sum of x over 499:", sum, "last label:", last)
		return nil
	})
	if err != nil {
		panic(err)
	}
	if err := tx.Commit(); err != nil {
		panic(err)
	}
	conn.Close() // back to the pool

	var count int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM points").Scan(&count); err != nil {
		panic(err)
	}
	fmt.Println("rows:", count)
	// Output:
	// sum of x over 499: 999.5 last label: p1000
	// rows: 1002
}

// A direct statement observes a context once SetInterrupt gave it one: here a
// count that would run for seconds stops at its deadline, with the error
// database/sql returns, and the statement then runs again under a live
// context.
func ExampleDirectStmt_SetInterrupt() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		st, err := dc.(*SQLiteConn).PrepareDirect(
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?) SELECT count(*) FROM c")
		if err != nil {
			return err
		}
		defer st.Finalize()

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		st.SetInterrupt(ctx)
		st.BindInt64(1, 5e7)
		_, err = st.Step()
		fmt.Println("deadline:", errors.Is(err, context.DeadlineExceeded))

		st.SetInterrupt(context.Background())
		st.Reset()
		st.BindInt64(1, 1000)
		if _, err := st.Step(); err != nil {
			return err
		}
		fmt.Println("count:", st.ColumnInt64(0))
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// deadline: true
	// count: 1000
}
