//go:build cgo

package sqlite3

// The Bind methods of DirectStmt (direct.go).

import (
	"database/sql/driver"
	"strconv"
	"time"
	"unsafe"
)

// BindParameterCount returns the number of parameters
// (sqlite3_bind_parameter_count, https://sqlite.org/c3ref/bind_parameter_count.html).
func (ds *DirectStmt) BindParameterCount() int { return len(ds.args) }

// BindParameterName returns the name of parameter i, 1-based, with its
// prefix (":a", "@a", "$a", "?1"), or "" for a nameless one or an index out
// of range (sqlite3_bind_parameter_name). The names are read once.
func (ds *DirectStmt) BindParameterName(i int) string {
	if ds.final || ds.c.closed.Load() || i < 1 || i > len(ds.args) {
		return ""
	}
	if ds.s.params == nil {
		defer ds.c.core.unlock(ds.c.core.lock()) // the first call reads them
		if ds.c.closed.Load() {
			return ""
		}
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
// emptied. Small enough to be inlined into the Bind methods: the checks are
// one branch in the common case, and the reason is worked out only on error.
func (ds *DirectStmt) slot(i int) (*argSlot, error) {
	if ds.state != directReady || uint(i-1) >= uint(len(ds.args)) || ds.c.closed.Load() {
		return nil, ds.bindable(i)
	}
	return ds.take(i), nil
}

// take empties the slot of parameter i, which bindable accepted.
func (ds *DirectStmt) take(i int) *argSlot {
	a := &ds.args[i-1]
	if a.own != 0 {
		freeOwned(ds.args[i-1 : i]) // a value of 64 KiB or more bound since the last run
	}
	a.n = 0
	ds.flags |= directBind
	ds.dirty = true
	return a
}

// bindable reports why parameter i cannot be bound now (nil if it can).
func (ds *DirectStmt) bindable(i int) error {
	if err := ds.check(); err != nil {
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
	if ds.state != directReady || uint(i-1) >= uint(len(ds.args)) || ds.c.closed.Load() {
		return ds.bindable(i)
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
	a := ds.take(i)
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
	defer ds.c.core.unlock(ds.c.core.lock())
	if err := ds.usable(); err != nil {
		return err
	}
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
