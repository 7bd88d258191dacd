package sqlite3

// The cgo boundary of virtual tables (vtab.go): registration wrappers and the
// Go entry points that the C trampolines in bridge_vtab.c call for each
// sqlite3_module method.
//
// C holds a bridge_vref for the module, each table and each cursor: a
// runtime/cgo.Handle that keeps the Go object alive, and the object's address,
// pinned (runtime.Pinner) for as long as the handle lives, which C never
// dereferences: Go reads it back on every call instead of looking the handle
// up. Each is released exactly once, in the call after which SQLite no longer
// uses the C struct (module destructor, xDisconnect or successful xDestroy,
// xClose).

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// vref is the Go side of a bridge_vref.
type vref struct {
	handle cgo.Handle
	pin    runtime.Pinner
}

// hold fills r for obj, whose address is p (obj itself), and pins it.
func (v *vref) hold(r *C.bridge_vref, obj any, p unsafe.Pointer) {
	v.pin.Pin(p)
	v.handle = cgo.NewHandle(obj)
	r.handle = C.uintptr_t(v.handle)
	r.gov = p
	liveVTabHandles.Add(1)
}

// release undoes hold; r may already be freed memory (pass nil then).
func (v *vref) release(r *C.bridge_vref) {
	if r != nil {
		r.handle, r.gov = 0, nil
	}
	v.pin.Unpin()
	v.handle.Delete()
	liveVTabHandles.Add(-1)
}

// cCreateModule registers m with bridge_create_module
// (sqlite3_create_module_v2). SQLite's destructor releases m in every case,
// failure included.
func cCreateModule(h connHandle, name string, eponymousOnly bool, m *vtabModule) int {
	r := (*C.bridge_vref)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bridge_vref{}))))
	if r == nil {
		return sqliteNomem
	}
	m.ref.hold(r, m, unsafe.Pointer(m))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	epo := C.int(0)
	if eponymousOnly {
		epo = 1
	}
	return int(C.bridge_create_module(h.db, cname, epo, r))
}

// cDeclareVTab calls sqlite3_declare_vtab.
func cDeclareVTab(h connHandle, sql string) int {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	return int(C.sqlite3_declare_vtab(h.db, csql))
}

// vtabFail stores err's message in *dst (a zErrMsg, sqlite3_mprintf'd) and
// returns SQLITE_ERROR.
func vtabFail(m *vtabModule, dst **C.char, method string, err error) C.int {
	msg := m.errorMessage(method, err)
	C.bridge_vtab_error(dst, (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.int(len(msg)))
	return C.SQLITE_ERROR
}

// callbackDepth marks the connection as inside a callback while SQLite
// prepares a statement (xConnect, xBestIndex), as bridge_run does while it
// steps, so that SQL the callback runs on the connection sets the outer
// statement's SQL buffer aside (SQLiteConn.nest). It returns the undo.
func callbackDepth(c *SQLiteConn) func() {
	h := c.h
	if h == nil {
		return func() {}
	}
	h.depth++
	return func() { h.depth-- }
}

//export goVTabModuleDestroy
func goVTabModuleDestroy(r *C.bridge_vref) {
	m := (*vtabModule)(r.gov)
	m.destroy()
	m.ref.release(r)
}

//export goVTabConnect
func goVTabConnect(r *C.bridge_vref, create C.int, argc C.int, argv **C.char, vt *C.bridge_vtab, pzErr **C.char) C.int {
	m := (*vtabModule)(r.gov)
	args := make([]string, int(argc))
	for i, p := range unsafe.Slice(argv, int(argc)) {
		args[i] = C.GoString(p)
	}
	defer callbackDepth(m.c)()
	method := "Connect"
	if create != 0 {
		method = "Create"
	}
	t, err := m.connect(create != 0, args)
	if err != nil {
		return vtabFail(m, pzErr, method, err)
	}
	t.ref.hold(&vt.ref, t, unsafe.Pointer(t))
	return C.SQLITE_OK
}

//export goVTabBestIndex
func goVTabBestIndex(vt *C.bridge_vtab, info *C.sqlite3_index_info) C.int {
	t := (*vtabTable)(vt.ref.gov)
	cons := unsafe.Slice(info.aConstraint, int(info.nConstraint))
	csts := make([]InfoConstraint, len(cons))
	for i := range cons {
		csts[i] = InfoConstraint{Column: int(cons[i].iColumn), Op: Op(cons[i].op), Usable: cons[i].usable != 0}
	}
	ords := unsafe.Slice(info.aOrderBy, int(info.nOrderBy))
	obs := make([]InfoOrderBy, len(ords))
	for i := range ords {
		obs[i] = InfoOrderBy{Column: int(ords[i].iColumn), Desc: ords[i].desc != 0}
	}
	undo := callbackDepth(t.mod.c)
	res, err := t.bestIndex(csts, obs)
	undo()
	if err != nil {
		if _, ok := constraintCode(err); ok {
			return C.SQLITE_CONSTRAINT // this plan is not possible: SQLite tries others
		}
		return vtabFail(t.mod, &vt.base.zErrMsg, "BestIndex", err)
	}
	usage := unsafe.Slice(info.aConstraintUsage, len(cons))
	next := C.int(1)
	for i, used := range res.Used {
		// An argvIndex on a constraint that is not usable is an
		// "xBestIndex malfunction": such entries of Used are ignored.
		if used && csts[i].Usable {
			usage[i].argvIndex = next
			usage[i].omit = 1
			next++
		}
	}
	info.idxNum = C.int(res.IdxNum)
	if n := len(res.IdxStr); n > 0 {
		p := C.sqlite3_malloc64(C.sqlite3_uint64(n + 1))
		if p == nil {
			return C.SQLITE_NOMEM
		}
		b := unsafe.Slice((*byte)(p), n+1)
		copy(b, res.IdxStr)
		b[n] = 0
		info.idxStr = (*C.char)(p)
		info.needToFreeIdxStr = 1
	}
	if res.AlreadyOrdered {
		info.orderByConsumed = 1
	}
	if res.EstimatedCost > 0 {
		info.estimatedCost = C.double(res.EstimatedCost)
	}
	if res.EstimatedRows > 0 {
		rows := int64(math.MaxInt64)
		if res.EstimatedRows < math.MaxInt64 {
			rows = max(int64(res.EstimatedRows), 1)
		}
		info.estimatedRows = C.sqlite3_int64(rows)
	}
	return C.SQLITE_OK
}

//export goVTabDisconnect
func goVTabDisconnect(vt *C.bridge_vtab, destroy C.int) C.int {
	t := (*vtabTable)(vt.ref.gov)
	err := t.release(destroy != 0)
	if err != nil && destroy != 0 {
		// SQLite keeps the table and calls xDisconnect later: keep the handle.
		return vtabFail(t.mod, &vt.base.zErrMsg, "Destroy", err)
	}
	t.ref.release(&vt.ref)
	return C.SQLITE_OK
}

//export goVTabOpen
func goVTabOpen(vt *C.bridge_vtab, cur *C.bridge_vcursor) C.int {
	t := (*vtabTable)(vt.ref.gov)
	vc, err := t.open()
	if err != nil {
		return vtabFail(t.mod, &vt.base.zErrMsg, "Open", err)
	}
	vc.ref.hold(&cur.ref, vc, unsafe.Pointer(vc))
	return C.SQLITE_OK
}

//export goVTabClose
func goVTabClose(cur *C.bridge_vcursor) {
	vc := (*vtabCursor)(cur.ref.gov)
	vc.close()
	vc.ref.release(&cur.ref)
}

//export goVTabFilter
func goVTabFilter(cur *C.bridge_vcursor, idxNum C.int, idxStr *C.char, argc C.int, args *C.bridge_col) C.int {
	vc := (*vtabCursor)(cur.ref.gov)
	var s string
	if idxStr != nil {
		s = C.GoString(idxStr)
	}
	vals := vtabValues(unsafe.Slice((*rowCol)(unsafe.Pointer(args)), int(argc)))
	if err := vc.filter(int(idxNum), s, vals); err != nil {
		return vtabFail(vc.tab.mod, &cur.base.pVtab.zErrMsg, "Filter", err)
	}
	return C.SQLITE_OK
}

//export goVTabNext
func goVTabNext(cur *C.bridge_vcursor) C.int {
	vc := (*vtabCursor)(cur.ref.gov)
	if err := vc.next(); err != nil {
		return vtabFail(vc.tab.mod, &cur.base.pVtab.zErrMsg, "Next", err)
	}
	return C.SQLITE_OK
}

//export goVTabEof
func goVTabEof(cur *C.bridge_vcursor) C.int {
	vc := (*vtabCursor)(cur.ref.gov)
	eof, panicked := vc.eof()
	if panicked {
		// xEof cannot fail: the cursor's next call reports the panic, and
		// the interrupt stops a row that reads no column from being returned.
		if h := vc.tab.mod.c.h; h != nil {
			C.sqlite3_interrupt(h.db)
		}
	}
	if eof {
		return 1
	}
	return 0
}

//export goVTabColumn
func goVTabColumn(cur *C.bridge_vcursor, ctx *C.sqlite3_context, col C.int) C.int {
	vc := (*vtabCursor)(cur.ref.gov)
	if err := vc.column((*SQLiteContext)(ctx), int(col)); err != nil {
		return vtabFail(vc.tab.mod, &cur.base.pVtab.zErrMsg, "Column", err)
	}
	return C.SQLITE_OK
}

//export goVTabRowid
func goVTabRowid(cur *C.bridge_vcursor, rowid *C.sqlite3_int64) C.int {
	vc := (*vtabCursor)(cur.ref.gov)
	id, err := vc.rowid()
	if err != nil {
		return vtabFail(vc.tab.mod, &cur.base.pVtab.zErrMsg, "Rowid", err)
	}
	*rowid = C.sqlite3_int64(id)
	return C.SQLITE_OK
}

//export goVTabUpdate
func goVTabUpdate(vt *C.bridge_vtab, argc C.int, args *C.bridge_col, rowid *C.sqlite3_int64) C.int {
	t := (*vtabTable)(vt.ref.gov)
	id, err := t.update(vtabValues(unsafe.Slice((*rowCol)(unsafe.Pointer(args)), int(argc))))
	if err != nil {
		rc := vtabFail(t.mod, &vt.base.zErrMsg, "VTabUpdater", err)
		if code, ok := constraintCode(err); ok {
			rc = C.int(code)
		}
		return rc
	}
	*rowid = C.sqlite3_int64(id)
	return C.SQLITE_OK
}

// vtabValues converts values decoded by C to Go: int64, float64, string,
// []byte (a copy; an empty BLOB is an empty, non-nil slice) or nil for NULL.
func vtabValues(cols []rowCol) []any {
	if len(cols) == 0 {
		return nil
	}
	vals := make([]any, len(cols))
	for i := range cols {
		c := &cols[i]
		switch c.typ {
		case typeInteger:
			vals[i] = c.int64()
		case typeFloat:
			vals[i] = c.float64()
		case typeText:
			vals[i] = string(c.bytes())
		case typeBlob:
			vals[i] = append([]byte{}, c.bytes()...)
		}
	}
	return vals
}
