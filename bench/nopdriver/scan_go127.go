//go:build go1.27

package nopdriver

import (
	"database/sql"
	"database/sql/driver"
	"io"
	"unsafe"
)

// From Go 1.27 database/sql scans through driver.RowsColumnScanner when the
// driver has it, which costs database/sql less per value than Next and its
// conversions: the floor has it too, so that it stays the least any driver
// can cost. A value lands in the common destinations by a type switch, the
// least a real driver does; anything else goes through sql.ConvertAssign.
var _ driver.RowsColumnScanner = (*rows)(nil)

func (r *rows) NextRow() error {
	if r.i >= r.a.Count {
		return io.EOF
	}
	r.cur = r.a.Rows[r.i%len(r.a.Rows)]
	r.i++
	return nil
}

func (r *rows) ScanColumn(ctx driver.ScanContext, i int, dest any) error {
	v := r.cur[i]
	switch d := dest.(type) {
	case *int64:
		if x, ok := v.(int64); ok {
			*d = x
			return nil
		}
	case *int:
		if x, ok := v.(int64); ok {
			*d = int(x)
			return nil
		}
	case *float64:
		if x, ok := v.(float64); ok {
			*d = x
			return nil
		}
	case *string:
		if x, ok := v.(string); ok {
			*d = x
			return nil
		}
	case *[]byte:
		if x, ok := v.([]byte); ok {
			*d = x // shared with every row: a floor copies nothing
			return nil
		}
	case *sql.RawBytes:
		switch x := v.(type) {
		case []byte:
			*d = x
			return nil
		case string:
			// RawBytes is read-only and valid until the next row: the canned
			// string's bytes serve, as a real driver's point into its memory.
			*d = unsafe.Slice(unsafe.StringData(x), len(x))
			return nil
		}
	case *sql.NullString:
		if v == nil {
			*d = sql.NullString{}
			return nil
		}
	}
	return sql.ConvertAssign(ctx, dest, v)
}
