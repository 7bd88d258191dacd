//go:build cgo

package sqlite3

import (
	"database/sql"
	"fmt"
	"strings"
)

// A virtual table that serves a Go slice to SQL. BestIndex takes "code = ?"
// constraints, so that such a lookup reaches Filter instead of a full scan.
type country struct {
	code, name string
	pop        float64 // millions
}

type countryModule struct{ rows []country }

func (m *countryModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	// args: module, database, table, then CREATE VIRTUAL TABLE's arguments.
	if err := c.DeclareVTab("CREATE TABLE x(code TEXT, name TEXT, pop REAL)"); err != nil {
		return nil, err
	}
	return &countryTable{rows: m.rows}, nil
}

func (m *countryModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	return m.Create(c, args)
}

func (m *countryModule) DestroyModule() {}

type countryTable struct{ rows []country }

func (t *countryTable) BestIndex(cst []InfoConstraint, ob []InfoOrderBy) (*IndexResult, error) {
	res := &IndexResult{Used: make([]bool, len(cst)), EstimatedCost: float64(len(t.rows))}
	for i, c := range cst {
		if c.Usable && c.Column == 0 && c.Op == OpEQ {
			res.Used[i] = true // its value is Filter's vals[0]
			res.IdxNum, res.EstimatedCost = 1, 1
			break
		}
	}
	return res, nil
}

func (t *countryTable) Open() (VTabCursor, error) { return &countryCursor{t: t}, nil }
func (t *countryTable) Disconnect() error         { return nil }
func (t *countryTable) Destroy() error            { return nil }

type countryCursor struct {
	t    *countryTable
	rows []country
	i    int
}

func (c *countryCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.rows, c.i = c.t.rows, 0
	if idxNum == 1 {
		c.rows = nil
		for _, r := range c.t.rows {
			if r.code == vals[0] {
				c.rows = append(c.rows, r)
			}
		}
	}
	return nil
}

func (c *countryCursor) Next() error           { c.i++; return nil }
func (c *countryCursor) EOF() bool             { return c.i >= len(c.rows) }
func (c *countryCursor) Rowid() (int64, error) { return int64(c.i), nil }
func (c *countryCursor) Close() error          { return nil }

func (c *countryCursor) Column(ctx *SQLiteContext, col int) error {
	switch r := c.rows[c.i]; col {
	case 0:
		ctx.ResultText(r.code)
	case 1:
		ctx.ResultText(r.name)
	case 2:
		ctx.ResultDouble(r.pop)
	}
	return nil
}

// Register a virtual table module on every connection with a ConnectHook,
// then use it as a table.
func ExampleSQLiteConn_CreateModule() {
	countries := &countryModule{rows: []country{
		{"FR", "France", 68.4}, {"JP", "Japan", 124.5}, {"NZ", "New Zealand", 5.2}, {"PE", "Peru", 34.4},
	}}
	connector, err := (&SQLiteDriver{
		ConnectHook: func(c *SQLiteConn) error { return c.CreateModule("countries", countries) },
	}).OpenConnector(":memory:")
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database

	if _, err := db.Exec("CREATE VIRTUAL TABLE country USING countries"); err != nil {
		panic(err)
	}
	var name string
	if err := db.QueryRow("SELECT name FROM country WHERE code = ?", "JP").Scan(&name); err != nil {
		panic(err)
	}
	fmt.Println(name)

	rows, err := db.Query("SELECT code, pop FROM country WHERE pop > 30 ORDER BY pop DESC")
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var code string
		var pop float64
		if err := rows.Scan(&code, &pop); err != nil {
			panic(err)
		}
		fmt.Println(code, pop)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	// Output:
	// Japan
	// JP 124.5
	// FR 68.4
	// PE 34.4
}

// A table-valued function: split(text, sep) returns one row per part. Its
// arguments are the HIDDEN columns of the table Connect declares.
type splitModule struct{}

func (splitModule) EponymousOnlyModule() {}

func (splitModule) Create(c *SQLiteConn, args []string) (VTab, error) {
	return nil, fmt.Errorf("not reached: an eponymous-only module has no Create")
}

func (splitModule) Connect(c *SQLiteConn, args []string) (VTab, error) {
	err := c.DeclareVTab("CREATE TABLE x(part TEXT, text HIDDEN, sep HIDDEN)")
	return splitTable{}, err
}

func (splitModule) DestroyModule() {}

type splitTable struct{}

// BestIndex requires both arguments: text = ? (column 1) and sep = ? (column 2).
func (splitTable) BestIndex(cst []InfoConstraint, ob []InfoOrderBy) (*IndexResult, error) {
	res := &IndexResult{Used: make([]bool, len(cst))}
	args := [3]int{-1, -1, -1} // column -> constraint index
	for i, c := range cst {
		if c.Op == OpEQ && (c.Column == 1 || c.Column == 2) {
			if !c.Usable {
				return nil, ErrConstraint // not this plan
			}
			args[c.Column] = i
		}
	}
	if args[1] < 0 || args[2] < 0 {
		return nil, fmt.Errorf("split(text, sep) takes two arguments")
	}
	// Filter's vals come in the order of the used constraints.
	res.Used[args[1]], res.Used[args[2]] = true, true
	if args[1] > args[2] {
		res.IdxNum = 1 // vals are sep, text
	}
	return res, nil
}

func (splitTable) Open() (VTabCursor, error) { return &splitCursor{}, nil }
func (splitTable) Disconnect() error         { return nil }
func (splitTable) Destroy() error            { return nil }

type splitCursor struct {
	parts []string
	i     int
}

func (c *splitCursor) Filter(idxNum int, idxStr string, vals []any) error {
	text, sep := vals[0], vals[1]
	if idxNum == 1 {
		text, sep = sep, text
	}
	t, ok1 := text.(string)
	s, ok2 := sep.(string)
	if !ok1 || !ok2 {
		return fmt.Errorf("split: text and sep must be TEXT")
	}
	c.parts, c.i = strings.Split(t, s), 0
	return nil
}

func (c *splitCursor) Next() error           { c.i++; return nil }
func (c *splitCursor) EOF() bool             { return c.i >= len(c.parts) }
func (c *splitCursor) Rowid() (int64, error) { return int64(c.i), nil }
func (c *splitCursor) Close() error          { return nil }

func (c *splitCursor) Column(ctx *SQLiteContext, col int) error {
	if col == 0 {
		ctx.ResultText(c.parts[c.i])
	}
	return nil
}

// An EponymousOnlyModule is a table named after the module, with no CREATE
// VIRTUAL TABLE: here a table-valued function.
func ExampleEponymousOnlyModule() {
	connector, err := (&SQLiteDriver{
		ConnectHook: func(c *SQLiteConn) error { return c.CreateModule("split", splitModule{}) },
	}).OpenConnector(":memory:")
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	rows, err := db.Query("SELECT rowid, upper(part) FROM split('a,b,,c', ',') WHERE part <> ''")
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var part string
		if err := rows.Scan(&i, &part); err != nil {
			panic(err)
		}
		fmt.Println(i, part)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	_, err = db.Exec("SELECT * FROM split('a b')")
	fmt.Println(err)
	// Output:
	// 0 A
	// 1 B
	// 3 C
	// split(text, sep) takes two arguments
}
