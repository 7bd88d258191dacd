//go:build cgo

package sqlite3

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Connections, statements and rows that the program drops without Close.
//
// A forgotten Close must cost at most a leak, never a crash, and must not
// hold SQLite's locks for the rest of the process: a Rows left open keeps its
// read transaction (and, in a WAL or rollback-journal database, blocks every
// writer until the busy timeout), and database/sql keeps the connection of a
// leaked Rows for ever (DB holds every connection it opened, in use or not).
// So a statement that becomes unreachable unfinalized is reset and finalized
// by a cleanup (runtime.AddCleanup), and an unreachable open connection is
// closed by one. Closing, rather than leaking, frees SQLite's memory and file
// locks, and is safe because no one can use an unreachable connection.
//
// A cleanup runs on a goroutine of the runtime's, while the connection may be
// in use by its owner (a Tx that leaked one Rows and goes on with the next
// statement), and connections are opened without SQLite's mutex
// (SQLITE_OPEN_NOMUTEX). The cleanup therefore touches the connection only
// after claiming it: connCore.users counts the operations in progress and the
// open Rows, and a claim swaps 0 for a large negative number. An operation
// that finds the connection claimed waits for the claim's end (a few
// microseconds: finalizing statements). When the cleanup cannot claim, it
// leaves the statement on the orphans list and the operation that ends last
// finalizes it. No Rows.Next pays anything: an open Rows counts as one user
// from its query to its Close.

// connCore is the part of a connection that its cleanups share: it outlives
// the SQLiteConn when that is collected first.
type connCore struct {
	users   atomic.Int32 // operations in progress plus open Rows; claimedUsers while claimed
	pending atomic.Int32 // len(orphans), read without the lock

	mu       sync.Mutex
	h        connHandle   // nil once closed
	orphans  []stmtHandle // collected statements to finalize
	dead     bool         // the SQLiteConn was collected: close when claimed
	word     *cancelWord  // polled by the bridge until the connection closes
	cleanups []func()     // run after the database closes (SQLiteConn.onClose)
}

const claimedUsers = -1 << 30

// enter marks an operation that uses the C connection.
func (k *connCore) enter() {
	if k.users.Add(1) > 0 {
		return
	}
	for k.users.Load() <= 0 { // a cleanup holds the connection
		runtime.Gosched()
	}
}

// leave ends an operation begun with enter, and finalizes the statements
// collected meanwhile once no operation is left.
func (k *connCore) leave() {
	k.users.Add(-1)
	if k.pending.Load() != 0 {
		k.tryReap()
	}
}

// tryReap finalizes the orphans, and closes a collected connection, if no
// operation is in progress and no Rows is open.
func (k *connCore) tryReap() {
	if !k.users.CompareAndSwap(0, claimedUsers) {
		return // the operation in progress reaps when it leaves
	}
	k.mu.Lock()
	orphans := k.orphans
	k.orphans = nil
	k.pending.Store(0)
	if k.h != nil {
		for _, s := range orphans {
			cFinalize(s)
		}
		if k.dead {
			k.closeLocked()
		}
	}
	k.mu.Unlock()
	k.users.Add(-claimedUsers)
}

// closeLocked closes the database (finalizing every statement still
// prepared) and releases what the callbacks needed. It returns SQLite's
// result code.
func (k *connCore) closeLocked() int {
	rc := cClose(k.h)
	k.h = nil
	k.orphans = nil
	k.pending.Store(0)
	for _, f := range k.cleanups {
		f()
	}
	k.cleanups = nil
	return rc
}

// collectConn is the cleanup of a SQLiteConn collected without Close.
func collectConn(k *connCore) {
	k.mu.Lock()
	k.dead = true
	k.mu.Unlock()
	k.pending.Add(1) // so that the last operation or Rows to end closes it
	k.tryReap()
}

// stmtOwner is what a statement's cleanup needs: the connection, the
// statement, and whether an open Rows of it counts as a user.
type stmtOwner struct {
	core *connCore
	h    stmtHandle
	held atomic.Bool
}

// collectStmt is the cleanup of a SQLiteStmt collected unfinalized (with its
// Rows, if it had some open).
func collectStmt(o *stmtOwner) {
	k := o.core
	o.release()
	k.mu.Lock()
	if k.h != nil {
		k.orphans = append(k.orphans, o.h)
		k.pending.Store(int32(len(k.orphans)))
	}
	k.mu.Unlock()
	k.tryReap()
}

// hold counts an open Rows of the statement as a user of the connection.
func (o *stmtOwner) hold() {
	if o.held.CompareAndSwap(false, true) {
		o.core.users.Add(1)
	}
}

// release ends hold, once.
func (o *stmtOwner) release() {
	if o.held.CompareAndSwap(true, false) {
		o.core.leave()
	}
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

// cancelWord is the word the bridge polls for cancellation (see watch), in C
// memory: the bridge keeps its address, which Go memory would have to be
// pinned for, and a pinned pointer left when its connection is collected
// crashes the program. It is freed when nothing refers to it any more: the
// connection's core and the AfterFuncs of contexts that may still end.
type cancelWord struct{ p *uint64 }

func newCancelWord() *cancelWord {
	w := &cancelWord{p: cAllocWord()}
	runtime.AddCleanup(w, cFreeWord, w.p)
	return w
}
