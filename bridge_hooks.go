package sqlite3

// The cgo boundary of hooks, the authorizer, tracing and busy handlers: the
// wrappers hooks.go and trace.go call, and the Go entry points that the C
// trampolines in bridge_hooks.c (the busy handler's in bridge_share_queue.c)
// call back. C never holds a Go pointer: it holds registry ids (hookCallbacks)
// and hands them back; an id whose Go side is gone makes the entry point do
// nothing.

/*
#include "bridge.h"
*/
import "C"

import (
	"time"
	"unsafe"
)

// The constants of hooks.go and trace.go must be SQLite's.
var (
	_ [SQLITE_DELETE - C.SQLITE_DELETE]struct{}
	_ [C.SQLITE_DELETE - SQLITE_DELETE]struct{}
	_ [SQLITE_INSERT - C.SQLITE_INSERT]struct{}
	_ [C.SQLITE_INSERT - SQLITE_INSERT]struct{}
	_ [SQLITE_UPDATE - C.SQLITE_UPDATE]struct{}
	_ [C.SQLITE_UPDATE - SQLITE_UPDATE]struct{}
	_ [SQLITE_DENY - C.SQLITE_DENY]struct{}
	_ [C.SQLITE_DENY - SQLITE_DENY]struct{}
	_ [SQLITE_IGNORE - C.SQLITE_IGNORE]struct{}
	_ [C.SQLITE_IGNORE - SQLITE_IGNORE]struct{}
	_ [SQLITE_COPY - C.SQLITE_COPY]struct{}
	_ [C.SQLITE_COPY - SQLITE_COPY]struct{}
	_ [SQLITE_SAVEPOINT - C.SQLITE_SAVEPOINT]struct{}
	_ [C.SQLITE_SAVEPOINT - SQLITE_SAVEPOINT]struct{}
	_ [SQLITE_CREATE_VTABLE - C.SQLITE_CREATE_VTABLE]struct{}
	_ [C.SQLITE_CREATE_VTABLE - SQLITE_CREATE_VTABLE]struct{}
	_ [SQLITE_DROP_VTABLE - C.SQLITE_DROP_VTABLE]struct{}
	_ [C.SQLITE_DROP_VTABLE - SQLITE_DROP_VTABLE]struct{}
	_ [SQLITE_FUNCTION - C.SQLITE_FUNCTION]struct{}
	_ [C.SQLITE_FUNCTION - SQLITE_FUNCTION]struct{}
	_ [SQLITE_READ - C.SQLITE_READ]struct{}
	_ [C.SQLITE_READ - SQLITE_READ]struct{}
	_ [TraceStmt - C.SQLITE_TRACE_STMT]struct{}
	_ [C.SQLITE_TRACE_STMT - TraceStmt]struct{}
	_ [TraceProfile - C.SQLITE_TRACE_PROFILE]struct{}
	_ [C.SQLITE_TRACE_PROFILE - TraceProfile]struct{}
	_ [TraceRow - C.SQLITE_TRACE_ROW]struct{}
	_ [C.SQLITE_TRACE_ROW - TraceRow]struct{}
	_ [TraceClose - C.SQLITE_TRACE_CLOSE]struct{}
	_ [C.SQLITE_TRACE_CLOSE - TraceClose]struct{}
)

// cCommitHook calls sqlite3_commit_hook through bridge_commit_hook (id 0: remove).
func cCommitHook(h connHandle, id uintptr) { C.bridge_commit_hook(h, C.uintptr_t(id)) }

// cCountCommits makes the connection's commit hook count its commits
// (replicate.go), for as long as the connection lives.
func cCountCommits(h connHandle) { C.bridge_count_commits(h) }

// cCommits is the count cCountCommits started: a read of the bridge's
// memory, no cgo call.
func cCommits(h connHandle) uint64 { return uint64(h.commits) }

// connWaits are the bridge's counters of what a connection's operations
// waited for and ran (bridge_conn.busy_ns...), for the tracer.
type connWaits struct {
	busy, held, checkpoint        time.Duration
	busyWaits, helds, checkpoints int64
}

// cWaits reads the connection's connWaits: a read of the bridge's memory,
// no cgo call.
func cWaits(h connHandle) connWaits {
	return connWaits{time.Duration(h.busy_ns), time.Duration(h.held_ns), time.Duration(h.checkpoint_ns),
		int64(h.busy_waits), int64(h.helds), int64(h.checkpoints)}
}

// sub is what w counted since was.
func (w connWaits) sub(was connWaits) connWaits {
	return connWaits{w.busy - was.busy, w.held - was.held, w.checkpoint - was.checkpoint,
		w.busyWaits - was.busyWaits, w.helds - was.helds, w.checkpoints - was.checkpoints}
}

// cRollbackHook calls sqlite3_rollback_hook.
func cRollbackHook(h connHandle, id uintptr) { C.bridge_rollback_hook(h.db, C.uintptr_t(id)) }

// cUpdateHook calls sqlite3_update_hook.
func cUpdateHook(h connHandle, id uintptr) { C.bridge_update_hook(h.db, C.uintptr_t(id)) }

// cPreUpdateHook calls sqlite3_preupdate_hook.
func cPreUpdateHook(h connHandle, id uintptr) { C.bridge_preupdate_hook(h.db, C.uintptr_t(id)) }

// cSetAuthorizer calls sqlite3_set_authorizer (which expires every prepared
// statement, so that each is authorized again when it next runs).
func cSetAuthorizer(h connHandle, id uintptr) int {
	return int(C.bridge_set_authorizer(h.db, C.uintptr_t(id)))
}

// cWALHook calls sqlite3_wal_hook, or sqlite3_wal_autocheckpoint(1000) for id 0.
func cWALHook(h connHandle, id uintptr) { C.bridge_wal_hook(h.db, C.uintptr_t(id)) }

// cTrace calls sqlite3_trace_v2.
func cTrace(h connHandle, mask uint32, id uintptr) int {
	return int(C.bridge_trace(h.db, C.uint(mask), C.uintptr_t(id)))
}

// cPreUpdateCount calls sqlite3_preupdate_count.
func cPreUpdateCount(h connHandle) int { return int(C.sqlite3_preupdate_count(h.db)) }

// cPreUpdateDepth calls sqlite3_preupdate_depth.
func cPreUpdateDepth(h connHandle) int { return int(C.sqlite3_preupdate_depth(h.db)) }

// cPreUpdateRow calls bridge_preupdate_row: sqlite3_preupdate_old or _new for
// every column of out, in one call. The TEXT and BLOB pointers left in out are
// SQLite's, valid until the hook returns.
func cPreUpdateRow(h connHandle, isNew bool, out []rowCol) int {
	if len(out) == 0 {
		return sqliteOK
	}
	n := C.int(0)
	if isNew {
		n = 1
	}
	return int(C.bridge_preupdate_row(h.db, n, (*C.bridge_col)(unsafe.Pointer(&out[0])), C.int(len(out))))
}

// busyHandle is a bridge_busy, in C memory.
type busyHandle = *C.bridge_busy

// cBusyNew allocates the connection's bridge_busy (calloc).
func cBusyNew(h connHandle) busyHandle {
	b := (*C.bridge_busy)(C.calloc(1, C.size_t(unsafe.Sizeof(C.bridge_busy{}))))
	if b != nil {
		b.conn = h
	}
	return b
}

// cBusyFree frees a bridge_busy that SQLite no longer uses.
func cBusyFree(b busyHandle) { C.free(unsafe.Pointer(b)) }

// cBusyInstall sets b's handler or timeout and installs it with
// sqlite3_busy_handler; a nil b removes any busy handler.
func cBusyInstall(h connHandle, b busyHandle, id uintptr, timeoutMS int) int {
	if b != nil {
		b.handle = C.uintptr_t(id)
		b.timeout_ms = C.int(timeoutMS)
	}
	return int(C.bridge_busy_install(h, b))
}

// disarm clears the connection's armed operation (a plain store into C
// memory, no cgo call) before a bridge call that may wait on a lock without
// belonging to a cancellable operation, so a busy handler installed by
// SetBusyHandler or SetBusyTimeout does not see a finished operation's
// cancellation. From a callback, the outer operation stays armed: its end
// stops the wait too.
func disarm(h connHandle) {
	if h.depth == 0 {
		h.armed = 0
	}
}

// Every entry point below recovers a panic of its callback (see
// hookPanicError): recover runs only when the callback did not return, since
// it is not free. interrupt makes the statement that is running fail.

// interrupt calls sqlite3_interrupt on the entry's connection, after a panic.
func (e *hookEntry) interrupt() {
	if e.c != nil && e.c.hooks != nil && e.c.hooks.h != nil {
		C.sqlite3_interrupt(e.c.hooks.h.db)
	}
}

//export goHookCommit
func goHookCommit(id C.uintptr_t) (veto C.int) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func() int)
	if !ok {
		return 0
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("commit hook", v)
				veto = 1
			}
		}
	}()
	r := f()
	returned = true
	return C.int(r)
}

//export goHookRollback
func goHookRollback(id C.uintptr_t) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func())
	if !ok {
		return
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("rollback hook", v)
				e.interrupt()
			}
		}
	}()
	f()
	returned = true
}

//export goHookUpdate
func goHookUpdate(id C.uintptr_t, op C.int, db, table *C.char, rowid C.sqlite3_int64) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func(int, string, string, int64))
	if !ok {
		return
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("update hook", v)
				e.interrupt()
			}
		}
	}()
	f(int(op), C.GoString(db), C.GoString(table), int64(rowid))
	returned = true
}

//export goHookPreUpdate
func goHookPreUpdate(id C.uintptr_t, db *C.sqlite3, op C.int, name, table *C.char, oldRowID, newRowID C.sqlite3_int64) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func(SQLitePreUpdateData))
	if !ok {
		return
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("pre-update hook", v)
				e.interrupt()
			}
		}
	}()
	f(SQLitePreUpdateData{
		Conn:         e.c,
		Op:           int(op),
		DatabaseName: C.GoString(name),
		TableName:    C.GoString(table),
		OldRowID:     int64(oldRowID),
		NewRowID:     int64(newRowID),
	})
	returned = true
}

//export goHookAuthorizer
func goHookAuthorizer(id C.uintptr_t, action C.int, arg1, arg2, db *C.char) (r C.int) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func(int, string, string, string) int)
	if !ok {
		return C.SQLITE_OK
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("authorizer", v)
				r = C.SQLITE_DENY
			}
		}
	}()
	r = C.int(f(int(action), C.GoString(arg1), C.GoString(arg2), C.GoString(db)))
	returned = true
	return r
}

//export goHookWAL
func goHookWAL(id C.uintptr_t, name *C.char, pages C.int) (r C.int) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func(string, int) int)
	if !ok {
		return C.SQLITE_OK
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("WAL hook", v)
				r = C.SQLITE_ERROR
			}
		}
	}()
	r = C.int(f(C.GoString(name), int(pages)))
	returned = true
	return r
}

//export goHookBusy
func goHookBusy(id C.uintptr_t, count C.int) (retry C.int) {
	e := hookCallbacks.get(uintptr(id))
	f, ok := e.f.(func(int) bool)
	if !ok {
		return 0
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("busy handler", v)
				retry = 0
			}
		}
	}()
	if f(int(count)) {
		retry = 1
	}
	returned = true
	return retry
}

//export goBusyCollect
func goBusyCollect() { collectForBusyWait() }

//export goHookTrace
func goHookTrace(id C.uintptr_t, ev C.uint, db *C.sqlite3, st *C.sqlite3_stmt, sql *C.char, ns C.sqlite3_int64, autocommit C.int) (r C.int) {
	e := hookCallbacks.get(uintptr(id))
	cfg, ok := e.f.(*TraceConfig)
	if !ok || uint32(ev)&cfg.EventMask == 0 {
		return 0
	}
	info := TraceInfo{
		EventCode:  uint32(ev),
		AutoCommit: autocommit != 0,
		ConnHandle: uintptr(unsafe.Pointer(db)),
		StmtHandle: uintptr(unsafe.Pointer(st)),
	}
	switch uint32(ev) {
	case TraceStmt:
		info.StmtOrTrigger = C.GoString(sql)
		// A trigger's event carries a "-- trigger" comment, which has no
		// expansion.
		if cfg.WantExpandedSQL && (len(info.StmtOrTrigger) < 2 || info.StmtOrTrigger[:2] != "--") {
			if x := C.sqlite3_expanded_sql(st); x != nil {
				info.ExpandedSQL = C.GoString(x)
				C.sqlite3_free(unsafe.Pointer(x))
			} else {
				info.DBError = dbError(db)
			}
		}
	case TraceProfile:
		info.RunTimeNanosec = int64(ns)
		info.DBError = dbError(db)
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.recordPanic("trace callback", v)
				if uint32(ev) != TraceClose {
					e.interrupt()
				}
			}
		}
	}()
	r = C.int(cfg.Callback(info))
	returned = true
	return r
}

// dbError reads the connection's current error state (sqlite3_extended_errcode,
// sqlite3_errmsg), as mattn reports it in TraceInfo.DBError.
func dbError(db *C.sqlite3) Error {
	ext := int(C.sqlite3_extended_errcode(db))
	return Error{Code: ErrNo(ext & ErrNoMask), ExtendedCode: ErrNoExtended(ext), err: C.GoString(C.sqlite3_errmsg(db)), offset: -1}
}
