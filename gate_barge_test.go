//go:build cgo

package sqlite3

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of the turn's barging (gate.go, starving): a newcomer may take a
// free turn ahead of the queue while its first waiter has not waited past
// the bound; past it the turn is handed over in order; and every wait still
// ends at its context's end or its busy timeout, barged or not.
//
// The state machine is tested on a writeGate alone, with waiters put in its
// queue by hand, so that what the scheduler does cannot change the outcome;
// the goroutine tests assert progress and order, never how long it took.

// queueByHand puts a waiter that queued at since in g's queue, as wait
// does, without a goroutine behind it.
func queueByHand(g *writeGate, since time.Time) *gateWaiter {
	w := &gateWaiter{ch: make(chan struct{}, 1), since: since, queued: true}
	g.mu.Lock()
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	return w
}

func signalled(w *gateWaiter) bool {
	select {
	case <-w.ch:
		return true
	default:
		return false
	}
}

// setBarging sets turnBarging for one test.
func setBarging(t *testing.T, d time.Duration) {
	old := turnBarging
	turnBarging = d
	t.Cleanup(func() { turnBarging = old })
}

// A release with a waiter that has not waited long frees the turn and wakes
// the waiter to compete: a newcomer that asks first takes it, and the
// waiter, finding it taken, keeps its place. Once the waiter has waited past
// the bound, a release hands it the turn, and a newcomer must queue.
func TestTurnBargingStates(t *testing.T) {
	setBarging(t, time.Hour)
	g := &writeGate{}
	if !g.tryTake() {
		t.Fatal("a free turn with nobody waiting was not taken")
	}
	w := queueByHand(g, time.Now())
	g.release()
	if g.held || w.handed || g.woken != w || !signalled(w) {
		t.Fatalf("release beside a recent waiter: held %v, handed %v, woken is the waiter %v; want a free turn and the waiter woken",
			g.held, w.handed, g.woken == w)
	}
	if !g.tryTake() {
		t.Fatal("a newcomer could not take the free turn ahead of a recent waiter")
	}
	if took, look := g.arrive(w); took || !w.queued || g.woken != nil || g.head() != w || !w.lost {
		t.Fatal("the woken waiter, finding the turn taken, must keep its place and wait, knowing it lost")
	} else if look <= 0 || look > turnBarging {
		t.Fatalf("the waiter that lost looks again in %v; want within the bound", look)
	}
	g.release()
	if g.woken != nil || signalled(w) {
		t.Fatal("a release woke the waiter that lost to a newcomer: it looks again itself when it would starve")
	}
	if took, _ := g.arrive(w); !took || !g.held || w.queued || g.woken != nil {
		t.Fatal("the waiter that lost, looking again, must take the free turn and leave the queue")
	}

	// Past the bound: strict hand-over.
	turnBarging = time.Millisecond
	old := time.Now().Add(-time.Hour)
	w1, w2 := queueByHand(g, old), queueByHand(g, old.Add(time.Millisecond))
	if g.tryTake() {
		t.Fatal("a newcomer took a held turn")
	}
	g.release()
	if !g.held || !w1.handed || w1.queued || !signalled(w1) {
		t.Fatal("release beside a starving waiter did not hand it the turn")
	}
	if g.tryTake() {
		t.Fatal("a newcomer barged while a waiter starves")
	}
	g.release()
	if !g.held || !w2.handed || w2.queued || g.queued() != 0 {
		t.Fatal("the second starving waiter did not get the turn next")
	}
	g.release()
	if g.held || !g.tryTake() {
		t.Fatal("with the queue drained the turn is free for whoever asks")
	}
}

// A woken waiter that leaves (its context ended) while the turn is free
// passes the wake on, so that the turn never stays free while someone
// waits; a group that takes a woken waiter's unit leaves the turn's holder
// to wake the next.
func TestTurnBargingWakePassedOn(t *testing.T) {
	setBarging(t, time.Hour)
	g := &writeGate{}
	g.tryTake()
	w1, w2 := queueByHand(g, time.Now()), queueByHand(g, time.Now())
	g.release()
	if g.woken != w1 || !signalled(w1) {
		t.Fatal("release did not wake the first waiter")
	}
	g.mu.Lock()
	g.remove(w1)
	g.mu.Unlock()
	if g.woken != w2 || !signalled(w2) {
		t.Fatal("the woken waiter left and nobody else was woken")
	}

	u := &groupUnit{done: make(chan struct{})}
	w3 := queueByHand(g, time.Now())
	w3.unit = u
	if took, _ := g.arrive(w2); !took {
		t.Fatal("the woken waiter did not take the free turn")
	}
	g.release()
	if g.woken != w3 || !signalled(w3) {
		t.Fatal("release did not wake the waiter with a unit")
	}
	if !g.tryTake() || !g.takeUnit(u) || !u.taken {
		t.Fatal("a newcomer's group could not take the woken waiter's unit")
	}
	if took, look := g.arrive(w3); g.woken != nil || took || look != 0 {
		t.Fatal("a waiter whose unit a group took must wait for its outcome, not the turn")
	}
}

// A writer that takes the turn again and again, as fast as it can, cannot
// keep a waiter out past the bound: the waiter gets the turn, and the
// writer's next take waits behind it.
func TestTurnStarvingWaiterServed(t *testing.T) {
	g := &writeGate{}
	if _, err := g.acquire(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	var got atomic.Bool
	var hogTurns atomic.Int64
	done := make(chan error, 1)
	go func() {
		_, err := g.acquire(context.Background(), time.Minute)
		got.Store(true)
		g.release()
		done <- err
	}()
	waitQueued(t, g, 1)
	// The hog: gives the turn back and asks again at once, until the
	// waiter has had it.
	for !got.Load() {
		g.release()
		if _, err := g.acquire(context.Background(), time.Minute); err != nil {
			t.Fatal(err)
		}
		hogTurns.Add(1)
	}
	g.release()
	if err := <-done; err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	t.Logf("the hog took the turn %d times before the waiter had it", hogTurns.Load())
}

// A waiter that lost the turn to a newcomer is not woken by releases any
// more, and still gets the turn when the newcomer goes away: it looks
// again itself once it would starve.
func TestTurnLostWaiterLooksAgain(t *testing.T) {
	setBarging(t, 20*time.Millisecond)
	g := &writeGate{}
	g.acquire(context.Background(), time.Minute)
	done := make(chan error, 1)
	go func() {
		_, err := g.acquire(context.Background(), time.Minute)
		done <- err
	}()
	waitQueued(t, g, 1)
	// Barge until the waiter, woken, has found the turn taken.
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.release()
		for !g.tryTake() {
			select {
			case err := <-done:
				t.Skipf("the waiter took the turn before any newcomer (%v): nothing lost to test", err)
			default:
			}
			runtime.Gosched()
		}
		g.mu.Lock()
		lost := g.head() != nil && g.head().lost
		g.mu.Unlock()
		if lost {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiter never lost the turn to a newcomer")
		}
		runtime.Gosched()
	}
	g.release() // and the newcomer goes away: nobody wakes the waiter
	if err := <-done; err != nil {
		t.Fatalf("the waiter that lost: %v", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.held || len(g.waiters) != 0 {
		t.Fatalf("after the waiter took the turn: held %v, %d waiting", g.held, len(g.waiters))
	}
}

// The bound grows with the queue: turnBargingPerWaiter for each waiter,
// never less than turnBarging nor more than turnBargingMost. A first waiter
// that has waited 1.5 ms starves behind one other waiter, not behind
// fifteen (3 ms for 16); 25 ms starves however long the queue is.
func TestTurnBargingBoundGrowsWithQueue(t *testing.T) {
	setBarging(t, time.Millisecond)
	now := time.Now()
	cases := []struct {
		waiters int
		waited  time.Duration
		starves bool
	}{
		{1, 900 * time.Microsecond, false},
		{1, 1500 * time.Microsecond, true},
		{2, 1500 * time.Microsecond, true},
		{16, 1500 * time.Microsecond, false},
		{16, 3100 * time.Microsecond, false},
		{16, 3300 * time.Microsecond, true},
		{500, 19 * time.Millisecond, false},
		{500, 25 * time.Millisecond, true},
	}
	for _, c := range cases {
		g := &writeGate{held: true}
		queueByHand(g, now.Add(-c.waited))
		for range c.waiters - 1 {
			queueByHand(g, now)
		}
		g.mu.Lock()
		starves := g.starving(now)
		g.mu.Unlock()
		if starves != c.starves {
			t.Errorf("%d waiters, the first for %v: starving %v, want %v", c.waiters, c.waited, starves, c.starves)
		}
	}
}

// Waiters that queued one after another get the turn in that order once
// they starve, whatever newcomers do meanwhile.
func TestTurnStarvingInOrder(t *testing.T) {
	setBarging(t, 20*time.Millisecond)
	g := &writeGate{}
	g.acquire(context.Background(), time.Minute)
	const n = 5
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := g.acquire(context.Background(), time.Minute); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			g.release()
		})
		waitQueued(t, g, i+1)
	}
	time.Sleep(2 * turnBarging) // all starve now
	stop := make(chan struct{})
	var barged atomic.Int64
	var hog sync.WaitGroup
	hog.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if g.tryTake() {
				barged.Add(1)
				g.release()
			}
		}
	})
	g.release()
	wg.Wait()
	close(stop)
	hog.Wait()
	for i, w := range order {
		if w != i {
			t.Fatalf("starving waiters got the turn in the order %v, want the order they queued in", order)
		}
	}
	t.Logf("a newcomer took the turn %d times meanwhile", barged.Load())
}

// A waiter that newcomers keep beating to the turn still stops waiting at
// its busy timeout, or at its context's end, and leaves the gate as it
// found it.
func TestTurnBargedWaitEnds(t *testing.T) {
	setBarging(t, time.Hour) // newcomers always win
	for _, how := range []string{"timeout", "context"} {
		t.Run(how, func(t *testing.T) {
			g := &writeGate{}
			g.acquire(context.Background(), time.Minute)
			ctx, timeout := context.Background(), time.Minute
			if how == "timeout" {
				timeout = 50 * time.Millisecond
			} else {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			done := make(chan error, 1)
			go func() {
				_, err := g.acquire(ctx, timeout)
				done <- err
			}()
			waitQueued(t, g, 1)
			// The turn stays held; the waiter is woken again and again and
			// finds it taken, as when a newcomer beats it each time.
			var err error
			for running := true; running; {
				g.mu.Lock()
				g.wake()
				g.mu.Unlock()
				select {
				case err = <-done:
					running = false
				case <-time.After(time.Millisecond):
				}
			}
			want := errBusyTurn
			if how == "context" {
				want = context.DeadlineExceeded
			}
			if !errors.Is(err, want) {
				t.Fatalf("the barged wait ended with %v, want %v", err, want)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.waiters) != 0 || g.woken != nil || !g.held {
				t.Fatalf("after the wait ended: %d waiters, woken %v, held %v; want none, nil, still held",
					len(g.waiters), g.woken != nil, g.held)
			}
		})
	}
}

// End to end: a connection writing in a tight loop and one other write on
// another connection of the pool: the other write gets in, and a write that
// waits behind a transaction still fails with "database is locked" at its
// busy timeout.
func TestTurnBargingWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	db := openTestDB(t, path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=10000")
	db.SetMaxOpenConns(3)
	testMustExec(t, db, "CREATE TABLE t(w INT)")
	ctx := context.Background()
	hogConn, other := testConn(t, db), testConn(t, db)
	stop := make(chan struct{})
	var hogWrites atomic.Int64
	var hog sync.WaitGroup
	hog.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := hogConn.ExecContext(ctx, "INSERT INTO t VALUES (0)"); err != nil {
				t.Error(err)
				return
			}
			hogWrites.Add(1)
		}
	})
	for hogWrites.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	for i := range 20 {
		if _, err := other.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
			t.Fatalf("write %d beside a writer in a tight loop: %v", i, err)
		}
	}
	close(stop)
	hog.Wait()
	if n := testQueryInt(t, db, "SELECT count(*) FROM t WHERE w = 1"); n != 20 {
		t.Errorf("%d rows of the other writer, want 20", n)
	}

	short := openTestDB(t, path+"?_busy_timeout=200")
	testQueryInt(t, short, "SELECT count(*) FROM t")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	start := time.Now()
	_, err = short.Exec("INSERT INTO t VALUES (2)")
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a write behind a transaction, _busy_timeout=200: %v, want database is locked", err)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("it gave up after %v, before its busy timeout", took)
	}
}
