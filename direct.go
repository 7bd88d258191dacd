//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"runtime"
	"strconv"
	"sync/atomic"
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
// and Finalize it before you let the connection go back to the pool. Used
// from another goroutine meanwhile, each call waits for the connection's
// other users, as SQLite's serialized mode would. One prepared inside a
// transaction begun with BeginTx belongs to that transaction, as a
// statement of tx.Prepare does: once database/sql has ended it (its context
// ended, Commit, Rollback), running it is sql.ErrTxDone, so that its writes
// never land outside the transaction. One collected without Finalize is
// finalized for you (never a crash), and one left on a row keeps the
// connection's read lock until then. Between its calls the connection is
// free: statements dropped without Close meanwhile are finalized by their
// cleanups at once.
//
// Its runs observe a context once SetInterrupt gave it one: a long step
// stops when the context ends, and Step hands out no further row; the error is
// the one database/sql returns for the same query. A context that cannot be
// cancelled (the default) costs nothing.
//
// A Go function or aggregate that runs while a statement of the connection
// steps may use DirectStmts of its own on that connection (prepare, step,
// read, finalize); the outer statement's rows and its cancellation are kept.
// The statement that is running the callback cannot be used from it. Hooks
// must not use their connection at all, as SQLite requires.
//
// Misuse is an Error (ErrMisuse, ErrRange), never a crash: a Step or Bind
// after Finalize or after the connection closed, a Bind while a run is in
// progress (as in C: Reset first), a parameter index out of range, any use
// of a statement from a callback of its own step but column reads and
// SetInterrupt. Column reads with no current row (before the first Step,
// after the last, after Reset, during the statement's own step) or with a
// column index out of range read as NULL, as SQLite's C API does.
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

	// tx is the BeginTx transaction the statement was prepared in (0:
	// none): it runs only inside it.
	tx uint64

	// view holds the copies that ColumnBytes and ColumnRawText return, until
	// the next step reuses it.
	view    []byte
	viewOff int

	bulkShort bool // ExecColumns: the arena ended the last call before bulkRows rows

	changes, lastID int64 // Changes and LastInsertRowID

	// ctx is the context SetInterrupt set (nil: none); iw arms the runs
	// when ctx can be cancelled, and is nil otherwise, so that a statement
	// without a cancellable context tests one pointer per Step.
	ctx context.Context
	iw  *directWatch

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
	directReady   = iota // reset: binds allowed
	directRow            // Step returned a row
	directHalted         // Step returned the end or an error
	directRunning        // in a cgo call that runs it: a callback of its own step must not use it
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
	defer c.core.unlock(c.core.lock())
	if err := c.usable(); err != nil {
		return nil, err
	}
	if restore := c.nest(); restore != nil {
		defer restore()
	}
	s, tail, err := c.prepareFirst(query)
	if err != nil {
		return nil, err
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
	ds := &DirectStmt{c: c, s: s, d: d, cols: s.cols, args: directArgs(d), tx: c.currentTx(),
		// A statement from the cache may hold another run's bindings.
		flags: directReset | directClear}
	// Dropped without Finalize, the C side of its parameters is freed (it
	// is the statement's own memory, not the connection's); its SQLiteStmt,
	// collected with it, is finalized by its own cleanup (lifetime.go).
	ds.cleanup = runtime.AddCleanup(ds, cDirectFree, d)
	return ds, nil
}

// usable reports why the statement cannot run now. The connection's state
// is read under its lock (lifetime.go): the caller holds it.
func (ds *DirectStmt) usable() error {
	if err := ds.check(); err != nil {
		return err
	}
	if ds.c.txLost {
		return errTxLost
	}
	if ds.tx != 0 && ds.c.currentTx() != ds.tx {
		// database/sql ended the transaction (its context ended, or the
		// program committed): the statement's writes must not go on
		// outside it, in autocommit mode, as a tx.Prepare'd statement's
		// cannot.
		return sql.ErrTxDone
	}
	return nil
}

// currentTx identifies the BeginTx transaction in progress (0: none).
func (c *SQLiteConn) currentTx() uint64 {
	if !c.inTx {
		return 0
	}
	return c.txSeq
}

// check is usable without the connection's lock: what the statement alone
// and the connection's closed flag tell.
func (ds *DirectStmt) check() error {
	if ds.final {
		return directError(ErrMisuse, "statement is finalized")
	}
	if ds.state == directRunning {
		return errOwnCallback
	}
	if ds.c.closed.Load() {
		return directError(ErrMisuse, "connection is closed")
	}
	return nil
}

// errOwnCallback is the misuse of a statement from a Go callback (function,
// hook) that its own step is running: SQLite's statement is in the middle of
// that step, and resetting or stepping it there would corrupt it.
var errOwnCallback = directError(ErrMisuse, "statement used from a callback of its own step")

// Finalize ends the use of the statement (sqlite3_finalize,
// https://sqlite.org/c3ref/finalize.html): it goes back to the connection's
// statement cache, reset (large bound values released), or is finalized. Calling
// it again does nothing. Column views from it must no longer be used. From a
// callback of the statement's own step it is ErrMisuse, and does nothing.
func (ds *DirectStmt) Finalize() error {
	return ds.c.core.acked(ds.ctx, ds.finalizeNow()) // replicate.go: a write's statement may commit as it ends
}

// finalizeNow is Finalize.
func (ds *DirectStmt) finalizeNow() error {
	if ds.final {
		return nil
	}
	if ds.state == directRunning {
		return errOwnCallback
	}
	defer ds.c.core.unlock(ds.c.core.lock())
	ds.final = true
	ds.cleanup.Stop()
	if ds.iw != nil {
		ds.iw.stop()
		ds.iw = nil
	}
	if !ds.c.closed.Load() && (ds.state != directReady || ds.dirty) {
		cReset(ds.s.h) // no lock held and no large bound value kept while idle
	}
	ds.halt()
	ds.c.release(ds.s)
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
// On a connection that cannot write (PRAGMA query_only: a read-only
// transaction, _query_only=1), a read-only statement's rows are stepped a
// few at a time (2, doubling up to 64), in one cgo call: Step then costs no
// cgo call for the rows stepped ahead, and a query's last row comes with its
// end, so that Reset costs no call either. Elsewhere rows come one per call:
// the program may change, on the same connection and between two Steps,
// rows the statement has not reached yet. So SQL functions of such a SELECT may run for a few rows
// before Step returns them, and an error comes after the rows before it. The
// TEXT and BLOB values of such rows are copied out of SQLite (256 bytes per
// row, 4 KiB per call at most); a row with more ends the batch, and is read
// where SQLite keeps it.
//
// With a context from SetInterrupt, Step returns its error (and no row) once
// it has ended, even for rows already stepped ahead, and the run ends as an
// interrupted one does: a statement stopped on a row is reset.
//
// Cost: at most one cgo call; no allocation.
func (ds *DirectStmt) Step() (bool, error) {
	row, err := ds.stepNext()
	if !row {
		err = ds.c.core.acked(ds.ctx, err) // replicate.go: a write commits as its statement ends
	}
	return row, err
}

// stepNext is Step.
func (ds *DirectStmt) stepNext() (bool, error) {
	if err := ds.check(); err != nil {
		return false, err
	}
	if ds.iw != nil && ds.iw.ended() {
		// A row stepped ahead was computed before the context ended; it
		// must not be handed out after.
		return false, ds.cancel()
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
	k := ds.c.core
	held := k.lock()
	defer k.unlock(held)
	if err := ds.usable(); err != nil {
		return false, err
	}
	var w watch
	if ds.iw != nil {
		var ended bool
		if w, ended = ds.iw.arm(ds.c); ended {
			return false, ds.cancelLocked()
		}
	}
	prev := ds.state
	s := ds.s
	var rc int
	ds.state = directRunning
	if len(ds.cols) > 0 && stmtAhead(s.h) {
		limit := maxAhead
		if n := len(ds.cols); n*maxAhead > aheadCells { // no division for rows of up to 16 columns
			limit = max(aheadCells/n, 1)
		}
		ds.ahead = min(max(2*ds.ahead, 2), limit)
		n := cDirectStepBatch(ds.d, ds.flags, w.gen, ds.ahead)
		ds.state = prev
		rc = stmtRC(s.h)
		ds.afterRun(s)
		if n > 0 {
			ncol := len(s.cols)
			ds.batch = stmtBatch(s.h, n)
			ds.nb, ds.bi, ds.brc = n, 0, rc
			if rc != sqliteRow && rc != sqliteDone {
				ds.berr = ds.c.errorFor(rc, &w, 0)
			} else if rc == sqliteDone {
				ds.changes, ds.lastID = stmtChanges(s.h), stmtLastInsertID(s.h)
			}
			ds.cols = ds.batch[:ncol:ncol]
			rc = sqliteRow
		}
	} else {
		rc = cDirectStep(ds.d, ds.flags, w.gen)
		ds.state = prev
		ds.afterRun(s)
		ds.cols = s.cols
	}
	switch rc {
	case sqliteRow:
		ds.state = directRow
		return true, nil
	case sqliteDone:
		ds.changes, ds.lastID = stmtChanges(s.h), stmtLastInsertID(s.h)
		ds.halt()
		return false, nil
	}
	err := ds.c.errorFor(rc, &w, 0)
	ds.halt()
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

// halt marks the run ended.
func (ds *DirectStmt) halt() {
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
// last run were Step's: Reset returns nil unless the statement is finalized
// (or used from a callback of its own step).
func (ds *DirectStmt) Reset() error {
	return ds.c.core.acked(ds.ctx, ds.resetNow()) // replicate.go
}

// resetNow is Reset.
func (ds *DirectStmt) resetNow() error {
	if ds.final {
		return directError(ErrMisuse, "statement is finalized")
	}
	if ds.state == directRunning {
		return errOwnCallback
	}
	if ds.state == directRow && ds.nb > 0 && ds.brc != sqliteRow {
		// The statement has already run to its end (after the rows stepped
		// ahead) and holds nothing: reset it with the next run.
		ds.halt()
	}
	switch ds.state {
	case directRow:
		held := ds.c.core.lock()
		if !ds.c.closed.Load() {
			cDirectPrepareRun(ds.d, ds.flags|directReset)
		}
		ds.c.core.unlock(held)
		ds.flags = 0
		ds.halt()
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
	if ds.state == directRunning {
		return errOwnCallback
	}
	ds.dropPending()
	ds.flags = ds.flags&^directBind | directClear
	return nil
}

// dropPending forgets the values bound since the last run.
func (ds *DirectStmt) dropPending() {
	freeOwned(ds.args)
	for i := range ds.args {
		ds.args[i].typ = 0
	}
	ds.used = 0
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
	return ds.c.core.acked(ds.ctx, ds.execNow(args)) // replicate.go
}

// execNow is Exec.
func (ds *DirectStmt) execNow(args []any) error {
	if err := ds.check(); err != nil {
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
	held := k.lock()
	defer k.unlock(held)
	if err := ds.usable(); err != nil {
		return err
	}
	var w watch
	if ds.iw != nil {
		w = ds.iw.armRun(ds.c)
	}
	ds.state = directRunning
	rc := cDirectExec(ds.d, ds.flags, w.gen)
	ds.state = directReady
	ds.flags, ds.used = 0, 0
	ds.dirty = true
	ds.changes, ds.lastID = stmtChanges(ds.s.h), stmtLastInsertID(ds.s.h)
	var err error
	if rc != sqliteOK {
		err = ds.c.errorFor(rc, &w, 0)
	}
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

// SetInterrupt makes the statement's following runs (Step, Exec,
// ExecColumns) observe ctx, until it is called again, and returns the context
// it replaces (context.Background() at first; nil is taken as Background). It
// is this statement's, not the connection's: other statements, and the
// database/sql calls, observe their own contexts.
//
// When ctx ends, a step in progress stops within a few thousand SQLite VM
// instructions (a progress handler polls a word in C memory, as for
// database/sql queries), and Step hands out no further row, even one it
// stepped ahead; the error is ctx.Err() (with _strict=1, an Error that
// matches both ctx.Err() and ErrInterrupt), as database/sql's QueryContext
// returns on this connection. As in SQLite, an interrupted write inside an
// explicit transaction rolls the transaction back. The statement stays usable:
// Reset, set a live context, and run it again.
//
// Cost: nothing on the runs for a context that cannot be cancelled (Done
// returns nil, as for context.Background()); otherwise one
// context.AfterFunc per call of SetInterrupt (no goroutine until ctx ends),
// and a few nanoseconds per cgo call. The idea is that of
// SetInterrupt in zombiezen.com/go/sqlite, crawshaw.io/sqlite and
// github.com/ncruces/go-sqlite3, for one statement.
func (ds *DirectStmt) SetInterrupt(ctx context.Context) (old context.Context) {
	old = ds.ctx
	if old == nil {
		old = context.Background()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if ds.final {
		return old // nothing runs any more: nothing to stop
	}
	if ds.iw != nil {
		ds.iw.stop()
		ds.iw = nil
	}
	ds.ctx = ctx
	if ctx.Done() != nil {
		iw := &directWatch{ctx: ctx}
		word := ds.c.word
		iw.stop = context.AfterFunc(ctx, func() { raise(word.p, iw.gen.Load()) })
		ds.iw = iw
	}
	return old
}

// directWatch is the cancellation of a DirectStmt's runs (SetInterrupt). Each
// run takes a generation of its own, the connection's newest, and publishes
// it in gen, which the context's AfterFunc raises the cancellation word to:
// so the word can never stand above it when the run starts (as it could with
// one generation kept for the statement's life, raised by a later operation
// cancelled meanwhile), and a cancellation always reaches the run in
// progress.
type directWatch struct {
	ctx  context.Context
	gen  atomic.Uint64
	stop func() bool
}

// ended reports, without blocking, whether the context has ended.
func (iw *directWatch) ended() bool {
	select {
	case <-iw.ctx.Done():
		return true
	default:
		return false
	}
}

// arm returns the watch of a run about to start, and whether the context
// has already ended. The check comes after gen is published: an AfterFunc
// that runs later raises this run's generation.
func (iw *directWatch) arm(c *SQLiteConn) (watch, bool) {
	c.gen++
	iw.gen.Store(c.gen)
	return watch{gen: c.gen, ctx: iw.ctx}, iw.ended()
}

// armRun is arm for a run that resets the statement first (Exec,
// ExecColumns): when the context has ended, it raises the word itself, and
// the bridge stops the run before its first step, after the reset, as it
// stops any interrupted run.
func (iw *directWatch) armRun(c *SQLiteConn) watch {
	w, ended := iw.arm(c)
	if ended {
		raise(c.word.p, w.gen)
	}
	return w
}

// cancel ends the run because the context has ended, as an interrupted step
// does, and returns the error: a statement stopped on a row is reset now,
// which releases its read lock; one that has not started stays as it is.
func (ds *DirectStmt) cancel() error {
	defer ds.c.core.unlock(ds.c.core.lock())
	return ds.cancelLocked()
}

// cancelLocked is cancel with the connection held.
func (ds *DirectStmt) cancelLocked() error {
	err := ds.c.contextError(ds.iw.ctx)
	if ds.state == directRow {
		if ds.nb == 0 || ds.brc == sqliteRow {
			if !ds.c.closed.Load() {
				cDirectPrepareRun(ds.d, ds.flags|directReset)
			}
			ds.flags = 0
		}
		ds.halt()
	}
	return err
}
