//go:build cgo

package sqlite3

// The column reads of DirectStmt (direct.go).

import (
	"database/sql/driver"
	"runtime"
	"strconv"
	"unsafe"
)

// ColumnCount returns the number of result columns (sqlite3_column_count,
// https://sqlite.org/c3ref/column_count.html).
func (ds *DirectStmt) ColumnCount() int {
	if ds.final || ds.c.closed.Load() {
		return 0
	}
	return len(ds.cols)
}

// ColumnName returns the name of result column i, 0-based, or "" out of
// range (sqlite3_column_name, https://sqlite.org/c3ref/column_name.html).
// The names are read once per statement (one cgo call) and kept.
func (ds *DirectStmt) ColumnName(i int) string {
	if ds.final || ds.c.closed.Load() || uint(i) >= uint(len(ds.cols)) {
		return ""
	}
	s := ds.s
	if s.names == nil {
		defer ds.c.core.unlock(ds.c.core.lock())
		if ds.c.closed.Load() {
			return ""
		}
		names, rc := cColumnNames(s.h)
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
	if ds.final || uint(i) >= uint(len(ds.cols)) {
		return ""
	}
	defer ds.c.core.unlock(ds.c.core.lock())
	if ds.c.closed.Load() {
		return ""
	}
	return cColumnDeclType(ds.s.h, i)
}

var nullCol = rowCol{typ: typeNull}

// col returns column i of the current row; NULL without one. The row is C
// memory of the statement, which a cleanup may free once ds is unreachable:
// the accessors keep ds alive (runtime.KeepAlive, free) until they have read
// it, for a caller whose last use of the statement is a column read.
func (ds *DirectStmt) col(i int) *rowCol {
	if ds.state != directRow || uint(i) >= uint(len(ds.cols)) || ds.c.closed.Load() {
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
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return 0, 0
	}
	if ds.current() {
		return cColumnInt64(ds.s.h, i), cColumnDouble(ds.s.h, i)
	}
	if restore := c.nest(); restore != nil { // read from a callback: keep the outer operation's SQL
		defer restore()
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
	if cQuery(s.h, 0, false) != sqliteRow {
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
	if ds.current() {
		defer ds.c.core.unlock(ds.c.core.lock())
		if ds.c.closed.Load() {
			return nil
		}
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
