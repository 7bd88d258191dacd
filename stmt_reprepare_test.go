//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
)

// testReprepares is SQLITE_STMTSTATUS_REPREPARE summed over the statements
// of the connection behind conn, finalized ones included.
func testReprepares(t testing.TB, conn *sql.Conn) (n int64) {
	t.Helper()
	testRawConn(t, conn, func(c *SQLiteConn) {
		defer c.core.unlock(c.core.lock())
		n = cReprepares(c.h)
	})
	return n
}

// A statement whose plan depends on a bound value (LIMIT ?, LIKE ? and
// GLOB ?, a column compared with a partial index's constant) is compiled
// again by SQLite whenever sqlite3_clear_bindings runs on it or a parameter
// is bound anew (vdbeUnbind expires it), even to the value it held. Run
// again with the same arguments, from the statement cache, such statements
// must not be compiled again: not after rows closed early, nor after an
// error, nor through the direct API, nor after a read-only transaction.
// (The first run may re-prepare: SQLite plans the first time without the
// values. A run with another value does too, by SQLite's design: that is
// the better plan the re-prepare is for.)
func TestStmtCacheNoHiddenReprepare(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	ctx := context.Background()
	testMustExec(t, conn, `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INT);
		CREATE INDEX t_name ON t(name);
		CREATE TABLE u(tid INT, v INT);
		CREATE INDEX u_five ON u(tid) WHERE v = 5;
		CREATE TABLE dup(id INTEGER PRIMARY KEY);
		INSERT INTO t VALUES (1, 'ab', 1), (2, 'abc', 1), (3, 'abd', 2), (4, 'b', 2);
		INSERT INTO u VALUES (1, 5), (2, 5), (3, 6);
		INSERT INTO dup VALUES (1), (2), (3)`)

	// firstRow reads one row of a query that has more, then closes the rows.
	firstRow := func(query string, args ...any) error {
		rows, err := conn.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			return errors.New("no row")
		}
		return rows.Close()
	}
	allRows := func(query string, args ...any) error {
		rows, err := conn.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err := benchScan(rows, new(any))
		if err == nil && n == 0 {
			err = errors.New("no row")
		}
		return err
	}
	queryRow := func(query string, args ...any) error {
		var v any
		return conn.QueryRowContext(ctx, query, args...).Scan(&v)
	}
	wantErr := func(err error) error {
		if err == nil {
			return errors.New("succeeded, want an error")
		}
		return nil
	}
	direct := func(f func(c *SQLiteConn) error) error {
		var err error
		testRawConn(t, conn, func(c *SQLiteConn) { err = f(c) })
		return err
	}
	var kept *DirectStmt
	t.Cleanup(func() {
		if kept != nil {
			kept.Finalize()
		}
	})

	// Binding TEXT anew to a LIKE or GLOB pattern expires the statement
	// even when the value is the same: only a bridge that sees SQLite's
	// statement (the amalgamation in its translation unit, not the
	// libsqlite3 tag nor the fastsqlite_dev loop) can skip that bind, and
	// set query_only without the PRAGMA that expires every statement.
	const text, flag = "like", "read-only"
	cases := []struct {
		name string
		run  func() error
	}{
		{"limit/early close", func() error { return firstRow("SELECT id FROM t ORDER BY id LIMIT ?", 3) }},
		{"limit/QueryRow", func() error { return queryRow("SELECT id FROM t ORDER BY id LIMIT ?", 3) }},
		{"limit/all rows", func() error { return allRows("SELECT id FROM t ORDER BY id LIMIT ?", 3) }},
		{"like/early close", func() error { return firstRow("SELECT id FROM t WHERE name LIKE ? ORDER BY id", "ab%") }},
		{"like/QueryRow", func() error { return queryRow("SELECT id FROM t WHERE name LIKE ?", "ab%") }},
		{"glob/all rows (like)", func() error { return allRows("SELECT id FROM t WHERE name GLOB ?", "ab*") }},
		{"join/partial index", func() error {
			return queryRow("SELECT t.name FROM t JOIN u ON u.tid = t.id WHERE u.v = ? AND t.grp = ?", 5, 1)
		}},
		{"error/query (like)", func() error {
			return wantErr(allRows("SELECT id, json(?) FROM t WHERE name LIKE ? LIMIT ?", "{", "ab%", 2))
		}},
		{"error/exec (like)", func() error {
			_, err := conn.ExecContext(ctx, "INSERT INTO dup SELECT id FROM t WHERE name LIKE ? ORDER BY id LIMIT ?", "ab%", 2)
			return wantErr(err)
		}},
		{"exec/like", func() error {
			_, err := conn.ExecContext(ctx, "UPDATE t SET grp = grp WHERE name LIKE ?", "ab%")
			return err
		}},
		{"direct/prepared each run (like)", func() error {
			return direct(func(c *SQLiteConn) error {
				ds, err := c.PrepareDirect("SELECT id FROM t WHERE name LIKE ? ORDER BY id LIMIT ?")
				if err != nil {
					return err
				}
				defer ds.Finalize()
				if err := ds.BindText(1, "ab%"); err != nil {
					return err
				}
				if err := ds.BindInt64(2, 2); err != nil {
					return err
				}
				if row, err := ds.Step(); !row || err != nil {
					return errors.Join(errors.New("no row"), err)
				}
				return nil
			})
		}},
		{"direct/kept, Exec with arguments (like)", func() error {
			return direct(func(c *SQLiteConn) error {
				if kept == nil {
					var err error
					if kept, err = c.PrepareDirect("SELECT id FROM t WHERE name LIKE ? ORDER BY id LIMIT ?"); err != nil {
						return err
					}
				}
				return kept.Exec("ab%", 2)
			})
		}},
		{"read-only transaction", func() error {
			tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			var v int
			if err := tx.QueryRowContext(ctx, "SELECT grp FROM t WHERE id = ?", 3).Scan(&v); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !stepsAheadBuilt() && (strings.Contains(tc.name, text) || strings.Contains(tc.name, flag)) {
				t.Skip("built against another SQLite: the bridge cannot see bound values nor query_only")
			}
			if err := tc.run(); err != nil { // the first run may plan with the values
				t.Fatal(err)
			}
			before := testReprepares(t, conn)
			const runs = 5
			for range runs {
				if err := tc.run(); err != nil {
					t.Fatal(err)
				}
			}
			if n := testReprepares(t, conn) - before; n != 0 {
				t.Errorf("%d re-prepares in %d runs after the first, want 0", n, runs)
			}
		})
	}

	// The re-prepares SQLite wants stay: a new LIKE pattern may change the
	// plan (a prefix's range on the index), so the statement is compiled
	// with it.
	t.Run("like/new pattern", func(t *testing.T) {
		before := testReprepares(t, conn)
		for _, p := range []string{"ab%", "b%", "abc%"} {
			if err := queryRow("SELECT id FROM t WHERE name LIKE ?", p); err != nil {
				t.Fatal(err)
			}
		}
		if n := testReprepares(t, conn) - before; n == 0 {
			t.Errorf("no re-prepare for new LIKE patterns: is the counter read?")
		}
	})
}

// The bridge does not bind again a value that a parameter the plan depends
// on holds already (bridge_bound_same): a value of another type or other
// bytes must still be bound, and every run must read the rows of its own
// arguments.
func TestStmtCacheKeptBindingsAreRightValues(t *testing.T) {
	db := openTestDB(t, "file::memory:")
	conn := testConn(t, db)
	testMustExec(t, conn, `CREATE TABLE t(name TEXT); CREATE INDEX t_name ON t(name);
		INSERT INTO t VALUES ('ab'), ('abc'), ('abd'), ('b'), ('1.5'), ('')`)
	const query = "SELECT count(*) FROM t WHERE name LIKE ?"
	steps := []struct {
		arg  any
		want int64
	}{
		// A BLOB never matches (SQLITE_LIKE_DOESNT_MATCH_BLOBS): the same
		// bytes as TEXT do.
		{"ab%", 3}, {"ab%", 3}, {[]byte("ab%"), 0}, {[]byte("ab%"), 0}, {"ab%", 3},
		{"b%", 1}, {"ab_", 2}, {"ab_", 2}, {nil, 0}, {nil, 0}, {"", 1}, {"", 1},
		{[]byte{}, 0}, {"", 1}, {1.5, 1}, {1.5, 1}, {2.5, 0}, {"1.5", 1}, {int64(1), 0},
		{"ab%", 3},
	}
	for _, direct := range []bool{false, true} {
		var ds *DirectStmt
		if direct {
			testRawConn(t, conn, func(c *SQLiteConn) {
				var err error
				if ds, err = c.PrepareDirect(query); err != nil {
					t.Fatal(err)
				}
			})
		}
		for i, st := range steps {
			var got int64
			if direct {
				testRawConn(t, conn, func(c *SQLiteConn) {
					if err := ds.Exec(st.arg); err != nil {
						t.Fatal(err)
					}
					if err := ds.Reset(); err != nil {
						t.Fatal(err)
					}
					if row, err := ds.Step(); !row || err != nil {
						t.Fatalf("step %d: %v, %v", i, row, err)
					}
					got = ds.ColumnInt64(0)
				})
			} else {
				got = testQueryInt(t, conn, query, st.arg)
			}
			if got != st.want {
				t.Errorf("direct=%v step %d: LIKE %#v matched %d rows, want %d", direct, i, st.arg, got, st.want)
			}
		}
		if ds != nil {
			testRawConn(t, conn, func(*SQLiteConn) { ds.Finalize() })
		}
	}
}

// Exec's arguments replace every binding of a direct statement (the bridge
// binds them over instead of clearing first): when one fails, the
// parameters after it are NULL, not the values of an earlier run.
func TestDirectFailedBindLeavesNoStaleValue(t *testing.T) {
	c := rawConn(t, ":memory:")
	ds, err := c.PrepareDirect("SELECT ?1, ?2, ?3")
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Finalize()
	if err := ds.Exec("p", "q", "r"); err != nil {
		t.Fatal(err)
	}
	c.SetLimit(SQLITE_LIMIT_LENGTH, 10)
	if err := ds.Exec("a", strings.Repeat("x", 100), "c"); err == nil {
		t.Fatal("a value over SQLITE_LIMIT_LENGTH was bound")
	}
	if err := ds.Reset(); err != nil {
		t.Fatal(err)
	}
	if row, err := ds.Step(); !row || err != nil {
		t.Fatalf("Step: %v, %v", row, err)
	}
	if !ds.ColumnIsNull(2) {
		t.Errorf("parameter 3 holds %q after a failed bind of parameter 2, want NULL", ds.ColumnText(2))
	}
}
