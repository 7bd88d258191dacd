package sqlite3

// The cgo boundary of direct.go (bridge_direct.c).
// The per-row calls take the bridge_direct as an integer, as bridge.go's do
// for statements: it is C memory, and cgo checks pointer arguments. The calls
// that run the statement arm the connection for its run (gen), and, made from
// a callback of another statement's step, put that step's arming back after
// (nestedArming), as cStep does.

/*
#include "bridge.h"
*/
import "C"

import "unsafe"

type directHandle = *C.bridge_direct

const (
	directReset = C.BRIDGE_DIRECT_RESET
	directClear = C.BRIDGE_DIRECT_CLEAR
	directBind  = C.BRIDGE_DIRECT_BIND
)

// cDirectNew calls bridge_direct_new: nil when out of memory.
func cDirectNew(s stmtHandle) directHandle { return C.bridge_direct_new(s) }

// cDirectFree calls bridge_direct_free. It touches no statement or
// connection, so a cleanup may run it at any time.
func cDirectFree(d directHandle) { C.bridge_direct_free(d) }

// cDirectReserve calls bridge_direct_reserve: an arena of n bytes (its
// contents are lost) and room for rows of bulk values.
func cDirectReserve(d directHandle, n int64, rows int) int {
	return int(C.bridge_direct_reserve(d, C.sqlite3_int64(n), C.int(rows)))
}

// cDirectPrepareRun calls bridge_direct_prepare_run: reset, clear and bind as
// flags say, without stepping.
func cDirectPrepareRun(d directHandle, flags int) int {
	return int(C.bridge_direct_prepare_run(d, C.int(flags)))
}

// cDirectStep calls bridge_direct_step: flags, then sqlite3_step and the row.
func cDirectStep(d directHandle, flags int, gen uint64) int {
	h := d.s.conn
	outer, nested := nestedArming(h)
	rc := C.bridge_direct_step_h(directInt(d), C.int(flags), C.uint64_t(gen))
	if nested {
		outer.restore(h)
	}
	return int(rc)
}

// cDirectStepBatch calls bridge_direct_step_batch: flags, then up to max
// rows of a read-only statement into its batch buffer; the number of rows.
func cDirectStepBatch(d directHandle, flags int, gen uint64, max int) int {
	h := d.s.conn
	outer, nested := nestedArming(h)
	n := C.bridge_direct_step_batch_h(directInt(d), C.int(flags), C.uint64_t(gen), C.int(max))
	if nested {
		outer.restore(h)
	}
	return int(n)
}

// cDirectFormat calls bridge_direct_format: SQLite's text of a FLOAT, in the
// statement's C buffer until the next call.
func cDirectFormat(d directHandle, v float64) []byte {
	n := C.bridge_direct_format(d, C.double(v))
	return unsafe.Slice((*byte)(unsafe.Pointer(&d.num[0])), int(n))
}

// cDirectExec calls bridge_direct_exec: flags, step to the end, reset.
func cDirectExec(d directHandle, flags int, gen uint64) int {
	h := d.s.conn
	outer, nested := nestedArming(h)
	rc := C.bridge_direct_exec_h(directInt(d), C.int(flags), C.uint64_t(gen))
	if nested {
		outer.restore(h)
	}
	return int(rc)
}

// cDirectExecRows calls bridge_direct_exec_rows: n rows of values, each run
// to its end, in one call. It returns the result and the rows completed.
func cDirectExecRows(d directHandle, n int, gen uint64) (int, int) {
	h := d.s.conn
	outer, nested := nestedArming(h)
	rc := C.bridge_direct_exec_rows_h(directInt(d), C.int(n), C.uint64_t(gen))
	if nested {
		outer.restore(h)
	}
	return int(rc), int(d.done)
}

func directInt(d directHandle) C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(d))) }

// directArgs views the statement's parameter values (C memory).
func directArgs(d directHandle) []argSlot {
	return unsafe.Slice((*argSlot)(unsafe.Pointer(d.args)), int(d.nargs))
}

// directArena views the arena of TEXT/BLOB parameter bytes (C memory).
func directArena(d directHandle) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(d.arena)), int(d.arena_cap))
}

// directRows views the bulk values: rows_cap rows of nargs (C memory).
func directRows(d directHandle) []argSlot {
	return unsafe.Slice((*argSlot)(unsafe.Pointer(d.rows)), int(d.rows_cap)*int(d.nargs))
}

// cColumnInt64 calls sqlite3_column_int64: SQLite's conversion of a TEXT or
// BLOB value of the current row.
func cColumnInt64(s stmtHandle, i int) int64 {
	return int64(C.sqlite3_column_int64(s.stmt, C.int(i)))
}

// cColumnDouble calls sqlite3_column_double (as cColumnInt64).
func cColumnDouble(s stmtHandle, i int) float64 {
	return float64(C.sqlite3_column_double(s.stmt, C.int(i)))
}

// cColumnText calls sqlite3_column_text and sqlite3_column_bytes: SQLite's
// text of a FLOAT value, valid until the next step; nil when out of memory.
func cColumnText(s stmtHandle, i int) []byte {
	p := C.sqlite3_column_text(s.stmt, C.int(i))
	n := C.sqlite3_column_bytes(s.stmt, C.int(i))
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}
