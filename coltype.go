//go:build cgo

package sqlite3

import (
	"database/sql"
	"reflect"
	"strings"
)

// Column classes (classNone, classTime, classBool) are computed by the bridge
// once per statement from each column's declared type, with mattn's rule: the
// whole declared type, case-insensitively, is DATE, DATETIME or TIMESTAMP
// (time values) or BOOLEAN (bool values). Everything else is read by storage
// type alone.

var (
	typeNullInt64   = reflect.TypeOf(sql.NullInt64{})
	typeNullString  = reflect.TypeOf(sql.NullString{})
	typeRawBytes    = reflect.TypeOf(sql.RawBytes{})
	typeNullFloat64 = reflect.TypeOf(sql.NullFloat64{})
	typeNullBool    = reflect.TypeOf(sql.NullBool{})
	typeNullTime    = reflect.TypeOf(sql.NullTime{})
	typeAny         = reflect.TypeOf(new(any))
)

// scanType maps a declared type to the Go type database/sql should scan it
// into, as mattn/go-sqlite3 does: SQLite's affinity rules, plus the date/time
// and boolean names.
func scanType(decl string) reflect.Type {
	t := strings.ToUpper(decl)
	switch {
	case strings.Contains(t, "INT"):
		return typeNullInt64
	case t == "CLOB" || t == "TEXT" || strings.Contains(t, "CHAR"):
		return typeNullString
	case t == "BLOB":
		return typeRawBytes
	case t == "REAL" || t == "FLOAT" || strings.Contains(t, "DOUBLE"):
		return typeNullFloat64
	case t == "DATE" || t == "DATETIME" || t == "TIMESTAMP":
		return typeNullTime
	case t == "NUMERIC" || strings.Contains(t, "DECIMAL"):
		return typeNullFloat64
	case t == "BOOLEAN":
		return typeNullBool
	}
	return typeAny
}

// Column type classes of mattn/go-sqlite3's scan-type mapping, kept for
// compatibility. They are not SQLite's fundamental type codes.
const (
	SQLITE_INTEGER = iota
	SQLITE_TEXT
	SQLITE_BLOB
	SQLITE_REAL
	SQLITE_NUMERIC
	SQLITE_TIME
	SQLITE_BOOL
	SQLITE_NULL
)
