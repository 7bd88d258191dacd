//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"runtime"
	"sync"
	"sync/atomic"
)

// One connection, one thread at a time: the connection's exclusion.
//
// Connections are opened without SQLite's own mutex (SQLITE_OPEN_NOMUTEX,
// unless the DSN asks for _mutex=full), and the bridge keeps state of its own
// per connection (the parameter array, the SQL buffer, the cancellation
// arming, the last error) that Go reads and writes between C calls. Yet more
// than the goroutine database/sql hands the connection to reaches it: the
// runtime's cleanup goroutine (statements and connections collected without
// Close), database/sql's own goroutines (a Tx or Rows whose context ends is
// rolled back or closed from another goroutine), connections captured in a
// ConnectHook (mattn's live-backup pattern), and DirectStmts kept beyond Raw.
//
// So the rule, and its one mechanism: every C call on a connection, whoever
// makes it, runs while holding connCore.mu, taken once per operation (one
// uncontended lock and unlock per cgo call or per short group of them, never
// per SQLite API call) with
//
//	defer c.core.unlock(c.core.lock())
//
// and the Go state of the connection that those calls use is guarded by it
// too. An operation that finds the connection held waits its turn.
// TestEveryCCallHoldsTheLock (lockcheck_test.go) checks the rule on the
// source: a function that calls a cgo wrapper of the bridge*.go files takes
// the lock, or is called only from functions that do.
//
// Re-entrance: a Go callback of the connection's own step (a function, an
// aggregate, a virtual table, an authorizer) may run SQL on the connection.
// It runs on the goroutine, and the OS thread, that holds the lock, inside
// the cgo call. The bridge marks the thread and depth of every step and
// prepare in the connection's word block (bridge_word), so lock tells a
// nested call (inside a step, on the holder's thread) from another goroutine's
// with one cgo call, made only when the lock is already held. A nested call
// goes on under the outer's hold.
//
// Dropped without Close. A forgotten Close must cost at most a leak, never a
// crash, and must not hold SQLite's locks for the rest of the process: a
// Rows left open keeps its read transaction (blocking writers in a
// rollback-journal database). So a statement that becomes unreachable
// unfinalized is finalized by a cleanup (runtime.AddCleanup), and an
// unreachable open connection is closed by one. Cleanups run on the runtime's
// single cleanup goroutine, which must never wait for a connection (a long
// query would stall every cleanup of the process): a cleanup that cannot take
// the lock at once queues its statement on the orphans list, and the holder
// finalizes the orphans as it unlocks.

// connCore is the part of a connection that its cleanups share: it outlives
// the SQLiteConn when that is collected first.
type connCore struct {
	mu      sync.Mutex   // the exclusion (above)
	id      uint64       // the order lockBoth takes two connections in
	site    *callSite    // where its caller began what it writes, when traced (tracer.go)
	h       connHandle   // nil once closed; under mu
	word    *cancelWord  // polled for cancellation; marks the holder's steps
	pending atomic.Int32 // len(orphans) plus a collected connection, read without a lock

	omu      sync.Mutex   // guards orphans and dead, which cleanups append to without mu
	orphans  []stmtHandle // collected statements to finalize
	dead     bool         // the SQLiteConn was collected: close when next unlocked
	cleanups []func()     // run after the database closes (SQLiteConn.onClose); under mu

	gate        *writeGate // the file's write turn, nil for none (gate.go); set at open
	turn        bool       // this connection has the turn; under mu
	note        traceNote  // what the running operation noted for its TraceEvent (tracer.go); under mu
	waitLimited bool       // the operation's lock waits were cut short (gate.go); under mu
	groupOn     bool       // _group_commit=1 (group.go); set at open
	groupSig    groupSig   // whose writes it may run, and they its; set at open

	repl    *replicator   // _replicate_wait (replicate.go); set at open
	commits uint64        // the bridge's count of its commits when settle last looked; under mu
	ackSeq  atomic.Uint64 // the last commit it made that no caller has waited to see replicated (0: none)
}

// lock takes the connection for one operation and returns what unlock
// needs: false when the caller runs inside a callback of the operation that
// holds it, and goes on under that hold.
func (k *connCore) lock() (held bool) {
	if k.mu.TryLock() {
		return true
	}
	if nestedHere(k.word.p) { // one cgo call, only when the lock is taken
		return false
	}
	k.mu.Lock()
	return true
}

var coreIDs atomic.Uint64

// lockBoth takes the exclusions of two connections (a backup's) in one
// global order, so that two operations on the same pair cannot each hold one
// and wait for the other, and returns what undoes it.
func lockBoth(a, b *connCore) func() {
	if a == b {
		held := a.lock()
		return func() { a.unlock(held) }
	}
	if a.id > b.id {
		a, b = b, a
	}
	ha := a.lock()
	hb := b.lock()
	return func() {
		b.unlock(hb)
		a.unlock(ha)
	}
}

// unlock ends an operation begun with lock, first finalizing the statements
// collected meanwhile.
func (k *connCore) unlock(held bool) {
	if !held {
		return
	}
	k.settle()
	k.mu.Unlock()
	// A cleanup that queued its statement while we held the lock, after the
	// check above, relies on us: it saw the lock held.
	if k.pending.Load() != 0 {
		k.tryReap()
	}
}

// settle ends whatever ran under mu, before mu is let go: it finalizes the
// orphans (closing a collected connection), and gives the write turn back
// once the connection holds no transaction (gate.go), and runs the
// auto-checkpoint a commit left due (checkpoint.go), after that or, once
// the WAL is past twice its threshold, before. Every path that lets
// go of mu goes through it, so a transaction that ends in a cleanup (a
// dropped Rows finalized) gives the turn back as one ended by Close does.
func (k *connCore) settle() {
	if k.pending.Load() != 0 {
		k.reapLocked()
	}
	due := 0
	if k.h != nil {
		due = cCheckpointIsDue(k.h)
	}
	if due == ckptInTurn {
		k.autoCheckpoint(true)
	}
	if k.turn {
		k.endTurn()
	}
	if k.waitLimited {
		k.waitLimited = false
		if k.h != nil {
			cClearWait(k.h)
		}
	}
	if k.repl != nil && k.h != nil {
		if n := cCommits(k.h); n != k.commits {
			k.commits = n
			k.noteCommit()
		}
	}
	if due == ckptAfterTurn {
		k.autoCheckpoint(false)
	}
}

// noteCommit records that the connection's operation committed just now
// (replicate.go): the caller's acknowledgement waits for it (acked).
func (k *connCore) noteCommit() {
	k.ackSeq.Store(k.repl.committed())
}

// groupCommitted notes that the connection's write ran in another
// connection's group, which has committed it (group.go): its caller's
// acknowledgement waits for that commit as for one of its own.
func (k *connCore) groupCommitted() {
	if k.repl != nil {
		k.noteCommit()
	}
}

// acked is the end of every call that may acknowledge a commit, after the
// exclusion was let go: with _replicate_wait, when the connection committed
// since the last acknowledgement and err is nil, it waits until Litestream
// confirms the commit on the replica (replicate.go), and returns the
// ReplicationError that says it did not. Otherwise it returns err as it is.
func (k *connCore) acked(ctx context.Context, err error) error {
	if k.repl == nil {
		return err
	}
	seq := k.ackSeq.Swap(0)
	if seq == 0 || err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return k.repl.wait(ctx, seq)
}

// ackedResult is acked for an Exec: the ReplicationError carries the
// result of the write, whose commit stands.
func (k *connCore) ackedResult(ctx context.Context, res driver.Result, err error) (driver.Result, error) {
	if k.repl == nil {
		return res, err
	}
	if aerr := k.acked(ctx, err); aerr != err {
		aerr.(*ReplicationError).Result = res
		return nil, aerr
	}
	return res, err
}

// ackedRows is acked for a Query: rows whose acknowledgement failed are
// closed (their write is committed; the error says so).
func (k *connCore) ackedRows(ctx context.Context, rows driver.Rows, err error) (driver.Rows, error) {
	if k.repl == nil {
		return rows, err
	}
	if aerr := k.acked(ctx, err); aerr != err {
		if rows != nil {
			rows.Close()
		}
		return nil, aerr
	}
	return rows, err
}

// tryReap finalizes the orphans, and closes a collected connection, unless
// the connection is in use: its holder then does it as it unlocks.
func (k *connCore) tryReap() {
	for k.pending.Load() != 0 && k.mu.TryLock() {
		k.settle()
		k.mu.Unlock()
	}
}

// reapLocked finalizes the orphans, and closes a collected connection;
// under mu.
func (k *connCore) reapLocked() {
	k.omu.Lock()
	orphans, dead := k.orphans, k.dead
	k.orphans = nil
	k.pending.Store(0)
	k.omu.Unlock()
	if k.h == nil {
		return
	}
	for _, s := range orphans {
		cFinalize(s)
	}
	if dead {
		k.closeLocked()
	}
}

// closeLocked closes the database (finalizing every statement still
// prepared) and releases what the callbacks needed; under mu. It returns
// SQLite's result code.
func (k *connCore) closeLocked() int {
	rc := cClose(k.h)
	k.h = nil
	if k.site != nil {
		tracedSites.Delete(k.id) // tracer.go
	}
	if k.gate != nil {
		if k.turn {
			k.endTurn()
		}
		k.gate.drop()
		k.gate = nil
	}
	k.omu.Lock()
	k.orphans = nil
	k.pending.Store(0)
	k.omu.Unlock()
	for _, f := range k.cleanups {
		f()
	}
	k.cleanups = nil
	return rc
}

// collectConn is the cleanup of a SQLiteConn collected without Close. No
// one can use it any more, but a cleanup of one of its statements, or a
// backup or DirectStmt of another connection's goroutine... may hold it a
// moment: then the holder closes it.
func collectConn(k *connCore) {
	k.omu.Lock()
	k.dead = true
	k.pending.Add(1)
	k.omu.Unlock()
	k.tryReap()
}

// stmtOwner is what a statement's cleanup needs: the connection and the
// statement.
type stmtOwner struct {
	core *connCore
	h    stmtHandle
}

// collectStmt is the cleanup of a SQLiteStmt collected unfinalized (with its
// Rows, if it had some open).
func collectStmt(o *stmtOwner) {
	k := o.core
	k.omu.Lock()
	k.orphans = append(k.orphans, o.h)
	k.pending.Add(1)
	k.omu.Unlock()
	k.tryReap()
}

// track gives s an owner and a cleanup that finalizes it if it is collected
// while prepared.
func (s *SQLiteStmt) track() {
	s.own = &stmtOwner{core: s.c.core, h: s.h}
	s.cleanup = runtime.AddCleanup(s, collectStmt, s.own)
}

// untrack stops the cleanup of a statement that is finalized or handed to
// another SQLiteStmt.
func (s *SQLiteStmt) untrack() {
	if s.own != nil {
		s.cleanup.Stop()
	}
}

// cancelWord is the connection's word block in C memory (bridge_word): the
// word the bridge polls for cancellation (see watch), and the marks of the
// thread in a step that lock reads. The bridge keeps its address, which Go
// memory would have to be pinned for, and a pinned pointer left when its
// connection is collected crashes the program. It is freed when nothing
// refers to it any more: the connection's core and the AfterFuncs of
// contexts that may still end; so a goroutine that reads the marks of a
// connection being closed reads live memory.
type cancelWord struct {
	p *uint64
	// spare is a watchCell that no AfterFunc can run any more, for the
	// connection's next watch. It hangs here rather than on the connection
	// so that a cell, which a context may keep for as long as it lives,
	// keeps alive only the word, as the AfterFunc did before cells.
	spare atomic.Pointer[watchCell]
}

func newCancelWord() *cancelWord {
	w := &cancelWord{p: cAllocWord()}
	runtime.AddCleanup(w, cFreeWord, w.p)
	return w
}
