//go:build cgo

package sqlite3

// The parameter array is C memory the bridge binds from in the same call
// that runs the statement (bridge_bind.c): this file lays it out, and
// makes the few C calls that size it and hold large values.

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"
	"unsafe"
)

// largeValue is the size from which a TEXT or BLOB parameter gets its own C
// buffer that SQLite adopts (no second copy), instead of a copy through the
// connection's arena that SQLite copies again.
const largeValue = 64 << 10

// binder hands the arguments of one Exec or Query to its statements: positional
// arguments in order, as each statement needs them, named ones by name. By
// default it follows mattn/go-sqlite3: arguments no statement uses are
// ignored, and a parameter left without a value is NULL while the statement
// has as many arguments as parameters; with strict, both are errors.
type binder struct {
	args      []driver.NamedValue
	next      int // index in args of the next positional argument to consume
	named     int // number of named arguments, valid once counted
	usedNamed []bool
	counted   bool
	strict    bool
	taken     int // parameters of the statements bound so far: mattn's count of used arguments
}

func (b *binder) countNamed() int {
	if !b.counted {
		b.counted = true
		for i := range b.args {
			if b.args[i].Name != "" {
				b.named++
			}
		}
	}
	return b.named
}

// nextPositional returns the next unnamed argument.
func (b *binder) nextPositional() (*driver.NamedValue, bool) {
	for b.next < len(b.args) {
		a := &b.args[b.next]
		b.next++
		if a.Name == "" {
			return a, true
		}
	}
	return nil, false
}

// finish reports arguments that no statement used, with strict.
func (b *binder) finish() error {
	if !b.strict {
		return nil
	}
	for i := b.next; i < len(b.args); i++ {
		if b.args[i].Name == "" {
			return driverError("too many arguments: " + itoa(len(b.args)-b.countNamed()) + " positional arguments given, statements use " + itoa(b.positionalUsed()))
		}
	}
	if b.countNamed() > 0 {
		for i := range b.args {
			if b.args[i].Name != "" && (b.usedNamed == nil || !b.usedNamed[i]) {
				return driverError("no parameter named " + strconv.Quote(b.args[i].Name) + " (looked for :" + b.args[i].Name + ", @" + b.args[i].Name + " and $" + b.args[i].Name + ")")
			}
		}
	}
	return nil
}

// left reports whether arguments may still be reported as unused (strict):
// the last statement must then come to Go to be checked.
func (b *binder) left() bool { return b.strict && (b.next < len(b.args) || b.countNamed() > 0) }

func (b *binder) positionalUsed() int {
	n := 0
	for i := 0; i < b.next && i < len(b.args); i++ {
		if b.args[i].Name == "" {
			n++
		}
	}
	return n
}

// findNamed returns the named argument for parameter name (":x", "@x", "$x").
func (b *binder) findNamed(param string) (*driver.NamedValue, bool) {
	if len(param) < 2 || (param[0] != ':' && param[0] != '@' && param[0] != '$') {
		return nil, false
	}
	for i := range b.args {
		if b.args[i].Name != "" && b.args[i].Name == param[1:] {
			if b.usedNamed == nil {
				b.usedNamed = make([]bool, len(b.args))
			}
			b.usedNamed[i] = true
			return &b.args[i], true
		}
	}
	return nil, false
}

// bind lays the statement's parameter values out in the connection's C
// parameter array, ready for the one cgo call that binds and runs them. With
// last and strict, arguments left over are an error, reported before anything
// is written (a written large value is a C buffer that only that call frees).
func (s *SQLiteStmt) bind(b *binder, last bool) error {

	n := s.nparam
	if n == 0 {
		if last {
			return b.finish()
		}
		return nil
	}
	if rest := len(b.args) - b.next; rest >= n && (rest == n || !last || !b.strict) && b.countNamed() == 0 &&
		s.bindFast(b.args[b.next:b.next+n]) {
		b.next += n
		b.taken += n
		return nil
	}
	c := s.c
	// Pick the argument of every parameter first, so that nothing is written
	// to C memory (or malloc'd) before every value is known to be bindable.
	var small [16]driver.NamedValue
	picked := small[:0]
	if n > len(small) {
		picked = make([]driver.NamedValue, 0, n)
	}
	var arena int64
	for i := 0; i < n; i++ {
		var a *driver.NamedValue
		ok := false
		if b.countNamed() > 0 {
			a, ok = b.findNamed(s.paramName(i))
		}
		if !ok {
			if a, ok = b.nextPositional(); !ok {
				if b.strict {
					return driverError("not enough arguments: parameter " + itoa(i+1) + describeParam(s.paramName(i)) + " has no value (the query has " + itoa(n) + " parameters in this statement)")
				}
				if got := len(b.args) - b.taken; got < n {
					return errNotEnoughArgs(n, max(got, 0))
				}
				a = &nullArg
			}
		}
		size, err := argSize(a.Value)
		if err != nil {
			return argError(argName(a), err)
		}
		if size < largeValue {
			arena += size
		}
		picked = append(picked, *a)
	}
	if last {
		if err := b.finish(); err != nil {
			return err
		}
	}
	b.taken += n
	if rc := cReserve(c.h, n, arena); rc != sqliteOK {
		return Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
	}
	_, err := putArgs(argSlots(c.h)[:n], picked, argArena(c.h), false)
	return err
}

// bindFast is bind for the common case, in one pass: positional arguments,
// one per parameter, of the types putArgs writes without checks, their bytes
// fitting in the arena as it is. It reports false when it cannot, having
// written only the parameter array, which bind then writes again; nothing is
// allocated or left to free.
func (s *SQLiteStmt) bindFast(args []driver.NamedValue) bool {
	h := s.c.h
	if len(args) > int(h.args_cap) {
		return false
	}
	ok, _ := putArgs(argSlots(h)[:len(args)], args, argArena(h), true)
	return ok
}

// putArgs writes args[i] into slots[i]: numbers as they are, small TEXT and
// BLOB bytes copied into buf (which bind sized), large ones into a C buffer of
// their own. bind calls it for values argSize validated; with fast (bindFast),
// the first value argSize would check, large value or value that does not fit
// buf is refused (false) instead. On an error, no C buffer is left to free.
func putArgs(slots []argSlot, args []driver.NamedValue, buf []byte, fast bool) (bool, error) {
	used := 0
	for i := range args {
		slot := &slots[i]
		slot.own = 0
		slot.n = 0
		var b []byte
		switch v := args[i].Value.(type) {
		case nil:
			slot.typ = typeNull
			continue
		case int64:
			slot.setInteger(v)
			continue
		case float64:
			slot.setFloat(v)
			continue
		case int:
			slot.setInteger(int64(v))
			continue
		case bool:
			if v {
				slot.setInteger(1)
			} else {
				slot.setInteger(0)
			}
			continue
		case string:
			slot.typ = typeText
			b = unsafe.Slice(unsafe.StringData(v), len(v))
		case []byte:
			if v == nil {
				slot.typ = typeNull // mattn's convention: a nil []byte is NULL
				continue
			}
			slot.typ = typeBlob
			b = v
		case int32:
			slot.setInteger(int64(v))
			continue
		case int16:
			slot.setInteger(int64(v))
			continue
		case int8:
			slot.setInteger(int64(v))
			continue
		case uint8:
			slot.setInteger(int64(v))
			continue
		case uint16:
			slot.setInteger(int64(v))
			continue
		case uint32:
			slot.setInteger(int64(v))
			continue
		case float32:
			slot.setFloat(float64(v))
			continue
		case uint: // range checked by argSize
			if fast {
				return false, nil
			}
			slot.setInteger(int64(v))
			continue
		case uint64: // range checked by argSize
			if fast {
				return false, nil
			}
			slot.setInteger(int64(v))
			continue
		case time.Time:
			if fast {
				return false, nil
			}
			var tmp [64]byte
			slot.typ = typeText
			b = v.AppendFormat(tmp[:0], SQLiteTimestampFormats[0])
		case ZeroBlob: // blob.go; checked by argSize
			if fast {
				return false, nil
			}
			slot.setInteger(int64(v))
			slot.typ = typeZeroBlob
			continue
		default:
			return false, nil // bind never gets here: argSize refused it
		}
		if fast && (len(b) >= largeValue || len(b) > len(buf)-used) {
			return false, nil // bind gives it its own C buffer, or grows the arena
		}
		if err := putBytes(slot, b, buf, &used); err != nil {
			freeOwned(slots[:i])
			return false, err
		}
	}
	return true, nil
}

// argSize validates a value and returns the bytes it needs in the arena.
func argSize(v any) (int64, error) {
	switch v := v.(type) {
	case nil, int64, float64, bool, int, int32, int16, int8, uint8, uint16, uint32, float32:
		return 0, nil
	case uint:
		return 0, checkUint(uint64(v))
	case uint64:
		return 0, checkUint(v)
	case string:
		if len(v) > maxLength {
			return 0, errTooBig(len(v))
		}
		return int64(len(v)), nil
	case []byte:
		if len(v) > maxLength {
			return 0, errTooBig(len(v))
		}
		return int64(len(v)), nil
	case time.Time:
		return 64, nil
	case ZeroBlob:
		if v < 0 {
			return 0, driverError("negative ZeroBlob size " + strconv.FormatInt(int64(v), 10))
		}
		return 0, nil
	}
	return 0, driverError("unsupported type " + typeName(v) + "; bind nil, integers, floats, bool, string, []byte, time.Time or a driver.Valuer")
}

// errTooBig is SQLite's own error for a value over its length limit, with
// SQLite's words first: mattn/go-sqlite3 returns an Error with ErrTooBig and
// "string or blob too big" (SQLite refuses the bind there), and programs test
// the code or the text.
func errTooBig(n int) error {
	return Error{Code: ErrTooBig, ExtendedCode: ErrNoExtended(ErrTooBig), offset: -1,
		err: "string or blob too big: " + itoa(n) + " bytes, over SQLite's maximum length of " + itoa(maxLength) + " bytes"}
}

// argError says which argument err is about, keeping an Error an Error so that
// its code stays readable by a type assertion, as on mattn/go-sqlite3.
func argError(which string, err error) error {
	if e, ok := err.(Error); ok {
		e.err = e.err + " (argument " + which + ")"
		return e
	}
	return driverError("argument " + which + ": " + err.Error())
}

// putBytes points slot at a copy of b: in the arena when small, else in its own
// C buffer that SQLite takes over.
func putBytes(slot *argSlot, b []byte, arena []byte, used *int) error {
	slot.n = int64(len(b))
	if len(b) >= largeValue {
		p := cMalloc(b)
		if p == nil {
			return Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
		}
		slot.setPtr(p)
		slot.own = 1
		return nil
	}
	if len(b) == 0 {
		slot.setPtr(nil)
		return nil
	}
	dst := arena[*used : *used+len(b)]
	copy(dst, b)
	slot.setPtr(unsafe.Pointer(&dst[0]))
	*used += len(b)
	return nil
}

// freeOwned frees the C buffers of slots filled before a failure.
func freeOwned(slots []argSlot) {
	for i := range slots {
		if slots[i].own != 0 {
			cFree(*(*unsafe.Pointer)(unsafe.Pointer(&slots[i].v)))
			slots[i].own = 0
		}
	}
}

// paramName returns the name of parameter i (0-based), reading all names from
// SQLite the first time one is needed.
func (s *SQLiteStmt) paramName(i int) string {
	if s.params == nil {
		s.params = make([]string, s.nparam)
		for j := range s.params {
			s.params[j] = cParamName(s.h, j+1)
		}
	}
	return s.params[i]
}

func describeParam(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

func argName(a *driver.NamedValue) string {
	if a.Name != "" {
		return strconv.Quote(a.Name)
	}
	return strconv.Itoa(a.Ordinal)
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func uitoa(v uint64) string { return strconv.FormatUint(v, 10) }

// argSlot mirrors bridge_arg: one parameter's value as the bridge binds it.
type argSlot struct {
	v   [8]byte
	typ int32
	own int32
	n   int64
}

func (a *argSlot) setInteger(v int64) {
	a.typ = typeInteger
	*(*int64)(unsafe.Pointer(&a.v)) = v
}

func (a *argSlot) setFloat(v float64) {
	a.typ = typeFloat
	*(*float64)(unsafe.Pointer(&a.v)) = v
}
func (a *argSlot) setPtr(p unsafe.Pointer) {
	*(*unsafe.Pointer)(unsafe.Pointer(&a.v)) = p
}

// argSlot's layout must match bridge.h exactly.
var (
	_ [unsafe.Sizeof(C.bridge_arg{}) - unsafe.Sizeof(argSlot{})]struct{}
	_ [unsafe.Sizeof(argSlot{}) - unsafe.Sizeof(C.bridge_arg{})]struct{}
	_ [unsafe.Offsetof(C.bridge_arg{}.n) - unsafe.Offsetof(argSlot{}.n)]struct{}
	_ [unsafe.Offsetof(argSlot{}.n) - unsafe.Offsetof(C.bridge_arg{}.n)]struct{}
)

// cReserve calls bridge_reserve: room for nargs parameters and arena bytes.
func cReserve(h connHandle, nargs int, arena int64) int {
	if nargs <= int(h.args_cap) && arena <= int64(h.arena_cap) {
		return sqliteOK
	}
	return int(C.bridge_reserve(h, C.int(nargs), C.sqlite3_int64(arena)))
}

// cMalloc allocates a C buffer holding a copy of b, for a large parameter whose
// ownership passes to SQLite at bind (it frees it with free()).
func cMalloc(b []byte) unsafe.Pointer {
	p := C.malloc(C.size_t(len(b)))
	if p != nil {
		copy(unsafe.Slice((*byte)(p), len(b)), b)
	}
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }

// argSlots views the connection's parameter array (C memory).
func argSlots(h connHandle) []argSlot {
	return unsafe.Slice((*argSlot)(unsafe.Pointer(h.args)), int(h.args_cap))
}

// argArena views the connection's arena for small TEXT/BLOB parameters (C memory).
func argArena(h connHandle) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(h.arena)), int(h.arena_cap))
}

// checkUint rejects unsigned values that SQLite's signed 64-bit INTEGER
// cannot hold, rather than letting them wrap.
func checkUint(v uint64) error {
	if v > 1<<63-1 {
		return driverError("uint64 value " + uitoa(v) + " overflows SQLite's 64-bit signed INTEGER")
	}
	return nil
}

// errNotEnoughArgs is the error for a statement given fewer arguments than it
// has parameters, in mattn/go-sqlite3's words (programs compare the text), as
// an Error with SQLite's code for a parameter out of range.
func errNotEnoughArgs(want, got int) error {
	return Error{Code: ErrRange, ExtendedCode: ErrNoExtended(ErrRange), offset: -1,
		err: "not enough args to execute query: want " + strconv.Itoa(want) + " got " + strconv.Itoa(got)}
}

// nullArg binds NULL to a parameter that no argument names (see binder).
var nullArg driver.NamedValue
