//go:build cgo

package sqlite3

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Many rows of every column type, across several calls (rows and arena).
func TestDirectExecColumns(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT, b BLOB, ok, tm TEXT, any)")
	const n = 3000
	ids := make([]int64, n)
	ns := make([]int, n)
	fs := make([]float64, n)
	ss := make([]string, n)
	bs := make([][]byte, n)
	oks := make([]bool, n)
	tms := make([]time.Time, n)
	anys := make([]any, n)
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		ids[i] = int64(i + 1)
		ns[i] = -i
		fs[i] = float64(i) / 4
		ss[i] = strings.Repeat("s", i%200)
		if i%7 != 0 {
			bs[i] = []byte(strings.Repeat("b", i%50))
		}
		oks[i] = i%2 == 0
		tms[i] = base.Add(time.Duration(i) * time.Hour)
		switch i % 4 {
		case 0:
			anys[i] = nil
		case 1:
			anys[i] = int64(i)
		case 2:
			anys[i] = "a" + itoa(i)
		case 3:
			anys[i] = ZeroBlob(2)
		}
	}
	// A few large values take their own C buffers.
	ss[1000] = strings.Repeat("L", 100<<10)
	bs[2000] = []byte(strings.Repeat("M", 70<<10))

	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	got, err := ins.ExecColumns(ids, ns, fs, ss, bs, oks, tms, anys)
	if err != nil || got != n {
		t.Fatalf("ExecColumns = %d, %v", got, err)
	}
	if ins.Changes() != n || ins.LastInsertRowID() != n {
		t.Fatalf("Changes %d, LastInsertRowID %d", ins.Changes(), ins.LastInsertRowID())
	}
	q := mustPrepareDirect(t, c, "SELECT id, n, f, s, b, ok, tm, any, typeof(b), typeof(any) FROM t ORDER BY id")
	for i := range n {
		mustStep(t, q, true)
		if q.ColumnInt64(0) != ids[i] || q.ColumnInt(1) != ns[i] || q.ColumnFloat(2) != fs[i] ||
			q.ColumnText(3) != ss[i] || string(q.ColumnBytes(4)) != string(bs[i]) || q.ColumnBool(5) != oks[i] ||
			q.ColumnText(6) != tms[i].Format(SQLiteTimestampFormats[0]) {
			t.Fatalf("row %d differs", i)
		}
		if bs[i] == nil && q.ColumnText(8) != "null" || bs[i] != nil && q.ColumnText(8) != "blob" {
			t.Fatalf("row %d: nil []byte is %s", i, q.ColumnText(8))
		}
		wantAny := []string{"null", "integer", "text", "blob"}[i%4]
		if q.ColumnText(9) != wantAny {
			t.Fatalf("row %d: []any value is %s, want %s", i, q.ColumnText(9), wantAny)
		}
	}
	mustStep(t, q, false)
}

// An error mid-batch: the rows before the failing one are inserted, none
// after it, and the error is this package's Error with SQLite's codes.
func TestDirectExecColumnsErrorMidBatch(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT)")
	directExec(t, c, "INSERT INTO t VALUES (700, 'there before')")
	const n = 1000
	ids := make([]int64, n)
	ss := make([]string, n)
	for i := range n {
		ids[i] = int64(i + 1)
		ss[i] = strings.Repeat("x", i%3) // a large value after the failure is freed, not leaked
	}
	ss[900] = strings.Repeat("y", 80<<10)
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?)")
	got, err := ins.ExecColumns(ids, ss)
	if got != 699 || ins.Changes() != 699 {
		t.Fatalf("ran %d rows (changes %d), want 699 (id 700 is taken)", got, ins.Changes())
	}
	var e Error
	if !errors.As(err, &e) || e.ExtendedCode != ErrConstraintPrimaryKey {
		t.Fatalf("error %v", err)
	}
	q := mustPrepareDirect(t, c, "SELECT count(*), max(id) FROM t WHERE s != 'there before'")
	mustStep(t, q, true)
	if q.ColumnInt64(0) != 699 || q.ColumnInt64(1) != 699 {
		t.Fatalf("table holds %d rows up to %d", q.ColumnInt64(0), q.ColumnInt64(1))
	}
	// The statement is usable again.
	if got, err := ins.ExecColumns(ids[900:], ss[900:]); got != 100 || err != nil {
		t.Fatalf("again: %d %v", got, err)
	}
}

func TestDirectExecColumnsBadInput(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(a, b)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?)")
	for name, cols := range map[string][]any{
		"too few columns":    {[]int64{1}},
		"too many columns":   {[]int64{1}, []int64{1}, []int64{1}},
		"lengths differ":     {[]int64{1, 2}, []int64{1}},
		"unsupported column": {[]int64{1}, []uint16{1}},
		"unsupported value":  {[]int64{1, 2}, []any{1, struct{}{}}},
		"uint64 too large":   {[]int64{1}, []any{uint64(1 << 63)}},
	} {
		if got, err := ins.ExecColumns(cols...); err == nil || got != 0 {
			t.Errorf("%s: %d, %v", name, got, err)
		}
	}
	if got, err := ins.ExecColumns([]int64{}, []string{}); got != 0 || err != nil {
		t.Errorf("no rows: %d %v", got, err)
	}
	q := mustPrepareDirect(t, c, "SELECT count(*) FROM t")
	mustStep(t, q, true)
	if q.ColumnInt64(0) != 0 {
		t.Fatalf("%d rows inserted by bad input", q.ColumnInt64(0))
	}
	noParams := mustPrepareDirect(t, c, "INSERT INTO t VALUES (1, 2)")
	if _, err := noParams.ExecColumns(); err == nil {
		t.Error("ExecColumns without parameters")
	}
}

// The bulk path allocates nothing per row for numbers and short strings.
func TestDirectExecColumnsAllocations(t *testing.T) {
	c := rawConn(t, ":memory:")
	directExec(t, c, "CREATE TABLE t(a, b)")
	ins := mustPrepareDirect(t, c, "INSERT INTO t VALUES (?, ?)")
	ids := make([]int64, 1000)
	ss := make([]string, 1000)
	for i := range ids {
		ids[i] = int64(i)
		ss[i] = "value " + itoa(i)
	}
	ins.ExecColumns(ids, ss)
	// AllocsPerRun counts the whole process's allocations: over 50 runs, the
	// odd one of another goroutine (seen under Wine) is not counted as ours.
	if a := testing.AllocsPerRun(50, func() { ins.ExecColumns(ids, ss) }); a > 2 {
		t.Errorf("%v allocations for 1000 rows", a)
	}
}
