package sqlite3

// The cgo boundary of user-defined functions, aggregates, window functions and
// collations (func.go): registration wrappers, the view of one call that Go
// reads and writes without further cgo calls, SQLiteContext, and the Go entry
// points that the C trampolines in bridge_func.c call back.
//
// SQLite's user data for each is a bridge_udf in C memory. It holds a
// runtime/cgo.Handle, which owns the Go side (a *udf) and is released by
// SQLite's destructor, and the same *udf as a pinned pointer (runtime.Pinner,
// unpinned just before the handle is released), which C never dereferences:
// Go reads it back on every call instead of looking the handle up (a
// sync.Map load) every time.

/*
#include "bridge.h"
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"sync/atomic"
	"unsafe"
)

// Call kinds (bridge.h BRIDGE_CALL_*).
const (
	callFunc    = C.BRIDGE_CALL_FUNC
	callStep    = C.BRIDGE_CALL_STEP
	callInverse = C.BRIDGE_CALL_INVERSE
	callValue   = C.BRIDGE_CALL_VALUE
	callFinal   = C.BRIDGE_CALL_FINAL

	resultNone = C.BRIDGE_RESULT_NONE

	flagUTF8          = C.SQLITE_UTF8
	flagDeterministic = C.SQLITE_DETERMINISTIC

	// smallResult is the largest TEXT or BLOB result copied into the
	// function's C scratch buffer and set by C after Go returns. Larger ones
	// are set by a cgo call from Go, which SQLite copies once.
	smallResult = 4 << 10
)

// liveUDFHandles counts the cgo handles held for registered functions,
// aggregates and collations: SQLite's destructors release them when a
// function is replaced or the connection closes.
var liveUDFHandles atomic.Int64

// udf is the Go side of a registered function, aggregate or collation: one
// of fn, agg and coll is set.
type udf struct {
	fn   *funcInfo
	agg  *aggInfo
	coll *collation
	pin  runtime.Pinner // pins the udf itself while C holds its address
}

// newUDF allocates the bridge_udf (C memory) for v, with the handle that owns
// v. It returns nil, releasing everything, when C memory is exhausted.
func newUDF(v *udf) *C.bridge_udf {
	u := (*C.bridge_udf)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bridge_udf{}))))
	if u == nil {
		return nil
	}
	v.pin.Pin(v)
	u.handle = C.uintptr_t(cgo.NewHandle(v))
	u.gov = unsafe.Pointer(v)
	liveUDFHandles.Add(1)
	return u
}

// cCreateFunction registers v with bridge_create_function:
// sqlite3_create_function_v2, or sqlite3_create_window_function for kind
// callInverse. SQLite's destructor releases v in every case, failure included.
func cCreateFunction(h connHandle, name string, nArg, flags, kind int, v *udf) int {
	u := newUDF(v)
	if u == nil {
		return sqliteNomem
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return int(C.bridge_create_function(h, cname, C.int(nArg), C.int(flags), C.int(kind), u))
}

// cCreateCollation registers v with sqlite3_create_collation_v2; nil removes
// the collation.
func cCreateCollation(h connHandle, name string, v *udf) int {
	var u *C.bridge_udf
	if v != nil {
		if u = newUDF(v); u == nil {
			return sqliteNomem
		}
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return int(C.bridge_create_collation(h, cname, u))
}

//export goFuncDestroy
func goFuncDestroy(handle C.uintptr_t) {
	h := cgo.Handle(handle)
	h.Value().(*udf).pin.Unpin()
	h.Delete()
	liveUDFHandles.Add(-1)
}

//export goFuncCall
func goFuncCall(call *C.bridge_fcall) {
	f := fcall{c: call, args: unsafe.Slice((*rowCol)(unsafe.Pointer(call.args)), int(call.argc))}
	var agg *aggInfo
	returned := false
	defer func() {
		if !returned { // a panic: recover is only called then, it is not free
			recoverCall(f, agg, recover())
		}
	}()
	if u := (*udf)(call.udf.gov); u.fn != nil {
		f.name, f.strict = u.fn.name, u.fn.strict
		u.fn.call(f)
	} else {
		f.name, f.strict, agg = u.agg.name, u.agg.strict, u.agg
		agg.dispatch(f)
	}
	returned = true
}

//export goCollate
func goCollate(u *C.bridge_udf, n1 C.int, p1 unsafe.Pointer, n2 C.int, p2 unsafe.Pointer) C.int {
	coll := (*udf)(u.gov).coll
	r := coll.compare(unsafe.Slice((*byte)(p1), int(n1)), unsafe.Slice((*byte)(p2), int(n2)))
	if r == collationPanicked {
		// A comparison cannot fail, so stop the statement (SQLITE_INTERRUPT)
		// rather than let it go on with a wrong order.
		C.sqlite3_interrupt(coll.h.db)
		return 0
	}
	return C.int(r)
}

// fcall is one call of a function, an aggregate step or a window callback:
// the arguments decoded by C (SQLite's memory, valid during the call), and
// the result, left for C to hand to SQLite. It is passed by value: the state
// it changes is C memory.
type fcall struct {
	c      *C.bridge_fcall
	args   []rowCol
	name   string // the SQL name, for error messages
	strict bool   // the connection's _strict: out-of-range integers and dropped errors fail the call
}

func (f fcall) kind() int { return int(f.c.kind) }

// context is the call's sqlite3_context, for setting a result directly.
func (f fcall) context() *SQLiteContext { return (*SQLiteContext)(f.c.ctx) }

// aggID is the aggregate instance id stored in SQLite's aggregate context
// (0 until set), or nil in an xFinal that no xStep preceded.
func (f fcall) aggID() *int64 { return (*int64)(unsafe.Pointer(f.c.agg)) }

func (f fcall) setInt64(v int64) {
	*(*int64)(unsafe.Pointer(&f.c.r)) = v
	f.c.rtype = typeInteger
}

func (f fcall) setFloat64(v float64) {
	*(*float64)(unsafe.Pointer(&f.c.r)) = v
	f.c.rtype = typeFloat
}

func (f fcall) setNull() { f.c.rtype = typeNull }

func (f fcall) setBool(v bool) {
	if v {
		f.setInt64(1)
	} else {
		f.setInt64(0)
	}
}

func (f fcall) setText(s string) { f.setBytes(unsafe.StringData(s), len(s), typeText) }

// setBlob sets a BLOB result; an empty one is NULL, as in mattn/go-sqlite3.
func (f fcall) setBlob(b []byte) {
	if len(b) == 0 {
		f.setNull()
		return
	}
	f.setBytes(unsafe.SliceData(b), len(b), typeBlob)
}

// setBytes copies a small value into the function's C scratch buffer for C to
// set after Go returns (no cgo call), and sets a large one at once.
func (f fcall) setBytes(p *byte, n int, typ int32) {
	c := f.c
	if n <= smallResult {
		u := c.udf
		if int64(n) > int64(u.buf_cap) && C.bridge_udf_reserve(u, smallResult) != sqliteOK {
			f.fail("out of memory", int(ErrNomem))
			return
		}
		if n > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(u.buf)), n), unsafe.Slice(p, n))
		}
		*(*unsafe.Pointer)(unsafe.Pointer(&c.r)) = unsafe.Pointer(u.buf)
		c.rn = C.sqlite3_int64(n)
		c.rtype = C.int32_t(typ)
		return
	}
	C.bridge_result_bytes(c.ctx, unsafe.Pointer(p), C.sqlite3_int64(n), C.int(typ))
	c.rtype = resultNone
}

// fail makes the call's result an error with message msg and, unless 0, the
// (extended) result code code; the statement stops with that error.
func (f fcall) fail(msg string, code int) {
	C.bridge_result_error(f.c.ctx, (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.int(len(msg)), C.int(code))
	f.c.rtype = resultNone
	f.c.failed = 1
}

// failed reports whether the call's result is an error.
func (f fcall) failed() bool { return f.c.failed != 0 }

// SQLiteContext is the context of a call of an SQL function
// (sqlite3_context); its methods set the call's result
// (https://sqlite.org/c3ref/result_blob.html). Each is one cgo call.
type SQLiteContext C.sqlite3_context

func (c *SQLiteContext) ctx() *C.sqlite3_context { return (*C.sqlite3_context)(c) }

// ResultBool sets the result to the INTEGER 1 or 0.
func (c *SQLiteContext) ResultBool(b bool) {
	if b {
		c.ResultInt64(1)
	} else {
		c.ResultInt64(0)
	}
}

// ResultBlob sets the result to a copy of b (sqlite3_result_blob64,
// SQLITE_TRANSIENT); an empty b is NULL, as in mattn/go-sqlite3. Beyond
// SQLite's length limit the result is an SQLITE_TOOBIG error.
func (c *SQLiteContext) ResultBlob(b []byte) {
	if len(b) == 0 {
		c.ResultNull()
		return
	}
	C.bridge_result_bytes(c.ctx(), unsafe.Pointer(unsafe.SliceData(b)), C.sqlite3_int64(len(b)), typeBlob)
}

// ResultDouble sets the result to a REAL (sqlite3_result_double).
func (c *SQLiteContext) ResultDouble(d float64) { C.sqlite3_result_double(c.ctx(), C.double(d)) }

// ResultInt sets the result to an INTEGER (sqlite3_result_int64).
func (c *SQLiteContext) ResultInt(i int) { c.ResultInt64(int64(i)) }

// ResultInt64 sets the result to an INTEGER (sqlite3_result_int64).
func (c *SQLiteContext) ResultInt64(i int64) { C.sqlite3_result_int64(c.ctx(), C.sqlite3_int64(i)) }

// ResultNull sets the result to NULL (sqlite3_result_null).
func (c *SQLiteContext) ResultNull() { C.sqlite3_result_null(c.ctx()) }

// ResultText sets the result to a copy of s, NUL bytes included
// (sqlite3_result_text64, SQLITE_TRANSIENT). Beyond SQLite's length limit the
// result is an SQLITE_TOOBIG error.
func (c *SQLiteContext) ResultText(s string) {
	C.bridge_result_bytes(c.ctx(), unsafe.Pointer(unsafe.StringData(s)), C.sqlite3_int64(len(s)), typeText)
}

// ResultZeroblob sets the result to a BLOB of n zero bytes, without
// allocating them (sqlite3_result_zeroblob64; n < 0 is 0).
func (c *SQLiteContext) ResultZeroblob(n int) {
	if n < 0 {
		n = 0
	}
	C.sqlite3_result_zeroblob64(c.ctx(), C.sqlite3_uint64(n))
}
