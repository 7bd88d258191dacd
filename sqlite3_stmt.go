//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"runtime"
	"slices"
	"strings"
)

// SQLiteStmt is a prepared statement.
type SQLiteStmt struct {
	c        *SQLiteConn
	h        stmtHandle
	cols     []rowCol // the bridge's row buffer (C memory)
	classes  []uint8  // column classes, computed at prepare
	nparam   int
	names    []string // column names, built on first use
	decl     []string // lowercased declared types (DeclTypes), built on first use
	params   []string // parameter names, read on first use of a named argument
	rows     *SQLiteRows
	run      rowCursor // where the current row of the last run is
	closed   bool
	shape    int    // the bridge's column shape that cols and classes view
	cacheKey string // the SQL, when the statement cache may keep it; else ""
	epoch    uint64 // the cache's epoch when it was prepared (stmtCache)
	// releaseOnRowsClose marks a statement that conn.Query prepared for the
	// rows it returned.
	releaseOnRowsClose bool
	// rowsFree are the Rows of a block not handed out yet, rowsBlock the
	// size of the last block (newRows).
	rowsFree  []SQLiteRows
	rowsBlock int
	// own and cleanup finalize the statement if it is collected while
	// prepared (lifetime.go); nil for the passing statements of a script.
	own     *stmtOwner
	cleanup runtime.Cleanup
}

var (
	_ driver.Stmt             = (*SQLiteStmt)(nil)
	_ driver.StmtExecContext  = (*SQLiteStmt)(nil)
	_ driver.StmtQueryContext = (*SQLiteStmt)(nil)
)

func newStmt(c *SQLiteConn, h stmtHandle) *SQLiteStmt {
	s := &SQLiteStmt{}
	s.init(c, h)
	s.track()
	return s
}

func (s *SQLiteStmt) init(c *SQLiteConn, h stmtHandle) {
	*s = SQLiteStmt{c: c, h: h, nparam: stmtNumParams(h)}
	s.readShape()
}

// readShape views the bridge's description of the columns, again after SQLite
// re-prepared the statement with different columns.
func (s *SQLiteStmt) readShape() {
	s.cols = stmtCols(s.h)
	s.classes = stmtClasses(s.h)
	s.shape = stmtShape(s.h)
	s.names, s.decl = nil, nil
}

// syncShape re-reads the shape after a call that may have re-prepared the
// statement (bridge_query): the bridge then freed the column block that
// s.cols and s.classes viewed. Every read of them after cQuery goes through it.
func (s *SQLiteStmt) syncShape() {
	if stmtShape(s.h) != s.shape {
		s.readShape()
	}
}

// finalize frees the statement for good (sqlite3_finalize).
func (s *SQLiteStmt) finalize() {
	s.closed = true
	if s.rows != nil {
		s.rows.detach()
	}
	s.untrack()
	if s.h != nil && !s.c.closed.Load() { // Conn.Close finalized it otherwise
		cFinalize(s.h)
	}
	s.h = nil
}

// Prepare prepares one statement; see PrepareContext.
func (c *SQLiteConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares one statement (sqlite3_prepare_v3). Text after the
// first statement other than spaces, comments and semicolons is ignored, as
// mattn/go-sqlite3 does, or an error with _strict: a prepared statement runs
// exactly one statement. SQL with no statement at all is an error (mattn's
// statement crashes when run).
func (c *SQLiteConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if c.tracer != nil {
		return traced(c, ctx, TracePrepare, query, func(ctx context.Context) (driver.Stmt, error) { return c.prepareCtx(ctx, query) })
	}
	return c.prepareCtx(ctx, query)
}

// prepareCtx is PrepareContext, untraced.
func (c *SQLiteConn) prepareCtx(ctx context.Context, query string) (driver.Stmt, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer c.core.unlock(c.core.lock())
	s, err := c.prepareContext(query)
	if err != nil {
		return nil, err // no typed nil in the interface
	}
	return s, nil
}

// prepareContext is PrepareContext with the connection held.
func (c *SQLiteConn) prepareContext(query string) (*SQLiteStmt, error) {
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	if restore := c.nest(); restore != nil {
		defer restore()
	}
	s, tail, err := c.prepareFirst(query)
	if err != nil {
		return nil, err
	}
	if tail < len(query) && c.strict {
		s.finalize()
		return nil, driverError("Prepare takes one statement; use Exec or Query to run several")
	}
	return s, nil
}

// prepareFirst prepares the first statement of query (from the statement
// cache when it can) and returns it with the byte offset after it. SQL
// without a statement is an error.
func (c *SQLiteConn) prepareFirst(query string) (*SQLiteStmt, int, error) {
	s, tail, rc, err := c.prepareCached(query, 0)
	if err != nil {
		return nil, 0, err
	}
	if rc != sqliteOK {
		return nil, 0, errorFor(c.h, rc, 0)
	}
	if s == nil {
		return nil, 0, driverError("query has no SQL statement")
	}
	return s, tail, nil
}

// Close ends the use of the statement: it goes back to the connection's
// statement cache, or is finalized (sqlite3_finalize). Closing twice is harmless.
func (s *SQLiteStmt) Close() error {
	if s.closed {
		return nil
	}
	defer s.c.core.unlock(s.c.core.lock())
	if s.rows != nil {
		s.rows.detach()
		if !s.c.closed.Load() {
			cReset(s.h)
		}
	}
	if s.cacheKey != "" {
		// The caller may keep (and misuse) this object after Close: the cache
		// gets a fresh one, so a second Close or a late Exec cannot reach the
		// statement once someone else has taken it from the cache.
		idle := new(SQLiteStmt)
		*idle = *s
		s.untrack()
		s.closed, s.h, s.cols, s.classes, s.own, s.rowsFree = true, nil, nil, nil, nil, nil
		idle.track()
		s.c.release(idle)
		return nil
	}
	s.c.release(s)
	return nil
}

// NumInput returns the number of parameters (sqlite3_bind_parameter_count);
// database/sql checks the argument count against it.
func (s *SQLiteStmt) NumInput() int { return s.nparam }

// Readonly reports whether the statement leaves the database unchanged
// (sqlite3_stmt_readonly).
func (s *SQLiteStmt) Readonly() bool {
	defer s.c.core.unlock(s.c.core.lock())
	return !s.closed && !s.c.closed.Load() && stmtReadonly(s.h)
}

// ColumnTableName returns the table that result column n comes from, or ""
// for an expression (sqlite3_column_table_name).
func (s *SQLiteStmt) ColumnTableName(n int) string {
	defer s.c.core.unlock(s.c.core.lock())
	if s.closed || s.c.closed.Load() || n < 0 || n >= len(s.cols) {
		return ""
	}
	return cColumnTableName(s.h, n)
}

// ExecContext binds args and runs the statement to completion in one cgo call.
func (s *SQLiteStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.c.tracer != nil {
		return traced(s.c, ctx, TraceExec, s.tracedSQL(), func(ctx context.Context) (driver.Result, error) {
			res, err := s.execCtx(ctx, args)
			return s.c.core.ackedResult(ctx, res, err) // replicate.go
		})
	}
	res, err := s.execCtx(ctx, args)
	return s.c.core.ackedResult(ctx, res, err) // replicate.go
}

// execCtx is ExecContext, untraced.
func (s *SQLiteStmt) execCtx(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	defer s.c.core.unlock(s.c.core.lock())
	if err := s.usable(); err != nil {
		return nil, err
	}
	w, err := s.c.watch(ctx)
	if err != nil {
		return nil, err
	}
	defer w.done()
	if s.c.groupable(s) {
		if res, grouped, err := s.c.execGrouped(&w, s, s.sqlHeld(), args); grouped { // group.go
			return res, err
		}
	}
	b := binder{args: args, strict: s.c.strict}
	if err := s.bind(&b, true); err != nil {
		return nil, err
	}
	return s.exec(&w)
}

// QueryContext binds args and steps the first row in one cgo call.
func (s *SQLiteStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.c.tracer != nil {
		return tracedQuery(s.c, ctx, s.tracedSQL(), func(ctx context.Context) (driver.Rows, error) {
			rows, err := s.queryCtx(ctx, args)
			return s.c.core.ackedRows(ctx, rows, err) // replicate.go
		})
	}
	rows, err := s.queryCtx(ctx, args)
	return s.c.core.ackedRows(ctx, rows, err) // replicate.go
}

// queryCtx is QueryContext, untraced.
func (s *SQLiteStmt) queryCtx(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	defer s.c.core.unlock(s.c.core.lock())
	if err := s.usable(); err != nil {
		return nil, err
	}
	w, err := s.c.watch(ctx)
	if err != nil {
		return nil, err
	}
	if s.c.groupable(s) {
		if rows, grouped, err := s.c.queryGrouped(w, s, s.sqlHeld(), args); grouped { // group.go
			return rows, err
		}
	}
	b := binder{args: args, strict: s.c.strict}
	if err := s.bind(&b, true); err != nil {
		w.done()
		return nil, err
	}
	return s.query(w)
}

// sqlHeld is the statement's SQL, with the connection held and the statement open.
func (s *SQLiteStmt) sqlHeld() string {
	if s.cacheKey != "" {
		return s.cacheKey
	}
	return cStmtSQL(s.h)
}

func (s *SQLiteStmt) usable() error {
	if s.closed {
		return driverError("statement is closed")
	}
	if err := s.c.usable(); err != nil {
		return err
	}
	if r := s.rows; r != nil {
		// database/sql can run a statement again while rows of its last run
		// are open (two queries on one Tx statement). The old rows end.
		open := !r.closed && !r.done
		r.detach()
		if open {
			return s.handOver(r)
		}
	}
	return nil
}

// handOver gives the statement's C statement to rows r, still open on a
// row whose values sql.RawBytes may point to (Go 1.27's ScanColumn): they
// must stay as they are until r moves on or closes, so the statement runs
// again on a new C statement prepared from the same SQL, and r finalizes
// the old one when it closes.
func (s *SQLiteStmt) handOver(r *SQLiteRows) error {
	h, rc := cPrepareAgain(s.h)
	if rc != sqliteOK {
		return errorFor(s.c.h, rc, 0)
	}
	old := new(SQLiteStmt)
	*old = *s
	old.cacheKey, old.releaseOnRowsClose, old.rows, old.rowsFree = "", true, r, nil
	r.s = old
	// Each C statement keeps an owner of its own (lifetime.go): s's cleanup
	// must finalize the new one, old's the one r still reads.
	s.untrack()
	old.track()
	s.h, s.rows = h, nil
	s.track()
	s.readShape()
	return nil
}

// exec runs the bound statement and resets it.
func (s *SQLiteStmt) exec(w *watch) (driver.Result, error) {
	if err := s.c.takeTurn(w.ctx, stmtWritesMain(s.h)); err != nil { // gate.go
		return nil, err
	}
	if rc := cExec(s.h, w.gen); rc != sqliteOK {
		return nil, s.c.errorFor(rc, w, 0)
	}
	return s.c.newResult(stmtLastInsertID(s.h), stmtChanges(s.h)), nil
}

// query runs the bound statement up to its first row and returns the rows,
// which take over the watch.
func (s *SQLiteStmt) query(w watch) (driver.Rows, error) {
	if err := s.c.takeTurn(w.ctx, stmtWritesMain(s.h)); err != nil { // gate.go
		w.done()
		return nil, err
	}
	return s.queryRun(w)
}

// queryRun is query once the turn is settled.
func (s *SQLiteStmt) queryRun(w watch) (driver.Rows, error) {
	// The bridge steps past a last row (a lookup by key) only where ending
	// the read transaction at once, rather than at Close, cannot cost
	// anything: in memory, or on a file no other connection of the process
	// has open. Otherwise the process's readers, whose transactions overlap
	// less when each ends sooner, would more often take and drop the file's
	// shared OS locks (fcntl; SQLite shares them within a process), which
	// costs more than the cgo call saved (bench/RESULTS.md, issue 31).
	k := s.c.core
	last := s.c.memMain || k.gate != nil && k.gate.conns.Load() < 2
	rc := cQuery(s.h, w.gen, last)
	s.syncShape()
	if rc != sqliteRow && rc != sqliteDone {
		err := s.c.errorFor(rc, &w, 0)
		cReset(s.h)
		w.done()
		return nil, err
	}
	s.run = rowCursor{cur: s.cols}
	if after := stmtAfter(s.h); rc == sqliteRow && after != 0 {
		// The bridge stepped past the statement's last row (bridge_last_row):
		// that row is a batch of one, its values copied out, and what the
		// step past it returned ends the rows.
		s.run.batch, s.run.nb, s.run.brc = s.cols, 1, after
		if after != sqliteDone {
			s.run.berr = s.c.errorFor(after, &w, 0)
		}
	}
	r := s.newRows()
	*r = SQLiteRows{s: s, w: w, pending: true}
	s.rows = r
	if s.own == nil {
		s.track() // a script's last statement, which the rows keep
	}
	return r, nil
}

// ExecContext runs every statement of query in order, consuming positional
// arguments as each statement needs them; named arguments bind by name in any
// statement. Arguments no statement uses are ignored, as mattn/go-sqlite3
// does (an error with _strict). The result is the last statement's. The SQL
// is walked by byte offset in one C buffer: time and memory stay linear in
// its length.
func (c *SQLiteConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.tracer != nil {
		return traced(c, ctx, TraceExec, query, func(ctx context.Context) (driver.Result, error) {
			res, err := c.execHeld(ctx, query, args)
			return c.core.ackedResult(ctx, res, err) // replicate.go
		})
	}
	res, err := c.execHeld(ctx, query, args)
	return c.core.ackedResult(ctx, res, err) // replicate.go
}

// execHeld is execContext under the connection's exclusion.
func (c *SQLiteConn) execHeld(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	defer c.core.unlock(c.core.lock())
	return c.execContext(ctx, query, args)
}

// execContext is ExecContext with the connection held.
func (c *SQLiteConn) execContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if restore := c.nest(); restore != nil {
		defer restore()
	}
	w, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	defer w.done()
	b := binder{args: args, strict: c.strict}
	s, tail, rc, err := c.prepareCached(query, w.gen)
	if err != nil {
		return nil, err
	}
	res := c.newResult(0, 0)
	var scratch *SQLiteStmt // the statements after the first, one at a time (allocated only for scripts)
	for off := 0; ; {
		if rc != sqliteOK {
			return nil, c.errorFor(rc, &w, off)
		}
		if s == nil {
			break
		}
		last := tail >= len(query) // the bridge skips trailing comments and semicolons
		if off == 0 && last && c.groupable(s) {
			if res, grouped, err := c.execGrouped(&w, s, query, args); grouped { // group.go
				c.release(s)
				return res, err
			}
		}
		err := s.bind(&b, last)
		if err == nil {
			err = c.takeTurn(w.ctx, stmtWritesMain(s.h)) // gate.go
		}
		if err == nil {
			if rc := cExec(s.h, w.gen); rc != sqliteOK {
				err = c.errorFor(rc, &w, off)
			}
			res.id, res.changes = stmtLastInsertID(s.h), stmtChanges(s.h)
		}
		c.release(s)
		if err != nil {
			return nil, err
		}
		if last {
			return res, nil
		}
		// The statements after this one that take no parameters run in C,
		// all in one call; it stops at one that needs arguments, and before
		// the last while arguments are left for Go to reject.
		var h stmtHandle
		h, off, tail, rc = cExecScript(c.h, tail, b.left(), w.gen)
		if id, changes, ran := scriptResult(c.h); ran {
			res.id, res.changes = id, changes
		}
		s = c.scriptStmt(&scratch, h)
	}
	// The end of the SQL: after only spaces and comments nothing ran, and
	// every argument is left over.
	if err := b.finish(); err != nil {
		return nil, err
	}
	return res, nil
}

// QueryContext runs every statement of query but the last as ExecContext
// does, and returns the rows of the last one. SQL with no statement gives no
// rows and no columns (with _strict, an error).
func (c *SQLiteConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.tracer != nil {
		return tracedQuery(c, ctx, query, func(ctx context.Context) (driver.Rows, error) {
			rows, err := c.queryHeld(ctx, query, args)
			return c.core.ackedRows(ctx, rows, err) // replicate.go
		})
	}
	rows, err := c.queryHeld(ctx, query, args)
	return c.core.ackedRows(ctx, rows, err) // replicate.go
}

// queryHeld is queryContext under the connection's exclusion.
func (c *SQLiteConn) queryHeld(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	defer c.core.unlock(c.core.lock())
	return c.queryContext(ctx, query, args)
}

// queryContext is QueryContext with the connection held.
func (c *SQLiteConn) queryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if restore := c.nest(); restore != nil {
		defer restore()
	}
	w, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	b := binder{args: args, strict: c.strict}
	s, tail, rc, err := c.prepareCached(query, w.gen)
	if err != nil {
		w.done()
		return nil, err
	}
	var scratch *SQLiteStmt // the statements after the first, while they are not the last
	for off := 0; ; {
		if rc != sqliteOK {
			w.done()
			return nil, c.errorFor(rc, &w, off)
		}
		if s == nil {
			w.done()
			if !c.strict {
				return noRows{}, nil // as mattn/go-sqlite3, whatever the arguments
			}
			return nil, driverError("query has no SQL statement")
		}
		last := tail >= len(query) // the bridge skips trailing comments and semicolons
		if off == 0 && last && c.groupable(s) {
			s.releaseOnRowsClose = true
			if rows, grouped, err := c.queryGrouped(w, s, query, args); grouped { // group.go
				if err != nil {
					c.release(s)
				}
				return rows, err
			}
		}
		if err := s.bind(&b, last); err != nil {
			c.release(s)
			w.done()
			return nil, err
		}
		if last {
			if s == scratch {
				scratch = nil // the rows keep it
			}
			s.releaseOnRowsClose = true
			rows, err := s.query(w)
			if err != nil {
				c.release(s)
			}
			return rows, err
		}
		if err := c.takeTurn(w.ctx, stmtWritesMain(s.h)); err != nil { // gate.go
			c.release(s)
			w.done()
			return nil, err
		}
		rc = cExec(s.h, w.gen)
		c.release(s)
		if rc != sqliteOK {
			w.done()
			return nil, c.errorFor(rc, &w, off)
		}
		// As in ExecContext, up to the last statement, whose rows these are.
		var h stmtHandle
		h, off, tail, rc = cExecScript(c.h, tail, true, w.gen)
		s = c.scriptStmt(&scratch, h)
	}
}

// scriptStmt wraps h, a statement of a script after its first, in *scratch
// (allocated once per script); nil for no statement.
func (c *SQLiteConn) scriptStmt(scratch **SQLiteStmt, h stmtHandle) *SQLiteStmt {
	if h == nil {
		return nil
	}
	if *scratch == nil {
		*scratch = new(SQLiteStmt)
	}
	(*scratch).init(c, h)
	return *scratch
}

// execOne runs a single statement of the driver's own (PRAGMAs, transaction
// control), refusing anything after it.
func (c *SQLiteConn) execOne(query string) error {
	s, tail, rc, err := c.prepareCached(query, 0)
	if err != nil {
		return err
	}
	if rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	if s == nil {
		return driverError("not a statement: " + query)
	}
	defer c.release(s)
	if tail < len(query) {
		s.cacheKey = "" // never cache a multi-statement text
		return driverError("not a single statement: " + query)
	}
	if s.nparam != 0 {
		return driverError("unexpected parameters in: " + query)
	}
	if rc := cExec(s.h, 0); rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}

// SQLiteResult is the result of an Exec.
type SQLiteResult struct {
	id      int64
	changes int64
}

// LastInsertId returns the rowid of the last row inserted on the connection
// (sqlite3_last_insert_rowid), as of the end of the Exec.
func (r *SQLiteResult) LastInsertId() (int64, error) { return r.id, nil }

// RowsAffected returns the rows changed by the last statement of the Exec
// (sqlite3_changes64).
func (r *SQLiteResult) RowsAffected() (int64, error) { return r.changes, nil }

// resultBlock is how many results newResult cuts from one allocation.
const resultBlock = 8

// newResult returns an Exec's result. Results are cut from blocks of
// resultBlock (128 bytes, no pointers), so that an Exec costs an eighth of an
// allocation of its own, and a Result the caller keeps keeps at most its
// block's 112 other bytes alive.
func (c *SQLiteConn) newResult(id, changes int64) *SQLiteResult {
	if len(c.results) == 0 {
		c.results = make([]SQLiteResult, resultBlock)
	}
	r := &c.results[0]
	c.results = c.results[1:]
	*r = SQLiteResult{id: id, changes: changes}
	return r
}

// The statement cache keeps a connection's recently used single-statement
// queries prepared, so db.Exec(sql) and db.Query(sql) with the same SQL text
// skip sqlite3_prepare_v3 and sqlite3_finalize. It holds at most
// _stmt_cache_size idle statements (0 disables it), least recently used
// evicted first. SQLite itself re-prepares a cached statement after a schema
// change (sqlite3_prepare_v3 semantics); the bridge then describes its columns
// again, so a cached "SELECT *" follows ALTER TABLE.
//
// The cache must never change a result. SQLite applies two settings only when
// it compiles a statement and does not expire statements when they change:
// the run-time limits (sqlite3_limit: the number of variables, the SQL length,
// expression depth, ...) and the decisions of an authorizer, which is a
// callback whose answers may change from call to call (sqlite3_set_authorizer
// expires statements when the callback is replaced, not when its answers
// change). So SetLimit drops every idle statement and retires those in use
// (epoch), and while an authorizer is registered nothing is cached: each
// statement is compiled, and authorized, as it would be without a cache. Other
// prepare-time state (PRAGMAs that change code generation, functions and
// collations, the schema) expires statements inside SQLite, which re-prepares
// them before their next step.

// stmtCache is a small list, most recently used last: with a few dozen entries
// a scan beats a map and allocates nothing.
type stmtCache struct {
	idle []*SQLiteStmt
	max  int
	// off is set while an authorizer is registered: nothing is taken or kept.
	off bool
	// epoch counts the changes of prepare-time state (limits); a statement
	// prepared in an earlier epoch is finalized instead of kept.
	epoch uint64
}

// take removes and returns an idle statement prepared from query.
func (sc *stmtCache) take(query string) *SQLiteStmt {
	for i := len(sc.idle) - 1; i >= 0; i-- {
		if s := sc.idle[i]; s.cacheKey == query {
			sc.idle = slices.Delete(sc.idle, i, i+1) // clears the freed slot
			return s
		}
	}
	return nil
}

// put keeps s for reuse, finalizing the least recently used statement when
// full. It reports false when s was not kept (caching disabled).
func (sc *stmtCache) put(s *SQLiteStmt) bool {
	if sc.max <= 0 || sc.off || s.epoch != sc.epoch {
		return false
	}
	if len(sc.idle) >= sc.max {
		old := sc.idle[0]
		sc.idle = slices.Delete(sc.idle, 0, 1)
		old.finalize()
	}
	sc.idle = append(sc.idle, s)
	return true
}

// retire finalizes every idle statement and makes those in use be finalized
// when released: something SQLite reads only at prepare time has changed.
func (sc *stmtCache) retire() {
	sc.epoch++
	for i, s := range sc.idle {
		s.finalize()
		sc.idle[i] = nil
	}
	sc.idle = sc.idle[:0]
}

// drop forgets every idle statement (their C side is freed by the caller).
func (sc *stmtCache) drop() {
	for i := range sc.idle {
		sc.idle[i] = nil
	}
	sc.idle = sc.idle[:0]
}

// prepareCached returns a statement for query, from the cache when possible.
// A statement the cache may keep afterwards has s.cacheKey set.
func (c *SQLiteConn) prepareCached(query string, gen uint64) (*SQLiteStmt, int, int, error) {
	if c.cache.off {
		// An authorizer decides at each prepare (see above).
	} else if s := c.cache.take(query); s != nil {
		s.closed = false
		s.releaseOnRowsClose = false
		return s, len(query), sqliteOK, nil
	}
	// A cached statement's text passed this check when it was prepared; a
	// hit skips the scan of the SQL.
	if err := checkQuery(query); err != nil {
		return nil, 0, sqliteOK, err
	}
	h, tail, rc := cPrepare(c.h, query, 0, gen)
	if rc != sqliteOK || h == nil {
		return nil, tail, rc, nil
	}
	s := newStmt(c, h)
	if c.cache.max > 0 && !c.cache.off && tail >= len(query) {
		s.cacheKey, s.epoch = query, c.cache.epoch
	}
	return s, tail, rc, nil
}

// release is the end of a use of s by the connection: back to the cache when
// it can be reused, finalized otherwise.
func (c *SQLiteConn) release(s *SQLiteStmt) {
	if s.cacheKey != "" && !c.closed.Load() && !s.closed && c.cache.put(s) {
		s.closed = true // idle: no caller may use it until taken again
		return
	}
	s.finalize()
}

// checkQuery rejects SQL that SQLite would silently cut short.
func checkQuery(query string) error {
	if i := strings.IndexByte(query, 0); i >= 0 {
		return driverError("query contains a NUL byte at offset " + itoa(i))
	}
	if len(query) >= maxLength {
		return errTooBig(len(query))
	}
	return nil
}
