//go:build cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ssSchema is the schema of the session tests: a rowid table, a WITHOUT
// ROWID table with a composite key, and a table without a PRIMARY KEY (which
// sessions ignore).
const ssSchema = `
CREATE TABLE a(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
CREATE TABLE b(k1 TEXT, k2 INTEGER, v TEXT, PRIMARY KEY(k1, k2)) WITHOUT ROWID;
CREATE TABLE nopk(x);
INSERT INTO a VALUES (1, 'one', 1.5, x'01'), (2, 'two', 2.5, NULL), (3, 'three', NULL, x'');
INSERT INTO b VALUES ('x', 1, 'p'), ('y', 2, 'q');
`

// ssChanges are the changes the tests record: inserts, updates and deletes
// in both tables.
const ssChanges = `
INSERT INTO a VALUES (4, 'four', 4.5, x'04');
UPDATE a SET name = 'uno' WHERE id = 1;
DELETE FROM a WHERE id = 2;
UPDATE a SET score = 3.5, data = NULL WHERE id = 3;
INSERT INTO b VALUES ('z', 3, 'r');
DELETE FROM b WHERE k1 = 'x';
UPDATE b SET v = 'Q' WHERE k1 = 'y';
INSERT INTO nopk VALUES (1);
`

// ssRequire skips the test when the linked SQLite is too old for sessions
// (with the libsqlite3 build tag).
func ssRequire(t testing.TB) {
	if _, n, _ := Version(); n < 3044000 {
		t.Skip("sessions need SQLite 3.44 or later")
	}
}

// ssOpen opens a connection with the test schema.
func ssOpen(t testing.TB) *SQLiteConn {
	t.Helper()
	ssRequire(t)
	c := hkOpen(t, ":memory:")
	hkExec(t, c, ssSchema)
	return c
}

// ssCopy returns a new connection holding a copy of src's main database
// (online backup).
func ssCopy(t testing.TB, src *SQLiteConn) *SQLiteConn {
	t.Helper()
	dst := hkOpen(t, ":memory:")
	b, err := dst.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if done, err := b.Step(-1); !done || err != nil {
		t.Fatalf("backup step: %v %v", done, err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// ssDump renders every row of tables a, b and nopk, in key order.
func ssDump(t testing.TB, c *SQLiteConn) string {
	t.Helper()
	var sb strings.Builder
	for _, table := range []string{"a", "b", "nopk"} {
		rows, err := c.QueryContext(context.Background(), "SELECT * FROM "+table+" ORDER BY 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		dest := make([]driver.Value, len(rows.Columns()))
		for rows.Next(dest) == nil {
			fmt.Fprintf(&sb, "%s %#v\n", table, dest)
		}
		rows.Close()
	}
	return sb.String()
}

// ssRecord creates a session on c attached to every table, runs changes and
// returns the session.
func ssRecord(t testing.TB, c *SQLiteConn, changes string) *Session {
	t.Helper()
	ssRequire(t)
	s, err := c.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Attach(""); err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, changes)
	return s
}

// ssSetup records ssChanges on a database with ssSchema and returns it, a
// copy made before the changes, and the changeset.
func ssSetup(t testing.TB) (src, before *SQLiteConn, cs []byte) {
	t.Helper()
	src = ssOpen(t)
	before = ssCopy(t, src)
	s := ssRecord(t, src, ssChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	return src, before, cs
}

func ssApply(t testing.TB, c *SQLiteConn, cs []byte, filter func(string) bool, conflict func(*Conflict) ConflictAction) {
	t.Helper()
	if err := c.ApplyChangeset(cs, filter, conflict); err != nil {
		t.Fatalf("ApplyChangeset: %v", err)
	}
}

// ssWithoutNoPK drops the rows of table nopk from a dump: sessions ignore it.
func ssWithoutNoPK(dump string) string {
	var keep []string
	for _, line := range strings.SplitAfter(dump, "\n") {
		if !strings.HasPrefix(line, "nopk ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

func TestSessionChangesetApply(t *testing.T) {
	src := ssOpen(t)
	original := ssDump(t, src)
	before := ssCopy(t, src)
	beforeP := ssCopy(t, src)

	s, err := src.CreateSession("main")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Attach(""); err != nil {
		t.Fatal(err)
	}
	if !s.IsEmpty() {
		t.Error("IsEmpty before any change: false")
	}
	if cs, err := s.Changeset(); err != nil || len(cs) != 0 {
		t.Errorf("Changeset of an empty session = %d bytes, %v", len(cs), err)
	}
	hkExec(t, src, ssChanges)
	if s.IsEmpty() {
		t.Error("IsEmpty after changes: true")
	}
	if s.MemoryUsed() <= 0 {
		t.Errorf("MemoryUsed = %d", s.MemoryUsed())
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 || len(ps) == 0 || len(ps) >= len(cs) {
		t.Fatalf("changeset %d bytes, patchset %d bytes", len(cs), len(ps))
	}
	if cs[0] != 'T' || ps[0] != 'P' {
		t.Fatalf("changeset starts with %q, patchset with %q", cs[0], ps[0])
	}

	want := ssWithoutNoPK(ssDump(t, src))
	ssApply(t, before, cs, nil, nil)
	if got := ssDump(t, before); got != want {
		t.Errorf("after applying the changeset:\n%s\nwant:\n%s", got, want)
	}
	ssApply(t, beforeP, ps, nil, nil)
	if got := ssDump(t, beforeP); got != want {
		t.Errorf("after applying the patchset:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(original, "nopk") && strings.Contains(want, "nopk") {
		t.Error("table nopk (no PRIMARY KEY) was recorded")
	}
	// An empty changeset applies as a no-op.
	ssApply(t, before, nil, nil, nil)
	ssApply(t, before, []byte{}, nil, nil)
	if got := ssDump(t, before); got != want {
		t.Error("an empty changeset changed the database")
	}
}

// ssString renders a change on one line, for comparisons.
func ssString(ch *Change) string {
	return fmt.Sprintf("%s %s indirect=%v pk=%v old=%#v new=%#v", ch.Table, opName(ch.Op), ch.Indirect, ch.PrimaryKey, ch.Old, ch.New)
}

// ssCollect iterates over cs and renders its changes, sorted (the order of
// the changes of one table is undefined).
func ssCollect(t testing.TB, cs []byte) []string {
	t.Helper()
	var out []string
	for ch, err := range Changes(cs) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ssString(ch))
	}
	slices.Sort(out)
	return out
}

func TestSessionChanges(t *testing.T) {
	src := ssOpen(t)
	s := ssRecord(t, src, ssChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	U := Undefined
	pkA, pkB := []bool{true, false, false, false}, []bool{true, true, false}
	str := func(ch Change) string { return ssString(&ch) }
	want := []string{
		str(Change{Table: "a", Op: SQLITE_INSERT, PrimaryKey: pkA, New: []any{int64(4), "four", 4.5, []byte{4}}}),
		str(Change{Table: "a", Op: SQLITE_UPDATE, PrimaryKey: pkA, Old: []any{int64(1), "one", U, U}, New: []any{U, "uno", U, U}}),
		str(Change{Table: "a", Op: SQLITE_DELETE, PrimaryKey: pkA, Old: []any{int64(2), "two", 2.5, nil}}),
		str(Change{Table: "a", Op: SQLITE_UPDATE, PrimaryKey: pkA, Old: []any{int64(3), U, nil, []byte{}}, New: []any{U, U, 3.5, nil}}),
		str(Change{Table: "b", Op: SQLITE_INSERT, PrimaryKey: pkB, New: []any{"z", int64(3), "r"}}),
		str(Change{Table: "b", Op: SQLITE_DELETE, PrimaryKey: pkB, Old: []any{"x", int64(1), "p"}}),
		str(Change{Table: "b", Op: SQLITE_UPDATE, PrimaryKey: pkB, Old: []any{"y", int64(2), "q"}, New: []any{U, U, "Q"}}),
	}
	slices.Sort(want)
	if got := ssCollect(t, cs); !slices.Equal(got, want) {
		t.Errorf("changeset:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A patchset keeps the primary key of a DELETE and only the new values of
	// an UPDATE.
	wantP := []string{
		str(Change{Table: "a", Op: SQLITE_INSERT, PrimaryKey: pkA, New: []any{int64(4), "four", 4.5, []byte{4}}}),
		str(Change{Table: "a", Op: SQLITE_UPDATE, PrimaryKey: pkA, Old: []any{int64(1), U, U, U}, New: []any{U, "uno", U, U}}),
		str(Change{Table: "a", Op: SQLITE_DELETE, PrimaryKey: pkA, Old: []any{int64(2), U, U, U}}),
		str(Change{Table: "a", Op: SQLITE_UPDATE, PrimaryKey: pkA, Old: []any{int64(3), U, U, U}, New: []any{U, U, 3.5, nil}}),
		str(Change{Table: "b", Op: SQLITE_INSERT, PrimaryKey: pkB, New: []any{"z", int64(3), "r"}}),
		str(Change{Table: "b", Op: SQLITE_DELETE, PrimaryKey: pkB, Old: []any{"x", int64(1), U}}),
		str(Change{Table: "b", Op: SQLITE_UPDATE, PrimaryKey: pkB, Old: []any{"y", int64(2), U}, New: []any{U, U, "Q"}}),
	}
	slices.Sort(wantP)
	if got := ssCollect(t, ps); !slices.Equal(got, wantP) {
		t.Errorf("patchset:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantP, "\n"))
	}

	// Changes of one table come together, in attach order; names are shared.
	var tables []string
	for ch, err := range Changes(cs) {
		if err != nil {
			t.Fatal(err)
		}
		if len(tables) == 0 || tables[len(tables)-1] != ch.Table {
			tables = append(tables, ch.Table)
		}
		if ch.Indirect {
			t.Errorf("%s: indirect", ssString(ch))
		}
	}
	if !slices.Equal(tables, []string{"a", "b"}) {
		t.Errorf("tables in order %v", tables)
	}
	// Stopping early releases the iterator (checked by the leak test).
	n := 0
	for range Changes(cs) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("break after 2: %d changes seen", n)
	}
	// The changeset is copied when the loop starts: the caller's slice may change.
	cs2 := bytes.Clone(cs)
	seen := 0
	for _, err := range Changes(cs2) {
		if err != nil {
			t.Fatal(err)
		}
		clear(cs2)
		seen++
	}
	if seen != 7 {
		t.Errorf("%d changes after clearing the slice during the loop, want 7", seen)
	}
	// Nothing to iterate.
	for ch, err := range Changes(nil) {
		t.Errorf("empty changeset yielded %v, %v", ch, err)
	}
}

func TestSessionChangesValues(t *testing.T) {
	ssRequire(t)
	// Every storage class survives the trip, including values that would be
	// easy to confuse: NULL and the empty string, the empty BLOB, NUL bytes.
	src := hkOpen(t, ":memory:")
	hkExec(t, src, "CREATE TABLE v(id INTEGER PRIMARY KEY, x)")
	before := ssCopy(t, src)
	s := ssRecord(t, src, "SELECT 1")
	vals := []any{int64(-1 << 63), int64(1<<63 - 1), 0.0, -2.5e300, "", "a\x00b", "日本", []byte{}, []byte{0, 1, 2}, nil}
	for i, v := range vals {
		hkExec(t, src, "INSERT INTO v VALUES (?, ?)", i, v)
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]any{}
	for ch, err := range Changes(cs) {
		if err != nil {
			t.Fatal(err)
		}
		got[ch.New[0].(int64)] = ch.New[1]
	}
	for i, v := range vals {
		g, ok := got[int64(i)]
		if !ok || fmt.Sprintf("%#v", g) != fmt.Sprintf("%#v", v) {
			t.Errorf("value %d: %#v, want %#v", i, g, v)
		}
	}
	ssApply(t, before, cs, nil, nil)
	q := "SELECT group_concat(id || ':' || typeof(x) || ':' || quote(x), ' ') FROM v"
	if a, b := hkQuery(t, before, q), hkQuery(t, src, q); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("applied %v, want %v", a, b)
	}
}

func TestSessionChangesCorrupt(t *testing.T) {
	_, _, cs := ssSetup(t)
	for _, bad := range [][]byte{cs[:len(cs)-3], cs[:5], {'T', 0xff, 0xff, 0xff, 0xff, 0xff}, {0x17, 0, 0, 0}, {'P'}} {
		var err error
		for _, e := range Changes(bad) {
			err = e
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("Changes(% x): error %v, want ErrCorrupt", bad, err)
		}
		if _, err := InvertChangeset(bad); err == nil {
			t.Errorf("InvertChangeset(% x): no error", bad)
		}
		if _, err := ConcatChangesets(cs, bad); err == nil && bad[0] == 'T' {
			t.Errorf("ConcatChangesets(cs, % x): no error", bad)
		}
		c := ssOpen(t)
		if err := c.ApplyChangeset(bad, nil, nil); err == nil {
			t.Errorf("ApplyChangeset(% x): no error", bad)
		}
	}
}

// ssConflicts applies cs to c, answering every conflict with action, and
// returns the conflicts seen, rendered and sorted, and the apply's error.
func ssConflicts(t testing.TB, c *SQLiteConn, cs []byte, action ConflictAction) ([]string, error) {
	t.Helper()
	var seen []string
	err := c.ApplyChangeset(cs, nil, func(cf *Conflict) ConflictAction {
		seen = append(seen, fmt.Sprintf("%s %s %s %#v", cf.Type, cf.Table, opName(cf.Op), cf.Conflicting))
		return action
	})
	slices.Sort(seen)
	return seen, err
}

func TestSessionConflicts(t *testing.T) {
	src, before, cs := ssSetup(t)
	ssApply(t, before, cs, nil, nil)
	applied := ssDump(t, before)

	// Applying the same changeset again: every change conflicts.
	seen, err := ssConflicts(t, before, cs, ConflictOmit)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Conflict a INSERT []interface {}{4, "four", 4.5, []uint8{0x4}}`,
		`Data a UPDATE []interface {}{1, "uno", 1.5, []uint8{0x1}}`,
		`NotFound a DELETE []interface {}(nil)`,
		`Data a UPDATE []interface {}{3, "three", 3.5, interface {}(nil)}`,
		`Conflict b INSERT []interface {}{"z", 3, "r"}`,
		`NotFound b DELETE []interface {}(nil)`,
		`Data b UPDATE []interface {}{"y", 2, "Q"}`,
	}
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if got := ssDump(t, before); got != applied {
		t.Errorf("Omit changed the database:\n%s", got)
	}

	// Abort: an error, nothing applied.
	_, err = ssConflicts(t, before, cs, ConflictAbort)
	if !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "aborted by the conflict handler") {
		t.Errorf("Abort: %v", err)
	}
	if got := ssDump(t, before); got != applied {
		t.Errorf("Abort changed the database:\n%s", got)
	}
	// No conflict handler: abort at the first conflict, saying which.
	err = before.ApplyChangeset(cs, nil, nil)
	if !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "conflict on") || !strings.Contains(err.Error(), "no conflict handler") {
		t.Errorf("nil handler: %v", err)
	}
	// Replace where it is not allowed (NotFound): abort with a clear error.
	_, err = ssConflicts(t, before, cs, ConflictReplace)
	if !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "Replace is only valid") {
		t.Errorf("Replace on NotFound: %v", err)
	}
	if got := ssDump(t, before); got != applied {
		t.Errorf("an invalid Replace changed the database:\n%s", got)
	}
	_, err = ssConflicts(t, before, cs, ConflictAction(7))
	if !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "ConflictAction(7)") {
		t.Errorf("action 7: %v", err)
	}

	// Replace: local edits lose to the changeset's values.
	local := ssCopy(t, src)
	hkExec(t, local, "UPDATE a SET name = 'local', score = 9 WHERE id = 1; UPDATE a SET data = x'ff' WHERE id = 4")
	local2 := ssCopy(t, local) // Omit keeps them
	hkExec(t, local, "DELETE FROM a WHERE id = 4; INSERT INTO a VALUES (4, 'mine', 0, NULL)")
	undo, err := InvertChangeset(cs)
	if err != nil {
		t.Fatal(err)
	}
	ssApply(t, local, undo, nil, func(cf *Conflict) ConflictAction {
		// The inverse deletes row 4 (a Data conflict: it is 'mine') and
		// sets row 1's name back (Data: score is 9, name 'local').
		if cf.Type != ConflictData {
			t.Errorf("unexpected %s", cf.describe())
			return ConflictOmit
		}
		return ConflictReplace
	})
	if n := hkQueryInt(t, local, "SELECT count(*) FROM a WHERE id = 4"); n != 0 {
		t.Errorf("Replace of a DELETE's Data conflict: row 4 still there")
	}
	if name := hkQuery(t, local, "SELECT name FROM a WHERE id = 1"); fmt.Sprint(name) != "[one]" {
		t.Errorf("Replace of an UPDATE's Data conflict: name %v, want one", name)
	}
	seen, err = ssConflicts(t, local2, undo, ConflictOmit)
	if err != nil || len(seen) != 2 {
		t.Errorf("Omit: %v, %v", seen, err)
	}
	if name := hkQuery(t, local2, "SELECT name FROM a WHERE id = 1"); fmt.Sprint(name) != "[local]" {
		t.Errorf("Omit: name %v, want local", name)
	}
	// Replace on Conflict: an INSERT over an existing row takes its place.
	dup := ssOpen(t)
	hkExec(t, dup, "INSERT INTO a VALUES (4, 'other', 0, NULL)")
	ssApply(t, dup, cs, nil, func(cf *Conflict) ConflictAction {
		if cf.Type == ConflictConflict {
			return ConflictReplace
		}
		return ConflictOmit
	})
	if name := hkQuery(t, dup, "SELECT name FROM a WHERE id = 4"); fmt.Sprint(name) != "[four]" {
		t.Errorf("Replace on Conflict: name %v, want four", name)
	}
}

func TestSessionConflictConstraintAndForeignKey(t *testing.T) {
	ssRequire(t)
	src := hkOpen(t, ":memory:")
	hkExec(t, src, `CREATE TABLE u(id INTEGER PRIMARY KEY, email TEXT UNIQUE);
		CREATE TABLE parent(id INTEGER PRIMARY KEY);
		CREATE TABLE child(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id))`)
	before := ssCopy(t, src)
	s := ssRecord(t, src, "INSERT INTO u VALUES (2, 'x@'); INSERT INTO parent VALUES (9); INSERT INTO child VALUES (1, 9)")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}

	// UNIQUE on another column: ConflictConstraint.
	dst := ssCopy(t, before)
	hkExec(t, dst, "INSERT INTO u VALUES (5, 'x@')")
	seen, err := ssConflicts(t, dst, cs, ConflictOmit)
	if err != nil || !slices.Equal(seen, []string{`Constraint u INSERT []interface {}(nil)`}) {
		t.Errorf("constraint: %q, %v", seen, err)
	}
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM child"); n != 1 {
		t.Errorf("child rows %d after omitting the constraint conflict", n)
	}

	// Foreign keys enforced, the parent left out by the filter: one
	// ConflictForeignKey at the end, about the whole changeset.
	noParent := func(table string) bool { return table != "parent" }
	for _, action := range []ConflictAction{ConflictAbort, ConflictOmit} {
		dst := ssCopy(t, before)
		hkExec(t, dst, "PRAGMA foreign_keys = 1")
		var fk []*Conflict
		err := dst.ApplyChangeset(cs, noParent, func(cf *Conflict) ConflictAction {
			fk = append(fk, cf)
			return action
		})
		if len(fk) != 1 || fk[0].Type != ConflictForeignKey || fk[0].ForeignKeyViolations != 1 || fk[0].Table != "" || fk[0].Old != nil {
			t.Fatalf("%s: conflicts %+v", action, fk)
		}
		n := hkQueryInt(t, dst, "SELECT count(*) FROM child")
		switch action {
		case ConflictAbort:
			if !errors.Is(err, ErrConstraintForeignKey) || !strings.Contains(err.Error(), "1 foreign key violation") || n != 0 {
				t.Errorf("Abort: %v, %d child rows", err, n)
			}
		case ConflictOmit:
			if err != nil || n != 1 {
				t.Errorf("Omit: %v, %d child rows", err, n)
			}
		}
	}
}

func TestSessionApplyPanics(t *testing.T) {
	_, before, cs := ssSetup(t)
	original := ssDump(t, before)

	// A panicking conflict handler aborts; nothing stays applied.
	applied := ssCopy(t, before)
	ssApply(t, applied, cs, nil, nil)
	snapshot := ssDump(t, applied)
	err := applied.ApplyChangeset(cs, nil, func(cf *Conflict) ConflictAction { panic("boom") })
	var pe *hookPanicError
	if !errors.As(err, &pe) || !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "panic in changeset conflict handler: boom") {
		t.Errorf("conflict panic: %v", err)
	}
	if got := ssDump(t, applied); got != snapshot {
		t.Errorf("the database changed:\n%s", got)
	}

	// A filter that panics on the second table: the first table's changes,
	// already applied, are rolled back too.
	var asked []string
	err = before.ApplyChangeset(cs, func(table string) bool {
		asked = append(asked, table)
		if table == "b" {
			panic(fmt.Errorf("no %s", table))
		}
		return true
	}, nil)
	if !errors.Is(err, ErrAbort) || !strings.Contains(err.Error(), "panic in changeset filter: no b") {
		t.Errorf("filter panic: %v", err)
	}
	if !slices.Equal(asked, []string{"a", "b"}) {
		t.Errorf("filter asked about %v", asked)
	}
	if got := ssDump(t, before); got != original {
		t.Errorf("after a filter panic the database changed:\n%s\nwant:\n%s", got, original)
	}
	// The connection is fine afterwards, outside any transaction.
	if !before.AutoCommit() {
		t.Error("the connection was left in a transaction")
	}
	ssApply(t, before, cs, nil, nil)
}

func TestSessionFilterAndSQLInHandler(t *testing.T) {
	src, before, cs := ssSetup(t)
	onlyA := ssCopy(t, before)
	ssApply(t, onlyA, cs, func(table string) bool { return table == "a" }, nil)
	var want strings.Builder
	for _, line := range strings.SplitAfter(ssWithoutNoPK(ssDump(t, src)), "\n") {
		if strings.HasPrefix(line, "a ") {
			want.WriteString(line) // a as in src
		}
	}
	for _, line := range strings.SplitAfter(ssDump(t, before), "\n") {
		if !strings.HasPrefix(line, "a ") {
			want.WriteString(line) // b as before the changes
		}
	}
	if got := ssDump(t, onlyA); got != want.String() {
		t.Errorf("filtered apply:\n%s\nwant:\n%s", got, want.String())
	}

	// The conflict handler may run SQL on the connection it applies to.
	hkExec(t, before, "CREATE TABLE log(what TEXT)")
	ssApply(t, before, cs, nil, nil)
	ssApply(t, before, cs, nil, func(cf *Conflict) ConflictAction {
		if _, err := before.Exec("INSERT INTO log VALUES (?)", []driver.Value{cf.Type.String() + " " + cf.Table}); err != nil {
			t.Errorf("SQL in the conflict handler: %v", err)
		}
		return ConflictOmit
	})
	if n := hkQueryInt(t, before, "SELECT count(*) FROM log"); n != 7 {
		t.Errorf("%d log rows, want 7", n)
	}
}

func TestSessionApplyInTransaction(t *testing.T) {
	_, before, cs := ssSetup(t)
	original := ssDump(t, before)
	tx, err := before.BeginTx(context.Background(), driver.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ssApply(t, before, cs, nil, nil)
	if ssDump(t, before) == original {
		t.Fatal("nothing applied")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := ssDump(t, before); got != original {
		t.Errorf("rolled back:\n%s\nwant:\n%s", got, original)
	}
}

func TestSessionInvert(t *testing.T) {
	src, before, cs := ssSetup(t)
	original := ssDump(t, before)
	ssApply(t, before, cs, nil, nil)
	if got, want := ssDump(t, before), ssWithoutNoPK(ssDump(t, src)); got != want {
		t.Fatalf("applied:\n%s\nwant:\n%s", got, want)
	}
	inv, err := InvertChangeset(cs)
	if err != nil {
		t.Fatal(err)
	}
	ssApply(t, before, inv, nil, nil)
	if got := ssDump(t, before); got != original {
		t.Errorf("after the inverse:\n%s\nwant:\n%s", got, original)
	}
	// Inverting twice gives the same changes back.
	inv2, err := InvertChangeset(inv)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ssCollect(t, inv2), ssCollect(t, cs)) {
		t.Error("inverse of the inverse differs from the changeset")
	}
	if got, err := InvertChangeset(nil); err != nil || len(got) != 0 {
		t.Errorf("InvertChangeset(nil) = %v, %v", got, err)
	}
	s := ssRecord(t, ssOpen(t), ssChanges)
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InvertChangeset(ps); err == nil || !strings.Contains(err.Error(), "patchset") {
		t.Errorf("InvertChangeset(patchset): %v", err)
	}
}

func TestSessionConcat(t *testing.T) {
	src := ssOpen(t)
	before := ssCopy(t, src)
	s1 := ssRecord(t, src, "INSERT INTO a VALUES (10, 'ten', 0, NULL); UPDATE a SET name = 'uno' WHERE id = 1; DELETE FROM b WHERE k1 = 'x'")
	cs1, err := s1.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	ps1, err := s1.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	s1.Close()
	s2 := ssRecord(t, src, "UPDATE a SET name = 'TEN' WHERE id = 10; DELETE FROM a WHERE id = 1; INSERT INTO b VALUES ('x', 1, 'back')")
	cs2, err := s2.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	all, err := ConcatChangesets(cs1, cs2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		ssString(&Change{Table: "a", Op: SQLITE_INSERT, PrimaryKey: []bool{true, false, false, false}, New: []any{int64(10), "TEN", 0.0, nil}}),
		ssString(&Change{Table: "a", Op: SQLITE_DELETE, PrimaryKey: []bool{true, false, false, false}, Old: []any{int64(1), "one", 1.5, []byte{1}}}),
		ssString(&Change{Table: "b", Op: SQLITE_UPDATE, PrimaryKey: []bool{true, true, false}, Old: []any{"x", int64(1), "p"}, New: []any{Undefined, Undefined, "back"}}),
	}
	slices.Sort(want)
	if got := ssCollect(t, all); !slices.Equal(got, want) {
		t.Errorf("concatenation:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ssApply(t, before, all, nil, nil)
	if got, want := ssDump(t, before), ssWithoutNoPK(ssDump(t, src)); got != want {
		t.Errorf("after the concatenation:\n%s\nwant:\n%s", got, want)
	}
	if got, err := ConcatChangesets(); err != nil || len(got) != 0 {
		t.Errorf("ConcatChangesets() = %v, %v", got, err)
	}
	if got, err := ConcatChangesets(cs1); err != nil || !slices.Equal(ssCollect(t, got), ssCollect(t, cs1)) {
		t.Errorf("ConcatChangesets(cs1): %v", err)
	}
	if _, err := ConcatChangesets(cs1, ps1); err == nil || !strings.Contains(err.Error(), "cannot be mixed") {
		t.Errorf("changeset + patchset: %v", err)
	}
}

func TestSessionDiff(t *testing.T) {
	ssRequire(t)
	dir := t.TempDir()
	to := hkOpen(t, filepath.Join(dir, "to.db"))
	hkExec(t, to, ssSchema)
	hkExec(t, to, ssChanges)
	from := hkOpen(t, filepath.Join(dir, "from.db"))
	hkExec(t, from, ssSchema)

	hkExec(t, to, "ATTACH ? AS other", filepath.Join(dir, "from.db"))
	s, err := to.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, table := range []string{"a", "b", "nopk", "missing"} {
		if err := s.Diff("other", table); err != nil {
			t.Fatalf("Diff(other, %s): %v", table, err)
		}
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ssCollect(t, cs)); n != 7 {
		t.Errorf("diff: %d changes, want 7", n)
	}
	hkExec(t, to, "DETACH other")
	ssApply(t, from, cs, nil, nil)
	if got, want := ssWithoutNoPK(ssDump(t, from)), ssWithoutNoPK(ssDump(t, to)); got != want {
		t.Errorf("from after the diff:\n%s\nwant:\n%s", got, want)
	}

	// Tables with other columns cannot be compared.
	hkExec(t, to, "ATTACH ':memory:' AS odd")
	hkExec(t, to, "CREATE TABLE odd.a(id INTEGER PRIMARY KEY, name TEXT)")
	if err := s.Diff("odd", "a"); !errors.Is(err, ErrSchema) {
		t.Errorf("Diff with another schema: %v", err)
	}
	if err := s.Diff("nosuchdb", "a"); err == nil {
		t.Error("Diff from a database that is not attached: no error")
	}
}

func TestSessionLifecycle(t *testing.T) {
	c := ssOpen(t)
	s, err := c.CreateSession("main")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Attach("a"); err != nil { // only table a
		t.Fatal(err)
	}
	if !s.Enabled() || s.Indirect() {
		t.Errorf("new session: enabled %v, indirect %v", s.Enabled(), s.Indirect())
	}
	hkExec(t, c, "UPDATE a SET name = 'x' WHERE id = 1; UPDATE b SET v = 'x'")
	s.SetEnabled(false)
	if s.Enabled() {
		t.Error("SetEnabled(false): still enabled")
	}
	hkExec(t, c, "UPDATE a SET name = 'y' WHERE id = 2") // not recorded
	s.SetEnabled(true)
	s.SetIndirect(true)
	if !s.Indirect() {
		t.Error("SetIndirect(true): not indirect")
	}
	hkExec(t, c, "DELETE FROM a WHERE id = 3")
	s.SetIndirect(false)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ch, err := range Changes(cs) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %v %v", ch.Table, opName(ch.Op), ch.Old[0], ch.Indirect))
	}
	slices.Sort(got)
	if want := []string{"a DELETE 3 true", "a UPDATE 1 false"}; !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}

	// Several sessions on one connection; one closed early, the others by
	// the connection's Close.
	s2, err := c.CreateSession("main")
	if err != nil {
		t.Fatal(err)
	}
	s3, err := c.CreateSession("temp")
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Attach(""); err != nil {
		t.Fatal(err)
	}
	if err := s3.Attach(""); err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, "CREATE TEMP TABLE tt(id INTEGER PRIMARY KEY, v); INSERT INTO tt VALUES (1, 2); INSERT INTO a VALUES (7, 'seven', 7, NULL)")
	if s3.IsEmpty() || s2.IsEmpty() {
		t.Errorf("temp session empty %v, main session empty %v", s3.IsEmpty(), s2.IsEmpty())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Changeset(); !errors.Is(err, errSessionClosed) {
		t.Errorf("Changeset after Close: %v", err)
	}
	if err := s.Attach("a"); !errors.Is(err, errSessionClosed) {
		t.Errorf("Attach after Close: %v", err)
	}
	if s.Enabled() || !s.IsEmpty() || s.MemoryUsed() != 0 {
		t.Error("a closed session reports state")
	}
	s.SetEnabled(true)
	s.SetIndirect(true)
	if cs, err := s2.Changeset(); err != nil || len(ssCollect(t, cs)) != 1 {
		t.Errorf("s2: %v", err)
	}

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Session{s2, s3} {
		if _, err := s.Changeset(); !errors.Is(err, driver.ErrBadConn) {
			t.Errorf("Changeset after the connection closed: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close after the connection closed: %v", err)
		}
		if _, err := s.Patchset(); !errors.Is(err, errSessionClosed) {
			t.Errorf("Patchset after Close: %v", err)
		}
	}
	if _, err := c.CreateSession(""); !errors.Is(err, driver.ErrBadConn) {
		t.Errorf("CreateSession on a closed connection: %v", err)
	}
	if err := c.ApplyChangeset(cs, nil, nil); !errors.Is(err, driver.ErrBadConn) {
		t.Errorf("ApplyChangeset on a closed connection: %v", err)
	}
}

func TestSessionPreUpdateHook(t *testing.T) {
	c := ssOpen(t)
	var hooked int
	c.RegisterPreUpdateHook(func(SQLitePreUpdateData) { hooked++ })
	if _, err := c.CreateSession(""); err == nil || !strings.Contains(err.Error(), "pre-update hook") {
		t.Errorf("CreateSession with a pre-update hook: %v", err)
	}
	c.RegisterPreUpdateHook(nil)
	s, err := c.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Attach(""); err != nil {
		t.Fatal(err)
	}
	s2, err := c.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, "DELETE FROM a WHERE id = 1")
	// A hook registered afterwards replaces the sessions' own.
	c.RegisterPreUpdateHook(func(SQLitePreUpdateData) { hooked++ })
	if _, err := s.Changeset(); !errors.Is(err, errHookDisplaced) {
		t.Errorf("Changeset with a pre-update hook: %v", err)
	}
	// Closing the session must not disturb the hook (nor take its data for a
	// session's).
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, "DELETE FROM a WHERE id = 2")
	if hooked != 1 {
		t.Errorf("hook ran %d times, want 1", hooked)
	}
	// s2 stays open with the hook in place: closing the connection deletes it.
	_ = s2
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSessionThroughDatabaseSQL(t *testing.T) {
	ssRequire(t)
	db, err := sql.Open("sqlite3", "file:/sessiondb?vfs=memdb")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, ssSchema); err != nil {
		t.Fatal(err)
	}
	var s *Session
	if err := conn.Raw(func(dc any) (err error) {
		if s, err = dc.(*SQLiteConn).CreateSession(""); err != nil {
			return err
		}
		return s.Attach("")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, ssChanges); err != nil {
		t.Fatal(err)
	}
	var cs []byte
	if err := conn.Raw(func(any) (err error) {
		cs, err = s.Changeset()
		if err == nil {
			err = s.Close()
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := len(ssCollect(t, cs)); n != 7 {
		t.Errorf("%d changes, want 7", n)
	}
}

// TestSessionLeak runs sessions, iterators, applies and connection closes
// with sessions still open in a fresh process, with SQLite's memory
// statistics on, and requires SQLite's heap to come back to where it was.
func TestSessionLeak(t *testing.T) {
	ssRequire(t)
	const env = "FASTSQLITE_SESSION_LEAK_CHILD"
	if os.Getenv(env) == "" {
		cmd := testBinaryCommand("-test.run=^TestSessionLeak$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), env+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestSessionLeak")) {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	if err := enableMemStats(); err != nil {
		t.Fatal(err)
	}
	work := func(t *testing.T) {
		src, before, cs := ssSetup(t)
		for range Changes(cs) {
			break
		}
		ssCollect(t, cs)
		inv, err := InvertChangeset(cs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ConcatChangesets(cs, inv); err != nil {
			t.Fatal(err)
		}
		ssApply(t, before, cs, nil, nil)
		_, _ = ssConflicts(t, before, cs, ConflictAbort)
		_ = before.ApplyChangeset(cs, nil, func(*Conflict) ConflictAction { panic("x") })
		// Sessions left open, one with a pre-update hook in its way.
		for range 3 {
			s, err := src.CreateSession("")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Attach(""); err != nil {
				t.Fatal(err)
			}
		}
		hkExec(t, src, "UPDATE a SET name = 'again'")
		src.RegisterPreUpdateHook(func(SQLitePreUpdateData) {})
		src.Close()
		before.Close()
	}
	t.Run("warmup", work)
	base := memoryUsed()
	for range 3 {
		t.Run("round", work)
	}
	if used := memoryUsed(); used != base {
		t.Errorf("SQLite heap %d bytes after the rounds, %d after the first (%+d)", used, base, used-base)
	}
}

// ssReadAll runs every reader of changesets over b: none may crash, whatever
// b holds; errors are expected.
func ssReadAll(c *SQLiteConn, cs, b []byte) {
	for _, err := range Changes(b) {
		if err != nil {
			break
		}
	}
	_, _ = InvertChangeset(b)
	_, _ = ConcatChangesets(b, b)
	_, _ = ConcatChangesets(cs, b)
	_ = c.ApplyChangeset(b, nil, func(cf *Conflict) ConflictAction {
		if cf.Type == ConflictData || cf.Type == ConflictConflict {
			return ConflictReplace
		}
		return ConflictOmit
	})
}

func TestSessionMutatedChangesets(t *testing.T) {
	_, _, cs := ssSetup(t)
	s := ssRecord(t, ssOpen(t), ssChanges)
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	c := ssOpen(t)
	rng := rand.New(rand.NewPCG(1, 2))
	n := 2000
	if testing.Short() {
		n = 200
	}
	for i := range n {
		b := bytes.Clone(cs)
		if i%2 == 1 {
			b = bytes.Clone(ps)
		}
		switch rng.IntN(3) {
		case 0:
			b = b[:rng.IntN(len(b))]
		case 1:
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		case 2:
			j := rng.IntN(len(b))
			b = append(b[:j:j], append([]byte{byte(rng.IntN(256))}, b[j:]...)...)
		}
		ssReadAll(c, cs, b)
	}
}

// FuzzChangeset feeds arbitrary bytes to Changes, InvertChangeset,
// ConcatChangesets and ApplyChangeset:
//
//	go test -run '^$' -fuzz FuzzChangeset -fuzztime 60s .
func FuzzChangeset(f *testing.F) {
	_, _, cs := ssSetup(f)
	s := ssRecord(f, ssOpen(f), ssChanges)
	ps, err := s.Patchset()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(cs)
	f.Add(ps)
	f.Add([]byte{})
	c := ssOpen(f)
	f.Fuzz(func(t *testing.T, b []byte) { ssReadAll(c, cs, b) })
}
