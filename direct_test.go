//go:build cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func directExec(t testing.TB, c *SQLiteConn, query string) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), query, nil); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func mustPrepareDirect(t testing.TB, c *SQLiteConn, query string) *DirectStmt {
	t.Helper()
	s, err := c.PrepareDirect(query)
	if err != nil {
		t.Fatalf("PrepareDirect(%q): %v", query, err)
	}
	t.Cleanup(func() { s.Finalize() })
	return s
}

func mustStep(t testing.TB, s *DirectStmt, want bool) {
	t.Helper()
	got, err := s.Step()
	if err != nil {
		t.Fatalf("Step: %v", err)
	}
	if got != want {
		t.Fatalf("Step = %v, want %v", got, want)
	}
}

func isCode(err error, code ErrNo) bool {
	var e Error
	return errors.As(err, &e) && e.Code == code
}

// Every bind type goes in, and comes back as SQLite stores it.
func TestDirectBindAndColumns(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(i INTEGER, f REAL, s TEXT, b BLOB, n, z BLOB, tm TEXT, bo INTEGER)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	if n := ins.BindParameterCount(); n != 8 {
		t.Fatalf("BindParameterCount = %d", n)
	}
	when := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.FixedZone("", 3600))
	for _, err := range []error{
		ins.BindInt64(1, -1<<63), ins.BindFloat(2, 2.5), ins.BindText(3, "héllo"),
		ins.BindBlob(4, []byte{0, 1, 2}), ins.BindNull(5), ins.BindZeroBlob(6, 3),
		ins.BindTime(7, when), ins.BindBool(8, true),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	mustStep(t, ins, false)
	if ins.Changes() != 1 || ins.LastInsertRowID() != 1 {
		t.Fatalf("Changes %d, LastInsertRowID %d", ins.Changes(), ins.LastInsertRowID())
	}

	q := mustPrepareDirect(t, c, "SELECT i, f, s, b, n, z, tm, bo, typeof(z) FROM t")
	if q.ColumnCount() != 9 || q.ColumnName(0) != "i" || q.ColumnName(8) != "typeof(z)" || q.ColumnName(9) != "" {
		t.Fatalf("columns: %d %q %q", q.ColumnCount(), q.ColumnName(0), q.ColumnName(8))
	}
	if q.ColumnDeclType(1) != "REAL" || q.ColumnDeclType(4) != "" {
		t.Fatalf("decltypes %q %q", q.ColumnDeclType(1), q.ColumnDeclType(4))
	}
	mustStep(t, q, true)
	wantTypes := []Datatype{TypeInteger, TypeFloat, TypeText, TypeBlob, TypeNull, TypeBlob, TypeText, TypeInteger, TypeText}
	for i, w := range wantTypes {
		if got := q.ColumnType(i); got != w {
			t.Errorf("ColumnType(%d) = %v, want %v", i, got, w)
		}
	}
	if q.ColumnInt64(0) != -1<<63 || q.ColumnFloat(1) != 2.5 || q.ColumnText(2) != "héllo" ||
		!bytes.Equal(q.ColumnBytes(3), []byte{0, 1, 2}) || !q.ColumnIsNull(4) ||
		!bytes.Equal(q.ColumnBytes(5), []byte{0, 0, 0}) || q.ColumnText(6) != when.Format(SQLiteTimestampFormats[0]) ||
		!q.ColumnBool(7) || q.ColumnText(8) != "blob" {
		t.Fatalf("row: %d %v %q %v %v %v %q %v", q.ColumnInt64(0), q.ColumnFloat(1), q.ColumnText(2),
			q.ColumnBytes(3), q.ColumnIsNull(4), q.ColumnBytes(5), q.ColumnText(6), q.ColumnBool(7))
	}
	if q.ColumnBytes(4) != nil || q.ColumnText(4) != "" || q.ColumnInt64(4) != 0 {
		t.Fatal("NULL does not read as nil, \"\", 0")
	}
	mustStep(t, q, false)
}

// Parameters bind by name, with or without the prefix.
func TestDirectBindByName(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, "SELECT :a, @b, $c, ?4, :a")
	if s.BindParameterCount() != 4 {
		t.Fatalf("count %d", s.BindParameterCount())
	}
	for name, want := range map[string]int{":a": 1, "a": 1, "@b": 2, "b": 2, "$c": 3, "c": 3, "?4": 4, "4": 0, ":b": 0, "x": 0, "": 0} {
		if got := s.BindParameterIndex(name); got != want {
			t.Errorf("BindParameterIndex(%q) = %d, want %d", name, got, want)
		}
	}
	if s.BindParameterName(1) != ":a" || s.BindParameterName(4) != "?4" || s.BindParameterName(5) != "" {
		t.Fatal("BindParameterName")
	}
	s.BindInt64(s.BindParameterIndex("a"), 1)
	s.BindText(s.BindParameterIndex("b"), "two")
	s.BindFloat(s.BindParameterIndex("$c"), 3.5)
	mustStep(t, s, true)
	if s.ColumnInt64(0) != 1 || s.ColumnText(1) != "two" || s.ColumnFloat(2) != 3.5 || !s.ColumnIsNull(3) || s.ColumnInt64(4) != 1 {
		t.Fatalf("row %v %q %v %v", s.ColumnInt64(0), s.ColumnText(1), s.ColumnFloat(2), s.ColumnType(3))
	}
}

// Bindings stay for the next runs until rebound or cleared, as in C.
func TestDirectBindingsPersist(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, "SELECT ?1, ?2")
	s.BindInt64(1, 7)
	s.BindText(2, "x")
	mustStep(t, s, true)
	s.Reset()
	s.BindInt64(1, 8)
	mustStep(t, s, true)
	if s.ColumnInt64(0) != 8 || s.ColumnText(1) != "x" {
		t.Fatalf("after rebinding one: %d %q", s.ColumnInt64(0), s.ColumnText(1))
	}
	s.Reset()
	s.ClearBindings()
	mustStep(t, s, true)
	if !s.ColumnIsNull(0) || !s.ColumnIsNull(1) {
		t.Fatal("ClearBindings left values")
	}
	// A value bound and then cleared before any run is not bound.
	s.Reset()
	s.BindText(1, strings.Repeat("y", 100<<10)) // owned C buffer
	s.ClearBindings()
	s.BindInt64(2, 3)
	mustStep(t, s, true)
	if !s.ColumnIsNull(0) || s.ColumnInt64(1) != 3 {
		t.Fatal("ClearBindings then bind")
	}
}

// Binding more text than the arena holds binds what waits first (the flush
// path), large values get their own buffer, and every value arrives intact.
func TestDirectBindGrowsArena(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, "SELECT ?1, ?2, ?3, ?4, ?5")
	vals := []string{"a", strings.Repeat("b", 300), strings.Repeat("c", 5000), strings.Repeat("d", 70000), strings.Repeat("e", 60000)}
	for round := 0; round < 3; round++ {
		for i, v := range vals {
			if err := s.BindText(i+1, v); err != nil {
				t.Fatal(err)
			}
		}
		// Rebinding before the run replaces the value (and frees a large one).
		s.BindText(4, vals[3])
		mustStep(t, s, true)
		for i, v := range vals {
			if got := s.ColumnText(i); got != v {
				t.Fatalf("round %d column %d: %d bytes, want %d", round, i, len(got), len(v))
			}
		}
		s.Reset()
	}
}

func TestDirectConversions(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, "SELECT 12, 2.5, '42abc', ' 7.5e1x', x'3132', 1e300, -1e300, 0.1, CAST(0.1 AS TEXT), 100.0, CAST(100.0 AS TEXT)")
	mustStep(t, s, true)
	if s.ColumnText(0) != "12" || string(s.ColumnRawText(0)) != "12" || s.ColumnFloat(0) != 12 {
		t.Error("INTEGER conversions")
	}
	if s.ColumnInt64(1) != 2 || s.ColumnText(1) != "2.5" || string(s.ColumnRawText(1)) != "2.5" {
		t.Errorf("FLOAT conversions: %d %q", s.ColumnInt64(1), s.ColumnText(1))
	}
	if s.ColumnInt64(2) != 42 || s.ColumnFloat(2) != 42 {
		t.Errorf("TEXT conversions: %d %v", s.ColumnInt64(2), s.ColumnFloat(2))
	}
	// SQLite's own rule: the integer prefix for an INTEGER, the real one for a FLOAT.
	if s.ColumnInt64(3) != 7 || s.ColumnFloat(3) != 75 {
		t.Errorf("TEXT real prefix: %d %v", s.ColumnInt64(3), s.ColumnFloat(3))
	}
	if s.ColumnInt64(4) != 12 || s.ColumnText(4) != "12" {
		t.Errorf("BLOB conversions: %d", s.ColumnInt64(4))
	}
	if s.ColumnInt64(5) != math.MaxInt64 || s.ColumnInt64(6) != math.MinInt64 {
		t.Errorf("clamping: %d %d", s.ColumnInt64(5), s.ColumnInt64(6))
	}
	// A FLOAT's text is SQLite's own.
	if s.ColumnText(7) != s.ColumnText(8) || s.ColumnText(9) != s.ColumnText(10) {
		t.Errorf("FLOAT text %q vs SQLite's %q; %q vs %q", s.ColumnText(7), s.ColumnText(8), s.ColumnText(9), s.ColumnText(10))
	}
	// The conversion left the other columns' values alone.
	if s.ColumnInt64(0) != 12 || s.ColumnFloat(1) != 2.5 || s.ColumnText(2) != "42abc" {
		t.Error("values changed by conversions")
	}
}

// The Exec helper: positional and named arguments, checks, results.
func TestDirectExec(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t(a, b) VALUES (:a, :b)")
	if err := ins.Exec(1, "one"); err != nil {
		t.Fatal(err)
	}
	if err := ins.Exec(sql.Named("b", []byte("two")), sql.Named("a", 2.5)); err != nil {
		t.Fatal(err)
	}
	if ins.Changes() != 1 || ins.LastInsertRowID() != 2 {
		t.Fatalf("changes %d id %d", ins.Changes(), ins.LastInsertRowID())
	}
	for _, args := range [][]any{
		{1},                         // too few
		{1, 2, 3},                   // too many
		{sql.Named("c", 1), 2},      // no such name
		{1, sql.Named("a", 2)},      // a given twice
		{struct{}{}, 1},             // unsupported type
		{uint64(math.MaxUint64), 1}, // out of range
	} {
		if err := ins.Exec(args...); err == nil {
			t.Errorf("Exec(%v) succeeded", args)
		}
	}
	// Without arguments it runs with the values bound last; a failed Exec
	// left none.
	if err := ins.Exec(); err != nil {
		t.Fatal(err)
	}
	ins.BindInt64(1, 9)
	ins.BindNull(2)
	if err := ins.Exec(); err != nil {
		t.Fatal(err)
	}
	q := mustPrepareDirect(t, c, "SELECT group_concat(quote(a) || '/' || quote(b), ' ') FROM t")
	mustStep(t, q, true)
	if got, want := q.ColumnText(0), "1/'one' 2.5/X'74776F' NULL/NULL 9/NULL"; got != want {
		t.Fatalf("table: %s, want %s", got, want)
	}
	// A constraint failure is this package's Error, with its codes.
	uniq := mustPrepareDirect(t, c, "INSERT INTO t(id) VALUES (?)")
	err := uniq.Exec(1)
	if !errors.Is(err, ErrConstraintPrimaryKey) || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("duplicate key: %v", err)
	}
	// Exec resets a run in progress first.
	sel := mustPrepareDirect(t, c, "SELECT id FROM t")
	mustStep(t, sel, true)
	if err := sel.Exec(); err != nil {
		t.Fatal(err)
	}
	if sel.ColumnType(0) != TypeNull {
		t.Fatal("a row after Exec")
	}
}

// Misuse is an Error, never a crash.
func TestDirectMisuse(t *testing.T) {
	c := rawConn(t, ":memory:")
	s, err := c.PrepareDirect("SELECT ?1 UNION ALL SELECT 2")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.BindInt64(0, 1); !isCode(err, ErrRange) {
		t.Errorf("index 0: %v", err)
	}
	if err := s.BindInt64(2, 1); !isCode(err, ErrRange) {
		t.Errorf("index 2: %v", err)
	}
	if err := s.BindZeroBlob(1, -1); !isCode(err, ErrRange) {
		t.Errorf("negative zeroblob: %v", err)
	}
	// No row yet: columns read as NULL.
	if s.ColumnType(0) != TypeNull || s.ColumnInt64(0) != 0 || s.ColumnBytes(0) != nil {
		t.Error("a column before the first step")
	}
	s.BindInt64(1, 1)
	mustStep(t, s, true)
	if err := s.BindInt64(1, 5); !isCode(err, ErrMisuse) {
		t.Errorf("bind while running: %v", err)
	}
	for _, i := range []int{-1, 1, 1 << 40} {
		if s.ColumnType(i) != TypeNull || s.ColumnText(i) != "" || s.ColumnInt64(i) != 0 || s.ColumnFloat(i) != 0 || s.ColumnRawText(i) != nil {
			t.Errorf("column %d out of range is not NULL", i)
		}
	}
	mustStep(t, s, true)
	mustStep(t, s, false)
	if s.ColumnType(0) != TypeNull {
		t.Error("a column after the end")
	}
	if err := s.BindInt64(1, 5); !isCode(err, ErrMisuse) {
		t.Errorf("bind after the end without Reset: %v", err)
	}
	// Stepping after the end starts again, as SQLite does.
	mustStep(t, s, true)
	s.Finalize()
	if err := s.Finalize(); err != nil {
		t.Error(err)
	}
	if _, err := s.Step(); !isCode(err, ErrMisuse) {
		t.Errorf("Step after Finalize: %v", err)
	}
	if err := s.BindInt64(1, 1); !isCode(err, ErrMisuse) {
		t.Errorf("Bind after Finalize: %v", err)
	}
	if err := s.Exec(); !isCode(err, ErrMisuse) {
		t.Errorf("Exec after Finalize: %v", err)
	}
	if _, err := s.ExecColumns([]int64{1}); !isCode(err, ErrMisuse) {
		t.Errorf("ExecColumns after Finalize: %v", err)
	}
	if err := s.Reset(); !isCode(err, ErrMisuse) {
		t.Errorf("Reset after Finalize: %v", err)
	}
	if s.ColumnCount() != 0 || s.ColumnName(0) != "" || s.ColumnType(0) != TypeNull || s.Changes() != 0 {
		t.Error("reads after Finalize")
	}

	// Errors of prepare.
	if _, err := c.PrepareDirect("SELECT 1; SELECT 2"); err == nil {
		t.Error("two statements prepared")
	}
	if _, err := c.PrepareDirect("  -- nothing"); err == nil {
		t.Error("no statement prepared")
	}
	if _, err := c.PrepareDirect("SELEC 1"); !isCode(err, ErrError) {
		t.Errorf("syntax error: %v", err)
	}
}

// A statement whose connection closed: errors, and NULL for the row it was on.
func TestDirectAfterConnectionClose(t *testing.T) {
	dc, err := (&SQLiteDriver{}).Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*SQLiteConn)
	s, err := c.PrepareDirect("SELECT 'abc', ?")
	if err != nil {
		t.Fatal(err)
	}
	view := func() []byte { mustStep(t, s, true); return s.ColumnRawText(0) }()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(); !isCode(err, ErrMisuse) {
		t.Errorf("Step: %v", err)
	}
	if err := s.BindInt64(1, 1); !isCode(err, ErrMisuse) {
		t.Errorf("Bind: %v", err)
	}
	if s.ColumnText(0) != "" || s.ColumnType(0) != TypeNull || s.ColumnCount() != 0 {
		t.Error("columns after Close")
	}
	if string(view) != "abc" {
		t.Errorf("a view kept past Close reads %q", view)
	}
	s.Reset()
	if err := s.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// A view used after the next step shows other bytes, never freed memory:
// it is a copy in Go memory (run under -race and GOEXPERIMENT=cgocheck2).
func TestDirectStaleView(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(b BLOB)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?)")
	// Values of 1 MiB: SQLite's copies are malloc'd, and freed (unmapped,
	// for glibc's large blocks) at the next step.
	big := bytes.Repeat([]byte{1}, 1<<20)
	for i := byte(1); i <= 3; i++ {
		big[0] = i
		if err := ins.Exec(big); err != nil {
			t.Fatal(err)
		}
	}
	q := mustPrepareDirect(t, c, "SELECT b, 'x' FROM t")
	mustStep(t, q, true)
	first := q.ColumnBytes(0)
	x := q.ColumnRawText(1)
	first[1] = 9 // writing into a view harms nothing
	mustStep(t, q, true)
	second := q.ColumnBytes(0)
	mustStep(t, q, true)
	// first and second are stale: they read whatever the buffer holds now.
	sum := 0
	for _, b := range [][]byte{first, second, x} {
		for _, v := range b {
			sum += int(v)
		}
	}
	if q.ColumnBytes(0)[0] != 3 || len(first) != 1<<20 {
		t.Fatal("current view")
	}
	mustStep(t, q, false)
	q.Reset()
	mustStep(t, q, true)
	if q.ColumnBytes(0)[1] != 1 {
		t.Fatal("a write into a view reached the database")
	}
}

// The direct API inside a database/sql transaction, on the same connection:
// its writes commit or roll back with the transaction.
func TestDirectInsideTx(t *testing.T) {
	db := openTestDB(t, filepath.Join(t.TempDir(), "db"))
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO t VALUES (0)"); err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			s, err := dc.(*SQLiteConn).PrepareDirect("INSERT INTO t VALUES (?)")
			if err != nil {
				return err
			}
			defer s.Finalize()
			for i := int64(1); i < 100; i++ {
				s.BindInt64(1, i)
				if _, err := s.Step(); err != nil {
					return err
				}
				s.Reset()
			}
			// The transaction's own row is visible here.
			q, err := dc.(*SQLiteConn).PrepareDirect("SELECT count(*), sum(x) FROM t")
			if err != nil {
				return err
			}
			defer q.Finalize()
			if ok, err := q.Step(); !ok || err != nil || q.ColumnInt64(0) < 100 {
				return errors.New("count inside the transaction")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 100}[commit]; n != want {
			t.Fatalf("commit=%v: %d rows, want %d", commit, n, want)
		}
	}
}

// PrepareDirect takes statements from the connection's cache and gives them
// back, without leaking bindings or state either way.
func TestDirectStatementCache(t *testing.T) {
	c := rawConn(t, ":memory:")
	query := "SELECT ?, 'v'"
	s := mustPrepareDirect(t, c, query)
	h := s.s.h
	s.BindInt64(1, 5)
	mustStep(t, s, true) // left on a row
	s.Finalize()
	idle := c.cache.take(query)
	if idle == nil || idle.h != h {
		t.Fatal("Finalize did not give the statement to the cache")
	}
	c.cache.put(idle)
	s = mustPrepareDirect(t, c, query)
	if s.s.h != h {
		t.Fatal("the statement was prepared again")
	}
	mustStep(t, s, true)
	if !s.ColumnIsNull(0) {
		t.Fatalf("a cached statement kept the binding %d", s.ColumnInt64(0))
	}
	s.Finalize()
	// database/sql's path gets it next and binds its own.
	rows, err := c.QueryContext(context.Background(), query, []driver.NamedValue{{Ordinal: 1, Value: int64(8)}})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]driver.Value, 2)
	if err := rows.Next(vals); err != nil || vals[0] != int64(8) || vals[1] != "v" {
		t.Fatalf("database/sql after the direct API: %v %v", vals, err)
	}
	rows.Close()
}

// After a schema change SQLite re-prepares the statement; the columns follow.
func TestDirectReprepare(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(a)")
	directExec(t, c, "INSERT INTO t VALUES (1)")
	s := mustPrepareDirect(t, c, "SELECT * FROM t")
	mustStep(t, s, true)
	if s.ColumnCount() != 1 {
		t.Fatal(s.ColumnCount())
	}
	s.Reset()
	directExec(t, c, "ALTER TABLE t ADD COLUMN b DEFAULT 'bee'")
	mustStep(t, s, true)
	if s.ColumnCount() != 2 || s.ColumnText(1) != "bee" || s.ColumnName(1) != "b" {
		t.Fatalf("after ALTER: %d columns, %q %q", s.ColumnCount(), s.ColumnText(1), s.ColumnName(1))
	}
}

// A statement dropped without Finalize, even on a row, is finalized by its
// cleanup.
func TestDirectCollected(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(x)")
	directExec(t, c, "INSERT INTO t VALUES (1), (2)")
	before := liveStatements(c.h)
	func() {
		for i := 0; i < 10; i++ {
			s, err := c.PrepareDirect("SELECT x, " + itoa(i) + " FROM t")
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Step(); !ok || err != nil {
				t.Fatal(err)
			}
		}
	}()
	if !collectUntil(func() bool {
		defer c.core.unlock(c.core.lock())
		return liveStatements(c.h) == before
	}) {
		t.Fatalf("%d statements live, %d before", liveStatements(c.h), before)
	}
}

// Allocations: none per row for numbers and views, one per string.
func TestDirectAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(i INTEGER, f REAL, s TEXT)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?, ?)")
	var i int64
	if a := testing.AllocsPerRun(200, func() {
		i++
		ins.BindInt64(1, i)
		ins.BindFloat(2, float64(i))
		ins.BindText(3, "some text value")
		ins.Step()
		ins.Reset()
	}); a != 0 {
		t.Errorf("bind, step, reset: %v allocations", a)
	}
	if a := testing.AllocsPerRun(50, func() {
		ins.Exec(i, 1.5, "text")
	}); a != 0 {
		t.Errorf("Exec: %v allocations", a)
	}
	q := mustPrepareDirect(t, c, "SELECT i, f, s FROM t")
	var sum int64
	if a := testing.AllocsPerRun(100, func() {
		for {
			ok, _ := q.Step()
			if !ok {
				break
			}
			sum += q.ColumnInt64(0) + int64(q.ColumnFloat(1)) + int64(len(q.ColumnRawText(2)))
		}
	}); a != 0 {
		t.Errorf("scan of numbers and views: %v allocations", a)
	}
	q.Reset()
	mustStep(t, q, true)
	if a := testing.AllocsPerRun(100, func() { _ = q.ColumnText(2) }); a != 1 {
		t.Errorf("ColumnText: %v allocations, want 1", a)
	}
}

// Rows of numbers are stepped ahead; what the caller reads is the same as
// one row at a time: values, SQLite's text of every FLOAT, conversions on
// the row that ends a batch.
func TestDirectBatchedRows(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(x REAL, n INTEGER)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?)")
	floats := []float64{0, 1, -1, 0.1, 1.0 / 3, 100, 2.5e-300, 123456789012345, 999999999999999, 1e15, 1e16,
		1e18, -1e18, 9.2e18, 1e300, 4503599627370496.5, 0.25, 1e-7, 12345678.9}
	for i, f := range floats {
		if err := ins.Exec(f, i); err != nil {
			t.Fatal(err)
		}
	}
	// A REAL column keeps integral values as integers: their text is SQLite's.
	want := map[int]string{}
	q := mustPrepareDirect(t, c, "SELECT CAST(x AS TEXT) FROM t ORDER BY n")
	for i := 0; ; i++ {
		ok, err := q.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		want[i] = q.ColumnText(0)
	}
	directExec(t, c, "PRAGMA query_only = 1") // rows are stepped ahead only where nothing can write
	s := mustPrepareDirect(t, c, "SELECT x, n FROM t ORDER BY n")
	for round := 0; round < 2; round++ {
		ahead := false
		for i := range floats {
			mustStep(t, s, true)
			ahead = ahead || s.nb > 1
			if s.ColumnFloat(0) != floats[i] || s.ColumnInt(1) != i {
				t.Fatalf("row %d: %v %d", i, s.ColumnFloat(0), s.ColumnInt(1))
			}
			if got := s.ColumnText(0); got != want[i] {
				t.Errorf("row %d: text %q, SQLite's %q", i, got, want[i])
			}
			if got := string(s.ColumnRawText(0)); got != want[i] {
				t.Errorf("row %d: raw text %q, SQLite's %q", i, got, want[i])
			}
		}
		mustStep(t, s, false)
		if !ahead && stepsAheadBuilt() {
			t.Error("no row was stepped ahead")
		}
	}

	// A TEXT value ends a batch; its row converts with SQLite.
	m := mustPrepareDirect(t, c, "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT '3x' UNION ALL SELECT 4.5")
	for _, want := range []int64{1, 2, 3, 4} {
		mustStep(t, m, true)
		if got := m.ColumnInt64(0); got != want {
			t.Errorf("ColumnInt64 = %d, want %d", got, want)
		}
	}
}

// An error after rows stepped ahead comes after them, with SQLite's message
// as it was, even when other statements ran in between.
func TestDirectBatchError(t *testing.T) {
	c := rawConn(t, ":memory:")
	s := mustPrepareDirect(t, c, `WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 10)
		SELECT x, CASE WHEN x = 6 THEN json('not json') ELSE x END FROM r`)
	other := mustPrepareDirect(t, c, "SELECT 1")
	for i := int64(1); i <= 5; i++ {
		mustStep(t, s, true)
		if s.ColumnInt64(0) != i {
			t.Fatalf("row %d: %d", i, s.ColumnInt64(0))
		}
		mustStep(t, other, true)
		other.Reset()
	}
	ok, err := s.Step()
	if ok || err == nil || !strings.Contains(err.Error(), "JSON") || !isCode(err, ErrError) {
		t.Fatalf("Step after the rows: %v, %v", ok, err)
	}
	// The next Step runs the statement again.
	mustStep(t, s, true)
	if s.ColumnInt64(0) != 1 {
		t.Fatal("not from the start")
	}
}

// Reset ends the statement's use of the table: a schema change on the same
// connection (which fails while a statement is active) succeeds after it,
// whether the rows were stepped ahead to the end or not.
func TestDirectResetReleases(t *testing.T) {
	c := rawConn(t, ":memory:")
	for _, query := range []string{
		"SELECT count(*) FROM t",          // one row, stepped ahead to the end
		"SELECT x FROM t",                 // many rows, stopped in the middle
		"SELECT 'text', x FROM t",         // one row per call
		"SELECT x FROM t WHERE x = 2 + ?", // with a parameter
	} {
		directExec(t, c, "CREATE TABLE t(x)")
		directExec(t, c, "INSERT INTO t VALUES (1), (2), (3), (4), (5), (6)")
		s := mustPrepareDirect(t, c, query)
		if s.BindParameterCount() > 0 {
			s.BindInt64(1, 1)
		}
		mustStep(t, s, true)
		s.Reset()
		if _, err := c.ExecContext(context.Background(), "DROP TABLE t", nil); err != nil {
			t.Fatalf("%s: DROP TABLE after Reset: %v", query, err)
		}
		s.Finalize()
	}
}

// A string from ColumnText keeps alive only itself: keeping one value in a
// hundred of a scan keeps about a hundredth of what was read.
func TestDirectColumnTextRetention(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(s TEXT)")
	directExec(t, c, `WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 20000)
		INSERT INTO t SELECT printf('%0500d', x) FROM r`)
	q := mustPrepareDirect(t, c, "SELECT s, length(s) FROM t")
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	var kept []string
	for i := 0; ; i++ {
		ok, err := q.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		s := q.ColumnText(0)
		_ = q.ColumnRawText(0)
		if i%100 == 0 {
			kept = append(kept, s)
		}
	}
	grown := int64(heap()) - int64(before)
	// 200 strings of 500 bytes (512 in Go's size classes), the slice, and the
	// statement's view buffer: well under the 10 MB read.
	t.Logf("kept %d strings: heap grew %d bytes", len(kept), grown)
	if grown > 400<<10 {
		t.Errorf("keeping %d strings of 500 bytes keeps %d bytes", len(kept), grown)
	}
	runtime.KeepAlive(kept)
}

// Without a statement cache, Finalize finalizes.
func TestDirectWithoutCache(t *testing.T) {
	c := rawConn(t, "file::memory:?_stmt_cache_size=0")
	before := liveStatements(c.h)
	for i := 0; i < 3; i++ {
		s, err := c.PrepareDirect("SELECT ?")
		if err != nil {
			t.Fatal(err)
		}
		s.BindInt64(1, int64(i))
		mustStep(t, s, true)
		if s.ColumnInt64(0) != int64(i) {
			t.Fatal(s.ColumnInt64(0))
		}
		s.Finalize()
		if n := liveStatements(c.h); n != before {
			t.Fatalf("%d statements live after Finalize, %d before", n, before)
		}
	}
}

// TEXT converted to numbers: the same on a row stepped ahead (its bytes
// copied out of SQLite), on the statement's current row, and in SQL (CAST).
func TestDirectTextConversionsAhead(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(v)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?)")
	for _, v := range []any{"12", "3x", " 7.5e1x", "-0", "9223372036854775808", "-9223372036854775809", "1e400",
		"abc", "", "0x10", "  +5  ", "1.5", "2.5e3", []byte("31"), []byte("4.25z")} {
		if err := ins.Exec(v); err != nil {
			t.Fatal(err)
		}
	}
	type conv struct {
		i int64
		f float64
	}
	var want []conv
	q := mustPrepareDirect(t, c, "SELECT CAST(v AS INTEGER), CAST(v AS REAL) FROM t ORDER BY rowid")
	for {
		ok, err := q.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		want = append(want, conv{q.ColumnInt64(0), q.ColumnFloat(1)})
	}
	directExec(t, c, "PRAGMA query_only = 1") // rows are stepped ahead only where nothing can write
	for _, query := range []string{
		"SELECT v FROM t ORDER BY rowid",                      // short rows: stepped ahead, copied
		"SELECT v, printf('%0300d', 0) FROM t ORDER BY rowid", // long rows: one per call, current
	} {
		s := mustPrepareDirect(t, c, query)
		ahead := false
		for k, w := range want {
			mustStep(t, s, true)
			ahead = ahead || s.nb > 1
			if got := (conv{s.ColumnInt64(0), s.ColumnFloat(0)}); got != w {
				t.Errorf("%s: row %d (%q): %v, want %v", query, k, s.ColumnText(0), got, w)
			}
		}
		mustStep(t, s, false)
		if want := !strings.Contains(query, "printf") && stepsAheadBuilt(); ahead != want {
			t.Errorf("%s: stepped ahead: %v", query, ahead)
		}
	}
}

// Statements dropped without Close while a DirectStmt of the connection is
// in the middle of a scan are finalized by their cleanups at once (the
// connection is idle between Steps), and the scan goes on; a DirectStmt
// dropped without Finalize lets its statement go too.
func TestCollectedBesideDirectStmt(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(x)")
	directExec(t, c, "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 1000) INSERT INTO t SELECT x FROM r")
	live := func() int {
		defer c.core.unlock(c.core.lock())
		return liveStatements(c.h)
	}
	many := mustPrepareDirect(t, c, "SELECT x FROM t")
	mustStep(t, many, true)
	before := live()
	func() {
		s, err := c.Prepare("SELECT 42 FROM t")
		if err != nil {
			t.Fatal(err)
		}
		_ = s // dropped without Close
	}()
	if live() != before+1 {
		t.Fatalf("%d statements live, want %d", live(), before+1)
	}
	if !collectUntil(func() bool { return live() == before }) {
		t.Fatalf("the dropped statement was not finalized: %d live, want %d", live(), before)
	}
	for x := int64(2); x <= 1000; x++ {
		mustStep(t, many, true)
		if got := many.ColumnInt64(0); got != x {
			t.Fatalf("row %d: %d", x, got)
		}
	}
	mustStep(t, many, false)
	many.Finalize()

	before = live()
	func() {
		d, err := c.PrepareDirect("SELECT x, 'dropped' FROM t")
		if err != nil {
			t.Fatal(err)
		}
		d.Step()
	}()
	if !collectUntil(func() bool { return live() == before }) {
		t.Fatalf("a collected DirectStmt's statement is still live: %d, before %d", live(), before)
	}
}
