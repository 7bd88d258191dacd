//go:build cgo

package sqlite3

import (
	"strings"
	"testing"
)

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
