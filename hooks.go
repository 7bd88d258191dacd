//go:build cgo

package sqlite3

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Authorizer action codes (the first argument of a RegisterAuthorizer
// callback) and the operation codes of update and pre-update hooks, from
// https://sqlite.org/c3ref/c_alter_table.html. Values are SQLite's.
const (
	SQLITE_DELETE = 9
	SQLITE_INSERT = 18
	SQLITE_UPDATE = 23

	// Authorizer results (https://sqlite.org/c3ref/c_deny.html).
	SQLITE_OK     = 0
	SQLITE_IGNORE = 2
	SQLITE_DENY   = 1

	SQLITE_CREATE_INDEX        = 1
	SQLITE_CREATE_TABLE        = 2
	SQLITE_CREATE_TEMP_INDEX   = 3
	SQLITE_CREATE_TEMP_TABLE   = 4
	SQLITE_CREATE_TEMP_TRIGGER = 5
	SQLITE_CREATE_TEMP_VIEW    = 6
	SQLITE_CREATE_TRIGGER      = 7
	SQLITE_CREATE_VIEW         = 8
	SQLITE_CREATE_VTABLE       = 29
	SQLITE_DROP_INDEX          = 10
	SQLITE_DROP_TABLE          = 11
	SQLITE_DROP_TEMP_INDEX     = 12
	SQLITE_DROP_TEMP_TABLE     = 13
	SQLITE_DROP_TEMP_TRIGGER   = 14
	SQLITE_DROP_TEMP_VIEW      = 15
	SQLITE_DROP_TRIGGER        = 16
	SQLITE_DROP_VIEW           = 17
	SQLITE_DROP_VTABLE         = 30
	SQLITE_PRAGMA              = 19
	SQLITE_READ                = 20
	SQLITE_SELECT              = 21
	SQLITE_TRANSACTION         = 22
	SQLITE_ATTACH              = 24
	SQLITE_DETACH              = 25
	SQLITE_ALTER_TABLE         = 26
	SQLITE_REINDEX             = 27
	SQLITE_ANALYZE             = 28
	SQLITE_FUNCTION            = 31
	SQLITE_SAVEPOINT           = 32
	SQLITE_COPY                = 0
)

// callbackTable names the Go callbacks that C reaches by id. SQLite keeps
// the id as its user-data pointer; it never sees a Go pointer. Ids are never
// reused, so a callback that arrives after its id was dropped finds nothing
// and does nothing.
type callbackTable struct {
	m    sync.Map // uintptr -> *hookEntry
	next atomic.Uintptr
	live atomic.Int64 // ids put and not yet dropped, for leak tests
}

// hookEntry is one registered callback: f (a func, or a *TraceConfig) and
// the connection it was registered on.
type hookEntry struct {
	c *SQLiteConn
	f any
}

// hookCallbacks holds every callback of hooks, authorizers, tracers and busy
// handlers of every connection.
var hookCallbacks callbackTable

func (t *callbackTable) put(c *SQLiteConn, f any) uintptr {
	id := t.next.Add(1)
	t.m.Store(id, &hookEntry{c: c, f: f})
	t.live.Add(1)
	return id
}

// get returns the entry of id, or an empty one.
func (t *callbackTable) get(id uintptr) *hookEntry {
	if v, ok := t.m.Load(id); ok {
		return v.(*hookEntry)
	}
	return &hookEntry{}
}

func (t *callbackTable) drop(id uintptr) {
	if id == 0 {
		return
	}
	if _, ok := t.m.LoadAndDelete(id); ok {
		t.live.Add(-1)
	}
}

// A panic in a callback must not unwind through SQLite's C frames: that
// would leave the connection in the middle of a statement, unusable, and a
// recover further up (net/http's, say) would hide it. The Go entry points of
// bridge_hooks.go recover it, make SQLite fail what it was doing (veto the
// commit, deny the action, interrupt the statement), and record it here; the
// error of the failed call (errorFor) then reports it.
type hookPanicError struct {
	hook  string // "update hook", "authorizer", ...
	value any    // what the callback panicked with
	err   error  // the SQLite error of the call that failed because of it
}

func (e *hookPanicError) Error() string {
	return "sqlite3: panic in " + e.hook + ": " + fmt.Sprint(e.value)
}

// Unwrap returns the SQLite error (ErrInterrupt, ErrConstraintCommitHook,
// ErrAuth, ...), for errors.Is.
func (e *hookPanicError) Unwrap() error { return e.err }

var (
	hookPanics       sync.Map // connHandle -> *hookPanicError, not yet reported
	hookPanicPending atomic.Int64
)

// recordPanic remembers the first unreported panic of a callback of c.
func (e *hookEntry) recordPanic(hook string, v any) {
	if e.c == nil || e.c.hooks == nil || e.c.hooks.h == nil {
		return
	}
	if _, loaded := hookPanics.LoadOrStore(e.c.hooks.h, &hookPanicError{hook: hook, value: v}); !loaded {
		hookPanicPending.Add(1)
	}
}

// takeHookPanic removes and returns the unreported callback panic of h.
func takeHookPanic(h connHandle) *hookPanicError {
	if hookPanicPending.Load() == 0 {
		return nil
	}
	v, ok := hookPanics.LoadAndDelete(h)
	if !ok {
		return nil
	}
	hookPanicPending.Add(-1)
	return v.(*hookPanicError)
}

// withHookPanic returns err, the error of a failed call on h, or, when a
// callback of h panicked, an error reporting the panic that wraps err.
// errorFor calls it; the cost when no callback panicked is one atomic load.
func withHookPanic(h connHandle, err error) error {
	if p := takeHookPanic(h); p != nil {
		p.err = err
		return p
	}
	return err
}

// The hook slots of a connection, one registry id each.
const (
	slotCommit = iota
	slotRollback
	slotUpdate
	slotPreUpdate
	slotAuthorizer
	slotWAL
	slotTrace
	slotBusy
	numSlots
)

// connHooks is what a connection keeps for the features of this file and of
// trace.go, backup.go and blob.go: the registry ids of its callbacks, its busy
// handler's C state, and the blobs and backups still open on it, which Close
// must end before the Go callbacks are released.
type connHooks struct {
	h    connHandle // the connection's handle, while it is open
	ids  [numSlots]uintptr
	busy busyHandle

	mu      sync.Mutex
	blobs   map[*SQLiteBlob]struct{}
	backups map[*SQLiteBackup]struct{}
}

// finishBackups finishes the connection's backups, which lock the other
// connection as well: Close runs it before it locks its own. It reports
// whether there were any.
func (c *SQLiteConn) finishBackups() bool {
	held := c.core.lock()
	x := c.hooks
	c.core.unlock(held)
	if x == nil {
		return false
	}
	x.mu.Lock()
	backups := make([]*SQLiteBackup, 0, len(x.backups))
	for b := range x.backups {
		backups = append(backups, b)
	}
	x.mu.Unlock()
	for _, b := range backups {
		b.finishForConn()
	}
	return len(backups) > 0
}

// extras returns the connection's connHooks, creating it on first use and
// arranging its release after the connection closes.
func (c *SQLiteConn) extras() *connHooks {
	if c.hooks == nil {
		x := &connHooks{h: c.h}
		c.hooks = x
		c.onClose(x.release)
	}
	return c.hooks
}

// setSlot records id as the callback of slot, dropping the one it replaces:
// SQLite no longer calls the old one once the new one is installed.
func (x *connHooks) setSlot(slot int, id uintptr) {
	old := x.ids[slot]
	x.ids[slot] = id
	hookCallbacks.drop(old)
}

// release runs once the connection is closed (sqlite3_close_v2 returned). A
// blob or backup still open keeps the database alive as a "zombie"; ending
// them here lets SQLite free it, and may still call the trace callback (the
// close event), so the callbacks are released last.
func (x *connHooks) release() {
	// The handle was freed by the close: a hook that panics while the blobs
	// and backups end must not interrupt through it.
	h := x.h
	x.h = nil
	x.mu.Lock()
	blobs, backups := x.blobs, x.backups
	x.blobs, x.backups = nil, nil
	x.mu.Unlock()
	for b := range blobs {
		b.closeForConn()
	}
	for b := range backups {
		// Close finished them before it locked the connection
		// (finishBackups); none is left but on a path that holds both.
		b.finishForConnLocked()
	}
	for i, id := range x.ids {
		hookCallbacks.drop(id)
		x.ids[i] = 0
	}
	if x.busy != nil {
		cBusyFree(x.busy)
		x.busy = nil
	}
	takeHookPanic(h) // never reported: its handle may be reused by another connection
}

// RegisterCommitHook sets the commit hook of the connection
// (https://sqlite.org/c3ref/commit_hook.html): callback runs each time a
// transaction is about to commit, and a non-zero result turns the commit into
// a rollback (the COMMIT then fails with ErrConstraintCommitHook). The
// callback must not use the connection.
//
// A previous commit hook is replaced and released; nil removes it. On a
// closed connection nothing happens. A panic in callback vetoes the commit,
// and the error of the commit reports the panic. Cost: one cgo call to
// register, one C-to-Go callback per commit.
func (c *SQLiteConn) RegisterCommitHook(callback func() int) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return
	}
	id := putCallback(c, callback)
	cCommitHook(c.h, id)
	c.extras().setSlot(slotCommit, id)
}

// RegisterRollbackHook sets the rollback hook of the connection
// (https://sqlite.org/c3ref/commit_hook.html): callback runs each time a
// transaction rolls back: explicitly, because of an error or a commit hook,
// or because the connection closes inside a transaction (the callback then
// runs during Close). The callback must not use the connection.
//
// A previous rollback hook is replaced and released; nil removes it. On a
// closed connection nothing happens. Cost: one cgo call to register, one
// C-to-Go callback per rollback.
//
// A panic in callback does not unwind through SQLite: the running statement
// is interrupted, and its error (or, if it completed first, the next error on
// the connection) reports the panic.
func (c *SQLiteConn) RegisterRollbackHook(callback func()) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return
	}
	id := putCallback(c, callback)
	cRollbackHook(c.h, id)
	c.extras().setSlot(slotRollback, id)
}

// RegisterUpdateHook sets the update hook of the connection
// (https://sqlite.org/c3ref/update_hook.html): callback runs for each row
// inserted, updated or deleted in a rowid table, with the operation
// (SQLITE_INSERT, SQLITE_UPDATE or SQLITE_DELETE), the database name
// ("main", "temp" or an attached name), the table name and the rowid. It is
// not called for WITHOUT ROWID tables, for the truncate optimization of an
// unconditional DELETE, or for changes to internal tables. The callback must
// not use the connection.
//
// A previous update hook is replaced and released; nil removes it. On a
// closed connection nothing happens. Cost: one C-to-Go callback and two
// string allocations per changed row.
//
// A panic in callback does not unwind through SQLite: the running statement
// is interrupted, and its error (or, if it completed first, the next error on
// the connection) reports the panic.
func (c *SQLiteConn) RegisterUpdateHook(callback func(int, string, string, int64)) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return
	}
	id := putCallback(c, callback)
	cUpdateHook(c.h, id)
	c.extras().setSlot(slotUpdate, id)
}

// SQLitePreUpdateData is what a pre-update hook receives about one row about
// to change. Its methods read the row from SQLite and are valid only during
// the hook's call.
type SQLitePreUpdateData struct {
	Conn         *SQLiteConn
	Op           int // SQLITE_INSERT, SQLITE_UPDATE or SQLITE_DELETE
	DatabaseName string
	TableName    string
	OldRowID     int64 // the row's rowid before an UPDATE or DELETE
	NewRowID     int64 // the row's rowid after an INSERT or UPDATE
}

// RegisterPreUpdateHook sets the pre-update hook of the connection
// (https://sqlite.org/c3ref/preupdate_count.html): callback runs before each
// row of a rowid table or a WITHOUT ROWID table is inserted, updated or
// deleted, and can read the old and new values with
// SQLitePreUpdateData.Old and New. The callback must not use the connection
// otherwise.
//
// A previous pre-update hook is replaced and released; nil removes it. On a
// closed connection nothing happens. Cost: one C-to-Go callback and two
// string allocations per changed row.
//
// A panic in callback does not unwind through SQLite: the running statement
// is interrupted, and its error (or, if it completed first, the next error on
// the connection) reports the panic.
func (c *SQLiteConn) RegisterPreUpdateHook(callback func(SQLitePreUpdateData)) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return
	}
	id := putCallback(c, callback)
	cPreUpdateHook(c.h, id)
	c.extras().setSlot(slotPreUpdate, id)
}

// Count returns the number of columns of the row being changed
// (sqlite3_preupdate_count, https://sqlite.org/c3ref/preupdate_count.html).
// One cgo call.
func (d *SQLitePreUpdateData) Count() int {
	if d.Conn == nil || d.Conn.closed.Load() {
		return 0
	}
	return cPreUpdateCount(d.Conn.h)
}

// Depth returns 0 for a change made directly by a statement, 1 for one made
// by a trigger it fired, and so on (sqlite3_preupdate_depth,
// https://sqlite.org/c3ref/preupdate_count.html). One cgo call.
func (d *SQLitePreUpdateData) Depth() int {
	if d.Conn == nil || d.Conn.closed.Load() {
		return 0
	}
	return cPreUpdateDepth(d.Conn.h)
}

// Old reads the row's values before an UPDATE or DELETE
// (sqlite3_preupdate_old, https://sqlite.org/c3ref/preupdate_count.html) into
// dest, one element per column, for as many columns as dest has room for.
//
// As in mattn/go-sqlite3, an element of dest that is not a pointer is
// replaced by the column's value, so that
//
//	row := make([]any, d.Count())
//	d.Old(row...)
//
// fills row with int64, float64, []byte (for TEXT and BLOB, copied) or nil.
// An element that is a pointer (or an sql.Scanner) receives the value
// converted to its type, as sql.Rows.Scan does: *int64, *string, *[]byte,
// *any, *bool, *float64 and the other basic kinds. Cost: two cgo calls
// (the column count, then every column at once), and a copy of each TEXT and
// BLOB value.
func (d *SQLitePreUpdateData) Old(dest ...any) error {
	if d.Op == SQLITE_INSERT {
		return driverError("an INSERT has no old row")
	}
	return d.row(dest, false)
}

// New reads the row's values after an INSERT or UPDATE
// (sqlite3_preupdate_new, https://sqlite.org/c3ref/preupdate_count.html) into
// dest; see Old, also for the cost.
func (d *SQLitePreUpdateData) New(dest ...any) error {
	if d.Op == SQLITE_DELETE {
		return driverError("a DELETE has no new row")
	}
	return d.row(dest, true)
}

func (d *SQLitePreUpdateData) row(dest []any, isNew bool) error {
	if d.Conn == nil || d.Conn.closed.Load() {
		return driverError("pre-update data used outside its hook")
	}
	n := min(len(dest), d.Count())
	if n == 0 {
		return nil
	}
	var small [8]rowCol
	var cols []rowCol
	if n <= len(small) {
		cols = small[:n]
	} else {
		cols = make([]rowCol, n)
	}
	if rc := cPreUpdateRow(d.Conn.h, isNew, cols); rc != sqliteOK {
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	}
	for i := range cols {
		var v any
		switch cols[i].typ {
		case typeInteger:
			v = cols[i].int64()
		case typeFloat:
			v = cols[i].float64()
		case typeText, typeBlob:
			v = append([]byte{}, cols[i].bytes()...)
		}
		if err := assignValue(&dest[i], v); err != nil {
			return driverError("column " + itoa(i) + ": " + err.Error())
		}
	}
	return nil
}

// assignValue stores v (int64, float64, []byte or nil) into *slot: into the
// pointer or Scanner *slot holds, converted as database/sql would, or else
// into *slot itself.
func assignValue(slot *any, v any) error {
	switch d := (*slot).(type) {
	case sql.Scanner:
		return d.Scan(v)
	case *any:
		*d = v
		return nil
	case *[]byte:
		switch s := v.(type) {
		case nil:
			*d = nil
		case []byte:
			*d = s
		default:
			*d = []byte(formatValue(v))
		}
		return nil
	case *string:
		if v == nil {
			return errors.New("cannot store NULL in a *string")
		}
		*d = formatValue(v)
		return nil
	}
	rv := reflect.ValueOf(*slot)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		*slot = v
		return nil
	}
	return assignReflect(rv.Elem(), v)
}

// assignReflect converts v into the basic kind of dst.
func assignReflect(dst reflect.Value, v any) error {
	if v == nil {
		switch dst.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			dst.SetZero()
			return nil
		}
		return errors.New("cannot store NULL in a " + dst.Type().String())
	}
	if dst.Kind() == reflect.Interface {
		dst.Set(reflect.ValueOf(v))
		return nil
	}
	s := formatValue(v)
	switch dst.Kind() {
	case reflect.String:
		dst.SetString(s)
		return nil
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			dst.SetBytes([]byte(s))
			return nil
		}
	case reflect.Bool:
		switch x := v.(type) {
		case int64:
			dst.SetBool(x != 0)
			return nil
		case float64:
			dst.SetBool(x != 0)
			return nil
		}
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(s, 10, dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, err := strconv.ParseUint(s, 10, dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetFloat(f)
		return nil
	}
	return errors.New("unsupported destination type " + dst.Type().String())
}

// formatValue renders an int64, float64 or []byte as text.
func formatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return string(x)
	}
	return ""
}

// RegisterAuthorizer sets the authorizer of the connection
// (https://sqlite.org/c3ref/set_authorizer.html). While statements are
// compiled, callback is asked about each action they would take: the action
// code (SQLITE_READ, SQLITE_INSERT, SQLITE_CREATE_TABLE, ...; see
// https://sqlite.org/c3ref/c_alter_table.html), its two arguments (often a
// table and a column name, "" when absent) and the database name. It returns
// SQLITE_OK to allow the action, SQLITE_IGNORE to treat it as a no-op (a read
// column is NULL) or SQLITE_DENY to fail the statement with ErrAuth.
//
// Registering expires every prepared statement, so each is compiled and
// authorized again before it next runs. While an authorizer is registered the
// driver's statement cache is off: callback may answer differently from one
// call to the next, and every Exec and Query compiles, and so authorizes, its
// SQL anew, as without a cache. Statements prepared with Prepare are
// authorized once, when prepared (and again when SQLite re-prepares them).
// A previous authorizer is replaced and released; nil removes it. On a
// closed connection nothing happens. A panic in callback denies the action,
// and the statement's error reports the panic. Cost: one C-to-Go callback
// and up to three string allocations per action, at compile time only.
func (c *SQLiteConn) RegisterAuthorizer(callback func(int, string, string, string) int) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() || (callback == nil && (c.hooks == nil || c.hooks.ids[slotAuthorizer] == 0)) {
		return // nothing to remove: keep the prepared statements
	}
	id := putCallback(c, callback)
	if cSetAuthorizer(c.h, id) != sqliteOK {
		hookCallbacks.drop(id)
		return
	}
	c.extras().setSlot(slotAuthorizer, id)
	// The callback's answers may change between calls: with it, every
	// statement is compiled (and authorized) anew, as without a cache.
	c.cache.off = callback != nil
	if c.cache.off {
		c.cache.retire()
	}
}

// RegisterWALHook sets the WAL hook of the connection
// (https://sqlite.org/c3ref/wal_hook.html): after each commit to a database
// in WAL mode, callback runs with the database name and the number of pages
// now in the write-ahead log. It returns SQLITE_OK (0); any other SQLite
// result code makes the committing statement fail with an error, although
// the commit stands. The callback may run a checkpoint, for example with
// WALCheckpoint on the same connection.
//
// SQLite's automatic checkpoints (PRAGMA wal_autocheckpoint) use the same
// hook, so a registered WAL hook replaces them: checkpoint from the callback
// or elsewhere. Passing nil removes a hook registered here and turns
// automatic checkpoints back on at SQLite's default of 1000 pages. A
// previous WAL hook is replaced and released. On a closed connection nothing
// happens. A panic in callback fails the statement with an error reporting
// it. Cost: one C-to-Go callback per commit. Not in
// mattn/go-sqlite3.
func (c *SQLiteConn) RegisterWALHook(callback func(dbName string, pages int) int) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() || (callback == nil && (c.hooks == nil || c.hooks.ids[slotWAL] == 0)) {
		return // nothing to remove: keep PRAGMA wal_autocheckpoint's setting
	}
	id := putCallback(c, callback)
	cWALHook(c.h, id)
	c.extras().setSlot(slotWAL, id)
}

// SetBusyHandler makes callback decide what happens when the connection finds
// the database locked by another connection
// (https://sqlite.org/c3ref/busy_handler.html). SQLite calls it with the
// number of times it has already been called for the same lock; returning
// true retries (the callback should sleep first), false gives up and the
// statement fails with ErrBusy.
//
// It is context-aware: once the context of the running statement is done,
// SQLite gives up at once without calling callback. The handler replaces the
// DSN's _busy_timeout (and PRAGMA busy_timeout then reports 0); a later
// PRAGMA busy_timeout or SetBusyTimeout replaces it in turn. nil removes any
// busy handler: a locked database fails at once. A panic in callback gives
// up, and the ErrBusy error reports the panic. Cost: one C-to-Go callback per
// retry, none while the database is not locked. Not in mattn/go-sqlite3.
func (c *SQLiteConn) SetBusyHandler(callback func(count int) bool) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	if callback == nil {
		return c.installBusy(0, 0, false)
	}
	return c.installBusy(hookCallbacks.put(c, callback), 0, true)
}

// SetBusyTimeout makes the connection wait up to d for a lock held by another
// connection, as the DSN's _busy_timeout does (the schedule of
// https://sqlite.org/c3ref/busy_timeout.html: sleeps of 1 ms growing to
// 100 ms), except that the wait ends as soon as the context of the running
// statement is done: a cancelled query does not sit out the timeout (the
// context is looked at every 10 ms at most). The handler is installed with
// sqlite3_busy_handler (https://sqlite.org/c3ref/busy_handler.html); the wait
// is in C, with no callback into Go. Cost: one cgo call to install.
//
// A lock that another connection of this process holds on the same file is
// handed over when it is released, in arrival order (share.go).
//
// PRAGMA busy_timeout reports d (in the default build; 0 with the
// libsqlite3 tag); a later PRAGMA busy_timeout replaces it with SQLite's own
// sleeping handler. d <= 0 removes any busy handler. Not in
// mattn/go-sqlite3.
func (c *SQLiteConn) SetBusyTimeout(d time.Duration) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	ms := d.Milliseconds()
	if ms <= 0 {
		return c.installBusy(0, 0, false)
	}
	if ms > 1<<31-1 {
		ms = 1<<31 - 1
	}
	return c.installBusy(0, int(ms), true)
}

// installBusy installs the connection's bridge_busy with the Go handler id or
// the timeout ms (on == false: no busy handler at all).
func (c *SQLiteConn) installBusy(id uintptr, ms int, on bool) error {
	x := c.extras()
	if on && x.busy == nil {
		if x.busy = cBusyNew(c.h); x.busy == nil {
			hookCallbacks.drop(id)
			return Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
		}
	}
	b := x.busy
	if !on {
		b = nil
	}
	if rc := cBusyInstall(c.h, b, id, ms); rc != sqliteOK {
		hookCallbacks.drop(id)
		return errorFor(c.h, rc, 0)
	}
	x.setSlot(slotBusy, id)
	return nil
}

// putCallback registers f (any func type) for c and returns its id, 0 for a
// nil f.
func putCallback[F any](c *SQLiteConn, f F) uintptr {
	if reflect.ValueOf(f).IsNil() {
		return 0
	}
	return hookCallbacks.put(c, f)
}
