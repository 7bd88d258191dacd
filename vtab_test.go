//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ---- a read-only module backed by a Go slice ----

type person struct {
	id    int64
	name  string
	score any // float64 or nil
	data  []byte
}

// sliceModule serves the rows of people, sorted by id, as the table
// (id INTEGER, name TEXT, score REAL, data BLOB). It records what SQLite
// passes to it.
type sliceModule struct {
	people []person

	mu        sync.Mutex
	args      [][]string // Create/Connect arguments
	created   int
	connected int
	best      []bestCall
	filters   []filterCall
	destroyed atomic.Int64 // DestroyModule calls
	drops     int          // Destroy calls
	beforeSQL string       // run on the connection by Create and Connect
}

type bestCall struct {
	csts []InfoConstraint
	obs  []InfoOrderBy
}

type filterCall struct {
	idxNum int
	idxStr string
	vals   []any
}

func (m *sliceModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	m.mu.Lock()
	m.created++
	m.mu.Unlock()
	return m.connect(c, args)
}

func (m *sliceModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	m.mu.Lock()
	m.connected++
	m.mu.Unlock()
	return m.connect(c, args)
}

func (m *sliceModule) connect(c *SQLiteConn, args []string) (VTab, error) {
	m.mu.Lock()
	m.args = append(m.args, args)
	m.mu.Unlock()
	if m.beforeSQL != "" {
		// SQL on the connection from inside Create/Connect.
		rows, err := c.QueryContext(context.Background(), m.beforeSQL, nil)
		if err != nil {
			return nil, err
		}
		dest := make([]driver.Value, len(rows.Columns()))
		for rows.Next(dest) == nil {
		}
		rows.Close()
	}
	if err := c.DeclareVTab("CREATE TABLE x(id INTEGER, name TEXT, score REAL, data BLOB)"); err != nil {
		return nil, err
	}
	return &sliceTable{m: m}, nil
}

func (m *sliceModule) DestroyModule() { m.destroyed.Add(1) }

type sliceTable struct{ m *sliceModule }

// BestIndex uses "id = ?" when it can, and consumes ORDER BY id (ascending).
func (t *sliceTable) BestIndex(csts []InfoConstraint, obs []InfoOrderBy) (*IndexResult, error) {
	t.m.mu.Lock()
	t.m.best = append(t.m.best, bestCall{csts: slices.Clone(csts), obs: slices.Clone(obs)})
	t.m.mu.Unlock()
	res := &IndexResult{Used: make([]bool, len(csts)), EstimatedCost: 1000, EstimatedRows: float64(len(t.m.people))}
	for i, c := range csts {
		if c.Column == 0 && c.Op == OpEQ && c.Usable {
			res.Used[i] = true
			res.IdxNum, res.IdxStr = 1, "id="
			res.EstimatedCost, res.EstimatedRows = 1, 1
			break
		}
	}
	res.AlreadyOrdered = len(obs) == 1 && obs[0].Column == 0 && !obs[0].Desc
	return res, nil
}

func (t *sliceTable) Open() (VTabCursor, error) { return &sliceCursor{t: t}, nil }
func (t *sliceTable) Disconnect() error         { return nil }
func (t *sliceTable) Destroy() error {
	t.m.mu.Lock()
	t.m.drops++
	t.m.mu.Unlock()
	return nil
}

type sliceCursor struct {
	t    *sliceTable
	rows []person
	i    int
}

func (c *sliceCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.t.m.mu.Lock()
	c.t.m.filters = append(c.t.m.filters, filterCall{idxNum, idxStr, slices.Clone(vals)})
	c.t.m.mu.Unlock()
	c.rows, c.i = c.t.m.people, 0
	if idxNum == 1 {
		id, ok := vals[0].(int64)
		c.rows = nil
		if ok {
			for _, p := range c.t.m.people {
				if p.id == id {
					c.rows = []person{p}
				}
			}
		}
	}
	return nil
}

func (c *sliceCursor) Next() error { c.i++; return nil }
func (c *sliceCursor) EOF() bool   { return c.i >= len(c.rows) }
func (c *sliceCursor) Close() error {
	return nil
}
func (c *sliceCursor) Rowid() (int64, error) { return c.rows[c.i].id, nil }

func (c *sliceCursor) Column(ctx *SQLiteContext, col int) error {
	p := c.rows[c.i]
	switch col {
	case 0:
		ctx.ResultInt64(p.id)
	case 1:
		ctx.ResultText(p.name)
	case 2:
		if f, ok := p.score.(float64); ok {
			ctx.ResultDouble(f)
		} else {
			ctx.ResultNull()
		}
	case 3:
		ctx.ResultBlob(p.data)
	default:
		return fmt.Errorf("no column %d", col)
	}
	return nil
}

func testPeople() []person {
	return []person{
		{1, "ada", 9.5, []byte{1, 2}},
		{2, "bob", nil, nil},
		{3, "cy", 7.25, []byte("x")},
		{4, "dee", 8.0, []byte{0}},
		{5, "eve", 1.5, nil},
	}
}

// queryStrings runs query and returns each row's columns joined by "|".
func queryStrings(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				parts[i] = fmt.Sprintf("%x", b)
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func TestVTabReadOnly(t *testing.T) {
	base := liveVTabHandles.Load()
	m := &sliceModule{people: testPeople()}
	db := openFuncDB(t, func(c *SQLiteConn) error { return c.CreateModule("slicemod", m) })
	if _, err := db.Exec("CREATE VIRTUAL TABLE people USING slicemod(alpha, 'b c', 42)"); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"slicemod", "main", "people", "alpha", "'b c'", "42"}}; !reflect.DeepEqual(m.args, want) {
		t.Errorf("Create args %q, want %q", m.args, want)
	}
	if m.created != 1 || m.connected != 0 {
		t.Errorf("Create called %d times, Connect %d; want 1, 0", m.created, m.connected)
	}

	reset := func() {
		m.mu.Lock()
		m.best, m.filters = nil, nil
		m.mu.Unlock()
	}

	// Every row, every type, in the order the cursor gives (AlreadyOrdered).
	reset()
	got := queryStrings(t, db, "SELECT id, name, score, data, rowid FROM people ORDER BY id")
	want := []string{"1|ada|9.5|0102|1", "2|bob|<nil>|<nil>|2", "3|cy|7.25|78|3", "4|dee|8|00|4", "5|eve|1.5|<nil>|5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("full scan:\n got %q\nwant %q", got, want)
	}
	if len(m.best) == 0 || !reflect.DeepEqual(m.best[len(m.best)-1].obs, []InfoOrderBy{{Column: 0}}) {
		t.Errorf("BestIndex order-bys: %+v", m.best)
	}
	if len(m.filters) != 1 || m.filters[0].idxNum != 0 || m.filters[0].idxStr != "" || len(m.filters[0].vals) != 0 {
		t.Errorf("Filter calls for a full scan: %+v", m.filters)
	}

	// ORDER BY ... DESC is not consumed: SQLite sorts.
	if got := queryStrings(t, db, "SELECT id FROM people ORDER BY id DESC"); !reflect.DeepEqual(got, []string{"5", "4", "3", "2", "1"}) {
		t.Errorf("ORDER BY id DESC: %q", got)
	}
	if got := queryStrings(t, db, "SELECT name FROM people ORDER BY name DESC LIMIT 2"); !reflect.DeepEqual(got, []string{"eve", "dee"}) {
		t.Errorf("ORDER BY name DESC LIMIT 2: %q", got)
	}

	// WHERE id = ?: BestIndex sees the constraint, Filter its value.
	reset()
	if got := queryStrings(t, db, "SELECT name FROM people WHERE id = ?", 3); !reflect.DeepEqual(got, []string{"cy"}) {
		t.Errorf("WHERE id = 3: %q", got)
	}
	foundEQ := false
	for _, b := range m.best {
		for _, c := range b.csts {
			if c == (InfoConstraint{Column: 0, Op: OpEQ, Usable: true}) {
				foundEQ = true
			}
		}
	}
	if !foundEQ {
		t.Errorf("BestIndex never saw a usable id = ? constraint: %+v", m.best)
	}
	if want := []filterCall{{1, "id=", []any{int64(3)}}}; !reflect.DeepEqual(m.filters, want) {
		t.Errorf("Filter calls %+v, want %+v", m.filters, want)
	}

	// Other operators reach BestIndex unused; SQLite checks them itself.
	reset()
	if got := queryStrings(t, db, "SELECT id FROM people WHERE id > 2 AND name <> 'dee' AND score IS NOT NULL ORDER BY id"); !reflect.DeepEqual(got, []string{"3", "5"}) {
		t.Errorf("WHERE id > 2 ...: %q", got)
	}
	ops := map[InfoConstraint]bool{}
	for _, b := range m.best {
		for _, c := range b.csts {
			ops[c] = true
		}
	}
	for _, c := range []InfoConstraint{{0, OpGT, true}, {1, OpNE, true}, {2, OpISNOTNULL, true}} {
		if !ops[c] {
			t.Errorf("BestIndex did not see %+v: %+v", c, m.best)
		}
	}

	// A value of another type reaches Filter as it is.
	reset()
	if got := queryStrings(t, db, "SELECT name FROM people WHERE id = 'x'"); len(got) != 0 {
		t.Errorf("WHERE id = 'x': %q", got)
	}
	if len(m.filters) != 1 || !reflect.DeepEqual(m.filters[0].vals, []any{"x"}) {
		t.Errorf("Filter calls %+v", m.filters)
	}

	// LIMIT and OFFSET are offered as constraints (SQLite 3.38), unused here.
	reset()
	if got := queryStrings(t, db, "SELECT id FROM people LIMIT 2 OFFSET 1"); !reflect.DeepEqual(got, []string{"2", "3"}) {
		t.Errorf("LIMIT 2 OFFSET 1: %q", got)
	}
	if b := m.best; len(b) == 0 || !slices.ContainsFunc(b[0].csts, func(c InfoConstraint) bool { return c.Op == OpLIMIT }) ||
		!slices.ContainsFunc(b[0].csts, func(c InfoConstraint) bool { return c.Op == OpOFFSET }) {
		t.Errorf("BestIndex calls for LIMIT/OFFSET: %+v", b)
	}

	// Joins, aggregates, subqueries.
	if got := queryStrings(t, db, "SELECT a.name, b.name FROM people a JOIN people b ON b.id = a.id + 1 WHERE a.id >= 3"); !reflect.DeepEqual(got, []string{"cy|dee", "dee|eve"}) {
		t.Errorf("self-join: %q", got)
	}
	if got := queryStrings(t, db, "SELECT count(*), sum(score), max(length(data)) FROM people"); !reflect.DeepEqual(got, []string{"5|26.25|2"}) {
		t.Errorf("aggregates: %q", got)
	}

	// Read-only: writes fail with a clear error.
	for _, q := range []string{
		"INSERT INTO people(id, name) VALUES (6, 'fay')",
		"UPDATE people SET name = 'x' WHERE id = 1",
		"DELETE FROM people WHERE id = 1",
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "virtual slicemod table people is read-only") {
			t.Errorf("%s: error %v", q, err)
		}
	}

	// DROP TABLE calls Destroy and releases the table.
	live := liveVTabHandles.Load() - base
	if _, err := db.Exec("DROP TABLE people"); err != nil {
		t.Fatal(err)
	}
	if m.drops != 1 {
		t.Errorf("Destroy called %d times, want 1", m.drops)
	}
	if got := liveVTabHandles.Load() - base; got != live-1 {
		t.Errorf("%d live handles after DROP TABLE, want %d", got, live-1)
	}
	db.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
	if got := m.destroyed.Load(); got != 1 {
		t.Errorf("DestroyModule called %d times, want 1", got)
	}
}

// A second connection to a database whose schema has the virtual table
// calls Connect (while preparing its first statement), with the same
// arguments; Connect may run SQL on its connection.
func TestVTabConnect(t *testing.T) {
	base := liveVTabHandles.Load()
	m := &sliceModule{people: testPeople(), beforeSQL: "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'p%'"}
	name := fmt.Sprintf("sqlite3_vtab_connect_%d", funcTestDrivers.Add(1))
	sql.Register(name, &SQLiteDriver{ConnectHook: func(c *SQLiteConn) error { return c.CreateModule("slicemod", m) }})
	dsn := "file:" + filepath.Join(t.TempDir(), "vtab.db")
	db1, err := sql.Open(name, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db1.Close()
	if _, err := db1.Exec("CREATE VIRTUAL TABLE people USING slicemod(x)"); err != nil {
		t.Fatal(err)
	}
	db2, err := sql.Open(name, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := queryStrings(t, db2, "SELECT name FROM people WHERE id = 2"); !reflect.DeepEqual(got, []string{"bob"}) {
		t.Errorf("second connection: %q", got)
	}
	if m.created != 1 || m.connected != 1 {
		t.Errorf("Create called %d times, Connect %d; want 1 each", m.created, m.connected)
	}
	want := []string{"slicemod", "main", "people", "x"}
	if len(m.args) != 2 || !reflect.DeepEqual(m.args[1], want) {
		t.Errorf("Connect args %q, want %q", m.args, want)
	}
	// A connection without the module cannot use the table.
	db3, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db3.Close()
	if _, err := db3.Exec("SELECT * FROM people"); err == nil || !strings.Contains(err.Error(), "no such module: slicemod") {
		t.Errorf("without the module: %v", err)
	}
	db1.Close()
	db2.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
	if got := m.destroyed.Load(); got != 2 {
		t.Errorf("DestroyModule called %d times, want 2 (one per connection)", got)
	}
}

// ---- an eponymous-only table-valued function ----

// seriesModule is series(start, stop = 10, step = 1): the integers from start
// to stop. start is required: a plan without it is refused (ErrConstraint).
type seriesModule struct {
	best    []bestCall
	filters []filterCall
}

func (m *seriesModule) EponymousOnlyModule() {}

func (m *seriesModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	return nil, errors.New("not reached: eponymous-only")
}

func (m *seriesModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	if want := []string{"series", "main", "series"}; !reflect.DeepEqual(args, want) {
		return nil, fmt.Errorf("Connect args %q, want %q", args, want)
	}
	if err := c.DeclareVTab("CREATE TABLE x(value INTEGER, start HIDDEN, stop HIDDEN, step HIDDEN)"); err != nil {
		return nil, err
	}
	return &seriesTable{m: m}, nil
}

func (m *seriesModule) DestroyModule() {}

type seriesTable struct{ m *seriesModule }

// BestIndex: IdxNum has bit (1 << (column - 1)) for each of start, stop and
// step given; IdxStr names them. Filter's values come in that order.
func (t *seriesTable) BestIndex(csts []InfoConstraint, obs []InfoOrderBy) (*IndexResult, error) {
	t.m.best = append(t.m.best, bestCall{csts: slices.Clone(csts), obs: slices.Clone(obs)})
	res := &IndexResult{Used: make([]bool, len(csts))}
	var names []string
	for col := 1; col <= 3; col++ {
		for i, c := range csts {
			if c.Column == col && c.Op == OpEQ {
				if !c.Usable {
					return nil, ErrConstraint // another plan must provide it
				}
				res.Used[i] = true
				res.IdxNum |= 1 << (col - 1)
				names = append(names, []string{"start", "stop", "step"}[col-1])
				break
			}
		}
	}
	if res.IdxNum&1 == 0 {
		return nil, fmt.Errorf("series: start is required: %w", ErrConstraint)
	}
	res.IdxStr = strings.Join(names, ",")
	res.AlreadyOrdered = len(obs) == 1 && obs[0].Column == 0 && !obs[0].Desc
	res.EstimatedCost, res.EstimatedRows = 10, 10
	return res, nil
}

func (t *seriesTable) Open() (VTabCursor, error) { return &seriesCursor{t: t}, nil }
func (t *seriesTable) Disconnect() error         { return nil }
func (t *seriesTable) Destroy() error            { return nil }

type seriesCursor struct {
	t                 *seriesTable
	start, stop, step int64
	cur               int64
}

func (c *seriesCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.t.m.filters = append(c.t.m.filters, filterCall{idxNum, idxStr, slices.Clone(vals)})
	c.stop, c.step = 10, 1
	args := []*int64{&c.start, &c.stop, &c.step}
	k := 0
	for bit := 0; bit < 3; bit++ {
		if idxNum&(1<<bit) == 0 {
			continue
		}
		v, ok := vals[k].(int64)
		if !ok {
			return fmt.Errorf("series: argument %d must be an integer, not %T", bit+1, vals[k])
		}
		*args[bit] = v
		k++
	}
	if c.step <= 0 {
		return errors.New("series: step must be positive")
	}
	c.cur = c.start
	return nil
}

func (c *seriesCursor) Next() error           { c.cur += c.step; return nil }
func (c *seriesCursor) EOF() bool             { return c.cur > c.stop }
func (c *seriesCursor) Rowid() (int64, error) { return c.cur, nil }
func (c *seriesCursor) Close() error          { return nil }
func (c *seriesCursor) Column(ctx *SQLiteContext, col int) error {
	switch col {
	case 0:
		ctx.ResultInt64(c.cur)
	case 1:
		ctx.ResultInt64(c.start)
	case 2:
		ctx.ResultInt64(c.stop)
	case 3:
		ctx.ResultInt64(c.step)
	}
	return nil
}

func TestVTabEponymousOnly(t *testing.T) {
	base := liveVTabHandles.Load()
	m := &seriesModule{}
	db := openFuncDB(t, func(c *SQLiteConn) error { return c.CreateModule("series", m) })
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT value FROM series(3, 6)", []string{"3", "4", "5", "6"}},
		{"SELECT value FROM series(1, 10, 4)", []string{"1", "5", "9"}},
		{"SELECT value FROM series(8)", []string{"8", "9", "10"}},
		{"SELECT value FROM series WHERE start = 2 AND stop = 3", []string{"2", "3"}},
		{"SELECT sum(value) FROM series(1, 100)", []string{"5050"}},
		{"SELECT value, start, stop, step FROM series(1, 2)", []string{"1|1|2|1", "2|1|2|1"}},
		{"SELECT value FROM series(1, 5) ORDER BY value DESC LIMIT 2", []string{"5", "4"}},
		// The argument comes from another table: start is not usable until
		// the outer loop runs, so that plan is refused (ErrConstraint).
		{"SELECT a.value, b.value FROM series(1, 3) a, series(a.value, 3) b", []string{"1|1", "1|2", "1|3", "2|2", "2|3", "3|3"}},
		{"SELECT (SELECT group_concat(value) FROM series(x, x + 2)) FROM (SELECT 5 AS x)", []string{"5,6,7"}},
	} {
		if got := queryStrings(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
	m.filters = nil
	queryStrings(t, db, "SELECT value FROM series(?, ?, ?)", 4, 9, 5)
	if want := []filterCall{{7, "start,stop,step", []any{int64(4), int64(9), int64(5)}}}; !reflect.DeepEqual(m.filters, want) {
		t.Errorf("Filter calls %+v, want %+v", m.filters, want)
	}
	for _, tc := range []struct{ query, want string }{
		{"SELECT value FROM series", "no query solution"},
		{"SELECT value FROM series(1, 'x')", "series: argument 2 must be an integer, not string"},
		{"SELECT value FROM series(1, 5, 0)", "series: step must be positive"},
		{"CREATE VIRTUAL TABLE s2 USING series", "no such module: series"}, // xCreate is NULL
	} {
		if _, err := db.Exec(tc.query); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}
	db.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

// ---- an updatable module ----

type kvRow struct {
	k string
	v any
}

// kvModule is a table (k TEXT, v) kept in a Go map by rowid; k is unique.
type kvModule struct {
	rows   map[int64]kvRow
	nextID int64
	calls  []string
}

func (m *kvModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	if err := c.DeclareVTab("CREATE TABLE x(k TEXT, v)"); err != nil {
		return nil, err
	}
	return &kvTable{m: m}, nil
}

func (m *kvModule) Connect(c *SQLiteConn, args []string) (VTab, error) { return m.Create(c, args) }
func (m *kvModule) DestroyModule()                                     {}

type kvTable struct{ m *kvModule }

func (t *kvTable) BestIndex(csts []InfoConstraint, obs []InfoOrderBy) (*IndexResult, error) {
	res := &IndexResult{Used: make([]bool, len(csts))}
	for i, c := range csts {
		if c.Column == -1 && c.Op == OpEQ && c.Usable { // rowid = ?
			res.Used[i], res.IdxNum, res.EstimatedCost = true, 1, 1
			break
		}
	}
	return res, nil
}

func (t *kvTable) Open() (VTabCursor, error) { return &kvCursor{t: t}, nil }
func (t *kvTable) Disconnect() error         { return nil }
func (t *kvTable) Destroy() error            { return nil }

func (t *kvTable) checkUnique(id int64, k any) error {
	for rid, r := range t.m.rows {
		if rid != id && r.k == k {
			return fmt.Errorf("kv: duplicate key %v: %w", k, ErrConstraintUnique)
		}
	}
	return nil
}

func (t *kvTable) Insert(id any, vals []any) (int64, error) {
	t.m.calls = append(t.m.calls, fmt.Sprintf("Insert(%v, %v)", id, vals))
	k, _ := vals[0].(string)
	if err := t.checkUnique(-1, k); err != nil {
		return 0, err
	}
	var rowid int64
	switch id := id.(type) {
	case nil:
		t.m.nextID++
		rowid = t.m.nextID
	case int64:
		if _, dup := t.m.rows[id]; dup {
			return 0, fmt.Errorf("kv: rowid %d exists", id)
		}
		rowid = id
		t.m.nextID = max(t.m.nextID, id)
	default:
		return 0, fmt.Errorf("kv: bad rowid %v", id)
	}
	t.m.rows[rowid] = kvRow{k, vals[1]}
	return rowid, nil
}

func (t *kvTable) Update(id any, vals []any) error {
	t.m.calls = append(t.m.calls, fmt.Sprintf("Update(%v, %v)", id, vals))
	rowid := id.(int64)
	k, _ := vals[0].(string)
	if err := t.checkUnique(rowid, k); err != nil {
		return err
	}
	t.m.rows[rowid] = kvRow{k, vals[1]}
	return nil
}

func (t *kvTable) Delete(id any) error {
	t.m.calls = append(t.m.calls, fmt.Sprintf("Delete(%v)", id))
	delete(t.m.rows, id.(int64))
	return nil
}

type kvCursor struct {
	t   *kvTable
	ids []int64
	i   int
}

func (c *kvCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.ids, c.i = c.ids[:0], 0
	for id := range c.t.m.rows {
		if idxNum == 1 && vals[0] != id {
			continue
		}
		c.ids = append(c.ids, id)
	}
	sort.Slice(c.ids, func(i, j int) bool { return c.ids[i] < c.ids[j] })
	return nil
}

func (c *kvCursor) Next() error           { c.i++; return nil }
func (c *kvCursor) EOF() bool             { return c.i >= len(c.ids) }
func (c *kvCursor) Rowid() (int64, error) { return c.ids[c.i], nil }
func (c *kvCursor) Close() error          { return nil }

func (c *kvCursor) Column(ctx *SQLiteContext, col int) error {
	r := c.t.m.rows[c.ids[c.i]]
	if col == 0 {
		ctx.ResultText(r.k)
		return nil
	}
	switch v := r.v.(type) {
	case int64:
		ctx.ResultInt64(v)
	case float64:
		ctx.ResultDouble(v)
	case string:
		ctx.ResultText(v)
	case []byte:
		ctx.ResultBlob(v)
	default:
		ctx.ResultNull()
	}
	return nil
}

func TestVTabUpdater(t *testing.T) {
	base := liveVTabHandles.Load()
	m := &kvModule{rows: map[int64]kvRow{}}
	db := openFuncDB(t, func(c *SQLiteConn) error { return c.CreateModule("kv", m) })
	if _, err := db.Exec("CREATE VIRTUAL TABLE kv USING kv"); err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec("INSERT INTO kv(k, v) VALUES ('a', 1)")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id != 1 {
		t.Errorf("LastInsertId %d, want 1", id)
	}
	if _, err := db.Exec("INSERT INTO kv(rowid, k, v) VALUES (10, 'b', 2.5), (11, 'c', x'00ff')"); err != nil {
		t.Fatal(err)
	}
	res, err = db.Exec("INSERT INTO kv(k, v) VALUES ('d', NULL)")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id != 12 {
		t.Errorf("LastInsertId %d, want 12", id)
	}
	res, err = db.Exec("UPDATE kv SET v = v * 10 WHERE typeof(v) IN ('integer', 'real')")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("UPDATE affected %d rows, want 2", n)
	}
	if _, err := db.Exec("DELETE FROM kv WHERE rowid = 11"); err != nil {
		t.Fatal(err)
	}
	want := []string{"1|a|10", "10|b|25", "12|d|<nil>"}
	if got := queryStrings(t, db, "SELECT rowid, k, v FROM kv"); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	wantCalls := []string{
		"Insert(<nil>, [a 1])",
		"Insert(10, [b 2.5])",
		"Insert(11, [c [0 255]])",
		"Insert(<nil>, [d <nil>])",
		"Update(1, [a 10])",
		"Update(10, [b 25])",
		"Delete(11)",
	}
	if !reflect.DeepEqual(m.calls, wantCalls) {
		t.Errorf("calls:\n got %q\nwant %q", m.calls, wantCalls)
	}

	// Errors: a constraint violation keeps its code; changing the rowid is
	// refused; the statement's earlier changes are undone.
	_, err = db.Exec("INSERT INTO kv(k, v) VALUES ('a', 2)")
	if !errors.Is(err, ErrConstraint) || !errors.Is(err, ErrConstraintUnique) || !strings.Contains(err.Error(), "kv: duplicate key a") {
		t.Errorf("duplicate key: %v (%#v)", err, err)
	}
	if _, err := db.Exec("UPDATE kv SET rowid = 99 WHERE rowid = 1"); err == nil || !strings.Contains(err.Error(), "virtual kv table kv does not support changing the rowid") {
		t.Errorf("changing the rowid: %v", err)
	}
	if _, err := db.Exec("INSERT INTO kv(rowid, k) VALUES ('x', 'z')"); err == nil || !strings.Contains(err.Error(), "kv: bad rowid x") && !strings.Contains(err.Error(), "datatype mismatch") {
		t.Errorf("text rowid: %v", err)
	}
	if got := queryStrings(t, db, "SELECT rowid, k, v FROM kv"); !reflect.DeepEqual(got, want) {
		t.Errorf("rows after failed statements %q, want %q", got, want)
	}
	db.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

// ---- errors and panics from every method ----

// faultModule fails the method named by fail ("Create", "Filter", ...) with
// an error or, when panics is set, a panic. Otherwise it is a table of
// three rows (a INTEGER).
type faultModule struct {
	fail   string
	panics bool
	calls  map[string]int
}

func (m *faultModule) hit(method string) error {
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[method]++
	if method != m.fail {
		return nil
	}
	if m.panics {
		panic("boom in " + method)
	}
	return errors.New("failure in " + method)
}

func (m *faultModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	if err := m.hit("Create"); err != nil {
		return nil, err
	}
	return m.table(c)
}

func (m *faultModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	if err := m.hit("Connect"); err != nil {
		return nil, err
	}
	return m.table(c)
}

func (m *faultModule) table(c *SQLiteConn) (VTab, error) {
	if err := c.DeclareVTab("CREATE TABLE x(a INTEGER)"); err != nil {
		return nil, err
	}
	return &faultTable{m: m}, nil
}

func (m *faultModule) DestroyModule() { _ = m.hit("DestroyModule") }

type faultTable struct{ m *faultModule }

func (t *faultTable) BestIndex(csts []InfoConstraint, obs []InfoOrderBy) (*IndexResult, error) {
	if err := t.m.hit("BestIndex"); err != nil {
		return nil, err
	}
	return &IndexResult{Used: make([]bool, len(csts))}, nil
}

func (t *faultTable) Open() (VTabCursor, error) {
	if err := t.m.hit("Open"); err != nil {
		return nil, err
	}
	return &faultCursor{m: t.m}, nil
}

func (t *faultTable) Disconnect() error { return t.m.hit("Disconnect") }
func (t *faultTable) Destroy() error    { return t.m.hit("Destroy") }

func (t *faultTable) Insert(id any, vals []any) (int64, error) { return 1, t.m.hit("Insert") }
func (t *faultTable) Update(id any, vals []any) error          { return t.m.hit("Update") }
func (t *faultTable) Delete(id any) error                      { return t.m.hit("Delete") }

type faultCursor struct {
	m *faultModule
	i int
}

func (c *faultCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.i = 1
	return c.m.hit("Filter")
}

func (c *faultCursor) Next() error {
	c.i++
	return c.m.hit("Next")
}

func (c *faultCursor) EOF() bool {
	_ = c.m.hit("EOF")
	return c.i > 3
}

func (c *faultCursor) Column(ctx *SQLiteContext, col int) error {
	ctx.ResultInt(c.i)
	return c.m.hit("Column")
}

func (c *faultCursor) Rowid() (int64, error) { return int64(c.i), c.m.hit("Rowid") }
func (c *faultCursor) Close() error          { return c.m.hit("Close") }

func TestVTabErrorsAndPanics(t *testing.T) {
	base := liveVTabHandles.Load()
	for _, tc := range []struct {
		method string
		query  string // run after CREATE VIRTUAL TABLE t USING fault
	}{
		{"Create", ""},
		{"BestIndex", "SELECT a FROM t"},
		{"Open", "SELECT a FROM t"},
		{"Filter", "SELECT a FROM t"},
		{"Next", "SELECT a FROM t"},
		{"EOF", "SELECT a FROM t"},
		{"EOF", "SELECT count(*) FROM t"},
		{"EOF", "SELECT 1 FROM t LIMIT 1"},
		{"Column", "SELECT a FROM t"},
		{"Rowid", "SELECT rowid FROM t"},
		{"Insert", "INSERT INTO t VALUES (1)"},
		{"Update", "UPDATE t SET a = 5"},
		{"Delete", "DELETE FROM t"},
		{"Destroy", "DROP TABLE t"},
		{"Disconnect", ""},
		{"Close", ""},
		{"DestroyModule", ""},
	} {
		for _, panics := range []bool{false, true} {
			if tc.method == "EOF" && !panics {
				continue // EOF cannot return an error
			}
			name := tc.method + "/" + map[bool]string{false: "error", true: "panic"}[panics]
			if tc.query != "" {
				name += "/" + tc.query
			}
			t.Run(name, func(t *testing.T) {
				m := &faultModule{fail: tc.method, panics: panics}
				c := openRawConn(t)
				if err := c.CreateModule("fault", m); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				exec := func(q string) error {
					_, err := c.ExecContext(ctx, q, nil)
					return err
				}
				query := func(q string) error {
					rows, err := c.QueryContext(ctx, q, nil)
					if err != nil {
						return err
					}
					defer rows.Close()
					dest := make([]driver.Value, len(rows.Columns()))
					for {
						if err := rows.Next(dest); err != nil {
							if err == io.EOF {
								return nil
							}
							return err
						}
					}
				}
				wantErr := func(err error, what string) {
					t.Helper()
					want := "failure in " + tc.method
					if panics {
						want = "panic in " + tc.method + ": boom in " + tc.method
						if tc.method == "Insert" || tc.method == "Update" || tc.method == "Delete" {
							want = "panic in VTabUpdater: boom in " + tc.method
						}
					}
					if err == nil {
						t.Fatalf("%s: no error, want %q", what, want)
					}
					if !strings.Contains(err.Error(), want) && !(tc.method == "EOF" && errors.Is(err, ErrInterrupt)) {
						t.Errorf("%s: error %q, want one containing %q", what, err, want)
					}
				}
				err := exec("CREATE VIRTUAL TABLE t USING fault")
				if tc.method == "Create" {
					wantErr(err, "CREATE VIRTUAL TABLE")
				} else if err != nil {
					t.Fatal(err)
				}
				switch tc.method {
				case "Create", "Disconnect", "Close", "DestroyModule":
					// Errors SQLite ignores: the table works.
					if tc.method != "Create" {
						if err := query("SELECT a FROM t"); err != nil {
							t.Fatal(err)
						}
					}
				case "Destroy":
					// SQLite does not read xDestroy's message: the error is
					// SQLITE_ERROR's own text.
					if err := exec(tc.query); !errors.Is(err, ErrError) {
						t.Errorf("%s: error %v, want ErrError", tc.query, err)
					}
					// The table stays.
					if err := query("SELECT a FROM t"); err != nil {
						t.Fatalf("after a failed DROP TABLE: %v", err)
					}
				default:
					if strings.HasPrefix(tc.query, "SELECT") {
						wantErr(query(tc.query), tc.query)
					} else {
						wantErr(exec(tc.query), tc.query)
					}
				}
				// The connection is still usable.
				if tc.method != "Create" && tc.method != "Destroy" {
					m.fail = ""
					if err := query("SELECT a FROM t"); err != nil {
						t.Errorf("after the failure: %v", err)
					}
				}
				if err := query("SELECT 1"); err != nil {
					t.Errorf("after the failure: %v", err)
				}
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				if got := liveVTabHandles.Load() - base; got != 0 {
					t.Errorf("%d live handles after Close, want 0", got)
				}
				if m.calls["DestroyModule"] != 1 {
					t.Errorf("DestroyModule called %d times, want 1", m.calls["DestroyModule"])
				}
				if m.calls["Disconnect"]+m.calls["Destroy"] < 1 && tc.method != "Create" {
					t.Errorf("neither Disconnect nor Destroy was called: %v", m.calls)
				}
			})
		}
	}
}

// Connect failing while a statement is prepared on another connection.
func TestVTabConnectErrors(t *testing.T) {
	base := liveVTabHandles.Load()
	for _, panics := range []bool{false, true} {
		m := &faultModule{}
		name := fmt.Sprintf("sqlite3_vtab_connect_%d", funcTestDrivers.Add(1))
		sql.Register(name, &SQLiteDriver{ConnectHook: func(c *SQLiteConn) error { return c.CreateModule("fault", m) }})
		dsn := "file:" + filepath.Join(t.TempDir(), "vtab.db")
		db1, err := sql.Open(name, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db1.Exec("CREATE VIRTUAL TABLE t USING fault"); err != nil {
			t.Fatal(err)
		}
		db1.Close()
		m.fail, m.panics = "Connect", panics
		db2, err := sql.Open(name, dsn)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db2.Exec("SELECT * FROM t")
		want := "failure in Connect"
		if panics {
			want = "panic in Connect: boom in Connect"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Connect failing: %v, want %q", err, want)
		}
		m.fail = ""
		if _, err := db2.Exec("SELECT * FROM t"); err != nil {
			t.Errorf("after Connect failed once: %v", err)
		}
		db2.Close()
	}
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

// ---- odd results, DeclareVTab and CreateModule ----

// funcModule builds its VTab and cursor from funcs, for one-off behaviours.
type funcModule struct {
	create    func(c *SQLiteConn, args []string) (VTab, error)
	destroyed int
}

func (m *funcModule) Create(c *SQLiteConn, args []string) (VTab, error)  { return m.create(c, args) }
func (m *funcModule) Connect(c *SQLiteConn, args []string) (VTab, error) { return m.create(c, args) }
func (m *funcModule) DestroyModule()                                     { m.destroyed++ }

type funcTable struct {
	best func([]InfoConstraint, []InfoOrderBy) (*IndexResult, error)
	open func() (VTabCursor, error)
}

func (t *funcTable) BestIndex(c []InfoConstraint, o []InfoOrderBy) (*IndexResult, error) {
	return t.best(c, o)
}
func (t *funcTable) Open() (VTabCursor, error) {
	if t.open == nil {
		return &faultCursor{m: &faultModule{}}, nil
	}
	return t.open()
}
func (t *funcTable) Disconnect() error { return nil }
func (t *funcTable) Destroy() error    { return nil }

func TestVTabBadResults(t *testing.T) {
	base := liveVTabHandles.Load()
	c := openRawConn(t)
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TEMP TABLE o(b); INSERT INTO o VALUES (1), (2)", nil); err != nil {
		t.Fatal(err)
	}
	declare := func(c *SQLiteConn) error { return c.DeclareVTab("CREATE TABLE x(a INTEGER)") }
	for _, tc := range []struct {
		name   string
		create func(c *SQLiteConn, args []string) (VTab, error)
		want   string
	}{
		{"nil VTab", func(c *SQLiteConn, args []string) (VTab, error) { return nil, declare(c) },
			"Create returned a nil VTab"},
		{"no DeclareVTab", func(c *SQLiteConn, args []string) (VTab, error) {
			return &funcTable{}, nil
		}, "did not declare schema"},
		{"bad DeclareVTab", func(c *SQLiteConn, args []string) (VTab, error) {
			return nil, c.DeclareVTab("CREATE TABLE x(a INTEGER")
		}, "incomplete input"},
		{"empty error", func(c *SQLiteConn, args []string) (VTab, error) { return nil, errors.New("") },
			"virtual table module m: Create failed"},
		{"nil IndexResult", func(c *SQLiteConn, args []string) (VTab, error) {
			return &funcTable{best: func([]InfoConstraint, []InfoOrderBy) (*IndexResult, error) { return nil, nil }}, declare(c)
		}, "BestIndex returned a nil IndexResult"},
		{"short Used", func(c *SQLiteConn, args []string) (VTab, error) {
			return &funcTable{best: func(cs []InfoConstraint, _ []InfoOrderBy) (*IndexResult, error) { return &IndexResult{}, nil }}, declare(c)
		}, "BestIndex returned 0 IndexResult.Used entries for"},
		{"nil cursor", func(c *SQLiteConn, args []string) (VTab, error) {
			return &funcTable{
				best: func(cs []InfoConstraint, _ []InfoOrderBy) (*IndexResult, error) {
					return &IndexResult{Used: make([]bool, len(cs))}, nil
				},
				open: func() (VTabCursor, error) { return nil, nil },
			}, declare(c)
		}, "Open returned a nil VTabCursor"},
		{"DeclareVTab misuse", func(c *SQLiteConn, args []string) (VTab, error) {
			// Used constraints that are not usable are ignored (an argvIndex
			// on them would be an "xBestIndex malfunction"); huge estimates
			// are clamped; IdxStr reaches Filter.
			return &funcTable{
				best: func(cs []InfoConstraint, _ []InfoOrderBy) (*IndexResult, error) {
					used := make([]bool, len(cs))
					for i := range used {
						used[i] = true
					}
					return &IndexResult{Used: used, IdxStr: "plan", EstimatedRows: 1e300, EstimatedCost: 1e300}, nil
				},
				open: func() (VTabCursor, error) {
					// DeclareVTab outside Create/Connect is misuse.
					if err := c.DeclareVTab("CREATE TABLE y(b)"); !errors.Is(err, ErrMisuse) {
						return nil, fmt.Errorf("DeclareVTab in Open: %v", err)
					}
					return &faultCursor{m: &faultModule{}}, nil
				},
			}, declare(c)
		}, ""},
	} {
		m := &funcModule{create: tc.create}
		if err := c.CreateModule("m", m); err != nil {
			t.Fatal(err)
		}
		_, err := c.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.t USING m", nil)
		if err == nil {
			var rows driver.Rows
			rows, err = c.QueryContext(ctx, "SELECT t.a FROM t JOIN o ON t.a = o.b WHERE t.a > 0", nil)
			if err == nil {
				dest := make([]driver.Value, 1)
				for err == nil {
					err = rows.Next(dest)
				}
				if err == io.EOF {
					err = nil
				}
				rows.Close()
			}
			if _, err := c.ExecContext(ctx, "DROP TABLE t", nil); err != nil {
				t.Fatalf("%s: DROP TABLE: %v", tc.name, err)
			}
		}
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if err := c.DeclareVTab("CREATE TABLE x(a)"); !errors.Is(err, ErrMisuse) {
		t.Errorf("DeclareVTab outside Create: %v", err)
	}
	if err := c.DeclareVTab("CREATE TABLE x(a)\x00"); err == nil {
		t.Error("DeclareVTab with a NUL byte: no error")
	}
	c.Close()
	if err := c.DeclareVTab("CREATE TABLE x(a)"); err == nil {
		t.Error("DeclareVTab on a closed connection: no error")
	}
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

func TestVTabCreateModule(t *testing.T) {
	base := liveVTabHandles.Load()
	c := openRawConn(t)
	if err := c.CreateModule("m", nil); err == nil {
		t.Error("nil module: no error")
	}
	if err := c.CreateModule("a\x00b", &funcModule{}); err == nil {
		t.Error("NUL in the name: no error")
	}
	// Replacing a module destroys the old one once no table uses it.
	m1, m2 := &funcModule{}, &funcModule{}
	if err := c.CreateModule("m", m1); err != nil {
		t.Fatal(err)
	}
	if got := liveVTabHandles.Load() - base; got != 1 {
		t.Errorf("%d live handles, want 1", got)
	}
	if err := c.CreateModule("m", m2); err != nil {
		t.Fatal(err)
	}
	if m1.destroyed != 1 || m2.destroyed != 0 {
		t.Errorf("after replacing: DestroyModule called %d and %d times, want 1 and 0", m1.destroyed, m2.destroyed)
	}
	if got := liveVTabHandles.Load() - base; got != 1 {
		t.Errorf("%d live handles after replacing, want 1", got)
	}
	c.Close()
	if m2.destroyed != 1 {
		t.Errorf("after Close: DestroyModule called %d times, want 1", m2.destroyed)
	}
	if err := c.CreateModule("m", &funcModule{}); err == nil {
		t.Error("closed connection: no error")
	}
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

// Handles for modules, tables and cursors are released when the connection
// closes, even with cursors still open.
func TestVTabHandleLeak(t *testing.T) {
	base := liveVTabHandles.Load()
	people := testPeople()
	var destroyed atomic.Int64
	db := openFuncDB(t, func(c *SQLiteConn) error {
		m := &sliceModule{people: people}
		if err := c.CreateModule("slicemod", m); err != nil {
			return err
		}
		if err := c.CreateModule("series", &seriesModule{}); err != nil {
			return err
		}
		// Count DestroyModule calls across connections.
		return c.CreateModule("counted", &countedModule{n: &destroyed})
	})
	db.SetMaxOpenConns(4)
	ctx := context.Background()
	var conns []*sql.Conn
	for range 4 {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	if got := liveVTabHandles.Load() - base; got != 12 {
		t.Errorf("%d live handles with 4 connections, want 12 (3 modules each)", got)
	}
	for i, conn := range conns {
		if _, err := conn.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.p USING slicemod"); err != nil {
			t.Fatal(err)
		}
		// Open cursors, abandoned: the connection closes under them.
		var open []*sql.Rows
		for range 3 {
			rows, err := conn.QueryContext(ctx, "SELECT p.name, s.value FROM p, series(1, 3) s")
			if err != nil {
				t.Fatal(err)
			}
			if !rows.Next() {
				t.Fatal("no row")
			}
			open = append(open, rows)
		}
		if i%2 == 0 {
			conn.Raw(func(dc any) error { return dc.(*SQLiteConn).Close() })
		}
		for _, rows := range open {
			rows.Close()
		}
	}
	for _, conn := range conns {
		conn.Close()
	}
	db.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after db.Close, want 0", got)
	}
	if got := destroyed.Load(); got != 4 {
		t.Errorf("DestroyModule called %d times, want 4", got)
	}
}

type countedModule struct{ n *atomic.Int64 }

func (m *countedModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	return nil, errors.New("unused")
}
func (m *countedModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	return nil, errors.New("unused")
}
func (m *countedModule) DestroyModule() { m.n.Add(1) }

// Modules registered in a ConnectHook serve queries on several goroutines
// (one connection each) at once; run with -race.
func TestVTabConcurrent(t *testing.T) {
	base := liveVTabHandles.Load()
	db := openFuncDB(t, func(c *SQLiteConn) error { return c.CreateModule("series", &seriesModule{}) })
	db.SetMaxOpenConns(4)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				var sum int64
				n := int64(g*100 + i + 1)
				if err := db.QueryRow("SELECT sum(value) FROM series(1, ?)", n).Scan(&sum); err != nil {
					t.Error(err)
					return
				}
				if sum != n*(n+1)/2 {
					t.Errorf("sum(1..%d) = %d", n, sum)
					return
				}
			}
		}()
	}
	wg.Wait()
	db.Close()
	if got := liveVTabHandles.Load() - base; got != 0 {
		t.Errorf("%d live handles after Close, want 0", got)
	}
}

const vtabHeapChildEnv = "FASTSQLITE_VTAB_HEAP_CHILD"

// TestVTabSQLiteHeap checks the C side: after the virtual table tests run and
// every connection is closed, SQLite's heap (which holds the sqlite3_vtab and
// cursor structs, IdxStr copies and error messages) is back where it was.
// SQLite counts its heap only when a fresh process enables the count first,
// so the test re-executes the test binary, as TestLeak does.
func TestVTabSQLiteHeap(t *testing.T) {
	if os.Getenv(vtabHeapChildEnv) != "" {
		t.Skip("inside the child")
	}
	cmd := testBinaryCommand("-test.run=^TestVTabSQLiteHeapChild$", "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), vtabHeapChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestVTabSQLiteHeapChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestVTabSQLiteHeapChild(t *testing.T) {
	if os.Getenv(vtabHeapChildEnv) == "" {
		t.Skip("helper process of TestVTabSQLiteHeap")
	}
	if err := enableMemStats(); err != nil {
		t.Fatal(err)
	}
	round := func() {
		TestVTabReadOnly(t)
		TestVTabConnect(t)
		TestVTabEponymousOnly(t)
		TestVTabUpdater(t)
		TestVTabErrorsAndPanics(t)
		TestVTabConnectErrors(t)
		TestVTabBadResults(t)
		TestVTabCreateModule(t)
		TestVTabHandleLeak(t)
	}
	round() // SQLite's one-time allocations
	base := memoryUsed()
	for r := 1; r <= 2 && !t.Failed(); r++ {
		round()
		if used := memoryUsed(); used != base {
			t.Errorf("round %d: SQLite heap %d bytes after everything was closed, %d after the first round (%+d)", r, used, base, used-base)
		}
	}
}

// BenchmarkVTabScan reads one INTEGER column of a virtual table: per row,
// xEof, xColumn (with one Result call) and xNext.
func BenchmarkVTabScan(b *testing.B) {
	db := openFuncDB(b, func(c *SQLiteConn) error { return c.CreateModule("series", &seriesModule{}) })
	const n = 100000
	b.ResetTimer()
	for range b.N {
		var sum int64
		if err := db.QueryRow("SELECT sum(value) FROM series(1, ?)", n).Scan(&sum); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}
