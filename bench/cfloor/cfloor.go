// Package cfloor runs the C program's workloads (bench/c/bench.c) one
// operation per call, for bench/cmd/cfloor: the nop driver of package
// nopdriver plus SQLite's own work, through one cgo call per database/sql
// operation. It compiles its own copy of the vendored amalgamation, with the
// driver's compile options only when built by bench/cmd/compare, which passes
// them in CGO_CFLAGS (BuiltWithDriverOptions tells).
package cfloor

/*
#cgo CFLAGS: -I${SRCDIR}/../..
#cgo linux LDFLAGS: -lpthread -ldl -lm
#include <stdlib.h>
#include "cfloor.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func check(rc C.int) error {
	if rc != 0 {
		return errors.New("cfloor: " + C.GoString(C.cf_error()))
	}
	return nil
}

// Ops returns the C ops for workload.FloorAnswers.
func Ops() workload.FloorOps {
	return workload.FloorOps{
		WideSetup:  func() error { return check(C.cf_wide_setup()) },
		IntSetup:   func() error { return check(C.cf_int_setup()) },
		PointSetup: func() error { return check(C.cf_point_setup()) },
		Exec:       func() error { return check(C.cf_exec()) },
		Query:      func() error { return check(C.cf_query()) },
		Params:     func() error { return check(C.cf_params()) },
		Rows:       func() error { return check(C.cf_rows()) },
		Stmt10Cols: func() error { return check(C.cf_stmt10cols()) },
		ExecStep:   func() error { return check(C.cf_exec_step()) },
		QueryStep:  func() error { return check(C.cf_query_step()) },
		Custom:     func() error { return check(C.cf_custom()) },
		WideScan:   func() error { return check(C.cf_wide_scan()) },
		IntScan:    func() error { return check(C.cf_int_scan()) },
		Tiny:       func(key int64) error { return check(C.cf_tiny(C.int64_t(key))) },
		BatchExec: func(sql string) error {
			s := C.CString(sql)
			defer C.free(unsafe.Pointer(s))
			return check(C.cf_batch_exec(s))
		},
		BatchRow: func(id int64) error { return check(C.cf_batch_row(C.int64_t(id))) },
		PointOpen: func() (any, error) {
			// A C pointer (not Go memory), kept by the Go connection.
			w := C.cf_point_open()
			if w == nil {
				return nil, check(-1)
			}
			return w, nil
		},
		Point: func(w any, key int64) error {
			return check(C.cf_point(w.(unsafe.Pointer), C.int64_t(key)))
		},
		PointClose: func(w any) { C.cf_point_close(w.(unsafe.Pointer)) },
	}
}

// BatchCount returns the number of rows in the C side's batch table.
func BatchCount() (int64, error) {
	var n C.int64_t
	err := check(C.cf_batch_count(&n))
	return int64(n), err
}

// BuiltWithDriverOptions reports whether SQLite here was compiled with the
// driver's options (two of them are checked).
func BuiltWithDriverOptions() bool { return C.cf_built_with_driver_options() != 0 }

// Cleanup removes the point lookups' database file.
func Cleanup() { C.cf_cleanup() }
