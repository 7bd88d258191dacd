//go:build cgo

package sqlite3

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// Virtual tables written in Go (https://sqlite.org/vtab.html), with
// mattn/go-sqlite3's API (its sqlite_vtable build tag; here always built in).
//
// A Module registered with CreateModule makes "CREATE VIRTUAL TABLE t USING
// module(args...)" call its Create, and every later use of t on the
// connection call Connect. The VTab they return answers SQLite's query
// planner (BestIndex) and opens cursors (Open) that SQLite walks row by row
// (Filter, EOF, Column, Rowid, Next, Close). A VTab that is also a
// VTabUpdater takes INSERT, UPDATE and DELETE.
//
// Cost: every method is one cgo callback from SQLite into Go (tens of
// nanoseconds), with no handle lookup (the Go objects are pinned and reached
// directly) and no allocation of the driver's own on the row path (EOF,
// Column, Rowid, Next). Each SQLiteContext.Result* call in Column is one more
// cgo call: a scan reading one column costs about 230 ns per row on a server
// core (BenchmarkVTabScan: EOF, Column with one Result call, Next).
// Filter and the VTabUpdater methods receive their values decoded by C in the
// same callback; strings and []byte are copies (one allocation each).
// BestIndex runs while a statement is prepared, once per candidate plan.
//
// Lifetimes: the module lives until it is replaced (CreateModule with the
// same name) or the connection closes, which then calls DestroyModule; each
// VTab until SQLite disconnects it (Disconnect: schema change, connection
// close) or DROP TABLE destroys it (Destroy); each cursor until Close. The
// driver releases what it holds for each exactly once, at those points, and
// nothing is left when the connection is closed.
//
// Errors returned by any method, and panics (recovered; the program goes on),
// fail the SQL statement with the error's message. EOF cannot return an
// error: when it panics, the cursor reports the panic at its next call and
// the statement is interrupted (it fails with the panic, or with
// ErrInterrupt when no other call of the cursor came). SQLite ignores the results of Disconnect
// (the table is gone either way) and of Close; DestroyModule has none.

// liveVTabHandles counts the cgo handles held for modules, virtual tables
// and cursors, for leak tests: each is released exactly once.
var liveVTabHandles atomic.Int64

// Op is the operator of a constraint passed to BestIndex
// (https://sqlite.org/c3ref/c_index_constraint_eq.html).
type Op uint8

// The operators of InfoConstraint.Op: SQLite's SQLITE_INDEX_CONSTRAINT_*
// values. OpScanUnique is SQLITE_INDEX_SCAN_UNIQUE, a flag of a plan rather
// than an operator. As in mattn/go-sqlite3, only OpEQ is typed Op; the rest
// are untyped constants.
const (
	//lint:ignore SA9004 mattn/go-sqlite3's exact API: only OpEQ is typed
	OpEQ         Op = 2
	OpGT            = 4
	OpLE            = 8
	OpLT            = 16
	OpGE            = 32
	OpMATCH         = 64
	OpLIKE          = 65
	OpGLOB          = 66
	OpREGEXP        = 67
	OpNE            = 68
	OpISNOT         = 69
	OpISNOTNULL     = 70
	OpISNULL        = 71
	OpIS            = 72
	OpLIMIT         = 73
	OpOFFSET        = 74
	OpFUNCTION      = 150
	OpScanUnique    = 1
)

// InfoConstraint is one WHERE-clause constraint that SQLite offers BestIndex
// (an entry of sqlite3_index_info.aConstraint): "Column Op value". Column is
// the column's index in the declared table (-1: the rowid); a constraint
// that is not Usable cannot be used by this plan.
type InfoConstraint struct {
	Column int
	Op     Op
	Usable bool
}

// InfoOrderBy is one ORDER BY term that SQLite offers BestIndex (an entry of
// sqlite3_index_info.aOrderBy).
type InfoOrderBy struct {
	Column int
	Desc   bool
}

// IndexResult is BestIndex's plan: what the driver writes into the output
// fields of sqlite3_index_info (https://sqlite.org/c3ref/index_info.html).
//
//   - Used must have one entry per constraint passed to BestIndex. The values
//     of the used constraints that are Usable reach Filter, in order
//     (argvIndex 1, 2, ...), and SQLite does not check them again (omit):
//     the cursor must return only rows that satisfy them.
//   - IdxNum and IdxStr are passed to Filter as they are (IdxStr is copied
//     into sqlite3_malloc'd memory that SQLite frees; text after a NUL byte
//     is lost).
//   - AlreadyOrdered tells SQLite that the rows come out in the ORDER BY
//     order passed to BestIndex (orderByConsumed), so it does not sort them.
//   - EstimatedCost and EstimatedRows are kept only when positive: SQLite's
//     defaults stay otherwise. EstimatedRows is rounded down, to at least 1.
type IndexResult struct {
	Used           []bool // aConstraintUsage
	IdxNum         int
	IdxStr         string
	AlreadyOrdered bool // orderByConsumed
	EstimatedCost  float64
	EstimatedRows  float64
}

// Module is a virtual table module (https://sqlite.org/c3ref/module.html),
// registered on a connection with SQLiteConn.CreateModule.
//
// Create (https://sqlite.org/vtab.html#xcreate) runs for CREATE VIRTUAL TABLE
// and Connect (https://sqlite.org/vtab.html#xconnect) for every later use of
// the table on a connection (the schema is persistent, the VTab is not). Both
// receive SQLite's argv: the module name, the database name ("main",
// "temp", ...), the table name, then the module arguments of CREATE VIRTUAL
// TABLE, as written (not parsed or unquoted). Both must declare the table's
// columns with c.DeclareVTab before returning. They run on the connection's
// goroutine, while SQLite prepares or runs a statement; c may run SQL of its
// own (say, to create backing tables).
//
// DestroyModule (https://sqlite.org/c3ref/create_module.html) runs once, when
// the module is replaced, when the connection closes, or at once when the
// registration fails. Registered in a ConnectHook, one Module value serves
// every connection of the pool: then each connection calls DestroyModule.
type Module interface {
	// Create is the module's xCreate: a new table, from CREATE VIRTUAL TABLE.
	Create(c *SQLiteConn, args []string) (VTab, error)
	// Connect is the module's xConnect: a table the schema already has.
	Connect(c *SQLiteConn, args []string) (VTab, error)
	// DestroyModule is the destructor given to sqlite3_create_module_v2.
	DestroyModule()
}

// EponymousOnlyModule is a Module that exists only as the eponymous virtual
// table named after the module (https://sqlite.org/vtab.html#eponymous_only_virtual_tables),
// typically a table-valued function: "SELECT * FROM module(args)". SQLite
// calls Connect (with the module's name as the table name and "main" as the
// database), never Create; CREATE VIRTUAL TABLE ... USING it fails. Hidden
// columns declared by Connect are the function's parameters
// (https://sqlite.org/vtab.html#table_valued_functions).
type EponymousOnlyModule interface {
	Module
	EponymousOnlyModule()
}

// VTab is one virtual table on one connection (https://sqlite.org/c3ref/vtab.html).
type VTab interface {
	// BestIndex (https://sqlite.org/vtab.html#xbestindex) chooses how to scan
	// the table for the constraints and ORDER BY terms of a query; see
	// IndexResult. It runs while a statement is prepared, once per candidate
	// plan. An error fails the statement, except one that wraps ErrConstraint
	// (errors.Is), which tells SQLite this combination of usable constraints
	// cannot be planned (SQLITE_CONSTRAINT) so that it tries another.
	BestIndex([]InfoConstraint, []InfoOrderBy) (*IndexResult, error)
	// Disconnect (https://sqlite.org/vtab.html#xdisconnect) releases the
	// table on this connection; the data stays. Its error is ignored.
	Disconnect() error
	// Destroy (https://sqlite.org/vtab.html#sqlite3_module.xDestroy) runs for
	// DROP TABLE and deletes the table's data. After an error the table
	// stays, and Disconnect is called later; DROP TABLE then fails with
	// ErrError, without the error's message (SQLite does not read it).
	Destroy() error
	// Open (https://sqlite.org/vtab.html#xopen) returns a new cursor.
	Open() (VTabCursor, error)
}

// VTabUpdater is a VTab that can be written to (https://sqlite.org/vtab.html#xupdate).
// A VTab that does not implement it is read-only: INSERT, UPDATE and DELETE
// fail. Values are int64, float64, string, []byte or nil (NULL), as in Filter.
//
//   - DELETE: Delete(rowid).
//   - INSERT: Insert(rowid, values) returns the new row's rowid. rowid is
//     nil unless the statement gives one; values are the declared columns.
//   - UPDATE: Update(rowid, values), the row's new values. An UPDATE that
//     changes the rowid fails, since Update cannot express it.
//
// An error that wraps ErrConstraint (or an extended constraint code) fails
// the statement with that code; any other error with ErrError.
type VTabUpdater interface {
	Delete(any) error
	Insert(any, []any) (int64, error)
	Update(any, []any) error
}

// VTabCursor walks the rows of a VTab (https://sqlite.org/c3ref/vtab_cursor.html).
// SQLite calls Filter to start a scan (possibly several times per cursor),
// then, while EOF reports false, reads the current row with Column and Rowid
// and moves on with Next; Close ends the cursor.
type VTabCursor interface {
	// Close (https://sqlite.org/vtab.html#xclose) releases the cursor. Its
	// error is ignored: the cursor is gone either way.
	Close() error
	// Filter (https://sqlite.org/vtab.html#xfilter) starts a scan with
	// BestIndex's IdxNum and IdxStr, and the values of the constraints it
	// used, in order: int64, float64, string, []byte or nil (NULL).
	Filter(idxNum int, idxStr string, vals []any) error
	// Next (https://sqlite.org/vtab.html#xnext) moves to the next row.
	Next() error
	// EOF (https://sqlite.org/vtab.html#xeof) reports whether the cursor is
	// past the last row.
	EOF() bool
	// Column (https://sqlite.org/vtab.html#xcolumn) sets the value of column
	// col of the current row with one of c's Result* methods (none: NULL).
	Column(c *SQLiteContext, col int) error
	// Rowid (https://sqlite.org/vtab.html#xrowid) returns the current row's rowid.
	Rowid() (int64, error)
}

// CreateModule registers module as moduleName on this connection
// (https://sqlite.org/c3ref/create_module.html, sqlite3_create_module_v2),
// for "CREATE VIRTUAL TABLE name USING moduleName(args...)", or, for an
// EponymousOnlyModule, as the table (or table-valued function) moduleName.
// Registering the same name again replaces the module (the old one's
// DestroyModule runs once no table uses it). When registration fails,
// DestroyModule runs before CreateModule returns.
//
// Register modules in a ConnectHook, so that every connection of a sql.DB
// has them: a database whose schema has a virtual table can be used only on
// connections where its module is registered. The cost is one cgo call; see
// Module for the cost of the callbacks.
func (c *SQLiteConn) CreateModule(moduleName string, module Module) error {
	defer c.core.unlock(c.core.lock())
	if module == nil {
		return driverError("CreateModule requires a non-nil module")
	}
	if err := c.checkRegister(moduleName); err != nil { // func.go
		return err
	}
	_, eponymousOnly := module.(EponymousOnlyModule)
	m := &vtabModule{c: c, name: moduleName, module: module}
	if rc := cCreateModule(c.h, moduleName, eponymousOnly, m); rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}

// DeclareVTab declares the columns of the virtual table being created or
// connected (https://sqlite.org/c3ref/declare_vtab.html), with a CREATE TABLE
// statement whose table name is ignored, e.g. "CREATE TABLE x(a INTEGER, b
// TEXT, arg HIDDEN)". It may be called only from Module.Create and
// Module.Connect. One cgo call, which parses sql.
func (c *SQLiteConn) DeclareVTab(sql string) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driverError("connection is closed")
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return driverError("DeclareVTab: the SQL contains a NUL byte")
	}
	if rc := cDeclareVTab(c.h, sql); rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}

// vtabModule is a registered module: what its handle resolves to.
type vtabModule struct {
	c      *SQLiteConn
	name   string
	module Module
	ref    vref
}

// vtabTable is one VTab on the connection.
type vtabTable struct {
	mod  *vtabModule
	name string // the table's name (Create/Connect's args[2]), for messages
	vtab VTab
	ref  vref
}

// vtabCursor is one cursor of a VTab.
type vtabCursor struct {
	tab    *vtabTable
	cursor VTabCursor
	// eofPanic is set when EOF panicked: the cursor's next call fails with
	// it, so the statement cannot go on as if the row were real.
	eofPanic error
	ref      vref
}

// panicked is the error for a panic with value v in method.
func (m *vtabModule) panicked(method string, v any) error {
	return fmt.Errorf("sqlite3: virtual table module %s: panic in %s: %v", m.name, method, v)
}

// guard runs f, turning a panic into an error. recover runs only after a
// panic (it is not free).
func (m *vtabModule) guard(method string, f func() error) (err error) {
	returned := false
	defer func() {
		if !returned {
			err = m.panicked(method, recover())
		}
	}()
	err = f()
	returned = true
	return err
}

// connect calls Create or Connect.
func (m *vtabModule) connect(create bool, args []string) (*vtabTable, error) {
	method := "Connect"
	if create {
		method = "Create"
	}
	var vt VTab
	err := m.guard(method, func() (err error) {
		if create {
			vt, err = m.module.Create(m.c, args)
		} else {
			vt, err = m.module.Connect(m.c, args)
		}
		return err
	})
	if err == nil && vt == nil {
		err = fmt.Errorf("sqlite3: virtual table module %s: %s returned a nil VTab", m.name, method)
	}
	if err != nil {
		return nil, err
	}
	t := &vtabTable{mod: m, vtab: vt}
	if len(args) > 2 {
		t.name = args[2]
	}
	return t, nil
}

// destroy calls DestroyModule; a panic is dropped (there is no one to tell).
func (m *vtabModule) destroy() {
	_ = m.guard("DestroyModule", func() error {
		m.module.DestroyModule()
		return nil
	})
}

// bestIndex calls BestIndex and checks its result against the constraints.
func (t *vtabTable) bestIndex(csts []InfoConstraint, obs []InfoOrderBy) (*IndexResult, error) {
	var res *IndexResult
	err := t.mod.guard("BestIndex", func() (err error) {
		res, err = t.vtab.BestIndex(csts, obs)
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case res == nil:
		return nil, fmt.Errorf("sqlite3: virtual table %s: BestIndex returned a nil IndexResult", t.name)
	case len(res.Used) != len(csts):
		return nil, fmt.Errorf("sqlite3: virtual table %s: BestIndex returned %d IndexResult.Used entries for %d constraints", t.name, len(res.Used), len(csts))
	}
	return res, nil
}

// release calls Disconnect or Destroy.
func (t *vtabTable) release(destroy bool) error {
	if destroy {
		return t.mod.guard("Destroy", t.vtab.Destroy)
	}
	return t.mod.guard("Disconnect", t.vtab.Disconnect)
}

// open calls Open.
func (t *vtabTable) open() (*vtabCursor, error) {
	var vc VTabCursor
	err := t.mod.guard("Open", func() (err error) {
		vc, err = t.vtab.Open()
		return err
	})
	if err == nil && vc == nil {
		err = fmt.Errorf("sqlite3: virtual table %s: Open returned a nil VTabCursor", t.name)
	}
	if err != nil {
		return nil, err
	}
	return &vtabCursor{tab: t, cursor: vc}, nil
}

// update dispatches xUpdate's argv (https://sqlite.org/vtab.html#xupdate) to
// Delete, Insert or Update. rowid is the new row's, after an insert.
func (t *vtabTable) update(vals []any) (rowid int64, err error) {
	u, ok := t.vtab.(VTabUpdater)
	if !ok {
		return 0, fmt.Errorf("virtual %s table %s is read-only", t.mod.name, t.name)
	}
	err = t.mod.guard("VTabUpdater", func() (err error) {
		switch {
		case len(vals) == 1:
			return u.Delete(vals[0])
		case vals[0] == nil:
			rowid, err = u.Insert(vals[1], vals[2:])
			return err
		case !sameValue(vals[0], vals[1]):
			return fmt.Errorf("virtual %s table %s does not support changing the rowid", t.mod.name, t.name)
		default:
			return u.Update(vals[0], vals[2:])
		}
	})
	return rowid, err
}

// sameValue compares two values of Filter/VTabUpdater's types.
func sameValue(a, b any) bool {
	ab, aIsBytes := a.([]byte)
	bb, bIsBytes := b.([]byte)
	if aIsBytes || bIsBytes {
		return aIsBytes && bIsBytes && string(ab) == string(bb)
	}
	return a == b
}

// filter calls Filter.
func (vc *vtabCursor) filter(idxNum int, idxStr string, vals []any) error {
	if err := vc.eofPanic; err != nil {
		return err
	}
	return vc.tab.mod.guard("Filter", func() error { return vc.cursor.Filter(idxNum, idxStr, vals) })
}

// next calls Next. Next, EOF, Column and Rowid run for every row: they
// recover panics without a closure.
func (vc *vtabCursor) next() (err error) {
	if err := vc.eofPanic; err != nil {
		return err
	}
	returned := false
	defer func() {
		if !returned {
			err = vc.tab.mod.panicked("Next", recover())
		}
	}()
	err = vc.cursor.Next()
	returned = true
	return err
}

// eof calls EOF. After a panic it reports false, so that SQLite's next call
// on the cursor reports the panic, and panicked is set.
func (vc *vtabCursor) eof() (eof, panicked bool) {
	if vc.eofPanic != nil {
		return false, false
	}
	returned := false
	defer func() {
		if !returned {
			vc.eofPanic = vc.tab.mod.panicked("EOF", recover())
			eof, panicked = false, true
		}
	}()
	eof = vc.cursor.EOF()
	returned = true
	return eof, false
}

// column calls Column.
func (vc *vtabCursor) column(ctx *SQLiteContext, col int) (err error) {
	if err := vc.eofPanic; err != nil {
		return err
	}
	returned := false
	defer func() {
		if !returned {
			err = vc.tab.mod.panicked("Column", recover())
		}
	}()
	err = vc.cursor.Column(ctx, col)
	returned = true
	return err
}

// rowid calls Rowid.
func (vc *vtabCursor) rowid() (id int64, err error) {
	if err := vc.eofPanic; err != nil {
		return 0, err
	}
	returned := false
	defer func() {
		if !returned {
			err = vc.tab.mod.panicked("Rowid", recover())
		}
	}()
	id, err = vc.cursor.Rowid()
	returned = true
	return id, err
}

// close calls Close; its error and any panic are dropped (SQLite ignores
// xClose's result).
func (vc *vtabCursor) close() {
	_ = vc.tab.mod.guard("Close", vc.cursor.Close)
}

// errorMessage is the text SQLite reports for err.
func (m *vtabModule) errorMessage(method string, err error) string {
	if msg := err.Error(); msg != "" {
		return msg
	}
	return "sqlite3: virtual table module " + m.name + ": " + method + " failed"
}

// constraintCode returns the constraint result code that err wraps, if any
// (ErrConstraint, or an extended code of it, as Error, ErrNo or ErrNoExtended).
func constraintCode(err error) (int, bool) {
	var se Error
	var ex ErrNoExtended
	var en ErrNo
	switch {
	case errors.As(err, &se):
		if se.Code == ErrConstraint {
			if int(se.ExtendedCode)&ErrNoMask == int(ErrConstraint) {
				return int(se.ExtendedCode), true
			}
			return int(ErrConstraint), true
		}
	case errors.As(err, &ex):
		if int(ex)&ErrNoMask == int(ErrConstraint) {
			return int(ex), true
		}
	case errors.As(err, &en):
		if en == ErrConstraint {
			return int(en), true
		}
	}
	return 0, false
}
