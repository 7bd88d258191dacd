//go:build cgo

package sqlite3

import (
	"context"
	"testing"
)

// A DirectStmt whose statement SQLite re-prepares between runs (a schema
// change, an authorizer, a new function) reads the new columns, never the
// freed description of the old ones (-asan in CI reports such a read).
func TestDirectStmtFollowsReprepare(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(a); INSERT INTO t VALUES (1)", nil); err != nil {
		t.Fatal(err)
	}
	st, err := c.PrepareDirect("SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Finalize()
	for round, change := range []func(){
		func() {
			if _, err := c.ExecContext(ctx, "ALTER TABLE t ADD COLUMN b DEFAULT 'bee'", nil); err != nil {
				t.Fatal(err)
			}
		},
		func() { c.RegisterAuthorizer(func(int, string, string, string) int { return SQLITE_OK }) },
		func() {
			if _, err := c.ExecContext(ctx, "ALTER TABLE t ADD COLUMN c DEFAULT 3.5", nil); err != nil {
				t.Fatal(err)
			}
		},
		func() { _ = c.RegisterFunc("direct_reprepare_f", func() int64 { return 1 }, true) },
	} {
		change()
		if err := st.Reset(); err != nil {
			t.Fatal(err)
		}
		row, err := st.Step()
		if err != nil || !row {
			t.Fatalf("round %d: Step = %v, %v", round, row, err)
		}
		if st.ColumnInt64(0) != 1 {
			t.Fatalf("round %d: a = %d", round, st.ColumnInt64(0))
		}
		want := []int{2, 2, 3, 3}[round]
		if st.ColumnCount() != want {
			t.Fatalf("round %d: %d columns, want %d", round, st.ColumnCount(), want)
		}
		if st.ColumnText(1) != "bee" || st.ColumnName(1) != "b" {
			t.Fatalf("round %d: b = %q (%q)", round, st.ColumnText(1), st.ColumnName(1))
		}
		if want == 3 && st.ColumnFloat(2) != 3.5 {
			t.Fatalf("round %d: c = %v", round, st.ColumnFloat(2))
		}
	}
}
