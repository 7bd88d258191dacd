package sqlite3

// The cgo boundary of sessions and changesets (session.go): one wrapper per
// SQLite call or bridge_session.c helper, the decoding of a bridge_change,
// and the Go entry points that the apply trampolines call back. C never keeps a Go pointer: the apply's Go state is
// reached through a runtime/cgo.Handle, and a changeset that SQLite reads
// after the call returns (an iterator) or while Go callbacks run (apply) is
// copied into C memory first; other calls read the Go slice during the call.

/*
#include "bridge.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

type (
	sessionHandle = *C.bridge_session
	changesHandle = *C.bridge_changes
)

const (
	applyNoSavepoint = C.SQLITE_CHANGESETAPPLY_NOSAVEPOINT

	// maxChangeset is the largest changeset SQLite's int lengths allow.
	maxChangeset = 1<<31 - 1
)

// The constants of session.go must be SQLite's.
var (
	_ [int(ConflictData) - C.SQLITE_CHANGESET_DATA]struct{}
	_ [C.SQLITE_CHANGESET_DATA - int(ConflictData)]struct{}
	_ [int(ConflictNotFound) - C.SQLITE_CHANGESET_NOTFOUND]struct{}
	_ [C.SQLITE_CHANGESET_NOTFOUND - int(ConflictNotFound)]struct{}
	_ [int(ConflictConflict) - C.SQLITE_CHANGESET_CONFLICT]struct{}
	_ [C.SQLITE_CHANGESET_CONFLICT - int(ConflictConflict)]struct{}
	_ [int(ConflictConstraint) - C.SQLITE_CHANGESET_CONSTRAINT]struct{}
	_ [C.SQLITE_CHANGESET_CONSTRAINT - int(ConflictConstraint)]struct{}
	_ [int(ConflictForeignKey) - C.SQLITE_CHANGESET_FOREIGN_KEY]struct{}
	_ [C.SQLITE_CHANGESET_FOREIGN_KEY - int(ConflictForeignKey)]struct{}
	_ [int(ConflictOmit) - C.SQLITE_CHANGESET_OMIT]struct{}
	_ [C.SQLITE_CHANGESET_OMIT - int(ConflictOmit)]struct{}
	_ [int(ConflictReplace) - C.SQLITE_CHANGESET_REPLACE]struct{}
	_ [C.SQLITE_CHANGESET_REPLACE - int(ConflictReplace)]struct{}
	_ [int(ConflictAbort) - C.SQLITE_CHANGESET_ABORT]struct{}
	_ [C.SQLITE_CHANGESET_ABORT - int(ConflictAbort)]struct{}
)

// bytesPtr points at b's bytes (nil when empty), for a C call that reads them
// during the call only.
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// takeBytes copies SQLite's n bytes at p into a new Go slice and frees p
// (sqlite3_free).
func takeBytes(p unsafe.Pointer, n C.int) []byte {
	b := make([]byte, int(n))
	if p != nil {
		copy(b, unsafe.Slice((*byte)(p), int(n)))
		C.sqlite3_free(p)
	}
	return b
}

// ---- sessions ----

// cSessionCreate calls bridge_session_create (sqlite3session_create, and the
// session's place on the connection's list).
func cSessionCreate(h connHandle, schema string) (sessionHandle, int) {
	p, free := cStrings(schema)
	defer free()
	var s sessionHandle
	rc := C.bridge_session_create(h.db, p[0], &s)
	return s, int(rc)
}

// cSessionDelete calls bridge_session_delete (sqlite3session_delete); hook is
// the registry id of a pre-update hook that replaced the sessions', or 0.
func cSessionDelete(s sessionHandle, hook uintptr) { C.bridge_session_delete(s, C.uintptr_t(hook)) }

// cSessionAttach calls sqlite3session_attach; table "" attaches every table.
func cSessionAttach(s sessionHandle, table string) int {
	if table == "" {
		return int(C.sqlite3session_attach(s.s, nil))
	}
	p, free := cStrings(table)
	defer free()
	return int(C.sqlite3session_attach(s.s, p[0]))
}

// cSessionEnable calls sqlite3session_enable (v < 0: only reports).
func cSessionEnable(s sessionHandle, v int) bool { return C.sqlite3session_enable(s.s, C.int(v)) != 0 }

// cSessionIndirect calls sqlite3session_indirect (v < 0: only reports).
func cSessionIndirect(s sessionHandle, v int) bool {
	return C.sqlite3session_indirect(s.s, C.int(v)) != 0
}

// cSessionIsEmpty calls sqlite3session_isempty.
func cSessionIsEmpty(s sessionHandle) bool { return C.sqlite3session_isempty(s.s) != 0 }

// cSessionMemoryUsed calls sqlite3session_memory_used.
func cSessionMemoryUsed(s sessionHandle) int64 { return int64(C.sqlite3session_memory_used(s.s)) }

// cSessionChangeset calls sqlite3session_changeset or _patchset and copies
// the result into Go.
func cSessionChangeset(s sessionHandle, patchset bool) ([]byte, int) {
	var n C.int
	var p unsafe.Pointer
	var rc C.int
	if patchset {
		rc = C.sqlite3session_patchset(s.s, &n, &p)
	} else {
		rc = C.sqlite3session_changeset(s.s, &n, &p)
	}
	if rc != C.SQLITE_OK {
		return nil, int(rc)
	}
	return takeBytes(p, n), sqliteOK
}

// cSessionDiff calls sqlite3session_diff; msg is SQLite's message, if any.
func cSessionDiff(s sessionHandle, from, table string) (rc int, msg string) {
	p, free := cStrings(from, table)
	defer free()
	var m *C.char
	rc = int(C.sqlite3session_diff(s.s, p[0], p[1], &m))
	if m != nil {
		msg = C.GoString(m)
		C.sqlite3_free(unsafe.Pointer(m))
	}
	return rc, msg
}

// ---- changesets ----

// cChangesetInvert calls bridge_changeset_invert (a check, then
// sqlite3changeset_invert), reading b during the call.
func cChangesetInvert(b []byte) ([]byte, int) {
	var n C.int
	var p unsafe.Pointer
	if rc := C.bridge_changeset_invert(bytesPtr(b), C.int(len(b)), &n, &p); rc != C.SQLITE_OK {
		return nil, int(rc)
	}
	return takeBytes(p, n), sqliteOK
}

// cChangesetConcat combines changesets with a changegroup
// (sqlite3changegroup_new, _add for each, _output, _delete). _add copies
// what it keeps: each Go slice is read during its call only.
func cChangesetConcat(changesets [][]byte) ([]byte, int) {
	var g *C.sqlite3_changegroup
	if rc := C.sqlite3changegroup_new(&g); rc != C.SQLITE_OK {
		return nil, int(rc)
	}
	defer C.sqlite3changegroup_delete(g)
	for _, b := range changesets {
		if rc := C.sqlite3changegroup_add(g, C.int(len(b)), bytesPtr(b)); rc != C.SQLITE_OK {
			return nil, int(rc)
		}
	}
	var n C.int
	var p unsafe.Pointer
	if rc := C.sqlite3changegroup_output(g, &n, &p); rc != C.SQLITE_OK {
		return nil, int(rc)
	}
	return takeBytes(p, n), sqliteOK
}

// cChangesStart calls bridge_changes_start: a C copy of b and an iterator
// over it (sqlite3changeset_start).
func cChangesStart(b []byte) (changesHandle, int) {
	var it changesHandle
	rc := C.bridge_changes_start(bytesPtr(b), C.int(len(b)), &it)
	return it, int(rc)
}

// cChangesNext calls bridge_changes_next (sqlite3changeset_next, and the
// change described in it.change).
func cChangesNext(it changesHandle) int { return int(C.bridge_changes_next(it)) }

// cChangesFinish calls bridge_changes_finish (sqlite3changeset_finalize) and
// frees it.
func cChangesFinish(it changesHandle) int { return int(C.bridge_changes_finish(it)) }

// readChange decodes the iterator's current change into ch; prevTable is
// the previous change's table name, reused when it is the same.
func readChange(it changesHandle, ch *Change, prevTable string) {
	decodeChange(&it.change, ch, prevTable)
}

// decodeChange copies the change c describes (C memory, valid until the next
// change) into ch and returns its values' view, old values first, then new,
// then the conflicting row.
func decodeChange(c *C.bridge_change, ch *Change, prevTable string) []rowCol {
	n := int(c.ncol)
	ch.Table = cStringReuse(c.table, prevTable)
	ch.Op = int(c.op)
	ch.Indirect = c.indirect != 0
	if n == 0 {
		return nil
	}
	pk := unsafe.Slice((*byte)(unsafe.Pointer(c.pk)), n)
	ch.PrimaryKey = make([]bool, n)
	for i, f := range pk {
		ch.PrimaryKey[i] = f != 0
	}
	cols := unsafe.Slice((*rowCol)(unsafe.Pointer(c.cols)), 3*n)
	if ch.Op != SQLITE_INSERT {
		ch.Old = changeValues(cols[:n])
	}
	if ch.Op != SQLITE_DELETE {
		ch.New = changeValues(cols[n : 2*n])
	}
	return cols
}

// cStringReuse returns the NUL-terminated C string p as a Go string: prev
// itself when they are equal (consecutive changes of one table), without
// reading past p's terminator.
func cStringReuse(p *C.char, prev string) string {
	if p == nil {
		return ""
	}
	base := unsafe.Pointer(p)
	for i := 0; i < len(prev); i++ {
		if b := *(*byte)(unsafe.Add(base, i)); b == 0 || b != prev[i] {
			return C.GoString(p)
		}
	}
	if *(*byte)(unsafe.Add(base, len(prev))) != 0 {
		return C.GoString(p)
	}
	return prev
}

// ---- apply ----

// cChangesetApply calls bridge_changeset_apply (sqlite3changeset_apply_v2 on
// a C copy of b) with a's callbacks, reached through a cgo handle for the
// duration of the call. readRC reports a conflict that could not be
// described.
func cChangesetApply(h connHandle, b []byte, a *applyState, filter bool, flags int) (rc, readRC int) {
	handle := cgo.NewHandle(a)
	defer handle.Delete()
	var r C.int
	rc = int(C.bridge_changeset_apply(h, bytesPtr(b), C.int(len(b)), C.uintptr_t(handle), C.int(boolInt(filter)), C.int(flags), &r))
	return rc, int(r)
}

//export goChangesetFilter
func goChangesetFilter(handle C.uintptr_t, table *C.char) C.int {
	a := cgo.Handle(handle).Value().(*applyState)
	return C.int(a.callFilter(C.GoString(table)))
}

//export goChangesetConflict
func goChangesetConflict(handle C.uintptr_t, typ C.int, c *C.bridge_change) C.int {
	a := cgo.Handle(handle).Value().(*applyState)
	cf := &Conflict{Type: ConflictType(typ)}
	if cf.Type == ConflictForeignKey {
		cf.ForeignKeyViolations = int(c.nfk)
	} else {
		cols := decodeChange(c, &cf.Change, a.lastTable)
		a.lastTable = cf.Table
		if n := int(c.ncol); n > 0 && (cf.Type == ConflictData || cf.Type == ConflictConflict) {
			cf.Conflicting = changeValues(cols[2*n : 3*n])
		}
	}
	return C.int(a.callConflict(cf))
}
