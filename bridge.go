package sqlite3

// The cgo boundary. This file and the bridge_*.go files beside it (one per
// bridge C file), and bind.go for the parameter array, are the Go files that
// call into C: every other file reads as plain Go over the handles and views
// defined here. Each wrapper names
// the bridge (bridge.h) or SQLite function it calls; results that C leaves in
// its own structs are read through unsafe views, without another cgo call.

/*
#include "bridge.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

type (
	connHandle = *C.bridge_conn
	stmtHandle = *C.bridge_stmt
)

// SQLite result and type codes the Go side needs.
const (
	sqliteOK           = C.SQLITE_OK
	sqliteRow          = C.SQLITE_ROW
	sqliteDone         = C.SQLITE_DONE
	sqliteNomem        = C.SQLITE_NOMEM
	sqliteInterrupt    = C.SQLITE_INTERRUPT
	sqliteBusy         = C.SQLITE_BUSY
	sqliteBusySnapshot = C.SQLITE_BUSY_SNAPSHOT
	sqliteMisuse       = C.SQLITE_MISUSE
	sqliteTooBig       = C.SQLITE_TOOBIG
	sqliteRange        = C.SQLITE_RANGE

	sqliteConstraintForeignKey = C.SQLITE_CONSTRAINT_FOREIGNKEY

	typeInteger  = C.SQLITE_INTEGER
	typeFloat    = C.SQLITE_FLOAT
	typeText     = C.SQLITE_TEXT
	typeBlob     = C.SQLITE_BLOB
	typeNull     = C.SQLITE_NULL
	typeZeroBlob = C.BRIDGE_ZEROBLOB

	classNone = C.BRIDGE_CLASS_NONE
	classTime = C.BRIDGE_CLASS_TIME
	classBool = C.BRIDGE_CLASS_BOOL

	openReadOnly     = C.SQLITE_OPEN_READONLY
	openReadWrite    = C.SQLITE_OPEN_READWRITE
	openCreate       = C.SQLITE_OPEN_CREATE
	openURI          = C.SQLITE_OPEN_URI
	openMemory       = C.SQLITE_OPEN_MEMORY
	openNoMutex      = C.SQLITE_OPEN_NOMUTEX
	openFullMutex    = C.SQLITE_OPEN_FULLMUTEX
	openSharedCache  = C.SQLITE_OPEN_SHAREDCACHE
	openPrivateCache = C.SQLITE_OPEN_PRIVATECACHE

	dbconfigDefensive = C.SQLITE_DBCONFIG_DEFENSIVE

	// maxLength is SQLITE_MAX_LENGTH's default (the amalgamation defines it in
	// the .c file only): the largest TEXT or BLOB SQLite accepts.
	maxLength = 1000000000
)

// rowCol mirrors bridge_col: v holds an int64, a float64 or a C pointer,
// according to typ.
type rowCol struct {
	v   [8]byte
	typ int32
	n   int32
}

func (c *rowCol) int64() int64     { return *(*int64)(unsafe.Pointer(&c.v)) }
func (c *rowCol) float64() float64 { return *(*float64)(unsafe.Pointer(&c.v)) }

// bytes views the TEXT or BLOB value in SQLite's memory; valid until the next step.
func (c *rowCol) bytes() []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&c.v))
	if p == nil || c.n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), c.n)
}

// rowCol's layout must match bridge.h exactly.
var (
	_ [unsafe.Sizeof(C.bridge_col{}) - unsafe.Sizeof(rowCol{})]struct{}
	_ [unsafe.Sizeof(rowCol{}) - unsafe.Sizeof(C.bridge_col{})]struct{}
)

// cOpen calls bridge_open (sqlite3_open_v2 + sqlite3_busy_timeout).
func cOpen(filename string, flags int, vfs string, busyMS int) (connHandle, int) {
	cname := C.CString(filename)
	defer C.free(unsafe.Pointer(cname))
	var cvfs *C.char
	if vfs != "" {
		cvfs = C.CString(vfs)
		defer C.free(unsafe.Pointer(cvfs))
	}
	var h connHandle
	rc := C.bridge_open(cname, C.int(flags), cvfs, C.int(busyMS), &h)
	return h, int(rc)
}

// cDBConfig calls bridge_db_config (sqlite3_db_config with an int value).
func cDBConfig(h connHandle, op, value int) int {
	return int(C.bridge_db_config(h, C.int(op), C.int(value)))
}

// cClose calls bridge_close: finalizes every live statement and closes.
func cClose(h connHandle) int { return int(C.bridge_close(h)) }

// cPrepare calls bridge_prepare (sqlite3_prepare_v3): the SQL buffer is
// filled with sql and its first statement prepared. The Go bytes are only read
// during the call. The tail is len(sql) when only trivia follows.
func cPrepare(h connHandle, sql string, flags uint, gen uint64) (stmtHandle, int, int) {
	p := (*C.char)(unsafe.Pointer(unsafe.StringData(sql)))
	if p == nil {
		p = (*C.char)(unsafe.Pointer(&zeroByte))
	}
	outer, nested := nestedArming(h)
	rc := C.bridge_prepare(h, p, C.int(len(sql)), C.uint(flags), C.uint64_t(gen))
	if nested {
		outer.restore(h)
	}
	return h.prepared, int(h.tail), int(rc)
}

var zeroByte byte

// cExecScript calls bridge_exec_script: from byte off of the SQL loaded by
// cPrepare, the statements that take no parameters run in C, all in
// this one call. It returns the statement Go must run next (nil at the end of
// the SQL or on error), the offset it (or the failing one) starts at, the
// base of error offsets, and the offset after it.
func cExecScript(h connHandle, off int, stopAtLast bool, gen uint64) (s stmtHandle, start, tail, rc int) {
	var last C.int
	if stopAtLast {
		last = 1
	}
	outer, nested := nestedArming(h)
	rc = int(C.bridge_exec_script(h, C.int(off), last, C.uint64_t(gen)))
	if nested {
		outer.restore(h)
	}
	return h.prepared, int(h.script_off), int(h.tail), rc
}

// scriptResult is the last insert rowid and changes of the last statement
// cExecScript ran; ran is false if it ran none.
func scriptResult(h connHandle) (id, changes int64, ran bool) {
	return int64(h.script_last_id), int64(h.script_changes), h.script_ran != 0
}

// cPrepareAgain calls bridge_prepare_again: a new statement from s's SQL.
func cPrepareAgain(s stmtHandle) (stmtHandle, int) {
	rc := int(C.bridge_prepare_again(s))
	return s.conn.prepared, rc
}

// cFinalize calls bridge_finalize (sqlite3_finalize).
func cFinalize(s stmtHandle) { C.bridge_finalize(s) }

func cMallocString(s string) unsafe.Pointer {
	return cMalloc(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// cExec calls bridge_exec: reset, bind, step to the end, changes, last rowid.
func cExec(s stmtHandle, gen uint64) int {
	outer, nested := nestedArming(s.conn)
	rc := C.bridge_exec_h(stmtInt(s), C.uint64_t(gen))
	if nested {
		outer.restore(s.conn)
	}
	return int(rc)
}

// cQuery calls bridge_query: reset, bind, step the first row; with last,
// on to the end when that row is the last (stmtAfter), and the statement can
// no longer be read with SQLite's column functions.
func cQuery(s stmtHandle, gen uint64, last bool) int {
	outer, nested := nestedArming(s.conn)
	var l C.int
	if last {
		l = 1
	}
	rc := C.bridge_query_h(stmtInt(s), C.uint64_t(gen), l)
	if nested {
		outer.restore(s.conn)
	}
	return int(rc)
}

// cStep calls bridge_step (sqlite3_step + every column of the row).
func cStep(s stmtHandle, gen uint64) int {
	outer, nested := nestedArming(s.conn)
	rc := C.bridge_step_h(stmtInt(s), C.uint64_t(gen))
	if nested {
		outer.restore(s.conn)
	}
	return int(rc)
}

// cStepBatch calls bridge_step_batch: up to max rows of numbers and short
// values in one call.
func cStepBatch(s stmtHandle, gen uint64, max int) int {
	outer, nested := nestedArming(s.conn)
	rc := C.bridge_step_batch_h(stmtInt(s), C.uint64_t(gen), C.int(max))
	if nested {
		outer.restore(s.conn)
	}
	return int(rc)
}

// arming is the cancellation of the operation whose step is running a
// callback (bridge_conn.armed, .watching). Every bridge call that runs SQL
// arms the connection for its own operation; one made from a callback (a Go
// function, a virtual table, a hook using the connection) puts the outer
// operation's arming back when it returns, or the outer statement would go
// on with the callback's generation, or no progress handler at all, and
// neither its context nor its busy wait would stop it any more.
type arming struct {
	armed    C.uint64_t
	watching C.int
}

// nestedArming returns the arming to put back after a bridge call, and
// whether the call is made from a callback (the connection is in a step).
func nestedArming(h connHandle) (arming, bool) {
	return arming{h.armed, h.watching}, h.depth > 0
}

// restore calls bridge_rearm when the nested call changed the arming.
func (a arming) restore(h connHandle) {
	if h.armed != a.armed || h.watching != a.watching {
		C.bridge_rearm(h, a.armed, a.watching)
	}
}

// stepsAheadBuilt calls bridge_steps_ahead_built.
func stepsAheadBuilt() bool { return C.bridge_steps_ahead_built() != 0 }

// stmtBatch views the n rows that bridge_step_batch left (C memory).
func stmtBatch(s stmtHandle, n int) []rowCol {
	return unsafe.Slice((*rowCol)(unsafe.Pointer(s.batch)), n*int(s.ncol))
}

// stmtReadonly reports sqlite3_stmt_readonly, read at prepare (no cgo call).
func stmtReadonly(s stmtHandle) bool { return s.readonly != 0 }

// stmtWritesMain reports whether running the statement takes the main
// database's write lock (bridge_writes_main), read at prepare (no cgo call).
func stmtWritesMain(s stmtHandle) bool { return s.writes_main != 0 }

// stmtGroupable reports whether the statement is a write that may join a
// group of its file's writes (group.go; bridge_writes_main).
func stmtGroupable(s stmtHandle) bool { return s.writes_main == C.BRIDGE_WRITES_GROUPABLE }

// cStmtSQL returns the statement's SQL (sqlite3_sql).
func cStmtSQL(s stmtHandle) string { return C.GoString(C.sqlite3_sql(s.stmt)) }

// cGroupTurn calls bridge_group_turn: the busy timeout in ms of a
// connection that may hand s, its write, to a group, else -1.
func cGroupTurn(h connHandle, s stmtHandle) int { return int(C.bridge_group_turn(h, s)) }

// cGroupFP calls bridge_group_fp: the connection's fingerprint, which the
// connection that runs its write must share.
func cGroupFP(h connHandle) uint64 { return uint64(C.bridge_group_fp(h)) }

// cGroupHost calls bridge_group_host: whether h, running a group, may run
// s, its copy of another connection's write (groupHostOK), may not
// (groupHostRefused), or s was compiled against another schema.
func cGroupHost(h connHandle, s stmtHandle) int { return int(C.bridge_group_host(h, s)) }

const (
	groupHostOK      = 1
	groupHostRefused = 0
)

// counters are what a write changes on its connection and SQL reads back:
// last_insert_rowid(), changes(), total_changes().
type counters struct{ rowid, changes, total int64 }

// cCounters calls bridge_counters_get.
func cCounters(h connHandle) counters {
	v := C.bridge_counters_get(h)
	return counters{int64(v.rowid), int64(v.changes), int64(v.total)}
}

// cSetCounters calls bridge_counters_set.
func cSetCounters(h connHandle, v counters) {
	C.bridge_counters_set(h, C.int64_t(v.rowid), C.int64_t(v.changes), C.int64_t(v.total))
}

// cGroupCommittedOthers calls bridge_group_committed_others.
func cGroupCommittedOthers(h connHandle) { C.bridge_group_committed_others(h) }

// cForeignKeysOn calls bridge_foreign_keys.
func cForeignKeysOn(h connHandle) bool { return C.bridge_foreign_keys(h) != 0 }

// cDeferredFKs calls bridge_deferred_fks.
func cDeferredFKs(h connHandle) bool { return C.bridge_deferred_fks(h) != 0 }

// stmtAhead reports whether the statement's rows may be stepped ahead
// (bridge_stmt.ahead), as of its last query or step call (no cgo call).
func stmtAhead(s stmtHandle) bool { return s.ahead != 0 }

// cReset calls bridge_reset (sqlite3_reset; large bound values released).
func cReset(s stmtHandle) int { return int(C.bridge_reset_h(stmtInt(s))) }

// stmtInt passes a statement to the per-row calls as an integer, which cgo
// does not check for Go pointers (see bridge.h); it is C memory.
func stmtInt(s stmtHandle) C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(s))) }

func stmtNumColumns(s stmtHandle) int     { return int(s.ncol) }
func stmtNumParams(s stmtHandle) int      { return int(s.nparam) }
func stmtRC(s stmtHandle) int             { return int(s.rc) }
func stmtAfter(s stmtHandle) int          { return int(s.after) }
func stmtKeepsBound(s stmtHandle) bool    { return s.bound >= C.BRIDGE_KEEP_BOUND }
func stmtShape(s stmtHandle) int          { return int(s.shape) }
func stmtChanges(s stmtHandle) int64      { return int64(s.changes) }
func stmtLastInsertID(s stmtHandle) int64 { return int64(s.last_id) }

// stmtCols views the statement's row buffer (C memory, filled by each step).
func stmtCols(s stmtHandle) []rowCol {
	return unsafe.Slice((*rowCol)(unsafe.Pointer(s.cols)), int(s.ncol))
}

// stmtClasses views the column classes computed at prepare.
func stmtClasses(s stmtHandle) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(s.classes)), int(s.ncol))
}

// cColumnNames calls bridge_names (sqlite3_column_name for every column).
func cColumnNames(s stmtHandle) ([]string, int) {
	if rc := int(C.bridge_names(s)); rc != sqliteOK {
		return nil, rc
	}
	ptrs := unsafe.Slice(s.names, int(s.ncol))
	names := make([]string, len(ptrs))
	for i, p := range ptrs {
		names[i] = C.GoString(p)
	}
	return names, sqliteOK
}

// cColumnDeclType calls sqlite3_column_decltype.
func cColumnDeclType(s stmtHandle, i int) string {
	return C.GoString(C.sqlite3_column_decltype(s.stmt, C.int(i)))
}

// cColumnTableName calls sqlite3_column_table_name.
func cColumnTableName(s stmtHandle, i int) string {
	return C.GoString(C.sqlite3_column_table_name(s.stmt, C.int(i)))
}

// cColumnNotNull calls bridge_column_notnull (sqlite3_table_column_metadata).
func cColumnNotNull(s stmtHandle, i int) int { return int(C.bridge_column_notnull(s, C.int(i))) }

// cParamName calls sqlite3_bind_parameter_name ("" for a nameless parameter).
func cParamName(s stmtHandle, i int) string {
	return C.GoString(C.sqlite3_bind_parameter_name(s.stmt, C.int(i)))
}

// cAutocommit calls sqlite3_get_autocommit.
func cAutocommit(h connHandle) bool { return C.sqlite3_get_autocommit(h.db) != 0 }

// cQueryOnly calls bridge_query_only: sets or clears the connection's
// query-only state (PRAGMA query_only's flag) and reports whether it was
// set; ok is false, nothing changed, when the bridge cannot reach the flag
// (built against another SQLite).
func cQueryOnly(h connHandle, on bool) (was, ok bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	rc := C.bridge_query_only(h, v)
	return rc == 1, rc >= 0
}

// cReprepares calls bridge_reprepares: SQLITE_STMTSTATUS_REPREPARE summed
// over the connection's statements, finalized ones included.
func cReprepares(h connHandle) int64 { return int64(C.bridge_reprepares(h)) }

// sqlBuffer is the bridge's SQL buffer of one operation (see nest).
type sqlBuffer struct {
	p        *C.char
	len, cap C.int
}

// inCallback reports whether the connection is inside a step, so that the
// caller runs from a Go callback (user function, hook) of that step.
func inCallback(h connHandle) bool { return h.depth > 0 }

// takeSQLBuffer detaches the bridge's SQL buffer, which the operation in
// progress is still walking by offset; a nested operation gets its own.
func takeSQLBuffer(h connHandle) sqlBuffer {
	b := sqlBuffer{h.sql, h.sql_len, h.sql_cap}
	h.sql, h.sql_len, h.sql_cap = nil, 0, 0
	return b
}

// restoreSQLBuffer frees the nested operation's buffer and puts b back.
func restoreSQLBuffer(h connHandle, b sqlBuffer) {
	C.free(unsafe.Pointer(h.sql))
	h.sql, h.sql_len, h.sql_cap = b.p, b.len, b.cap
}

// setCancelWord gives the bridge its word block (the word it polls for
// cancellation and the marks of its steps), C memory from cAllocWord that
// outlives the connection.
func setCancelWord(h connHandle, word *uint64) {
	h.word = (*C.bridge_word)(unsafe.Pointer(word))
	h.cancelled = &h.word.cancelled
}

// nestedHere calls bridge_nested_here: whether the calling goroutine runs
// inside a step or prepare of the connection whose word block word is.
func nestedHere(word *uint64) bool {
	return C.bridge_nested_here((*C.bridge_word)(unsafe.Pointer(word))) != 0
}

// liveStatements counts the statements prepared on the connection
// (the bridge's list, which bridge_close finalizes).
func liveStatements(h connHandle) int {
	n := 0
	for s := h.stmts; s != nil; s = s.next {
		n++
	}
	return n
}

// cAllocWord calls bridge_word_new: a zeroed word block (bridge_word), whose
// first field is the cancellation word.
func cAllocWord() *uint64 { return (*uint64)(unsafe.Pointer(C.bridge_word_new())) }

// cFreeWord frees a word from cAllocWord.
func cFreeWord(p *uint64) { C.free(unsafe.Pointer(p)) }

// unlockWaiting reports whether the connection is waiting for another
// connection's shared-cache lock (bridge_conn.unlock_waiting; only with the
// sqlite_unlock_notify tag). Safe to call while the wait runs: the tests use
// it to cancel a statement that is known to be waiting.
func unlockWaiting(h connHandle) bool {
	return atomic.LoadInt32((*int32)(unsafe.Pointer(&h.unlock_waiting))) != 0
}

// errInfo is what bridge_errinfo reports about the last failure on a connection.
type errInfo struct {
	code, extended, sysErrno, offset int
	msg                              string
}

// cErrInfo calls bridge_errinfo (sqlite3_extended_errcode, sqlite3_system_errno,
// sqlite3_error_offset, sqlite3_errmsg).
func cErrInfo(h connHandle) errInfo {
	C.bridge_errinfo(h)
	return errInfo{
		code:     int(h.err_code),
		extended: int(h.err_ext),
		sysErrno: int(h.err_errno),
		offset:   int(h.err_offset),
		msg:      C.GoString(h.err_msg),
	}
}

// enableMemStats turns SQLite's memory statistics on (bridge_enable_memstatus,
// sqlite3_config(SQLITE_CONFIG_MEMSTATUS)) so that memoryUsed counts; the
// build's SQLITE_DEFAULT_MEMSTATUS=0 leaves them off. It fails with
// SQLITE_MISUSE once SQLite has initialized (after any open in the process),
// so the leak tests run it in a fresh process.
func enableMemStats() error {
	if rc := int(C.bridge_enable_memstatus()); rc != sqliteOK {
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1,
			err: "sqlite3_config(SQLITE_CONFIG_MEMSTATUS) must run before SQLite initializes (before the first connection opens): " + cErrstr(rc)}
	}
	return nil
}

// memoryUsed calls sqlite3_memory_used: bytes SQLite has allocated and not
// freed (counted only after enableMemStats; the bridge's malloc'd buffers are
// not included).
func memoryUsed() int64 { return int64(C.sqlite3_memory_used()) }

// hardHeapLimit calls sqlite3_hard_heap_limit64: with memory statistics on
// (enableMemStats), SQLite's allocations past n bytes in all fail (0: no
// limit). It returns the previous limit. For tests of out-of-memory paths.
func hardHeapLimit(n int64) int64 {
	return int64(C.sqlite3_hard_heap_limit64(C.sqlite3_int64(n)))
}

// cErrstr calls sqlite3_errstr: the English text of a result code.
func cErrstr(code int) string { return C.GoString(C.sqlite3_errstr(C.int(code))) }

// cVersion calls sqlite3_libversion, sqlite3_libversion_number and sqlite3_sourceid.
func cVersion() (string, int, string) {
	return C.GoString(C.sqlite3_libversion()), int(C.sqlite3_libversion_number()), C.GoString(C.sqlite3_sourceid())
}
