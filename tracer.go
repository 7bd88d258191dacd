//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Tracer observes the operations of a pool's connections, for spans,
// metrics or logs (docs/tracing.md). Set one with WithTracer on
// NewConnector; a pool without one pays a nil check per operation and
// nothing else.
//
// TraceStart is called as an operation begins, with the caller's context;
// the context it returns is the one the operation runs with (so a span it
// starts is the parent of what the operation's context reaches) and the one
// TraceEnd gets. TraceEnd is called once the operation is over, with ev
// filled in: for a query, when its rows are closed. Both are called outside
// the connection's lock, from the goroutine of the operation, and must not
// use the connection. ev belongs to the driver after TraceEnd returns:
// keep what is needed, not ev.
type Tracer interface {
	TraceStart(ctx context.Context, ev *TraceEvent) context.Context
	TraceEnd(ctx context.Context, ev *TraceEvent)
}

// TraceKind says what a TraceEvent's operation is.
type TraceKind uint8

// The operations a Tracer sees.
const (
	TracePrepare  TraceKind = iota + 1 // Prepare: SQL
	TraceExec                          // Exec, of the connection or of a prepared statement: SQL, Rows changed
	TraceQuery                         // Query, up to its rows' Close: SQL, Rows read
	TraceBegin                         // BeginTx
	TraceCommit                        // Tx.Commit
	TraceRollback                      // Tx.Rollback
)

var traceKindNames = [...]string{"", "prepare", "exec", "query", "begin", "commit", "rollback"}

// String is the operation's name: "prepare", "exec", "query", "begin",
// "commit" or "rollback".
func (k TraceKind) String() string {
	if int(k) < len(traceKindNames) {
		return traceKindNames[k]
	}
	return "unknown"
}

// TraceEvent describes one operation. TraceStart sees Kind, SQL, Conn and
// Start; TraceEnd sees the rest as well.
type TraceEvent struct {
	Kind TraceKind
	SQL  string // the statement's text (Prepare, Exec, Query; COMMIT, ROLLBACK, BEGIN as run)
	Conn int64  // the connection: a number unique in the process, in the order connections opened

	Start    time.Time
	Duration time.Duration // from Start to the end (a query's: to its rows' Close)
	Err      error         // the operation's error; for a query, the first of Query's and the rows'

	// Rows is the number of rows changed (Exec) or read (Query), and Bytes
	// the bytes of the TEXT and BLOB values in the rows read.
	Rows  int64
	Bytes int64

	// What the operation waited for (for a query: up to Query's return).
	// TurnWait is how long it waited for its file's write turn (gate.go:
	// connections of this process take turns to write). BusyWait is how long
	// SQLite waited for a lock held elsewhere (another process, or a
	// connection outside the turn, up to _busy_timeout), in BusyWaits waits.
	// Held is how long the WAL bound held its read transactions while it
	// restarted the WAL (docs/concurrency.md).
	TurnWait  time.Duration
	BusyWait  time.Duration
	BusyWaits int
	Held      time.Duration

	// Checkpoint is how long the operation spent in the WAL bound's
	// checkpoints, which a write runs once the WAL has grown past half the
	// bound, in Checkpoints passes.
	Checkpoint  time.Duration
	Checkpoints int

	// Grouped says whether its write shared a COMMIT with other
	// connections' writes (_group_commit=1); GroupWrites is the number of
	// writes that COMMIT held, its own included, and GroupCommit how long the
	// COMMIT took.
	Grouped     bool
	GroupWrites int
	GroupCommit time.Duration
}

// ConnectorOption is an option of NewConnector.
type ConnectorOption func(*connector)

// WithTracer makes t observe every operation of the connector's
// connections.
func WithTracer(t Tracer) ConnectorOption {
	return func(c *connector) { c.tracer = t }
}

// traced runs op, an operation of the given kind on c, between its
// tracer's TraceStart and TraceEnd. op takes the connection's lock itself:
// the tracer never runs under it.
func traced[T any](c *SQLiteConn, ctx context.Context, kind TraceKind, query string, op func(context.Context) (T, error)) (T, error) {
	ctx, ev := c.traceStart(ctx, kind, query)
	v, err := op(ctx)
	if r, ok := any(v).(driver.Result); ok && err == nil {
		ev.Rows, _ = r.RowsAffected()
	}
	c.traceEnd(ctx, ev, err)
	return v, err
}

// tracedQuery is traced for a query: its event ends when its rows close.
func tracedQuery(c *SQLiteConn, ctx context.Context, query string, op func(context.Context) (driver.Rows, error)) (driver.Rows, error) {
	ctx, ev := c.traceStart(ctx, TraceQuery, query)
	rows, err := op(ctx)
	r, ok := rows.(*SQLiteRows)
	if err != nil || !ok {
		c.traceEnd(ctx, ev, err) // an error, or no statement (noRows)
		return rows, err
	}
	c.takeNote(ev)
	return &tracedRows{SQLiteRows: r, ctx: ctx, ev: ev}, nil
}

// traceStart begins an event of c's tracer.
func (c *SQLiteConn) traceStart(ctx context.Context, kind TraceKind, query string) (context.Context, *TraceEvent) {
	if ctx == nil {
		ctx = context.Background()
	}
	c.takeNote(nil) // what earlier operations noted is not this one's
	if kind == TraceBegin || kind == TraceExec && !c.inTx {
		// What a transaction or an autocommit Exec writes, its lock holder
		// names this site for (LockHolder.Site); a Query outside a
		// transaction, most often a read, leaves the last one. database/sql
		// uses the connection from one goroutine at a time: inTx is stable.
		c.core.site.pc.Store(callerPC())
	}
	ev := &TraceEvent{Kind: kind, SQL: query, Conn: int64(c.core.id), Start: time.Now()}
	if tctx := c.tracer.TraceStart(ctx, ev); tctx != nil {
		ctx = tctx
	}
	return ctx, ev
}

// traceEnd ends ev with err and what the operation noted on c.
func (c *SQLiteConn) traceEnd(ctx context.Context, ev *TraceEvent, err error) {
	ev.Duration = time.Since(ev.Start)
	ev.Err = err
	c.takeNote(ev)
	c.tracer.TraceEnd(ctx, ev)
}

// traceNote is what an operation notes on its connection for its
// TraceEvent (connCore.note): the write turn's waits, and its group's
// COMMIT. Plain fields under the lock: nothing to pay untraced. waits is
// the bridge's counters when the note was last taken.
type traceNote struct {
	turnWait    time.Duration
	grouped     bool
	groupWrites int
	groupCommit time.Duration
	waits       connWaits
}

// noteGroup notes that the connection's write shared a COMMIT of n writes
// that took d.
func (k *connCore) noteGroup(n int, d time.Duration) {
	k.note.grouped, k.note.groupWrites, k.note.groupCommit = true, n, d
}

// takeNote puts in ev (unless nil) what the connection's operations noted
// since the last call, and starts a new note.
func (c *SQLiteConn) takeNote(ev *TraceEvent) {
	k := c.core
	defer k.unlock(k.lock())
	n := k.note
	k.note = traceNote{waits: n.waits}
	if k.h != nil && !c.closed.Load() {
		k.note.waits = cWaits(k.h)
	}
	if ev == nil {
		return
	}
	d := k.note.waits.sub(n.waits)
	ev.TurnWait, ev.Grouped, ev.GroupWrites, ev.GroupCommit = n.turnWait, n.grouped, n.groupWrites, n.groupCommit
	ev.BusyWait, ev.BusyWaits, ev.Held = d.busy, int(d.busyWaits), d.held
	ev.Checkpoint, ev.Checkpoints = d.checkpoint, int(d.checkpoints)
}

// tracedSQL is a prepared statement's SQL, for its events.
func (s *SQLiteStmt) tracedSQL() string {
	defer s.c.core.unlock(s.c.core.lock())
	if s.closed || s.c.closed.Load() {
		return s.cacheKey
	}
	return s.sqlHeld()
}

// tracedRows are the rows of a traced query: they count the rows read and
// end the query's TraceEvent at Close. Embedding keeps every optional
// interface of SQLiteRows.
type tracedRows struct {
	*SQLiteRows
	ctx   context.Context
	ev    *TraceEvent
	ended bool
}

func (r *tracedRows) Next(dest []driver.Value) error {
	err := r.SQLiteRows.Next(dest)
	if err == nil {
		r.counted()
	}
	return err
}

// counted counts the current row in the query's event.
func (r *tracedRows) counted() {
	r.ev.Rows++
	for i := range r.s.run.cur {
		if col := &r.s.run.cur[i]; col.typ == typeText || col.typ == typeBlob {
			r.ev.Bytes += int64(col.n)
		}
	}
}

func (r *tracedRows) Close() error {
	err := r.SQLiteRows.Close()
	if !r.ended {
		r.ended = true
		c := r.s.c
		rerr := r.SQLiteRows.err
		if err != nil {
			rerr = err
		}
		ev := r.ev
		ev.Duration = time.Since(ev.Start)
		if ev.Err == nil {
			ev.Err = rerr
		}
		c.tracer.TraceEnd(r.ctx, ev)
	}
	return err
}

// callSite is where a traced connection's caller began its latest
// transaction (BeginTx) or statement outside one: the program counter of
// the caller's frame, formatted only when an error names it. Set by the
// connection's operations, read by another connection's error
// (cLockHolder), hence atomic.
type callSite struct{ pc atomic.Uintptr }

// get is the site as "dir/file.go:line", or "".
func (s *callSite) get() string {
	pc := s.pc.Load()
	if pc == 0 {
		return ""
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return filepath.Join(filepath.Base(filepath.Dir(f.File)), filepath.Base(f.File)) + ":" + strconv.Itoa(f.Line)
}

// tracedSites maps each traced connection's number (connCore.id) to its
// callSite, for the LockHolder of another connection's error.
var tracedSites sync.Map

// siteOf is the call site of traced connection id, or "".
func siteOf(id int64) string {
	if s, ok := tracedSites.Load(uint64(id)); ok {
		return s.(*callSite).get()
	}
	return ""
}

// driverPkg is this package's import path, as the program names it (a
// replace directive may name it github.com/mattn/go-sqlite3).
var driverPkg = reflect.TypeFor[SQLiteConn]().PkgPath()

// notCaller remembers, per program counter, whether its frame is not the
// caller's code, so that a traced operation symbolizes each frame once in
// the program's life: its cost is then a stack walk, without allocations.
var notCaller struct {
	sync.RWMutex
	m map[uintptr]bool
}

// callerPC is the program counter of the first frame of the caller's code:
// the first not in database/sql, the runtime, or this package's own code
// (its tests are callers), nor in a package under it (the OpenTelemetry
// adapter); 0 when none.
func callerPC() uintptr {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	notCaller.RLock()
	for _, pc := range pcs[:n] {
		if skip, ok := notCaller.m[pc]; !ok {
			break
		} else if !skip {
			notCaller.RUnlock()
			return pc
		}
	}
	notCaller.RUnlock()
	for _, pc := range pcs[:n] {
		notCaller.RLock()
		skip, ok := notCaller.m[pc]
		notCaller.RUnlock()
		if !ok {
			f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			skip = strings.HasPrefix(f.Function, "database/sql.") || strings.HasPrefix(f.Function, "runtime.") ||
				strings.HasPrefix(f.Function, driverPkg+".") && !strings.HasSuffix(f.File, "_test.go") ||
				strings.HasPrefix(f.Function, driverPkg+"/")
			notCaller.Lock()
			if notCaller.m == nil {
				notCaller.m = map[uintptr]bool{}
			}
			notCaller.m[pc] = skip
			notCaller.Unlock()
		}
		if !skip {
			return pc
		}
	}
	return 0
}
