//go:build cgo

package sqlite3

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The write turn: connections of this process on one file take turns to
// write, waiting in Go (share.go has the whole picture).
//
// SQLite has one writer at a time per file. The VFS (bridge_share_queue.c) already
// hands its write lock over in arrival order, but a connection waiting there
// waits on an OS thread, blocked in C: every hand-over wakes a thread, and
// on a loaded machine that costs as much as the transaction. So before a
// statement that will take the write lock for a transaction that holds
// nothing yet, the connection first takes its file's turn here: a queue of
// goroutines, whose hand-over is a goroutine switch (as with the hand-built
// single-writer pool, a second sql.DB with SetMaxOpenConns(1)). It keeps the
// turn until it holds no transaction any more, looked at as each operation
// ends, whoever ends it (connCore.settle: an operation, a cleanup that
// finalized a dropped Rows, a close).
//
// Fair, but not at any price: the turn is not a strict FIFO. A strict
// hand-over wakes a parked goroutine at every write, and moves the write to
// a connection whose page cache the last commit invalidated (in WAL mode
// SQLite drops a connection's cache when another connection committed). So,
// as sync.Mutex does, a release frees the turn and wakes the first waiter
// to ask for it, and whoever asks first takes it: most often the writer
// that just gave it back, running, its cache warm. A waiter that lost it
// so is not woken again at each release (wake). That holds only while
// the first waiter has not waited long (starving has the bound); past it,
// releases hand the turn over in arrival order until the first waiter has
// waited less. A group (group.go) reads the queue's order only through its
// first waiter (firstUnit, takeUnit), which barging leaves in place.
//
// The turn is taken by Exec and Query of a statement whose compiled program
// takes the main database's write lock (bridge_writes_main: a write
// transaction on schema 0, or VACUUM in place), so BEGIN IMMEDIATE and
// EXCLUSIVE take it for the whole transaction. What only writes TEMP or an
// attached file, changes the journal mode, checkpoints or runs VACUUM INTO
// takes no turn: SQLite does not lock the main file for it, or does so by
// itself, waiting in bridge_share_queue.c with what the turn cannot
// foresee (a script's later statements, the direct API, a transaction that
// read first). Against another SQLite (the libsqlite3 tag) the program is
// not visible, and writers wait in that queue only.
//
// Two queues, one owner. The lock itself is owned in bridge_share_queue.c: its
// queue decides who takes SQLite's write lock next, and the turn's holder
// also queues there behind a writer the turn did not foresee. The turn is a
// waiting room in front of it, for the waits that can be seen coming: a
// hand-over there is a goroutine switch, where a hand-over in C wakes an
// OS thread blocked in sqlite3_step (one per waiter), which on a loaded
// machine costs as much as a small transaction (bench/RESULTS.md).
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
	// woken is the waiter told that the turn is free, on its way to take
	// it: while one is, a release wakes nobody else. Whenever the turn is
	// free and someone waits, one is (so the turn never idles with a queue).
	woken *gateWaiter

	ckpt sync.Mutex // the process's auto-checkpoints of the file, one at a time (checkpoint.go)

	contended atomic.Int64 // when a groupable write last had to queue (UnixNano; group.go)
	// The last group's size and how long its COMMIT took (ns), for the
	// next group's wait for more writes (group.go, waitForMore).
	lastGroup  atomic.Int32
	lastCommit atomic.Int64
}

// gateWaiter is one goroutine waiting for the turn. ch says that its state
// changed: the turn was handed to it (handed), it is free to take, or a
// group took its unit. A groupable write (group.go) carries its unit, which
// the holder of the turn may take and run in its group instead.
type gateWaiter struct {
	ch    chan struct{} // buffered: a signal is never lost, and a stale one is harmless
	unit  *groupUnit
	since time.Time // when it queued; a waiter that lost the turn to a barger keeps its place and time

	queued bool // in waiters (under mu)
	handed bool // the turn is its (under mu)
	lost   bool // woken, it found the turn taken by a newcomer (under mu)
}

// The barging bound (starving): how long the oldest waiter may wait before
// newcomers stop taking a free turn ahead of it. At least turnBarging, and
// turnBargingPerWaiter for each waiter, up to turnBargingMost: a bound that
// does not grow with the queue hands the turn over at nearly every release
// once more writers wait than fit in it (see starving). Variables for the
// tests.
var (
	turnBarging          = time.Millisecond
	turnBargingPerWaiter = 200 * time.Microsecond
	turnBargingMost      = 20 * time.Millisecond
)

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

// acquire waits for g's turn, at most timeout or until ctx is done, and
// returns how long it waited.
func (g *writeGate) acquire(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	waited, _, err := g.wait(ctx, timeout, nil)
	return waited, err
}

// wait waits for g's turn, at most timeout or until ctx is done, and
// returns how long it waited. With a unit, the wait also ends when the
// holder of the turn took the unit into its group and ran it: ran is then
// true, and the unit holds the outcome. A unit taken is waited for to its
// end, whatever ctx or the timeout say: its caller must hear what became of
// its write.
func (g *writeGate) wait(ctx context.Context, timeout time.Duration, u *groupUnit) (waited time.Duration, ran bool, err error) {
	g.mu.Lock()
	start := time.Now()
	if g.mayTake(start) {
		g.held = true
		g.mu.Unlock()
		return 0, false, nil
	}
	w := &gateWaiter{ch: make(chan struct{}, 1), unit: u, since: start, queued: true}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	if u != nil {
		g.contended.Store(start.UnixNano())
	}

	var done chan struct{} // the unit's outcome
	if u != nil {
		done = u.done
	}
	limit := time.NewTimer(timeout)
	defer limit.Stop()
	// A Rows dropped without Close may hold the turn: its cleanup gives it
	// back, after a collection (lockwait.go), as in the busy handler.
	collect := time.NewTimer(busyCollectAfter)
	defer collect.Stop()
	// A waiter that lost the turn to a newcomer is not woken by the
	// releases that follow (wake); it looks again itself when arrive says,
	// and a release that finds it starving hands it the turn as to any
	// waiter.
	var recheck *time.Timer
	var recheckC <-chan time.Time
	defer func() {
		if recheck != nil {
			recheck.Stop()
		}
	}()
	for err == nil {
		var took bool
		var look time.Duration
		select {
		case <-w.ch:
			took, look = g.arrive(w)
		case <-recheckC:
			took, look = g.arrive(w)
		case <-done:
			return time.Since(start), true, nil
		case <-ctx.Done():
			err = ctx.Err()
		case <-limit.C:
			err = errBusyTurn
		case <-collect.C:
			collectForBusyWait()
			collect.Reset(busyCollectGap)
		}
		if took {
			return time.Since(start), false, nil
		}
		if look > 0 {
			if recheck == nil {
				recheck = time.NewTimer(look)
				recheckC = recheck.C
			} else {
				recheck.Reset(look)
			}
		}
	}
	g.mu.Lock()
	if w.queued {
		g.remove(w)
		g.mu.Unlock()
		return 0, false, err
	}
	taken := u != nil && u.taken
	g.mu.Unlock()
	if taken {
		<-done
		return time.Since(start), true, nil
	}
	// The turn came as the wait ended: pass it on.
	g.release()
	return 0, false, err
}

// mayTake reports whether a newcomer may take the turn now: it is free,
// and nobody waiting for it starves; under mu.
func (g *writeGate) mayTake(now time.Time) bool {
	return !g.held && !g.starving(now)
}

// starving reports whether the first waiter, who has waited longest (a
// waiter that lost the turn to a newcomer keeps its place and time), has
// waited turnBarging or more; under mu.
//
// Below the bound a free turn goes to whoever asks first, usually the
// writer that just gave it back, whose goroutine is running (a hand-over
// wakes a parked one) and whose connection's page cache is the one the
// last commit left valid (in WAL mode SQLite drops a connection's cache
// when another connection committed). Past it, each release hands the
// turn to the first waiter, in order, until the first one has waited less
// (it queued after the others: the queue is in the order of waiting).
// So nobody waits more than the bound plus the turns of those queued
// ahead of it: the trade of sync.Mutex's starvation mode, with its bound.
//
// Unlike sync.Mutex's, the bound grows with the queue (200 µs a waiter,
// 1 ms at least, 20 ms at most). Past the bound every release is a
// hand-over, and a fixed bound is always past once more writers wait than
// take their turns within it: 64 writers of 40 µs turns had the turn go
// round in strict order, a parked goroutine and a cold page cache at every
// write. With a bound of n waiters × 200 µs, the share of releases that
// hand over settles near (turn time / 200 µs) whatever n is: a fifth or
// less for short writes, which keep the turn with the warm writer, while
// writes of a millisecond or more are still handed over in order (their
// waiters have always waited past it). The cap keeps a long queue's
// waits within a small part of any busy timeout (bench/RESULTS.md, "The
// write turn's bound grows with its queue").
func (g *writeGate) starving(now time.Time) bool {
	h := g.head()
	return h != nil && now.Sub(h.since) >= g.bound()
}

// bound is the barging bound for the queue as it is; under mu.
func (g *writeGate) bound() time.Duration {
	return min(max(turnBarging, time.Duration(len(g.waiters))*turnBargingPerWaiter), max(turnBarging, turnBargingMost))
}

// arrive is w's look at the turn after a signal or its own look again, and
// reports whether the turn is now its: handed to it, or free and taken. A
// waiter that finds it taken by a newcomer keeps its place, marked lost,
// and is told when to look again (look); one whose unit a group took
// waits for its outcome.
func (g *writeGate) arrive(w *gateWaiter) (took bool, look time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.handed {
		return true, 0
	}
	if g.woken == w {
		g.woken = nil
	}
	if !w.queued {
		return false, 0
	}
	if g.held {
		w.lost = true
		return false, g.lookAgainIn(w)
	}
	g.remove(w)
	g.held = true
	return true, 0
}

// tryTake takes g's turn if a newcomer may (mayTake).
func (g *writeGate) tryTake() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.mayTake(time.Now()) {
		return false
	}
	g.held = true
	return true
}

// release gives the turn back. When the first waiter starves, the turn is
// handed to it and stays taken; otherwise it is free, for whoever asks
// first, and the first waiter is woken to ask (unless one woken already is
// on its way).
func (g *writeGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	h := g.head()
	if h == nil {
		g.held = false
		return
	}
	if g.starving(now) {
		g.remove(h)
		h.handed = true // held stays true: the turn is the waiter's now
		signal(h)
		return
	}
	g.held = false
	g.wake()
}

// wake tells the first waiter that the turn is free, unless one woken is
// on its way already, or the first waiter lost the turn to a newcomer
// before; under mu.
//
// Why not wake a waiter that lost: while a writer keeps barging, every
// release would wake the first waiter, which finds the turn taken again
// and parks: a futex wake and a context switch per write, on the
// releasing writer's path, for nothing. The waiter that lost looks again
// itself every turnLookAgain, or once it would starve if that is sooner
// (lookAgainIn): a turn left free meanwhile waits at most that long.
func (g *writeGate) wake() {
	if g.woken != nil {
		return
	}
	if h := g.head(); h != nil && !h.lost {
		g.woken = h
		signal(h)
	}
}

// lookAgainIn is when a waiter that lost the turn to a newcomer, and is
// not woken by releases, looks again: in turnLookAgain, or when it would
// starve if that is sooner; under mu.
func (g *writeGate) lookAgainIn(w *gateWaiter) time.Duration {
	return min(max(time.Until(w.since.Add(g.bound())), 50*time.Microsecond), turnLookAgain)
}

// turnLookAgain is how often a waiter that lost the turn to a newcomer
// looks again: a turn that its newcomer left free, with nobody to wake,
// stays free at most that long. Looking again only when it would starve
// left the turn free for milliseconds with 64 writers of sql.Open's
// default pool, whose newcomers come back late (bench/RESULTS.md).
var turnLookAgain = 200 * time.Microsecond

func signal(w *gateWaiter) {
	select {
	case w.ch <- struct{}{}:
	default: // a signal is pending already: w will look
	}
}

// remove takes w out of the queue; under mu. A woken waiter that leaves
// while the turn is free passes the wake on.
func (g *writeGate) remove(w *gateWaiter) {
	i := slices.Index(g.waiters, w)
	g.waiters = slices.Delete(g.waiters, i, i+1)
	w.queued = false
	if g.woken == w {
		g.woken = nil
		if !g.held {
			g.wake()
		}
	}
}

// head is the first waiter, or nil; under mu.
func (g *writeGate) head() *gateWaiter {
	if len(g.waiters) == 0 {
		return nil
	}
	return g.waiters[0]
}

// gather reports whether a write that may join a group of sig's waits for
// the turn, first letting the writers that are on their way queue, if
// writes had to queue lately (zero cost for a lone writer). Without it,
// the writers a group acknowledged come back one by one, and the first
// one back, finding nobody queued, would commit alone while the others
// queue behind it: half the commits would hold one write. A yield lets
// them run up to the queue; bounded by gatherFor.
func (g *writeGate) gather(sig groupSig) bool {
	if g.firstUnit(sig) != nil {
		return true
	}
	now := time.Now()
	if now.UnixNano()-g.contended.Load() > int64(gatherAfter) {
		return false
	}
	return g.yieldForUnit(sig, now.Add(gatherFor), 4)
}

// yieldForUnit yields to the writers on their way to the queue, at most
// tries times and until until, and reports whether a write that may join a
// group of sig's now waits first.
func (g *writeGate) yieldForUnit(sig groupSig, until time.Time, tries int) bool {
	for i := 0; i < tries && time.Now().Before(until); i++ {
		runtime.Gosched()
		if g.firstUnit(sig) != nil {
			return true
		}
	}
	return false
}

// A write gathers others only within gatherAfter of the last write that
// had to queue, and at most for gatherFor.
const (
	gatherAfter = 2 * time.Millisecond
	gatherFor   = 100 * time.Microsecond
)

// firstUnit is the unit of the first waiter if it is a write that may join
// a group of sig's; nil otherwise. Only the order of the queue is used: a
// group ends at the first waiter that cannot join it.
func (g *writeGate) firstUnit(sig groupSig) *groupUnit {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.head()
	if w == nil || w.unit == nil || w.unit.sig != sig {
		return nil
	}
	return w.unit
}

// takeUnit takes u, which firstUnit returned, out of the queue for the
// group to run it; false when its caller stopped waiting meanwhile.
func (g *writeGate) takeUnit(u *groupUnit) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.head()
	if w == nil || w.unit != u {
		return false
	}
	g.remove(w)
	u.taken = true
	return true
}

// queued is how many wait for the turn now.
func (g *writeGate) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters)
}

// errBusyTurn ends a wait for the turn that ran out of busy timeout.
var errBusyTurn = errors.New("sqlite3: the write turn's wait ran out")

// takeTurn takes the connection's write turn before a statement that will
// take the main database's write lock (writes), if it needs one.
func (c *SQLiteConn) takeTurn(ctx context.Context, writes bool) error {
	k := c.core
	if !writes || k.gate == nil || k.turn || k.waitLimited || k.gate.conns.Load() < 2 {
		// waitLimited: this operation gave its wait up already; it waits
		// no more, statement after statement.
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
	if err == errBusyTurn {
		// Out of time: the statement runs without the turn and without
		// waiting any more, so that SQLite itself refuses it (or takes the
		// lock, come free meanwhile), with its own error and what comes
		// with it (sqlite3_changes reset, the busy timeout counted), as
		// without the turn. settle lifts the limit.
		cSetWaitLeft(k.h, time.Nanosecond)
		k.waitLimited = true
		return nil
	}
	if err != nil {
		return c.contextError(ctx)
	}
	k.turn = true
	if waited > 0 {
		cTurnCounted(k.h, waited)
		k.note.turnWait += waited // tracer.go
		// The wait for a lock of another process gets what is left.
		cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
	}
	return nil
}

// endTurn gives the turn back once the connection holds no transaction;
// called as each operation ends (connCore.settle), and at close.
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

// sharedFileChanged follows a change of the connection's main database
// (sqlite3_deserialize closes the file and puts memory in its place): the
// connection leaves its file's registry entry and turn, and joins the new
// file's, if any; under mu, outside any transaction.
func (k *connCore) sharedFileChanged() {
	cShareRelink(k.h)
	key := cShareFileKey(k.h)
	if k.gate != nil && k.gate.key == key {
		return
	}
	if k.gate != nil {
		if k.turn {
			k.turn = false
			k.gate.release()
		}
		k.gate.drop()
		k.gate = nil
	}
	if key != 0 {
		k.gate = gateFor(key)
	}
}
