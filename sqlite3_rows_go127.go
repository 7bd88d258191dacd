//go:build go1.27 && cgo

package sqlite3

import (
	"database/sql"
	"database/sql/driver"
	"time"
)

// From Go 1.27, database/sql scans through driver.RowsColumnScanner when a
// driver offers it: NextRow steps (one cgo call) and ScanColumn writes each
// column straight into the caller's destination, read from the bridge's row
// buffer. The common destinations (integers, floats, bool, string, []byte,
// sql.RawBytes, time.Time and their sql.Null forms) take no driver.Value boxing:
// numbers, booleans and times cost no allocation at all, a string or []byte
// one, of its own bytes only (so that a kept value keeps nothing else alive),
// and RawBytes none. An *any gets the value Next would have produced (its
// []byte is already the caller's own: no second copy). Everything else goes
// through sql.ConvertAssign with that value.
var _ driver.RowsColumnScanner = (*SQLiteRows)(nil)

// NextRow advances to the next row without converting it.
func (r *SQLiteRows) NextRow() error { return r.ackedEnd(r.step()) }

// ScanColumn stores column i of the current row in dest. sql.RawBytes points
// into SQLite's memory (or the bridge's copy of a short row stepped ahead),
// valid until the next NextRow or Close, as database/sql documents for RawBytes.
func (r *SQLiteRows) ScanColumn(scanCtx driver.ScanContext, i int, dest any) error {
	if r.done || r.closed || r.s.closed || r.s.c.closed.Load() {
		return driverError("no current row to scan")
	}
	if r.buf != nil && r.buf.i < 0 {
		return driverError("no current row to scan")
	}
	s := r.s
	if i < 0 || i >= len(s.run.cur) {
		return driverError("column index " + itoa(i) + " out of range")
	}
	col := &s.run.cur[i]
	class := r.classes()[i]
	switch d := dest.(type) {
	case *int64:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeInteger && class == classNone {
			*d = col.int64()
			return nil
		}
	case *int:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeInteger && class == classNone && int64(int(col.int64())) == col.int64() {
			*d = int(col.int64())
			return nil
		}
	case *int32:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if v := col.int64(); col.typ == typeInteger && class == classNone && int64(int32(v)) == v {
			*d = int32(v)
			return nil
		}
	case *float64:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeFloat {
			*d = col.float64()
			return nil
		}
	case *bool:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeInteger && class == classBool {
			*d = col.int64() > 0
			return nil
		}
	case *string:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeText && class == classNone {
			*d = string(col.bytes())
			return nil
		}
	case *[]byte:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeBlob || col.typ == typeText && class == classNone {
			*d = blobCopy(col.bytes())
			return nil
		}
	case *sql.RawBytes:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeText && class == classNone && col.n == 0 {
			// database/sql appends a string to the Rows' RawBytes buffer,
			// which gives nil while that buffer is nil, as mattn/go-sqlite3
			// and Go 1.26 show: its own rule, given the empty string.
			return sql.ConvertAssign(scanCtx, dest, "")
		}
		if col.typ == typeBlob || col.typ == typeText && class == classNone {
			b := col.bytes()
			if b == nil {
				b = []byte{}
			}
			*d = b[:len(b):len(b)]
			return nil
		}
	case *time.Time:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if t, ok := r.timeValue(col, class); ok {
			*d = t
			return nil
		}
	case *sql.NullInt64:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeNull {
			*d = sql.NullInt64{}
			return nil
		}
		if col.typ == typeInteger && class == classNone {
			*d = sql.NullInt64{Int64: col.int64(), Valid: true}
			return nil
		}
	case *sql.NullFloat64:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeNull {
			*d = sql.NullFloat64{}
			return nil
		}
		if col.typ == typeFloat {
			*d = sql.NullFloat64{Float64: col.float64(), Valid: true}
			return nil
		}
	case *sql.NullString:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeNull {
			*d = sql.NullString{}
			return nil
		}
		if col.typ == typeText && class == classNone {
			*d = sql.NullString{String: string(col.bytes()), Valid: true}
			return nil
		}
	case *sql.NullBool:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeNull {
			*d = sql.NullBool{}
			return nil
		}
		if col.typ == typeInteger && class == classBool {
			*d = sql.NullBool{Bool: col.int64() > 0, Valid: true}
			return nil
		}
	case *any:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		*d = r.value(i, class)
		return nil
	case *sql.NullTime:
		if d == nil {
			break // sql.ConvertAssign reports the nil destination
		}
		if col.typ == typeNull {
			*d = sql.NullTime{}
			return nil
		}
		if t, ok := r.timeValue(col, class); ok {
			*d = sql.NullTime{Time: t, Valid: true}
			return nil
		}
	}
	v := r.value(i, class)
	return sql.ConvertAssign(scanCtx, dest, v)
}

// timeValue reads a date/time column's value as Next would, when it is a time.
func (r *SQLiteRows) timeValue(col *rowCol, class uint8) (time.Time, bool) {
	if class != classTime {
		return time.Time{}, false
	}
	switch col.typ {
	case typeInteger:
		return unixTime(col.int64(), r.s.c.loc), true
	case typeText:
		return parseTime(col.bytes(), r.s.c.loc)
	}
	return time.Time{}, false
}
