//go:build cgo

package sqlite3

import (
	"database/sql"
	"strings"
	"testing"
	"unsafe"
)

// Tests of binding (bind.go, bridge_bind.c).

// testParamCaps reads the connection's parameter array and arena capacities
// (bridge_conn.args_cap, .arena_cap), in entries and bytes.
func testParamCaps(t testing.TB, conn *sql.Conn) (args int, arena int64) {
	t.Helper()
	testRawConn(t, conn, func(c *SQLiteConn) {
		args, arena = int(c.h.args_cap), int64(c.h.arena_cap)
	})
	return args, arena
}

// One statement with thousands of parameters does not leave its parameter
// array and arena (C memory, per connection) at their high-water mark.
func TestParamBuffersShrinkAfterHugeBind(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	// 3,000 parameters (past BRIDGE_KEEP_ARGS), 200 of them 60 KB strings
	// (below largeValue: copied into the arena, 12 MB).
	const n, big, size = 3000, 200, 60 << 10
	value := strings.Repeat("x", size)
	args := make([]any, n)
	want := int64(0)
	for i := range args {
		if i%(n/big) == 0 {
			args[i] = value
			want += size
		} else {
			args[i] = int64(7)
			want++
		}
	}
	q := "SELECT sum(length(column1)) FROM (VALUES (?)" + strings.Repeat(", (?)", n-1) + ")"
	sizeofArg := int(unsafe.Sizeof(argSlot{}))
	for round := range 2 {
		var got int64
		if err := conn.QueryRowContext(t.Context(), q, args...).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("length %d, want %d", got, want)
		}
		if a, b := testParamCaps(t, conn); a*sizeofArg > 64<<10 || b > 1<<20 {
			t.Fatalf("round %d, after the query: parameter array of %d entries and arena of %d bytes kept", round, a, b)
		}
		res := testMustExec(t, conn, "CREATE TABLE IF NOT EXISTS t(v); INSERT INTO t VALUES (?)"+strings.Repeat(", (?)", n-1), args...)
		if k, _ := res.RowsAffected(); k != n {
			t.Fatalf("%d rows inserted", k)
		}
		if a, b := testParamCaps(t, conn); a*sizeofArg > 64<<10 || b > 1<<20 {
			t.Fatalf("round %d, after the exec: parameter array of %d entries and arena of %d bytes kept", round, a, b)
		}
	}
	// Small binds keep their buffers, and still work after a trim.
	if s := testQueryString(t, conn, "SELECT ? || ?", "a", "b"); s != "ab" {
		t.Fatalf("got %q", s)
	}
	if a, b := testParamCaps(t, conn); a == 0 || b == 0 {
		t.Fatalf("small buffers freed (%d entries, %d bytes): each bind would allocate", a, b)
	}
}
