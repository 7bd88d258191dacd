//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// Group commit (_group_commit=1): the writes of a file's connections in this
// process share SQLite transactions.
//
// A commit costs the same whether it holds one row or a hundred (the WAL's
// frames, the shm locks, an fsync at _sync=FULL), so writers that each
// commit alone cannot together go faster than one serial writer. With the
// switch, a connection that gets the file's write turn (gate.go) while other
// connections' writes wait for it runs them too, on itself, one after
// another inside one transaction, and commits them all at once: the turn's
// queue is the group. Only the queue's order is used: a write that finds
// another writer ahead of it that cannot join (a transaction, a connection
// that is not grouped) waits behind it, and a group ends where the queue
// holds something that cannot join it.
//
// What each write sees and what it is told:
//   - Writes are serial: each runs after the ones before it in the group and
//     sees them; other connections see the group when it commits, never part
//     of it.
//   - A write that fails (a constraint, a bad argument) is undone alone, as
//     in autocommit, and its caller alone gets the error at once. With
//     foreign keys on, each write runs in a SAVEPOINT, so that one that
//     leaves a deferred foreign key unresolved is undone alone too, with
//     SQLite's error.
//   - No caller is told its write succeeded before the group's COMMIT has
//     returned: _sync=FULL keeps its promise, and shares its fsync.
//   - A COMMIT that fails, or an error after which SQLite rolled the whole
//     transaction back (a full disk, an I/O error, ROLLBACK in a conflict
//     clause or a trigger), fails every write of the group not yet
//     acknowledged with an error that says so (groupLost); none of them is in
//     the database.
//   - A write whose context ends before it started is not run, and its caller
//     gets the context's error; once started, a grouped write runs to its end
//     whatever its caller's context does: an interrupt would roll back the
//     whole group.
//   - LastInsertId and RowsAffected are each write's own.
//
// Which writes join: an Exec or a Query (or a prepared statement's) of one
// statement that writes only the main database (bridge_writes_main: no
// transaction control, VACUUM, journal-mode change or checkpoint), outside a
// transaction (a Query's rows are read in the group and handed out after
// its COMMIT: queryGrouped), and a BeginTx transaction begun IMMEDIATE, on a connection
// whose busy handler is the driver's. A transaction that finds the turn
// taken runs in the holder's group, in a savepoint there: the holder lends
// its connection (its exclusion let go) until the transaction's Commit or
// Rollback, and the transaction's statements are forwarded to it (hostOf);
// left idle longer than the busy timeout, it is rolled back (waitHosted).
// One that gets the turn runs the writes queued behind it at its Commit. A
// connection joins only groups of connections opened by the same driver
// with the same DSN, and leaves grouping for good once it holds what would
// make the same SQL mean something else on another connection: anything in
// TEMP or ATTACHed (bridge_group_ready, looked at for each write), a PRAGMA
// that sets something, or a hook, function, collation, module, limit,
// authorizer, busy handler, trace, session or extension added after open
// (leaveGroups), or a direct statement or an open BLOB, which run on it
// alone. What ConnectHook sets up is on every connection and does not
// count: note that hooks fire on the connection that runs the group, and a
// commit or rollback hook once per group.
//
// A lone writer pays nothing: a write that gets the turn with no other write
// waiting behind it runs alone, in autocommit, as without the switch.

// groupSig says which connections may run each other's writes: those opened
// by one driver with one DSN.
type groupSig struct {
	d   *SQLiteDriver
	dsn string
}

// groupUnit is one write handed to whichever connection runs its group.
type groupUnit struct {
	sig   groupSig
	ctx   context.Context
	query string
	args  []driver.NamedValue
	size  int           // bytes of SQL and arguments, for the group's cap
	taken bool          // a group took it (under the gate's mu)
	done  chan struct{} // closed when id, changes and err are final
	woke  chan struct{} // ends the caller's wait in the queue: done, or started for a transaction

	id, changes int64
	err         error

	// A write whose caller reads its rows (queryGrouped): out holds them,
	// read to the end in the group, and names their columns.
	rows  bool
	out   [][]driver.Value
	names []string

	// A transaction (tx): started is closed once the group's connection,
	// host, has begun its savepoint (or failed to: err); ended by the
	// transaction's Commit (committed) or Rollback, after which the group
	// goes on.
	tx        bool
	started   chan struct{}
	ended     chan struct{}
	host      *SQLiteConn
	committed bool
	used      atomic.Int64 // when the transaction last began or ended a call on the host (UnixNano)
}

// touch notes that the hosted transaction u is doing something.
func (u *groupUnit) touch() { u.used.Store(time.Now().UnixNano()) }

// errHostedIdle is what a hosted transaction hears once its host has
// rolled it back for being idle while the group's other writes waited.
var errHostedIdle = Error{Code: ErrAbort, ExtendedCode: ErrAbortRollback, offset: -1,
	err: "sqlite3: this transaction was rolled back: it stayed idle longer than the busy timeout while the writes of its group (_group_commit=1) waited for it to end"}

func newUnit(sig groupSig, ctx context.Context) *groupUnit {
	if ctx == nil {
		ctx = context.Background()
	}
	u := &groupUnit{sig: sig, ctx: ctx, done: make(chan struct{})}
	u.woke = u.done
	return u
}

// The caps of one group: it takes no more writes once it holds this many,
// this many bytes of SQL and arguments, or has run this long, so that the
// first write of a group waits for a bounded time and the transaction's
// dirty pages fit SQLite's cache.
const (
	groupMaxUnits = 256
	groupMaxBytes = 4 << 20
	groupMaxTime  = 5 * time.Millisecond
)

// grouping reports whether the connection takes part in group commit now.
func (c *SQLiteConn) grouping() bool {
	k := c.core
	return k.groupOn && !c.ungrouped.Load() && !c.inTx && k.gate != nil && !k.turn && k.gate.conns.Load() >= 2
}

// leaveGroups takes the connection out of group commit for good: it now
// holds something of its own (a hook, a function, ...) that its writes would
// miss on another connection, or that another connection's writes would
// meet on it. What ConnectHook sets up, before the connection is used,
// does not count.
func (c *SQLiteConn) leaveGroups() {
	if c.opened {
		c.ungrouped.Store(true)
	}
}

// noteQuery takes the connection out of grouping when query sets a PRAGMA.
func (c *SQLiteConn) noteQuery(query string) {
	if c.core.groupOn && c.opened && !c.ungrouped.Load() && setsPragma(query) {
		c.ungrouped.Store(true)
	}
}

// groupEntry says how a groupable write goes on once joinGroup returns.
type groupEntry int

const (
	entryAlone     groupEntry = iota // alone, taking the turn first (takeTurn)
	entryAloneHeld                   // alone, the turn held or its wait given up (SQLite then refuses it at once)
	entryHome                        // the turn is held and writes wait behind it: it runs a group (runGroup)
	entryRan                         // it ran in another connection's group: its outcome is in its unit
)

// joinGroup brings a groupable write (query, with args; rows when its
// caller reads its rows) to the file's write turn: it joins the group
// running when it gets there, or takes the turn, to run a group itself or
// to run alone. size is the write's bytes of SQL and arguments.
func (c *SQLiteConn) joinGroup(ctx context.Context, query string, args []driver.NamedValue, rows bool) (entry groupEntry, u *groupUnit, size int, err error) {
	k := c.core
	ms := cGroupTurn(k.h)
	if ms < 0 {
		return entryAlone, nil, 0, nil
	}
	size = len(query) + argsSize(args)
	if !k.gate.tryTake() {
		// The turn is taken: queue a unit. (A lone writer finds the turn
		// free and allocates nothing more than without the switch.)
		u = newUnit(k.groupSig, ctx)
		u.query, u.args, u.size, u.rows = query, args, size, rows
		timeout := time.Duration(ms) * time.Millisecond
		waited, ran, err := k.gate.wait(u.ctx, timeout, u)
		switch {
		case ran:
			return entryRan, u, size, nil
		case err == errBusyTurn:
			// As takeTurn: the write runs without the turn and without
			// waiting any more, for SQLite to refuse it with its own error.
			cSetWaitLeft(k.h, time.Nanosecond)
			k.waitLimited = true
			return entryAloneHeld, nil, size, nil
		case err != nil:
			return 0, nil, size, c.contextError(u.ctx)
		}
		if waited > 0 {
			cTurnCounted(k.h, waited)
			cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
		}
	}
	k.turn = true
	if !k.gate.gather(k.groupSig) {
		return entryAloneHeld, nil, size, nil
	}
	return entryHome, nil, size, nil
}

// execGrouped runs s, the whole of query, a groupable write with its
// arguments not yet bound, through the file's write turn (joinGroup). s
// stays the caller's, to release.
func (c *SQLiteConn) execGrouped(w *watch, s *SQLiteStmt, query string, args []driver.NamedValue) (driver.Result, error) {
	entry, u, size, err := c.joinGroup(w.ctx, query, args, false)
	switch {
	case err != nil:
		return nil, err
	case entry == entryRan:
		if u.err != nil {
			return nil, u.err
		}
		return c.newResult(u.id, u.changes), nil
	case entry == entryHome:
		var own groupUnit
		if err := c.runGroup(s, args, size, &own); err != nil {
			return nil, err
		}
		return c.newResult(own.id, own.changes), nil
	}
	return c.execAlone(w, s, args, entry == entryAlone)
}

// queryGrouped runs s, the whole of query, a groupable write whose rows
// the caller reads (INSERT ... RETURNING), with its arguments not yet
// bound, as execGrouped does. In a group its rows are read to the end there
// and handed out once the group has committed: SQLite itself makes all of
// such a statement's changes at its first step and buffers the rows it
// returns, so reading them first changes no result, and no caller sees a
// row of a write that is not yet in the database. The rows take over w.
func (c *SQLiteConn) queryGrouped(w watch, s *SQLiteStmt, query string, args []driver.NamedValue) (driver.Rows, error) {
	entry, u, size, err := c.joinGroup(w.ctx, query, args, true)
	switch {
	case err != nil:
		w.done()
		return nil, err
	case entry == entryRan:
		if u.err != nil {
			w.done()
			return nil, u.err
		}
		return s.bufferedRows(w, u.out, u.names), nil
	case entry == entryHome:
		own := groupUnit{rows: true}
		if err := c.runGroup(s, args, size, &own); err != nil {
			w.done()
			return nil, err
		}
		return s.bufferedRows(w, own.out, nil), nil
	}
	b := binder{args: args, strict: c.strict}
	if err := s.bind(&b, true); err != nil {
		w.done()
		return nil, err
	}
	if entry == entryAlone {
		return s.query(w)
	}
	return s.queryRun(w)
}

// execAlone binds args to s and runs it on its own, taking the turn first
// when turn says so.
func (c *SQLiteConn) execAlone(w *watch, s *SQLiteStmt, args []driver.NamedValue, turn bool) (driver.Result, error) {
	b := binder{args: args, strict: c.strict}
	if err := s.bind(&b, true); err != nil {
		return nil, err
	}
	if turn {
		if err := c.takeTurn(w.ctx, true); err != nil {
			return nil, err
		}
	}
	if rc := cExec(s.h, w.gen); rc != sqliteOK {
		return nil, c.errorFor(rc, w, 0)
	}
	return c.newResult(stmtLastInsertID(s.h), stmtChanges(s.h)), nil
}

// runGroup runs a group with the turn held: its own write first (s with
// args, whose outcome goes to own), then the writes waiting behind it, and
// commits them. It returns its own write's error; every other write's
// outcome goes to its caller through its unit.
func (c *SQLiteConn) runGroup(s *SQLiteStmt, args []driver.NamedValue, size int, own *groupUnit) error {
	k := c.core
	if err := c.execOne("BEGIN IMMEDIATE"); err != nil {
		// The lock is another process's: the waiting writes stay in the
		// queue, and the next holder of the turn tries again.
		return err
	}
	g := c.newGroup()
	g.n, g.size = 1, size
	var err error
	own.id, own.changes, err = c.groupStep(s, args, g.savepoints, own)
	if err != nil && cAutocommit(k.h) {
		return err // SQLite rolled back all there was: its own write
	}
	own.err = err
	lost := c.drain(g)
	if lost == nil {
		if err := c.commitTimed(g); err != nil {
			if !cAutocommit(k.h) {
				_ = c.execOne("ROLLBACK")
			}
			lost = groupLost(err, "its group's COMMIT failed")
		}
	}
	g.finish(c, lost)
	if own.err == nil && lost != nil {
		own.err = lost
	}
	return own.err
}

// commitTimed runs the group's COMMIT, noting its size and how long the
// COMMIT took for the next group (waitForMore).
func (c *SQLiteConn) commitTimed(g *group) error {
	start := time.Now()
	err := c.execOne("COMMIT")
	gt := c.core.gate
	gt.lastCommit.Store(int64(time.Since(start)))
	if g.n > 1 {
		gt.lastGroup.Store(int32(g.n))
	}
	return err
}

// group is a group being run.
type group struct {
	savepoints bool // foreign keys are on: each write in a savepoint (groupStep)
	start      time.Time
	waitFrom   time.Time // when it began waiting for more writes (waitForMore)
	n, size    int
	done       []*groupUnit // run, waiting for the COMMIT
}

func (c *SQLiteConn) newGroup() *group {
	return &group{savepoints: cForeignKeysOn(c.core.h), start: time.Now()}
}

// full reports whether g has reached one of its caps.
func (g *group) full() bool {
	return g.n >= groupMaxUnits || g.size >= groupMaxBytes || time.Since(g.start) >= groupMaxTime
}

// drain runs the writes waiting for the turn that may join the group, in
// the transaction the connection holds, until none is left or the group is
// full. It returns a groupLost error once SQLite has rolled the whole
// transaction back.
func (c *SQLiteConn) drain(g *group) error {
	k := c.core
	for !g.full() {
		if c.ungrouped.Load() {
			// A transaction it hosted set a PRAGMA here (noteQuery): the
			// writes still waiting would run with it.
			return nil
		}
		if !cGroupClean(k.h) {
			// A transaction it ran left something in TEMP: the next
			// writes would meet it here and not on their own connection.
			c.ungrouped.Store(true)
			return nil
		}
		u := k.gate.takeUnit(k.groupSig)
		if u == nil {
			if c.waitForMore(g) {
				continue
			}
			return nil
		}
		g.n++
		g.size += u.size
		if err := u.ctx.Err(); err != nil {
			u.err = c.contextError(u.ctx)
			if u.tx {
				close(u.started)
			}
			close(u.done)
			continue
		}
		if u.tx {
			if lost := c.host(g, u); lost != nil {
				return lost
			}
			continue
		}
		var err error
		u.id, u.changes, err = c.groupRun(u, g.savepoints)
		if err != nil {
			u.err = err
			close(u.done)
			if cAutocommit(k.h) {
				// SQLite rolled the whole transaction back.
				return groupLost(err, "rolled back by another write of its group")
			}
			continue
		}
		g.done = append(g.done, u)
	}
	return nil
}

// waitForMore waits, before the group commits, for the writers of the
// last group to come back, when they are likely to and sharing the COMMIT
// is worth the wait: the group holds fewer writes than the last one did,
// and the last COMMIT took long enough (an fsync, at _sync=FULL) that a
// wait of at most half of it costs less than a COMMIT of its own. It
// reports whether a write now waits to join. Without it, the writers a
// group acknowledged come back while the next group is already running,
// and at FULL groups settle at half the writers: twice the fsyncs per
// write. At NORMAL a COMMIT costs too little for any wait.
func (c *SQLiteConn) waitForMore(g *group) bool {
	gt, sig := c.core.gate, c.core.groupSig
	if g.n >= int(gt.lastGroup.Load()) {
		return false
	}
	limit := time.Duration(gt.lastCommit.Load()) / 2
	if limit < groupWaitWorth {
		return false
	}
	if g.waitFrom.IsZero() {
		g.waitFrom = time.Now()
	}
	return gt.yieldForUnit(sig, g.waitFrom.Add(min(limit, groupMaxWait)), math.MaxInt)
}

// A group waits for more writes only when the last COMMIT took over twice
// groupWaitWorth, and never longer than groupMaxWait in all.
const (
	groupWaitWorth = 40 * time.Microsecond
	groupMaxWait   = time.Millisecond
)

// host runs another connection's transaction, u, in the group: it begins
// a savepoint for it, and lends the connection to it (the exclusion let go)
// until its Commit or Rollback, which run the transaction's statements here
// (forwarded by hostOf).
func (c *SQLiteConn) host(g *group, u *groupUnit) error {
	k := c.core
	if err := c.execOne("SAVEPOINT fastsqlite_tx"); err != nil {
		u.err = err
		close(u.started)
		close(u.done)
		if cAutocommit(k.h) {
			return groupLost(err, "rolled back by another write of its group")
		}
		return nil
	}
	wasInTx := c.inTx
	c.inTx, c.txLost, c.txLostBy = true, false, nil // errorFor notes a rollback by SQLite, and why
	u.host = c
	c.hosting = u
	u.touch()
	limit := time.Duration(cBusyTimeout(k.h)) * time.Millisecond
	close(u.started)
	k.mu.Unlock()
	idle := c.waitHosted(u, limit)
	c.hosting = nil
	lost, by := c.txLost || cAutocommit(k.h), c.txLostBy
	c.inTx, c.txLost, c.txLostBy = wasInTx, false, nil
	if idle && !lost {
		// Rolled back (waitHosted): the group goes on without it.
		u.err = errHostedIdle
		close(u.done)
		return nil
	}
	if lost {
		if by == nil {
			by = driverError("SQLite rolled back the transaction in one of its transactions")
		}
		err := groupLost(by, "rolled back by another write of its group")
		if u.committed {
			u.err = err
		}
		close(u.done)
		return err
	}
	if u.committed {
		g.done = append(g.done, u)
	} else {
		close(u.done)
	}
	return nil
}

// waitHosted waits, with the connection lent, for the transaction it hosts
// (u) to end, and takes the connection back. A transaction left idle (no
// call on it begun or ended, no rows of it open) for longer than limit, the
// busy timeout, which is how long the writes grouped before it would wait for
// a lock held by another transaction, is rolled back instead: a leaked Tx
// then costs its own work, as a held lock costs theirs without the switch,
// not their wait for ever. It reports whether it rolled u back; its later
// calls get errHostedIdle (hostedCall).
func (c *SQLiteConn) waitHosted(u *groupUnit, limit time.Duration) bool {
	k := c.core
	if limit <= 0 {
		<-u.ended
		k.mu.Lock()
		return false
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		select {
		case <-u.ended:
			k.mu.Lock()
			return false
		case <-t.C:
		}
		k.mu.Lock()
		select {
		case <-u.ended:
			return false
		default:
		}
		idle := time.Since(time.Unix(0, u.used.Load()))
		if idle >= limit && !cStmtsBusy(k.h) {
			c.rollbackHosted()
			return true
		}
		k.mu.Unlock()
		t.Reset(max(limit-idle, limit/8))
	}
}

// hostedCall takes h, the host of the transaction u, for one of u's calls:
// it returns what unlock needs, or errHostedIdle once h has rolled u back
// (waitHosted), having let go of h again.
func (h *SQLiteConn) hostedCall(u *groupUnit) (bool, error) {
	held := h.core.lock()
	if h.hosting != u {
		h.core.unlock(held)
		return false, errHostedIdle
	}
	u.touch()
	return held, nil
}

// onHost runs f, a call of c's transaction, on h, its host, under
// hostedCall's check that h still hosts it.
func onHost[T any](c, h *SQLiteConn, f func() (T, error)) (T, error) {
	u := c.txUnit
	held, err := h.hostedCall(u)
	if err != nil {
		var none T
		return none, err
	}
	defer h.hostedDone(u, held)
	return f()
}

// hostedExec runs query, a statement of c's transaction, on h, its host.
func (c *SQLiteConn) hostedExec(h *SQLiteConn, query string, args []driver.NamedValue) (driver.Result, error) {
	return onHost(c, h, func() (driver.Result, error) { return h.execContext(context.Background(), query, args) })
}

// hostedQuery runs query, a query of c's transaction, on h, its host.
func (c *SQLiteConn) hostedQuery(h *SQLiteConn, query string, args []driver.NamedValue) (driver.Rows, error) {
	return onHost(c, h, func() (driver.Rows, error) { return h.queryContext(context.Background(), query, args) })
}

// hostedPrepare prepares query for c's transaction on h, its host: the
// statement runs only while h still hosts the transaction (usable).
func (c *SQLiteConn) hostedPrepare(h *SQLiteConn, query string) (*SQLiteStmt, error) {
	return onHost(c, h, func() (*SQLiteStmt, error) {
		s, err := h.prepareContext(query)
		if s != nil {
			s.hostedFor = c.txUnit
		}
		return s, err
	})
}

// hostedDone ends a call that hostedCall began.
func (h *SQLiteConn) hostedDone(u *groupUnit, held bool) {
	u.touch()
	h.core.unlock(held)
}

// finish acknowledges the group's writes run in it, each with its own
// result, or with lost.
func (g *group) finish(c *SQLiteConn, lost error) {
	if g.n > 1 && lost == nil {
		groupStats.groups.Add(1)
		groupStats.units.Add(int64(g.n))
		cGroupCounted(c.core.h, g.n)
	}
	for _, u := range g.done {
		if lost != nil {
			u.err = lost
		}
		close(u.done)
	}
}

// beginGrouped begins BeginTx's transaction (IMMEDIATE) through the file's
// turn, with the connection held: in the group of the connection that has
// the turn when it gets there (hosted: every statement of the transaction
// then runs there, forwarded by hostOf), or with the turn, as its holder,
// which runs the writes waiting behind it when the transaction commits. It
// reports false when the transaction must begin as without the switch.
func (c *SQLiteConn) beginGrouped(ctx context.Context) (bool, error) {
	k := c.core
	ms := cGroupTurn(k.h)
	if ms < 0 {
		return false, nil
	}
	if k.gate.tryTake() {
		k.turn = true
		if err := c.execOne(c.txlock); err != nil {
			return true, err
		}
		c.groupHome = true
		return true, nil
	}
	u := newUnit(k.groupSig, ctx)
	u.tx, u.started, u.ended = true, make(chan struct{}), make(chan struct{})
	u.woke = u.started
	timeout := time.Duration(ms) * time.Millisecond
	waited, ran, err := k.gate.wait(u.ctx, timeout, u)
	if ran {
		if u.err != nil {
			return true, u.err
		}
		c.txHost, c.txUnit = u.host, u
		return true, nil
	}
	if err == errBusyTurn {
		cSetWaitLeft(k.h, time.Nanosecond) // as takeTurn
		k.waitLimited = true
		return true, c.execOne(c.txlock)
	}
	if err != nil {
		return true, c.contextError(u.ctx)
	}
	k.turn = true
	if waited > 0 {
		cTurnCounted(k.h, waited)
		cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
	}
	if err := c.execOne(c.txlock); err != nil {
		return true, err
	}
	c.groupHome = true
	return true, nil
}

// commitHome commits the transaction of a connection that began it with
// the turn (beginGrouped), with the connection held: first the writes
// waiting behind it join the transaction, unless its own writes left a
// foreign key unresolved (its COMMIT fails, and theirs would with it).
func (c *SQLiteConn) commitHome() error {
	k := c.core
	c.groupHome = false
	g := c.newGroup()
	g.n = 1
	var lost error
	if !cDeferredFKs(k.h) && k.gate.gather(k.groupSig) {
		lost = c.drain(g)
	}
	var err error
	if lost == nil {
		if err = c.commitTimed(g); err != nil {
			if !cAutocommit(k.h) {
				_ = c.execOne("ROLLBACK")
			}
			lost = groupLost(err, "its group's COMMIT failed")
		}
	}
	if lost != nil && g.n > 1 {
		err = lost // its own COMMIT's error when it ran alone, as without the switch
	}
	g.finish(c, lost)
	return err
}

// commitHosted commits a transaction that runs in another connection's
// group: its savepoint is released there, and the caller waits for the
// group's COMMIT.
func (c *SQLiteConn) commitHosted() error {
	h, u := c.txHost, c.txUnit
	c.txHost, c.txUnit = nil, nil
	held, err := h.hostedCall(u)
	if err != nil {
		close(u.ended)
		return err
	}
	hk := h.core
	switch {
	case h.txLost || cAutocommit(h.h):
		err = driverError("cannot commit: the transaction was already rolled back (for example by an interrupted statement or an error)")
	case cDeferredFKs(h.h):
		// COMMIT would fail and leave it open; the savepoint goes, as a
		// failed Commit rolls back.
		err = Error{Code: ErrConstraint, ExtendedCode: ErrConstraintForeignKey, err: "FOREIGN KEY constraint failed", offset: -1}
		h.rollbackHosted()
	default:
		if err = h.execOne("RELEASE fastsqlite_tx"); err != nil {
			h.rollbackHosted()
		}
	}
	hk.unlock(held)
	u.committed = err == nil
	close(u.ended)
	if err != nil {
		return err
	}
	<-u.done
	return u.err
}

// rollbackTxHosted rolls back a transaction that runs in another
// connection's group: its savepoint only.
func (c *SQLiteConn) rollbackTxHosted() {
	h, u := c.txHost, c.txUnit
	c.txHost, c.txUnit = nil, nil
	held, err := h.hostedCall(u)
	if err != nil {
		close(u.ended) // rolled back already
		return
	}
	if !h.txLost && !cAutocommit(h.h) {
		h.rollbackHosted()
	}
	h.core.unlock(held)
	close(u.ended)
}

// rollbackHosted undoes the hosted transaction's savepoint, on the host.
// If that fails, the whole transaction goes: the group's other writes then
// hear that they are not in the database, rather than commit with it.
func (c *SQLiteConn) rollbackHosted() {
	if c.execOne("ROLLBACK TO fastsqlite_tx") == nil && c.execOne("RELEASE fastsqlite_tx") == nil {
		return
	}
	if !cAutocommit(c.h) {
		_ = c.execOne("ROLLBACK")
	}
}

// hostedSQL refuses, in a transaction that runs in another connection's
// group, SQL that would end the group's transaction or its savepoint
// (COMMIT, END, ROLLBACK other than ROLLBACK TO, BEGIN, and RELEASE or
// ROLLBACK TO of the group's savepoint): use the Tx's Commit and Rollback.
// Savepoints of the transaction's own nest inside the group's, as in any
// transaction.
func hostedSQL(query string) error {
	for rest := query; rest != ""; {
		var stmt string
		stmt, rest = nextStatement(rest)
		words := leadingWords(stmt, 5)
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "begin", "commit", "end":
			return errHostedTxControl
		case "rollback":
			if len(words) == 1 || words[1] != "to" && !(words[1] == "transaction" && len(words) > 2 && words[2] == "to") {
				return errHostedTxControl
			}
		case "release":
			if words[len(words)-1] == "fastsqlite_tx" {
				return errHostedTxControl
			}
		}
		if words[0] == "rollback" && words[len(words)-1] == "fastsqlite_tx" {
			return errHostedTxControl
		}
	}
	return nil
}

var errHostedTxControl = driverError("this transaction runs in a group of writes (_group_commit=1): end it with the Tx's Commit or Rollback, not with SQL")

// nextStatement splits off the first statement of sql, up to a semicolon
// outside quotes and comments.
func nextStatement(sql string) (stmt, rest string) {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; c {
		case ';':
			return sql[:i], sql[i+1:]
		case '\'', '"', '`':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				return sql, ""
			}
			i += j + 1
		case '[':
			j := strings.IndexByte(sql[i+1:], ']')
			if j < 0 {
				return sql, ""
			}
			i += j + 1
		case '-':
			if i+1 < len(sql) && sql[i+1] == '-' {
				j := strings.IndexByte(sql[i:], '\n')
				if j < 0 {
					return sql, ""
				}
				i += j
			}
		case '/':
			if i+1 < len(sql) && sql[i+1] == '*' {
				j := strings.Index(sql[i+2:], "*/")
				if j < 0 {
					return sql, ""
				}
				i += j + 3
			}
		}
	}
	return sql, ""
}

// leadingWords returns up to n lowercased words at the start of stmt,
// skipping spaces and comments.
func leadingWords(stmt string, n int) []string {
	var words []string
	for i := 0; i < len(stmt) && len(words) < n; {
		switch c := stmt[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(stmt) && stmt[i+1] == '-':
			j := strings.IndexByte(stmt[i:], '\n')
			if j < 0 {
				return words
			}
			i += j
		case c == '/' && i+1 < len(stmt) && stmt[i+1] == '*':
			j := strings.Index(stmt[i+2:], "*/")
			if j < 0 {
				return words
			}
			i += j + 4
		case isNameByte(c):
			j := i
			for j < len(stmt) && isNameByte(stmt[j]) {
				j++
			}
			words = append(words, lowerASCII(stmt[i:j]))
			i = j
		default:
			return words
		}
	}
	return words
}

// hostOf returns the connection that runs c's transaction, nil when c runs
// its own: the statements of a hosted transaction run there, with no
// cancellation once started (an interrupt would roll back the whole group),
// and ctx looked at first.
func (c *SQLiteConn) hostOf(ctx context.Context) (*SQLiteConn, error) {
	h := c.txHost
	if h == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return h, err
	}
	return h, nil
}

// groupRun prepares and runs another connection's write in the group.
func (c *SQLiteConn) groupRun(u *groupUnit, savepoints bool) (id, changes int64, err error) {
	s, tail, rc, err := c.prepareCached(u.query, 0)
	if err != nil {
		return 0, 0, err
	}
	if rc != sqliteOK {
		return 0, 0, errorFor(c.h, rc, 0)
	}
	if s == nil || tail < len(u.query) {
		// The connection that sent it found one statement there.
		if s != nil {
			c.release(s)
		}
		return 0, 0, driverError("a grouped write is not one statement")
	}
	defer c.release(s)
	return c.groupStep(s, u.args, savepoints, u)
}

// groupStep binds args to s and runs it inside the group's transaction, in
// a savepoint when foreign keys are on: a deferred constraint it leaves
// unresolved would otherwise fail the group's COMMIT, where in autocommit it
// fails the write alone. When u asks for rows, they go to u (groupRows).
func (c *SQLiteConn) groupStep(s *SQLiteStmt, args []driver.NamedValue, savepoint bool, u *groupUnit) (id, changes int64, err error) {
	b := binder{args: args, strict: c.strict}
	if err := s.bind(&b, true); err != nil {
		return 0, 0, err
	}
	if savepoint {
		if err := c.execOne("SAVEPOINT fastsqlite_group"); err != nil {
			return 0, 0, err
		}
	}
	var rc int
	if u != nil && u.rows {
		rc = c.groupRows(s, u)
	} else {
		rc = cExec(s.h, 0)
	}
	if rc == sqliteOK && savepoint && cDeferredFKs(c.h) {
		rc = sqliteConstraintForeignKey
	}
	if rc != sqliteOK {
		if u != nil {
			u.out = nil
		}
		if rc == sqliteConstraintForeignKey && savepoint {
			err = Error{Code: ErrConstraint, ExtendedCode: ErrConstraintForeignKey, err: "FOREIGN KEY constraint failed", offset: -1}
		} else {
			err = c.errorFor(rc, &watch{}, 0)
		}
		if savepoint && !cAutocommit(c.h) {
			if c.execOne("ROLLBACK TO fastsqlite_group") == nil {
				_ = c.execOne("RELEASE fastsqlite_group")
			}
		}
		return 0, 0, err
	}
	id, changes = stmtLastInsertID(s.h), stmtChanges(s.h)
	if savepoint {
		if err := c.execOne("RELEASE fastsqlite_group"); err != nil {
			return 0, 0, err
		}
	}
	return id, changes, nil
}

// groupRows runs s, bound, to its end, keeping its rows' values in u as
// Next would hand them out, and their column names; it returns SQLite's
// result code, sqliteOK once the statement is done.
func (c *SQLiteConn) groupRows(s *SQLiteStmt, u *groupUnit) int {
	rc := cQuery(s.h, 0, false)
	s.syncShape()
	r := SQLiteRows{s: s}
	for rc == sqliteRow {
		s.run = rowCursor{cur: s.cols}
		row := make([]driver.Value, len(s.cols))
		r.decode(row)
		u.out = append(u.out, row)
		rc = cStep(s.h, 0)
	}
	if rc != sqliteDone {
		return rc
	}
	if s.names == nil {
		names, rc := cColumnNames(s.h)
		if rc != sqliteOK {
			return rc
		}
		s.names = names
	}
	u.names = s.names
	return sqliteOK
}

// groupLost is the error of a write whose group's transaction did not
// commit: it keeps SQLite's codes, and says that the write is not in the
// database.
func groupLost(cause error, why string) error {
	msg := "sqlite3: this write is not in the database: " + why + " (group commit)"
	if e, ok := cause.(Error); ok {
		e.err = msg + ": " + e.Error()
		return e
	}
	return Error{Code: ErrError, ExtendedCode: ErrNoExtended(ErrError), err: msg + ": " + cause.Error(), offset: -1}
}

// argsSize is the bytes of args' strings and blobs, for the group's cap.
func argsSize(args []driver.NamedValue) int {
	n := 0
	for _, a := range args {
		switch v := a.Value.(type) {
		case string:
			n += len(v)
		case []byte:
			n += len(v)
		default:
			n += 8
		}
	}
	return n
}

// setsPragma reports whether query holds a PRAGMA that sets something: one
// with "=", or with an argument in parentheses that is not one of the
// read-only pragmas that take one (table_info(t), ...). Any text that looks
// like one counts, in a string literal too: a false alarm only costs
// grouping.
func setsPragma(query string) bool {
	for i := 0; i+6 <= len(query); i++ {
		if query[i]|0x20 != 'p' || !equalFoldASCII(query[i:i+6], "pragma") {
			continue
		}
		j := i + 6
		for j < len(query) && query[j] != ';' && query[j] != '=' && query[j] != '(' {
			j++
		}
		if j == len(query) || query[j] == ';' {
			continue
		}
		if query[j] == '=' {
			return true
		}
		name := lastWord(query[i+6 : j])
		if !readOnlyPragmas[lowerASCII(name)] {
			return true
		}
	}
	return false
}

// readOnlyPragmas take an argument in parentheses and change nothing.
var readOnlyPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true, "index_info": true,
	"index_xinfo": true, "foreign_key_list": true, "foreign_key_check": true, "integrity_check": true,
	"quick_check": true,
}

// lastWord is the last run of name characters in s (a pragma's name after
// an optional schema and dot).
func lastWord(s string) string {
	end := len(s)
	for end > 0 && !isNameByte(s[end-1]) {
		end--
	}
	start := end
	for start > 0 && isNameByte(s[start-1]) {
		start--
	}
	return s[start:end]
}

func isNameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z'
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i]|0x20 != b[i]|0x20 {
			return false
		}
	}
	return true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// groupStats counts groups in this process, for the tests and the benchmarks.
var groupStats struct {
	groups, units atomic.Int64
}
