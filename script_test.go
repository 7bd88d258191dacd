//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
)

// The statements of a script after the first that take no parameters run in
// the bridge, several per cgo call (bridge_exec_script). These tests pin what
// that must keep from running them one by one from Go.

// An error in any statement reports its offset in the whole script, for
// statements run by the bridge and for those it hands back to Go.
func TestScriptErrorOffsets(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE t(x)")
	for _, tc := range []struct {
		query string
		args  []any
		token string
	}{
		{"INSERT INTO t VALUES(1); INSERT INTO t VALUES(2); SELECT nosuchcol FROM t; INSERT INTO t VALUES(3)", nil, "nosuchcol"},
		{"INSERT INTO t VALUES(?); INSERT INTO t VALUES(2);\n  SELEC 1; INSERT INTO t VALUES(3)", []any{1}, "SELEC"},
		{"INSERT INTO t VALUES(1); INSERT INTO t VALUES(?); INSERT INTO t VALUES(2) WHERE", []any{1}, "WHERE"},
	} {
		want := strings.Index(tc.query, tc.token)
		for _, op := range []string{"exec", "query"} {
			var err error
			if op == "exec" {
				_, err = db.Exec(tc.query, tc.args...)
			} else {
				var rows *sql.Rows
				if rows, err = db.Query(tc.query, tc.args...); err == nil {
					rows.Close()
				}
			}
			e := testAsError(t, err)
			if e.Code != ErrError || e.Offset() != want {
				t.Errorf("%s %q: code %d offset %d, want ErrError at %d (%v)", op, tc.query, e.Code, e.Offset(), want, err)
			}
		}
	}
	// Nothing after a failing statement ran: 3 was never inserted.
	if n := testQueryInt(t, db, "SELECT count(*) FROM t WHERE x = 3"); n != 0 {
		t.Errorf("%d statements after a failing one ran", n)
	}

	// A run-time error in a statement the bridge runs keeps its codes and
	// message, and stops the script there.
	testMustExec(t, db, "CREATE TABLE uq(x UNIQUE)")
	_, err := db.Exec("INSERT INTO uq VALUES(1); INSERT INTO uq VALUES(2); INSERT INTO uq VALUES(1); INSERT INTO uq VALUES(3)")
	e := testAsError(t, err)
	if e.Code != ErrConstraint || e.ExtendedCode != ErrConstraintUnique || !strings.Contains(err.Error(), "UNIQUE") {
		t.Errorf("error %v: code %d/%d, want the UNIQUE constraint's", err, e.Code, e.ExtendedCode)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM uq"); got != "1,2" {
		t.Errorf("uq rows %q, want 1,2", got)
	}
}

// The result of an Exec is its last statement's, whoever ran it.
func TestScriptResultIsLastStatements(t *testing.T) {
	db := testMemDB(t, "")
	for _, tc := range []struct {
		query         string
		args          []any
		changes, last int64
	}{
		{"CREATE TABLE r(x); INSERT INTO r VALUES(1),(2); INSERT INTO r VALUES(3),(4),(5)", nil, 3, 5},
		{"INSERT INTO r VALUES(?); INSERT INTO r VALUES(7),(8)", []any{6}, 2, 8},
		{"INSERT INTO r VALUES(9),(10); UPDATE r SET x = x WHERE x > ?", []any{4}, 6, 10},
		// A SELECT changes nothing: RowsAffected stays the last change's, as
		// sqlite3_changes reports it.
		{"INSERT INTO r VALUES(11); SELECT * FROM r", nil, 1, 11},
	} {
		res, err := db.Exec(tc.query, tc.args...)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		changes, _ := res.RowsAffected()
		last, _ := res.LastInsertId()
		if changes != tc.changes || last != tc.last {
			t.Errorf("%q: RowsAffected %d LastInsertId %d, want %d and %d", tc.query, changes, last, tc.changes, tc.last)
		}
	}
}

// With _strict, arguments left over are reported before the last statement
// runs, as when every statement is bound from Go; the statements before it
// have run.
func TestScriptLeftoverArgumentsStopBeforeLast(t *testing.T) {
	db := testMemDB(t, "_strict=1")
	testMustExec(t, db, "CREATE TABLE t(x)")
	_, err := db.Exec("INSERT INTO t VALUES(?); INSERT INTO t VALUES(2); INSERT INTO t VALUES(99)", 1, 50)
	if err == nil || !strings.Contains(err.Error(), "too many arguments") {
		t.Fatalf("err = %v, want too many arguments", err)
	}
	_, err = db.Exec("INSERT INTO t VALUES(3); INSERT INTO t VALUES(4); INSERT INTO t VALUES(99)", sql.Named("x", 1))
	if err == nil || !strings.Contains(err.Error(), `no parameter named "x"`) {
		t.Fatalf("err = %v, want the unused named argument", err)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM t"); got != "1,2,3,4" {
		t.Errorf("rows %q, want 1,2,3,4 (99 must not be inserted)", got)
	}
	// Too few: the bridge hands back the statement that needs one.
	_, err = db.Exec("INSERT INTO t VALUES(5); INSERT INTO t VALUES(6); INSERT INTO t VALUES(?)")
	if err == nil || !strings.Contains(err.Error(), "not enough arguments") {
		t.Fatalf("err = %v, want not enough arguments", err)
	}
}

// A context cancelled while the bridge runs a script's statements stops the
// script there, with the context's error, and the connection stays usable.
func TestScriptCancelledInBridge(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE t(x)")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := db.ExecContext(ctx, `INSERT INTO t VALUES(1); INSERT INTO t VALUES(2);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;
		INSERT INTO t VALUES(3)`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM t"); got != "1,2" {
		t.Errorf("rows %q, want 1,2", got)
	}
	// Cancelled before it starts: nothing runs.
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := db.ExecContext(done, "INSERT INTO t VALUES(4); INSERT INTO t VALUES(5)"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM t"); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
}

// A Query script runs every statement but the last in the bridge and returns
// the last one's rows, also when statements in between have parameters.
func TestScriptQueryLastStatementRows(t *testing.T) {
	db := testMemDB(t, "")
	var n, sum int64
	err := db.QueryRow(`CREATE TABLE q(x); INSERT INTO q VALUES(1); INSERT INTO q VALUES(?);
		INSERT INTO q VALUES(3); SELECT count(*), sum(x) FROM q WHERE x < ?; -- done`, 2, 10).Scan(&n, &sum)
	if err != nil || n != 3 || sum != 6 {
		t.Fatalf("count %d sum %d err %v, want 3, 6", n, sum, err)
	}
	// Middle statements that return rows run to their end; their rows are dropped.
	if err := db.QueryRow("SELECT x FROM q; SELECT * FROM q; SELECT max(x) FROM q").Scan(&n); err != nil || n != 3 {
		t.Fatalf("max %d err %v", n, err)
	}
}

// SQLite's tokenizer starts a run of spaces only at " \t\n\f\r" and goes on
// with any isspace byte: a vertical tab (0x0B) that starts a token is
// illegal. What follows the last statement must be judged the same way,
// whether it comes alone (SQLite parses it) or after a statement (the bridge
// decides whether anything is left).
func TestTrailingVerticalTab(t *testing.T) {
	db := openTestDB(t, ":memory:")
	// By default Prepare ignores what follows its first statement, as
	// mattn/go-sqlite3 does; with _strict=1 it judges the rest.
	strict := openTestDB(t, ":memory:?_strict=1")
	for _, tail := range []string{"\v", ";\v", " \v ", "\t\v", "-- c\n\v", "/* c */\v", "/* c */ \v", ";\v;", " \v\v;", "\f\v"} {
		_, want := db.Exec(tail) // SQLite's own verdict
		for _, q := range []string{"SELECT 1;" + tail, "SELECT 1" + tail} {
			_, err := db.Exec(q)
			if (err == nil) != (want == nil) {
				t.Errorf("Exec(%q) = %v; SQLite on %q alone: %v", q, err, tail, want)
			}
			if err != nil && !strings.Contains(err.Error(), "unrecognized token") {
				t.Errorf("Exec(%q) = %v, want SQLite's unrecognized token error", q, err)
			}
			rows, err := db.Query(q)
			if err == nil {
				rows.Close()
			}
			if (err == nil) != (want == nil) {
				t.Errorf("Query(%q) = %v; SQLite on %q alone: %v", q, err, tail, want)
			}
			st, err := strict.Prepare(q)
			if err == nil {
				st.Close()
			}
			if (err == nil) != (want == nil) {
				t.Errorf("Prepare(%q) = %v; SQLite on %q alone: %v", q, err, tail, want)
			}
		}
	}
	if _, err := db.Exec("\v"); err == nil {
		t.Fatal(`Exec("\v") succeeded; SQLite rejects a leading 0x0B`)
	}
}
