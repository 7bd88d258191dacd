//go:build go1.27 && cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"
)

// sql.RawBytes from ScanColumn may point into SQLite's memory; it must stay
// as scanned until its own Rows moves on or closes, even when the same
// statement runs again on the connection (a transaction re-running a
// prepared statement, or the same SQL through the statement cache).
func TestRawBytesStableWhileStatementRunsAgain(t *testing.T) {
	db := openTestDB(t, ":memory:")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	long := func(c byte) string { return strings.Repeat(string(c), 1000) } // not copied into a batch
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	testMustExec(t, db, "INSERT INTO t VALUES (1, ?), (2, ?)", long('a'), long('b'))
	const q = "SELECT v FROM t WHERE id = ?"

	for _, how := range []string{"tx.Stmt", "tx.Query", "tx.QueryRow"} {
		t.Run(how, func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			var st *sql.Stmt
			query := func(id int) (*sql.Rows, error) { return tx.QueryContext(ctx, q, id) }
			if how == "tx.Stmt" {
				if st, err = tx.PrepareContext(ctx, q); err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				query = func(id int) (*sql.Rows, error) { return st.QueryContext(ctx, id) }
			}
			rows, err := query(1)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatal(rows.Err())
			}
			var raw sql.RawBytes
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if string(raw) != long('a') {
				t.Fatalf("scanned %.10q...", raw)
			}
			// The same statement again, for another row, while rows is open.
			if how == "tx.QueryRow" {
				var s string
				if err := tx.QueryRowContext(ctx, q, 2).Scan(&s); err != nil || s != long('b') {
					t.Fatalf("second query: %.10q %v", s, err)
				}
			} else {
				rows2, err := query(2)
				if err != nil {
					t.Fatal(err)
				}
				if !rows2.Next() {
					t.Fatal(rows2.Err())
				}
				var raw2 sql.RawBytes
				if err := rows2.Scan(&raw2); err != nil {
					t.Fatal(err)
				}
				if string(raw2) != long('b') {
					t.Fatalf("second query scanned %.10q...", raw2)
				}
				rows2.Close()
			}
			if !bytes.Equal(raw, []byte(long('a'))) {
				t.Fatalf("RawBytes of the open rows changed to %.10q... when the statement ran again", raw)
			}
		})
	}
}

// An empty TEXT scanned into sql.RawBytes is what database/sql's own
// conversion of the empty string gives, as under Go 1.26 (where the driver's
// Next value goes through it) and on mattn/go-sqlite3: nil in a fresh Rows,
// so programs that test RawBytes against nil see the same thing; an empty
// BLOB stays a non-nil empty slice, NULL nil.
func TestRawBytesEmptyTextAsConvertAssign(t *testing.T) {
	db := openTestDB(t, ":memory:")
	testMustExec(t, db, "CREATE TABLE t(n INTEGER PRIMARY KEY, c TEXT, d)")
	testMustExec(t, db, "INSERT INTO t VALUES (1, '', ''), (2, '', x''), (3, NULL, NULL)")
	for _, tc := range []struct {
		n      int
		nc, nd bool // nil wanted for c, d
	}{{1, true, true}, {2, true, false}, {3, true, true}} {
		var c, d sql.RawBytes
		rows, err := db.Query("SELECT c, d FROM t WHERE n = ?", tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if err := rows.Scan(&c, &d); err != nil {
			t.Fatal(err)
		}
		if len(c) != 0 || (c == nil) != tc.nc || len(d) != 0 || (d == nil) != tc.nd {
			t.Errorf("row %d: scanned %#v, %#v; want nil: %v, %v", tc.n, c, d, tc.nc, tc.nd)
		}
		rows.Close()
	}
}
