//go:build cgo

package sqlite3

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The write turn: connections of this process on one file take turns to
// write, waiting in Go (share.go has the whole picture).
//
// SQLite has one writer at a time per file. The VFS of bridge_share.c already
// hands its write lock over in arrival order, but a connection waiting there
// waits on an OS thread, blocked in C: every hand-over wakes a thread, and
// on a loaded machine that costs as much as the transaction. So before a
// statement that will take the write lock for a transaction that holds
// nothing yet, the connection first takes its file's turn here: a FIFO of
// goroutines, whose hand-over is a goroutine switch (as with the hand-built
// single-writer pool, a second sql.DB with SetMaxOpenConns(1)). It keeps the
// turn until it holds no transaction any more, looked at as each operation
// ends (connCore.unlock). The turn is taken by Exec and Query of a statement
// that is not read-only, and by BeginTx with _txlock=immediate or exclusive;
// what it cannot foresee (a script's later statements, the direct API, a
// transaction that read first) still waits in bridge_share.c's queue.
//
// Only connections whose busy handler is the driver's take turns, and only
// while the file has two or more connections in the process: alone, a
// connection pays nothing. The wait ends at the busy timeout with "database
// is locked" (ErrBusy), or when the statement's context is done, as a wait
// in SQLite's busy handler does; what is left of the timeout then bounds
// the wait for a lock of another process.

// writeGate is one file's turn.
type writeGate struct {
	key   uintptr      // the file's bridge_file, while a connection has it open
	conns atomic.Int32 // connections of the process using it (under gates.mu)

	mu      sync.Mutex
	held    bool
	waiters []*gateWaiter // in arrival order

	// For FileStats.
	waits, waitNS, waitMaxNS, timeouts atomic.Int64
}

var gates struct {
	mu sync.Mutex
	m  map[uintptr]*writeGate
}

// gateFor returns the gate of the file whose bridge_file is key, counting
// one more connection on it.
func gateFor(key uintptr) *writeGate {
	gates.mu.Lock()
	defer gates.mu.Unlock()
	if gates.m == nil {
		gates.m = make(map[uintptr]*writeGate)
	}
	g := gates.m[key]
	if g == nil {
		g = &writeGate{key: key}
		gates.m[key] = g
	}
	g.conns.Add(1)
	return g
}

// drop counts one connection less on g, forgetting it after the last.
func (g *writeGate) drop() {
	gates.mu.Lock()
	defer gates.mu.Unlock()
	if g.conns.Add(-1) == 0 {
		delete(gates.m, g.key)
	}
}

// A gateWaiter is a connection waiting for the turn.
type gateWaiter struct {
	wake    chan struct{} // 1 slot: the turn was handed over, or is free to try for
	since   time.Time
	granted bool // handed over (under g.mu)
}

// handOverAfter is how long the first waiter may wait before the turn goes
// to it directly. Until then a release only wakes it, and a connection that
// is running (often the one that just released, starting its next write)
// may take the turn first: a hand-over costs a goroutine switch, about as
// much as a one-row transaction, and a run of transactions on the goroutine
// that is already running costs none. Go's sync.Mutex makes the same trade
// (its starvation mode starts at 1 ms).
const handOverAfter = time.Millisecond

// acquire waits for g's turn, at most timeout or until ctx is done, and
// returns how long it waited.
func (g *writeGate) acquire(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	g.mu.Lock()
	if !g.held && (len(g.waiters) == 0 || time.Since(g.waiters[0].since) < handOverAfter) {
		g.held = true
		g.mu.Unlock()
		return 0, nil
	}
	w := &gateWaiter{wake: make(chan struct{}, 1), since: time.Now()}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()

	limit := time.NewTimer(timeout)
	defer limit.Stop()
	// A Rows dropped without Close may hold the turn: its cleanup gives it
	// back, after a collection (lockwait.go), as in the busy handler.
	collect := time.NewTimer(busyCollectAfter)
	defer collect.Stop()
	var err error
	for err == nil {
		select {
		case <-w.wake:
			g.mu.Lock()
			if !w.granted && !g.held {
				g.held, w.granted = true, true
				g.remove(w)
			}
			ok := w.granted
			g.mu.Unlock()
			if ok {
				d := time.Since(w.since)
				g.count(d)
				return d, nil
			}
		case <-ctx.Done():
			err = ctx.Err()
		case <-limit.C:
			err = errBusyTurn
			g.timeouts.Add(1)
		case <-collect.C:
			collectForBusyWait()
			collect.Reset(busyCollectGap)
		}
	}
	g.mu.Lock()
	granted := w.granted
	if !granted {
		first := len(g.waiters) > 0 && g.waiters[0] == w
		g.remove(w)
		if first && !g.held && len(g.waiters) > 0 {
			g.notify(g.waiters[0]) // it may be free: the next one tries
		}
	}
	g.mu.Unlock()
	if granted {
		g.release() // the turn came as the wait ended: pass it on
	}
	return 0, err
}

// remove takes w out of the queue; under g.mu.
func (g *writeGate) remove(w *gateWaiter) {
	for i, x := range g.waiters {
		if x == w {
			g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
			return
		}
	}
}

// notify wakes w, once; under g.mu.
func (g *writeGate) notify(w *gateWaiter) {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// release gives the turn back: straight to the first waiter once it has
// waited handOverAfter, otherwise free, with the first waiter woken to try.
func (g *writeGate) release() {
	g.mu.Lock()
	if len(g.waiters) == 0 {
		g.held = false
	} else if w := g.waiters[0]; time.Since(w.since) >= handOverAfter {
		w.granted = true // held stays true: the turn is w's now
		g.waiters = g.waiters[1:]
		g.notify(w)
	} else {
		g.held = false
		g.notify(w)
	}
	g.mu.Unlock()
}

func (g *writeGate) count(d time.Duration) {
	g.waits.Add(1)
	g.waitNS.Add(int64(d))
	for {
		m := g.waitMaxNS.Load()
		if int64(d) <= m || g.waitMaxNS.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// errBusyTurn is SQLite's "database is locked", for a wait for the turn
// that ran out.
var errBusyTurn = Error{Code: ErrBusy, ExtendedCode: ErrNoExtended(ErrBusy), err: "database is locked", offset: -1}

// takeTurn takes the connection's write turn before a statement that will
// take the write lock (readonly: it will not), if it needs one.
func (c *SQLiteConn) takeTurn(ctx context.Context, readonly bool) error {
	k := c.core
	if readonly || k.gate == nil || k.turn || k.gate.conns.Load() < 2 {
		return nil
	}
	ms := cTurnTimeout(k.h)
	if ms < 0 {
		return nil // not the driver's busy handler, or in a transaction already
	}
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := time.Duration(ms) * time.Millisecond
	waited, err := k.gate.acquire(ctx, timeout)
	if err != nil {
		if err == errBusyTurn {
			return err
		}
		return c.contextError(ctx)
	}
	k.turn = true
	if waited > 0 {
		// The wait for a lock of another process gets what is left.
		cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
	}
	return nil
}

// endTurn gives the turn back once the connection holds no transaction;
// called as each operation ends (connCore.unlock), and at close.
func (k *connCore) endTurn() {
	if k.h != nil {
		cClearWait(k.h)
		if !cTxnNone(k.h) {
			return
		}
	}
	k.turn = false
	k.gate.release()
}
