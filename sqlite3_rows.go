//go:build cgo

package sqlite3

import (
	"database/sql/driver"
	"io"
	"reflect"
	"strings"
	"unsafe"
)

// SQLiteRows is the result of a query. Each Next is at most one cgo call that
// steps the statement and describes every column (rows of numbers and short
// values of a read-only statement come several per call); the values are
// copied out of SQLite's memory in Go.
type SQLiteRows struct {
	s       *SQLiteStmt
	w       watch // the query's cancellation, disarmed at Close
	pending bool  // the first row was stepped by the query call
	done    bool
	closed  bool
	err     error       // why the rows ended early
	buf     *rowsBuffer // the rows of a write run in a group, read there to the end (group.go)
}

// bufferedRows returns rows that hand out b, the rows of s's write read in
// a group (group.go). No C call is left to make but the reset at Close.
func (s *SQLiteStmt) bufferedRows(w watch, b *rowsBuffer) *SQLiteRows {
	w.done()
	s.run = rowCursor{}
	r := s.newRows()
	*r = SQLiteRows{s: s, w: w, done: b.len() == 0, buf: b}
	s.rows = r
	if s.own == nil {
		s.track() // as query: a statement the rows keep
	}
	return r
}

// rowsBlockMax is the most Rows one allocation holds (newRows): as many as
// fit in 512 bytes, above which Go's allocator gives an object with pointers
// an 8-byte header, and the block would take the next size class.
const rowsBlockMax = 512 / int(unsafe.Sizeof(SQLiteRows{}))

// newRows returns zeroed Rows for a run of s. They are cut from blocks, one
// Rows for a statement's first run, then doubling up to rowsBlockMax, so that
// a statement run again and again (a prepared statement, a cached query)
// allocates its Rows once in rowsBlockMax runs, and one run once allocates no
// more than before. No Rows is ever handed out twice: a caller that keeps
// closed Rows and calls them again sees them closed, never a later run. What
// kept Rows keep alive is their block, at most rowsBlockMax-1 other Rows of
// the same statement, whose Close and detach drop the context and the
// values they held.
func (s *SQLiteStmt) newRows() *SQLiteRows {
	if len(s.rowsFree) == 0 {
		s.rowsBlock = min(max(2*s.rowsBlock, 1), rowsBlockMax)
		s.rowsFree = make([]SQLiteRows, s.rowsBlock)
	}
	r := &s.rowsFree[0]
	if s.rowsFree = s.rowsFree[1:]; len(s.rowsFree) == 0 {
		s.rowsFree = nil // the statement keeps no block it has used up
	}
	return r
}

// rowCursor is where the current row of a statement's run is: the
// statement's row buffer, or a row of batch, the rows stepped ahead in one
// call (bridge_step_batch) for a read-only statement on a connection that
// cannot write, or whose rows still to come are made already (a sort's
// output: bridge_rest_fixed), numbers and short TEXT and BLOB values that
// the bridge copied out of SQLite's memory; or the last row of a lookup,
// which the query call stepped past (bridge_last_row). bi indexes
// cur in batch, nb counts its rows; after them comes brc, the result of the
// step that ended the batch (berr when it is an error, built at once while
// SQLite's message is current). It lives in the statement, reset by each run,
// so that SQLiteRows stays small.
type rowCursor struct {
	cur    []rowCol
	batch  []rowCol
	nb, bi int
	brc    int
	berr   error
	ahead  int // rows to step ahead next time, doubling up to maxAhead
}

// Rows are stepped ahead at most this many at a time, and at most
// aheadCells values: stepping ahead runs the statement (and any function it
// calls) a little before the caller asks, and is wasted if it stops early.
const (
	maxAhead   = 64
	aheadCells = 1024
)

var (
	_ driver.Rows                           = (*SQLiteRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*SQLiteRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*SQLiteRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*SQLiteRows)(nil)
)

// Columns returns the column names (sqlite3_column_name), read once per statement.
func (r *SQLiteRows) Columns() []string {
	if r.buf != nil && r.buf.names != nil {
		return r.buf.names
	}
	s := r.s
	if s.names == nil {
		defer s.c.core.unlock(s.c.core.lock())
	}
	if s.names == nil && !s.closed && !s.c.closed.Load() {
		names, rc := cColumnNames(s.h)
		if rc != sqliteOK {
			names = make([]string, len(s.cols))
		}
		s.names = names
	}
	return s.names
}

// Next steps to the next row and converts its columns: INTEGER to int64 (bool
// in BOOLEAN columns, time.Time in DATE/DATETIME/TIMESTAMP columns), FLOAT to
// float64, TEXT to string (time.Time in date/time columns when it parses),
// BLOB to []byte, NULL to nil. Values stay valid after the next call.
func (r *SQLiteRows) Next(dest []driver.Value) error {
	if err := r.step(); err != nil {
		return r.ackedEnd(err)
	}
	r.decode(dest)
	return nil
}

// step advances to the next row: one cgo call, or none for the first row,
// which the query call already stepped, and none for rows already stepped
// ahead.
func (r *SQLiteRows) step() error {
	if r.done || r.closed {
		if r.err != nil {
			return r.err
		}
		return io.EOF
	}
	if b := r.buf; b != nil {
		if b.i+1 >= b.len() {
			r.done = true
			return io.EOF
		}
		b.i++
		r.s.run.cur = b.row(b.i)
		return nil
	}
	s := r.s
	k := &s.run
	if !r.pending && k.bi+1 >= k.nb && (k.nb == 0 || k.brc == sqliteRow) {
		// The next row needs a cgo call, with the connection and its
		// newest generation.
		defer s.c.core.unlock(s.c.core.lock())
		r.w.renew(s.c)
	}
	// A row stepped ahead (or the first, stepped by the query call) was
	// computed before the context ended; it must not be handed out after.
	if r.w.ended() {
		r.done = true
		r.err = s.c.contextError(r.w.ctx)
		return r.err
	}
	if s.c.closed.Load() {
		r.done = true
		r.err = driver.ErrBadConn
		return r.err
	}
	var rc int
	switch ncol := len(s.cols); {
	case r.pending:
		r.pending = false
		rc = stmtRC(s.h)
	case k.bi+1 < k.nb:
		k.bi++
		k.cur = k.batch[k.bi*ncol : (k.bi+1)*ncol : (k.bi+1)*ncol]
		return nil
	case k.nb > 0 && k.brc != sqliteRow:
		// The batch's rows are used up, and the statement ended after them.
		k.nb = 0
		r.done = true
		if k.brc == sqliteDone {
			return io.EOF
		}
		r.err = k.berr
		return r.err
	case ncol > 0 && stmtAhead(s.h):
		k.ahead = min(max(2*k.ahead, 2), maxAhead, max(aheadCells/ncol, 1))
		n := cStepBatch(s.h, r.w.gen, k.ahead)
		k.brc, k.nb, k.bi = stmtRC(s.h), n, 0
		if n == 0 {
			rc = k.brc
			break
		}
		if k.brc != sqliteRow && k.brc != sqliteDone {
			k.berr = s.c.errorFor(k.brc, &r.w, 0)
		}
		k.batch = stmtBatch(s.h, n)
		k.cur = k.batch[:ncol:ncol]
		return nil
	default:
		k.cur = s.cols
		rc = cStep(s.h, r.w.gen)
	}
	switch rc {
	case sqliteRow:
		return nil
	case sqliteDone:
		r.done = true
		return io.EOF
	}
	r.done = true
	r.err = s.c.errorFor(rc, &r.w, 0)
	return r.err
}

// decode converts the bridge's description of the current row.
func (r *SQLiteRows) decode(dest []driver.Value) {
	classes := r.classes()
	for i := range min(len(r.s.run.cur), len(dest)) {
		dest[i] = r.value(i, classes[i])
	}
}

// classes are the classes of the current row's columns.
func (r *SQLiteRows) classes() []uint8 {
	if r.buf != nil {
		return r.buf.classes
	}
	return r.s.classes
}

// value converts column i of the current row (see Next). Each value is an
// allocation of its own (numbers past 255 in the allocator's 16-byte tiny
// blocks, as Go's own conversion makes them; strings and []byte as
// values.go makes them), so that a value the caller keeps keeps alive only
// itself (docs/queries.md, retention_test.go): values cut from blocks shared
// by many rows would keep the whole block, and every value the block's other
// headers point at.
func (r *SQLiteRows) value(i int, class uint8) driver.Value {
	s := r.s
	col := &s.run.cur[i]
	switch col.typ {
	case typeInteger:
		v := col.int64()
		switch class {
		case classTime:
			return unixTime(v, s.c.loc)
		case classBool:
			return v > 0
		}
		return v
	case typeFloat:
		return col.float64()
	case typeText:
		src := col.bytes()
		if class == classTime {
			if t, ok := parseTime(src, s.c.loc); ok || !s.c.strict {
				return t // unparseable: the zero time, as mattn/go-sqlite3 (strict.go)
			}
		}
		return stringValue(src)
	case typeBlob:
		return blobValue(col.bytes())
	}
	return nil
}

// Close ends the rows: the statement is reset (releasing its locks), or
// finalized when the query prepared it. The query's cancellation is disarmed.
func (r *SQLiteRows) Close() error {
	if r.closed {
		return nil
	}
	if k := r.s.c.core; k.repl != nil {
		ctx := r.w.ctx
		return k.acked(ctx, r.closeRows()) // replicate.go
	}
	return r.closeRows()
}

// ackedEnd is what the rows' end (io.EOF) becomes with _replicate_wait: a
// write's statement (INSERT ... RETURNING) commits as it ends, and the
// caller learns of it then (replicate.go).
func (r *SQLiteRows) ackedEnd(err error) error {
	if k := r.s.c.core; k.repl != nil && err == io.EOF {
		if aerr := k.acked(r.w.ctx, nil); aerr != nil {
			r.err = aerr
			return aerr
		}
	}
	return err
}

// closeRows is Close.
func (r *SQLiteRows) closeRows() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.w.done()
	r.w = watch{} // a context kept by a block of Rows (newRows) would stay alive with it
	if r.buf != nil {
		r.buf.drop()
	}
	s := r.s
	if s.rows != r {
		// Detached: the statement was closed, or runs again for newer rows,
		// which resetting it here would restart.
		return nil
	}
	s.rows = nil
	if r.buf != nil {
		s.run = rowCursor{} // it viewed the buffer's rows, which drop let go
	}
	defer s.c.core.unlock(s.c.core.lock())
	if s.closed || s.c.closed.Load() {
		return nil
	}
	k := &s.run
	if halted := r.buf != nil || r.done && r.err == nil || k.nb > 0 && k.brc == sqliteDone; !halted || stmtKeepsBound(s.h) {
		// A statement that ran to its end (SQLITE_DONE, handed out or still
		// ahead of the rows, after a batch or the last row of a lookup) has
		// already released its locks (and committed, in autocommit mode);
		// the reset that every run starts with (bridge_query, bridge_exec) is
		// enough for it, which saves a cgo call per query read to the end.
		// Large bound values are still cleared now, not kept by an idle
		// statement.
		cReset(s.h)
	}
	if s.releaseOnRowsClose {
		s.c.release(s)
	}
	return nil
}

// detach ends rows whose statement is being re-run or closed.
func (r *SQLiteRows) detach() {
	if !r.closed && !r.done {
		r.done = true
		r.err = driverError("rows ended: their statement was run again or closed")
	}
	r.w.done()
	r.w = watch{}
	if r.buf != nil {
		r.buf.drop()
	}
	if r.s.rows == r {
		r.s.rows = nil
	}
}

// DeclTypes returns the declared types of the columns, lowercased
// (sqlite3_column_decltype), as mattn/go-sqlite3 does.
func (r *SQLiteRows) DeclTypes() []string {
	s := r.s
	if s.decl == nil {
		defer s.c.core.unlock(s.c.core.lock())
		decl := make([]string, len(s.cols))
		if s.closed || s.c.closed.Load() {
			return decl
		}
		for i := range decl {
			decl[i] = strings.ToLower(cColumnDeclType(s.h, i))
		}
		s.decl = decl
	}
	return s.decl
}

// ColumnTypeDatabaseTypeName returns the declared type of column i as written
// in the schema ("" for an expression).
func (r *SQLiteRows) ColumnTypeDatabaseTypeName(i int) string {
	defer r.s.c.core.unlock(r.s.c.core.lock())
	if r.s.closed || r.s.c.closed.Load() || i < 0 || i >= len(r.s.cols) {
		return ""
	}
	return cColumnDeclType(r.s.h, i)
}

// ColumnTypeScanType returns the Go type suited to column i's declared type,
// with mattn/go-sqlite3's mapping (sql.NullInt64 for INT types, ...).
func (r *SQLiteRows) ColumnTypeScanType(i int) reflect.Type {
	return scanType(r.ColumnTypeDatabaseTypeName(i))
}

// ColumnTypeNullable reports whether column i may be NULL, from the NOT NULL
// constraint of the table column it comes from (sqlite3_table_column_metadata).
// For an expression it reports ok == false.
func (r *SQLiteRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	defer r.s.c.core.unlock(r.s.c.core.lock())
	if r.s.closed || r.s.c.closed.Load() || i < 0 || i >= len(r.s.cols) {
		return false, false
	}
	switch cColumnNotNull(r.s.h, i) {
	case 1:
		return false, true
	case 0:
		return true, true
	}
	return false, false
}
