//go:build cgo

package sqlite3

import (
	"database/sql"
	"database/sql/driver"
	"runtime"
	"strconv"
	"time"
	"unsafe"
)

// DirectStmt is a prepared statement driven by SQLite's own C API, for the
// hot loops of a database/sql program: reach the connection through
// (*sql.Conn).Raw (or a ConnectHook), and prepare with PrepareDirect. It runs
// on the same connection as database/sql, so inside a transaction
// (sql.Tx's connection, or a sql.Conn that began one) its statements are part
// of it. Each method is named after the C function whose documentation it
// follows (https://sqlite.org/c3ref/stmt.html).
//
// Costs: Step is at most one cgo call (rows of numbers of a read-only
// statement come several per call), and it also binds whatever the Bind
// methods set since the last run, and does a pending Reset or ClearBindings,
// so that bind, step and reset of a write are one cgo call together. The Bind methods
// write into C memory without a cgo call; column reads read the row that Step
// described, without a cgo call, except for the conversions SQLite does on
// request (a number asked for from TEXT, the text of a FLOAT), which cost one.
// Reading a number or a view allocates nothing; ColumnText allocates its
// string.
//
// A DirectStmt belongs to its connection: use it only while you hold that
// connection (inside Raw, or on a sql.Conn, from one goroutine at a time),
// and Finalize it before you let the connection go back to the pool. One
// collected without Finalize is finalized for you (never a crash), and one
// left on a row keeps the connection's read lock until then.
//
// Misuse is an Error (ErrMisuse, ErrRange), never a crash: a Step or Bind
// after Finalize or after the connection closed, a Bind while a run is in
// progress (as in C: Reset first), a parameter index out of range. Column
// reads with no current row (before the first Step, after the last, after
// Reset) or with a column index out of range read as NULL, as SQLite's C API
// does.
type DirectStmt struct {
	c     *SQLiteConn
	s     *SQLiteStmt
	d     directHandle
	cols  []rowCol  // the bridge's row buffer (C memory), as of the last step
	args  []argSlot // parameter values for the next run (C memory)
	arena []byte    // their TEXT/BLOB bytes (C memory)
	used  int       // arena bytes of values not yet bound
	flags int       // directReset/Clear/Bind: what the next run does first
	state uint8
	dirty bool // bound or run since the bindings were last cleared
	final bool // finalized

	// view holds the copies that ColumnBytes and ColumnRawText return, until
	// the next step reuses it.
	view    []byte
	viewOff int

	bulkShort bool // ExecColumns: the arena ended the last call before bulkRows rows

	changes, lastID int64 // Changes and LastInsertRowID

	// Rows of a read-only statement stepped ahead (bridge_direct_step_batch):
	// nb rows in batch, the caller on row bi; brc is the result of the step
	// after them, berr its error, built at once while SQLite's message is
	// current; ahead is the size of the next batch.
	batch  []rowCol
	nb, bi int
	brc    int
	berr   error
	ahead  int

	cleanup runtime.Cleanup
}

// Where a DirectStmt is in a run.
const (
	directReady  = iota // reset: binds allowed
	directRow           // Step returned a row: the connection is held
	directHalted        // Step returned the end or an error
)

// Datatype is the storage class of a value (sqlite3_column_type,
// https://sqlite.org/c3ref/c_blob.html).
type Datatype int

// The storage classes, with SQLite's values.
const (
	TypeInteger Datatype = typeInteger
	TypeFloat   Datatype = typeFloat
	TypeText    Datatype = typeText
	TypeBlob    Datatype = typeBlob
	TypeNull    Datatype = typeNull
)

// String returns SQLite's name of the storage class.
func (t Datatype) String() string {
	switch t {
	case TypeInteger:
		return "INTEGER"
	case TypeFloat:
		return "FLOAT"
	case TypeText:
		return "TEXT"
	case TypeBlob:
		return "BLOB"
	case TypeNull:
		return "NULL"
	}
	return "Datatype(" + itoa(int(t)) + ")"
}

// directError is a misuse of the direct API, with the code C would return.
func directError(code ErrNo, msg string) error {
	return Error{Code: code, ExtendedCode: ErrNoExtended(code), offset: -1, err: "sqlite3: " + msg}
}

// PrepareDirect prepares one statement for the direct API
// (sqlite3_prepare_v3, https://sqlite.org/c3ref/prepare.html), through the
// connection's statement cache: the statement of a query prepared before on
// this connection is reused, and Finalize hands it back. Text after the first
// statement other than spaces, comments and semicolons is an error.
//
// Cost: one cgo call to prepare (none on a cache hit), and one allocation
// of C memory for the statement's parameter values.
func (c *SQLiteConn) PrepareDirect(query string) (*DirectStmt, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	c.core.enter()
	defer c.core.leave()
	if restore := c.nest(); restore != nil {
		defer restore()
	}
	s, tail, rc, err := c.prepareCached(query, 0)
	if err != nil {
		return nil, err
	}
	if rc != sqliteOK {
		return nil, errorFor(c.h, rc, 0)
	}
	if s == nil {
		return nil, driverError("query has no SQL statement")
	}
	if tail < len(query) {
		s.cacheKey = ""
		s.finalize()
		return nil, driverError("PrepareDirect takes one statement")
	}
	d := cDirectNew(s.h)
	if d == nil {
		c.release(s)
		return nil, Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
	}
	ds := &DirectStmt{c: c, s: s, d: d, cols: s.cols, args: directArgs(d),
		// A statement from the cache may hold another run's bindings.
		flags: directReset | directClear}
	ds.cleanup = runtime.AddCleanup(ds, cDirectFree, d)
	return ds, nil
}

// usable reports why the statement cannot run now.
func (ds *DirectStmt) usable() error {
	if ds.final {
		return directError(ErrMisuse, "statement is finalized")
	}
	if ds.c.closed {
		return directError(ErrMisuse, "connection is closed")
	}
	if ds.c.txLost {
		return errTxLost
	}
	return nil
}

// Finalize ends the use of the statement (sqlite3_finalize,
// https://sqlite.org/c3ref/finalize.html): it goes back to the connection's
// statement cache, reset and its bindings cleared, or is finalized. Calling
// it again does nothing. Column views from it must no longer be used.
func (ds *DirectStmt) Finalize() error {
	if ds.final {
		return nil
	}
	ds.final = true
	ds.cleanup.Stop()
	k := ds.c.core
	k.enter()
	if !ds.c.closed && (ds.state != directReady || ds.dirty) {
		cReset(ds.s.h) // no lock held and no bound value kept while idle
	}
	ds.s.own.release()
	ds.c.release(ds.s)
	k.leave()
	cDirectFree(ds.d)
	ds.d, ds.s, ds.cols, ds.args, ds.arena = nil, nil, nil, nil, nil
	ds.state = directReady
	return nil
}

// Close is Finalize, for io.Closer.
func (ds *DirectStmt) Close() error { return ds.Finalize() }

// Step runs the statement to its next row (sqlite3_step,
// https://sqlite.org/c3ref/step.html): true when there is one, false at the
// end or on error. The values bound since the last run are bound first, in
// the same cgo call. After the end, Step runs the statement again from the
// start, as SQLite does.
//
// A read-only statement's rows are stepped a few at a time (2, doubling up
// to 64), in one cgo call: Step then costs no cgo call for the rows stepped
// ahead, and a query's last row comes with its end, so that Reset costs no
// call either. So SQL functions of such a SELECT may run for a few rows
// before Step returns them, and an error comes after the rows before it. The
// TEXT and BLOB values of such rows are copied out of SQLite (256 bytes per
// row, 4 KiB per call at most); a row with more ends the batch, and is read
// where SQLite keeps it.
//
// Cost: at most one cgo call; no allocation.
func (ds *DirectStmt) Step() (bool, error) {
	if err := ds.usable(); err != nil {
		return false, err
	}
	if ds.bi+1 < ds.nb {
		ds.bi++
		n := len(ds.cols)
		ds.cols = ds.batch[ds.bi*n : (ds.bi+1)*n : (ds.bi+1)*n]
		ds.viewOff = 0
		return true, nil
	}
	if ds.nb > 0 {
		ds.nb = 0
		if ds.brc != sqliteRow {
			// The statement ended after the batch's rows.
			err := ds.berr
			ds.berr = nil
			ds.halt()
			return false, err
		}
	}
	// A statement on a row holds the connection already (no cleanup can
	// claim it): entering again would cost two atomic operations per call.
	k := ds.c.core
	held := ds.state == directRow
	if !held {
		k.enter()
	}
	s := ds.s
	var rc int
	if len(ds.cols) > 0 && stmtReadonly(s.h) {
		ds.ahead = min(max(2*ds.ahead, 2), maxAhead, max(aheadCells/len(ds.cols), 1))
		n := cDirectStepBatch(ds.d, ds.flags, 0, ds.ahead)
		rc = stmtRC(s.h)
		ds.afterRun(s)
		if n > 0 {
			ncol := len(s.cols)
			ds.batch = stmtBatch(s.h, n)
			ds.nb, ds.bi, ds.brc = n, 0, rc
			if rc != sqliteRow && rc != sqliteDone {
				ds.berr = ds.c.errorFor(rc, &watch{}, 0)
			} else if rc == sqliteDone {
				ds.changes, ds.lastID = stmtChanges(s.h), stmtLastInsertID(s.h)
			}
			ds.cols = ds.batch[:ncol:ncol]
			rc = sqliteRow
		}
	} else {
		rc = cDirectStep(ds.d, ds.flags, 0)
		ds.afterRun(s)
		ds.cols = s.cols
	}
	switch rc {
	case sqliteRow:
		if !held {
			ds.state = directRow
			s.own.hold() // as an open Rows does (lifetime.go)
			k.leave()
		}
		return true, nil
	case sqliteDone:
		ds.changes, ds.lastID = stmtChanges(s.h), stmtLastInsertID(s.h)
		ds.halt()
		if !held {
			k.leave()
		}
		return false, nil
	}
	err := ds.c.errorFor(rc, &watch{}, 0)
	ds.halt() // after errorFor, which reads SQLite's message while held
	if !held {
		k.leave()
	}
	return false, err
}

// afterRun records what a call that ran the statement did: the flags and
// values it applied, and a new column shape after SQLite re-prepared it.
func (ds *DirectStmt) afterRun(s *SQLiteStmt) {
	ds.flags = 0
	ds.used = 0
	ds.dirty = true
	ds.viewOff = 0
	if stmtShape(s.h) != s.shape {
		s.readShape()
		ds.cols = s.cols
	}
}

// halt marks the run ended, and the connection no longer held.
func (ds *DirectStmt) halt() {
	if ds.state == directRow {
		ds.s.own.release()
	}
	ds.state = directHalted
	ds.nb, ds.ahead = 0, 0
}

// current reports whether the row the caller reads is the statement's
// current row in SQLite (not one stepped ahead), which SQLite's conversions
// need.
func (ds *DirectStmt) current() bool {
	return ds.nb == 0 || ds.bi == ds.nb-1 && ds.brc == sqliteRow
}

// Reset makes the statement ready to run again from the start
// (sqlite3_reset, https://sqlite.org/c3ref/reset.html), keeping its
// bindings. A statement stopped on a row is reset at once (one cgo call),
// which ends its read transaction; one that ran to its end (or failed) holds
// nothing, and is reset by the next Step or Exec, in that call. Errors of the
// last run were Step's: Reset returns nil unless the statement is finalized.
func (ds *DirectStmt) Reset() error {
	if ds.final {
		return directError(ErrMisuse, "statement is finalized")
	}
	if ds.state == directRow && ds.nb > 0 && ds.brc != sqliteRow {
		// The statement has already run to its end (after the rows stepped
		// ahead) and holds nothing: reset it with the next run.
		ds.halt()
	}
	switch ds.state {
	case directRow:
		k := ds.c.core
		k.enter()
		if !ds.c.closed {
			cDirectPrepareRun(ds.d, ds.flags|directReset)
		}
		ds.flags = 0
		ds.halt()
		k.leave()
	case directHalted:
		ds.flags |= directReset
	}
	ds.state = directReady
	return nil
}

// ClearBindings sets every parameter to NULL (sqlite3_clear_bindings,
// https://sqlite.org/c3ref/clear_bindings.html), in the next run's cgo call.
func (ds *DirectStmt) ClearBindings() error {
	if ds.final {
		return directError(ErrMisuse, "statement is finalized")
	}
	ds.dropPending()
	ds.flags = ds.flags&^directBind | directClear
	return nil
}

// dropPending forgets the values bound since the last run.
func (ds *DirectStmt) dropPending() {
	for i := range ds.args {
		a := &ds.args[i]
		if a.typ != 0 && a.own != 0 {
			cFree(*(*unsafe.Pointer)(unsafe.Pointer(&a.v)))
		}
		a.typ, a.own = 0, 0
	}
	ds.used = 0
}

// BindParameterCount returns the number of parameters
// (sqlite3_bind_parameter_count, https://sqlite.org/c3ref/bind_parameter_count.html).
func (ds *DirectStmt) BindParameterCount() int { return len(ds.args) }

// BindParameterName returns the name of parameter i, 1-based, with its
// prefix (":a", "@a", "$a", "?1"), or "" for a nameless one or an index out
// of range (sqlite3_bind_parameter_name). The names are read once.
func (ds *DirectStmt) BindParameterName(i int) string {
	if ds.final || ds.c.closed || i < 1 || i > len(ds.args) {
		return ""
	}
	if ds.s.params == nil {
		ds.c.core.enter()
		defer ds.c.core.leave()
	}
	return ds.s.paramName(i - 1)
}

// BindParameterIndex returns the index of the parameter named name, or 0
// when there is none (sqlite3_bind_parameter_index,
// https://sqlite.org/c3ref/bind_parameter_index.html). The name is written
// as in the SQL (":id"); a name without a prefix also finds ":id", "@id" or
// "$id". No allocation after the first call.
func (ds *DirectStmt) BindParameterIndex(name string) int {
	if name == "" {
		return 0
	}
	bare := name[0] != ':' && name[0] != '@' && name[0] != '$' && name[0] != '?'
	for i := 1; i <= len(ds.args); i++ {
		p := ds.BindParameterName(i)
		if p == name || bare && len(p) == len(name)+1 && p[1:] == name && p[0] != '?' {
			return i
		}
	}
	return 0
}

// slot checks that parameter i may be bound now and returns its value slot,
// emptied.
func (ds *DirectStmt) slot(i int) (*argSlot, error) {
	if err := ds.bindable(i); err != nil {
		return nil, err
	}
	a := &ds.args[i-1]
	if a.typ != 0 && a.own != 0 {
		cFree(*(*unsafe.Pointer)(unsafe.Pointer(&a.v)))
	}
	a.own, a.n = 0, 0
	ds.flags |= directBind
	ds.dirty = true
	return a, nil
}

func (ds *DirectStmt) bindable(i int) error {
	if err := ds.usable(); err != nil {
		return err
	}
	if ds.state != directReady {
		return directError(ErrMisuse, "bind on a statement that has been stepped: Reset it first")
	}
	if uint(i-1) >= uint(len(ds.args)) {
		return directError(ErrRange, "parameter index "+itoa(i)+" out of range (the statement has "+itoa(len(ds.args))+" parameters, numbered from 1)")
	}
	return nil
}

// BindInt64 binds an INTEGER to parameter i, 1-based (sqlite3_bind_int64,
// https://sqlite.org/c3ref/bind_blob.html). Like every Bind method it costs
// no cgo call: the value is bound by the next Step or Exec, and stays bound
// for later runs until rebound or cleared. It is an error while a run is in
// progress (after Step, before Reset), as in C.
func (ds *DirectStmt) BindInt64(i int, v int64) error {
	a, err := ds.slot(i)
	if err != nil {
		return err
	}
	a.setInteger(v)
	return nil
}

// BindBool binds 1 or 0, as the driver writes a bool.
func (ds *DirectStmt) BindBool(i int, v bool) error {
	var n int64
	if v {
		n = 1
	}
	return ds.BindInt64(i, n)
}

// BindFloat binds a FLOAT (sqlite3_bind_double). SQLite stores NaN as NULL.
func (ds *DirectStmt) BindFloat(i int, v float64) error {
	a, err := ds.slot(i)
	if err != nil {
		return err
	}
	a.setFloat(v)
	return nil
}

// BindNull binds NULL (sqlite3_bind_null).
func (ds *DirectStmt) BindNull(i int) error {
	a, err := ds.slot(i)
	if err != nil {
		return err
	}
	a.typ = typeNull
	return nil
}

// BindZeroBlob binds a BLOB of n zero bytes without allocating them
// (sqlite3_bind_zeroblob64).
func (ds *DirectStmt) BindZeroBlob(i int, n int64) error {
	if n < 0 {
		return directError(ErrRange, "negative zeroblob size "+strconv.FormatInt(n, 10))
	}
	a, err := ds.slot(i)
	if err != nil {
		return err
	}
	a.setInteger(n)
	a.typ = typeZeroBlob
	return nil
}

// BindText binds TEXT (sqlite3_bind_text64). The bytes are copied into C
// memory now (the string may change or be collected afterwards); SQLite
// copies them again when the next run binds them, except values of 64 KiB
// and more, which get a C buffer that SQLite adopts.
func (ds *DirectStmt) BindText(i int, v string) error {
	return ds.bindBytes(i, unsafe.Slice(unsafe.StringData(v), len(v)), typeText)
}

// BindBlob binds a BLOB (sqlite3_bind_blob64), copied as BindText copies.
// A nil slice binds a zero-length BLOB (not NULL: use BindNull).
func (ds *DirectStmt) BindBlob(i int, v []byte) error {
	return ds.bindBytes(i, v, typeBlob)
}

// BindTime binds a time as TEXT in the driver's format (the first of
// SQLiteTimestampFormats), as database/sql arguments are written.
func (ds *DirectStmt) BindTime(i int, v time.Time) error {
	var tmp [64]byte
	return ds.bindBytes(i, v.AppendFormat(tmp[:0], SQLiteTimestampFormats[0]), typeText)
}

func (ds *DirectStmt) bindBytes(i int, b []byte, typ int32) error {
	if err := ds.bindable(i); err != nil {
		return err
	}
	if len(b) > maxLength {
		return errTooBig(len(b))
	}
	small := len(b) > 0 && len(b) < largeValue
	if small && len(b) > len(ds.arena)-ds.used {
		if err := ds.growArena(len(b)); err != nil {
			return err
		}
	}
	a, _ := ds.slot(i)
	a.typ = typ
	a.n = int64(len(b))
	switch {
	case small:
		dst := ds.arena[ds.used : ds.used+len(b)]
		copy(dst, b)
		a.setPtr(unsafe.Pointer(&dst[0]))
		ds.used += len(b)
	case len(b) == 0:
		a.setPtr(nil)
	default:
		p := cMalloc(b)
		if p == nil {
			a.typ = 0
			return Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
		}
		a.setPtr(p)
		a.own = 1
	}
	return nil
}

// growArena makes room for n more bytes. The values waiting in the arena
// are bound first (one cgo call), so that it can be replaced.
func (ds *DirectStmt) growArena(n int) error {
	if ds.used > 0 {
		if err := ds.flush(); err != nil {
			return err
		}
	}
	if n <= len(ds.arena) {
		return nil
	}
	if rc := cDirectReserve(ds.d, int64(max(2*len(ds.arena), n, 256)), 0); rc != sqliteOK {
		return Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
	}
	ds.arena = directArena(ds.d)
	return nil
}

// flush does what the next run would do first (reset, clear, bind) now.
func (ds *DirectStmt) flush() error {
	k := ds.c.core
	k.enter()
	defer k.leave()
	rc := cDirectPrepareRun(ds.d, ds.flags)
	ds.flags, ds.used = 0, 0
	if rc != sqliteOK {
		return ds.c.errorFor(rc, &watch{}, 0)
	}
	return nil
}

// bindValue binds a Go value by its type, as database/sql arguments are:
// nil, integers, floats, bool, string, []byte (nil is NULL), time.Time,
// ZeroBlob, or a driver.Valuer of one of them.
func (ds *DirectStmt) bindValue(i int, v any) error {
	switch v := v.(type) {
	case nil:
		return ds.BindNull(i)
	case int64:
		return ds.BindInt64(i, v)
	case int:
		return ds.BindInt64(i, int64(v))
	case float64:
		return ds.BindFloat(i, v)
	case string:
		return ds.BindText(i, v)
	case []byte:
		if v == nil {
			return ds.BindNull(i)
		}
		return ds.BindBlob(i, v)
	case bool:
		return ds.BindBool(i, v)
	case time.Time:
		return ds.BindTime(i, v)
	case ZeroBlob:
		return ds.BindZeroBlob(i, int64(v))
	case int32:
		return ds.BindInt64(i, int64(v))
	case int16:
		return ds.BindInt64(i, int64(v))
	case int8:
		return ds.BindInt64(i, int64(v))
	case uint8:
		return ds.BindInt64(i, int64(v))
	case uint16:
		return ds.BindInt64(i, int64(v))
	case uint32:
		return ds.BindInt64(i, int64(v))
	case uint:
		if err := checkUint(uint64(v)); err != nil {
			return err
		}
		return ds.BindInt64(i, int64(v))
	case uint64:
		if err := checkUint(v); err != nil {
			return err
		}
		return ds.BindInt64(i, int64(v))
	case float32:
		return ds.BindFloat(i, float64(v))
	case driver.Valuer:
		val, err := v.Value()
		if err != nil {
			return err
		}
		if _, again := val.(driver.Valuer); again {
			return driverError("argument " + itoa(i) + ": Value returned another driver.Valuer")
		}
		return ds.bindValue(i, val)
	}
	return driverError("argument " + itoa(i) + ": unsupported type " + typeName(v) + "; bind nil, integers, floats, bool, string, []byte, time.Time or a driver.Valuer")
}

// Exec runs the statement to its end in one cgo call (reset, bind, step until
// done, reset), for writes. With arguments, every parameter is bound anew:
// positional arguments in order, sql.Named ones by name, each parameter
// exactly once, of the types database/sql accepts (nil, integers, floats,
// bool, string, []byte, time.Time, ZeroBlob, driver.Valuer). Without, it runs
// with the values bound so far. A run in progress is reset first. Rows a
// statement returns are discarded. Changes and LastInsertRowID report on it.
//
// Cost: one cgo call; no allocation for numbers and for strings and byte
// slices under 64 KiB, beyond the boxing of arguments Go does at the call.
func (ds *DirectStmt) Exec(args ...any) error {
	if err := ds.usable(); err != nil {
		return err
	}
	if ds.state != directReady {
		ds.halt()
		ds.state = directReady
		ds.flags |= directReset
	}
	if len(args) > 0 {
		if err := ds.bindAll(args); err != nil {
			ds.dropPending()
			ds.flags = ds.flags&^directBind | directClear
			return err
		}
	}
	k := ds.c.core
	k.enter()
	rc := cDirectExec(ds.d, ds.flags, 0)
	ds.flags, ds.used = 0, 0
	ds.dirty = true
	ds.changes, ds.lastID = stmtChanges(ds.s.h), stmtLastInsertID(ds.s.h)
	var err error
	if rc != sqliteOK {
		err = ds.c.errorFor(rc, &watch{}, 0)
	}
	k.leave()
	return err
}

// bindAll binds args to every parameter (Exec).
func (ds *DirectStmt) bindAll(args []any) error {
	ds.dropPending()
	ds.flags |= directClear
	pos := 0
	var set uint64 // parameters 1..64 given a value, to catch a name given twice
	for _, a := range args {
		i, v := 0, a
		if na, ok := a.(sql.NamedArg); ok {
			if i = ds.BindParameterIndex(na.Name); i == 0 {
				return driverError("no parameter named " + strconv.Quote(na.Name))
			}
			v = na.Value
		} else {
			pos++
			i = pos
		}
		if i <= 64 {
			if set&(1<<(i-1)) != 0 {
				return driverError("parameter " + itoa(i) + " given two values")
			}
			set |= 1 << (i - 1)
		}
		if i > len(ds.args) {
			return driverError("too many arguments: " + itoa(len(args)) + " given, the statement has " + itoa(len(ds.args)) + " parameters")
		}
		if err := ds.bindValue(i, v); err != nil {
			return err
		}
	}
	if len(args) != len(ds.args) {
		return driverError("the statement has " + itoa(len(ds.args)) + " parameters, " + itoa(len(args)) + " arguments given")
	}
	return nil
}

// Changes returns the rows changed by the statement's last Exec, ExecColumns
// (all its rows), or the Step that ended its run (sqlite3_changes64,
// https://sqlite.org/c3ref/changes.html). No cgo call.
func (ds *DirectStmt) Changes() int64 { return ds.changes }

// LastInsertRowID returns the connection's last inserted rowid as of the
// same moment as Changes (sqlite3_last_insert_rowid,
// https://sqlite.org/c3ref/last_insert_rowid.html). No cgo call.
func (ds *DirectStmt) LastInsertRowID() int64 { return ds.lastID }

// ColumnCount returns the number of result columns (sqlite3_column_count,
// https://sqlite.org/c3ref/column_count.html).
func (ds *DirectStmt) ColumnCount() int {
	if ds.final || ds.c.closed {
		return 0
	}
	return len(ds.cols)
}

// ColumnName returns the name of result column i, 0-based, or "" out of
// range (sqlite3_column_name, https://sqlite.org/c3ref/column_name.html).
// The names are read once per statement (one cgo call) and kept.
func (ds *DirectStmt) ColumnName(i int) string {
	if ds.final || ds.c.closed || uint(i) >= uint(len(ds.cols)) {
		return ""
	}
	s := ds.s
	if s.names == nil {
		ds.c.core.enter()
		names, rc := cColumnNames(s.h)
		ds.c.core.leave()
		if rc != sqliteOK {
			return ""
		}
		s.names = names
	}
	return s.names[i]
}

// ColumnDeclType returns the declared type of result column i as written in
// the schema, or "" for an expression (sqlite3_column_decltype,
// https://sqlite.org/c3ref/column_decltype.html). One cgo call.
func (ds *DirectStmt) ColumnDeclType(i int) string {
	if ds.final || ds.c.closed || uint(i) >= uint(len(ds.cols)) {
		return ""
	}
	ds.c.core.enter()
	defer ds.c.core.leave()
	return cColumnDeclType(ds.s.h, i)
}

var nullCol = rowCol{typ: typeNull}

// col returns column i of the current row; NULL without one. The row is C
// memory of the statement, which a cleanup may free once ds is unreachable:
// the accessors keep ds alive (runtime.KeepAlive, free) until they have read
// it, for a caller whose last use of the statement is a column read.
func (ds *DirectStmt) col(i int) *rowCol {
	if ds.state != directRow || uint(i) >= uint(len(ds.cols)) || ds.c.closed {
		return &nullCol
	}
	return &ds.cols[i]
}

// ColumnType returns the storage class of column i, 0-based, of the current
// row (sqlite3_column_type, https://sqlite.org/c3ref/column_blob.html):
// TypeNull without a row or out of range. No cgo call.
func (ds *DirectStmt) ColumnType(i int) Datatype {
	t := ds.col(i).typ
	runtime.KeepAlive(ds)
	return Datatype(t)
}

// ColumnIsNull reports whether column i of the current row is NULL.
func (ds *DirectStmt) ColumnIsNull(i int) bool { return ds.ColumnType(i) == TypeNull }

// ColumnInt64 returns column i as an INTEGER (sqlite3_column_int64,
// https://sqlite.org/c3ref/column_blob.html): a FLOAT truncated toward zero
// (clamped to the int64 range), 0 for NULL. No cgo call, no allocation,
// except for TEXT and BLOB, which SQLite converts (one cgo call).
func (ds *DirectStmt) ColumnInt64(i int) int64 {
	c := ds.col(i)
	var v int64
	switch c.typ {
	case typeInteger:
		v = c.int64()
	case typeFloat:
		v = floatToInt64(c.float64())
	case typeText, typeBlob:
		v, _ = ds.textNumber(i, c.bytes())
	}
	runtime.KeepAlive(ds)
	return v
}

// ColumnInt returns ColumnInt64 as an int.
func (ds *DirectStmt) ColumnInt(i int) int { return int(ds.ColumnInt64(i)) }

// ColumnBool reports whether ColumnInt64 is not 0, as the driver reads a
// BOOLEAN.
func (ds *DirectStmt) ColumnBool(i int) bool { return ds.ColumnInt64(i) != 0 }

// floatToInt64 is SQLite's conversion (sqlite3RealToI64): truncation,
// clamped to the range of int64.
func floatToInt64(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f < -9223372036854775808.0:
		return -1 << 63
	case f >= 9223372036854775808.0:
		return 1<<63 - 1
	}
	return int64(f)
}

// ColumnFloat returns column i as a FLOAT (sqlite3_column_double): an
// INTEGER converted, 0 for NULL. No cgo call, except for TEXT and BLOB.
func (ds *DirectStmt) ColumnFloat(i int) float64 {
	c := ds.col(i)
	var v float64
	switch c.typ {
	case typeFloat:
		v = c.float64()
	case typeInteger:
		v = float64(c.int64())
	case typeText, typeBlob:
		_, v = ds.textNumber(i, c.bytes())
	}
	runtime.KeepAlive(ds)
	return v
}

// textNumber is SQLite's conversion of TEXT or BLOB column i, b, to an
// INTEGER and a FLOAT (sqlite3_column_int64, sqlite3_column_double): from the
// statement on its current row (one cgo call each); for a row stepped ahead,
// whose bytes the bridge copied out, through SQLite all the same: b is bound
// to a cached "SELECT ?1" on the connection and read back (three cgo calls).
func (ds *DirectStmt) textNumber(i int, b []byte) (int64, float64) {
	c := ds.c
	c.core.enter()
	defer c.core.leave()
	if ds.current() {
		return cColumnInt64(ds.s.h, i), cColumnDouble(ds.s.h, i)
	}
	s, _, rc, err := c.prepareCached("SELECT ?1", 0)
	if err != nil || rc != sqliteOK || s == nil {
		return 0, 0
	}
	defer c.release(s)
	if cReserve(c.h, 1, int64(len(b))) != sqliteOK {
		return 0, 0
	}
	arg := [1]driver.NamedValue{{Ordinal: 1, Value: unsafe.String(unsafe.SliceData(b), len(b))}}
	if _, err := putArgs(argSlots(c.h)[:1], arg[:], argArena(c.h), false); err != nil {
		return 0, 0
	}
	if cQuery(s.h, 0) != sqliteRow {
		cReset(s.h)
		return 0, 0
	}
	iv, fv := cColumnInt64(s.h, 0), cColumnDouble(s.h, 0)
	cReset(s.h)
	return iv, fv
}

// ColumnText returns column i as text, in a new string that the caller may
// keep (sqlite3_column_text, https://sqlite.org/c3ref/column_blob.html):
// TEXT and BLOB bytes as they are, an INTEGER in decimal, a FLOAT as SQLite
// writes it (one cgo call), "" for NULL. One allocation (none for "" and
// integers 0 to 99); the string keeps alive only itself.
func (ds *DirectStmt) ColumnText(i int) string {
	c := ds.col(i)
	defer runtime.KeepAlive(ds)
	switch c.typ {
	case typeText, typeBlob:
		return string(c.bytes())
	case typeInteger:
		return strconv.FormatInt(c.int64(), 10)
	case typeFloat:
		return string(ds.floatText(i, c.float64()))
	}
	return ""
}

// ColumnRawText returns column i as text (as ColumnText converts it) in a
// view valid until the next Step, Reset, Exec or Finalize, when the
// statement reuses its memory: copy what you keep. The view is a copy of
// SQLite's bytes in Go memory that the statement owns, so a view kept too
// long shows later rows' bytes, or zeros, but can never fault or corrupt
// anything, and writing into it changes nothing in SQLite. nil for NULL.
// No allocation once the statement's buffer has grown to a row's size, and
// no cgo call, except for a FLOAT.
func (ds *DirectStmt) ColumnRawText(i int) []byte {
	c := ds.col(i)
	defer runtime.KeepAlive(ds)
	switch c.typ {
	case typeText, typeBlob:
		return ds.keep(c.bytes())
	case typeInteger:
		var tmp [20]byte
		return ds.keep(strconv.AppendInt(tmp[:0], c.int64(), 10))
	case typeFloat:
		return ds.keep(ds.floatText(i, c.float64()))
	}
	return nil
}

// ColumnBytes returns column i's bytes in a view, as ColumnRawText does; its
// length is sqlite3_column_bytes (https://sqlite.org/c3ref/column_blob.html).
// Use it for BLOBs; for other types it is ColumnRawText.
func (ds *DirectStmt) ColumnBytes(i int) []byte { return ds.ColumnRawText(i) }

// floatText is SQLite's text of FLOAT column i, v: from the statement on
// its current row, else as SQLite renders a REAL (the rows stepped ahead hold
// no FLOAT whose text differs: see bridge_direct_step_batch). One cgo call;
// the bytes are C memory valid until the next call on the statement.
func (ds *DirectStmt) floatText(i int, v float64) []byte {
	ds.c.core.enter()
	defer ds.c.core.leave()
	if ds.current() {
		return cColumnText(ds.s.h, i)
	}
	return cDirectFormat(ds.d, v)
}

var emptyView = []byte{}

// keep copies b into the statement's view buffer. A buffer too small is
// replaced, not grown, so that views of the same row stay valid.
func (ds *DirectStmt) keep(b []byte) []byte {
	n := len(b)
	if n == 0 {
		return emptyView
	}
	if n > len(ds.view)-ds.viewOff {
		ds.view = make([]byte, max(2*len(ds.view), n, 1024))
		ds.viewOff = 0
	}
	v := ds.view[ds.viewOff : ds.viewOff+n : ds.viewOff+n]
	copy(v, b)
	ds.viewOff += n
	return v
}
