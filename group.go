//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"math"
	"sync/atomic"
	"time"
	"unsafe"
)

// Group commit (_group_commit=1): the autocommit writes of a file's
// connections in this process share SQLite transactions. docs/write-path.md maps the whole
// write path; docs/group-commit.md is the user's contract.
//
// A commit costs the same whether it holds one row or a hundred (the WAL's
// frames, the shm locks, an fsync at _sync=FULL), so writers that each
// commit alone cannot together go faster than one serial writer. With the
// switch, a connection H that gets the file's write turn (gate.go) while
// other connections' autocommit writes wait for it runs them too, on
// itself, one after another inside one transaction, and commits them all at
// once: the turn's queue is the group.
//
// The rule: a write of connection A runs on H only when nothing A's caller
// can observe differs. One predicate decides it, from what SQLite holds
// (bridge_group.c): the state of both connections (no TEMP, ATTACH, hook,
// trace, authorizer or running statement, and equal settings and function
// and collation names) and the program H compiled for A's SQL (built-in,
// connection-independent functions and collations only, no virtual table,
// no OR ROLLBACK, the current schema). A write the predicate refuses runs
// on A, as without the switch: A asks before it queues (joinGroup), and H
// asks again before it takes the write from the queue (drain); a write H
// refuses stays first in the queue, H commits, and the turn passes to A. What a write changes on its connection and SQL reads
// back (last_insert_rowid(), changes(), total_changes()) is carried from A
// to H and back; PRAGMA data_version moves on H for the others' writes its
// COMMIT holds, and writes join only behind H's own write once it changed
// rows, so that it moves on A as when A's commit followed that change
// (bridge_group_committed_others). A transaction (BeginTx) always runs on its own
// connection and commits alone: it takes the turn like any writer, and the
// writes queued behind it form their own group once it is done. (One run
// on another connection would take its TEMP objects, direct statements,
// settings and deadlines with it; one sharing its SQLite transaction with
// other callers' writes could not be interrupted without undoing theirs.)
//
// What each write sees and what it is told:
//   - Writes are serial: each runs after the ones before it in the group and
//     sees them; other connections see the group when it commits, never part
//     of it.
//   - A write that fails (a constraint, a bad argument) is undone as SQLite
//     undoes it in autocommit (ABORT: the statement; FAIL: nothing), and its
//     caller alone gets the error: at once when it left nothing, after the
//     COMMIT when it kept rows (group.ran). With foreign keys on, each write
//     runs in a SAVEPOINT, so that one that leaves a deferred foreign key
//     unresolved is undone alone too, with SQLite's error.
//   - No caller is told its write succeeded before the group's COMMIT has
//     returned: _sync=FULL keeps its promise, and shares its fsync.
//   - A COMMIT that fails, or an error after which SQLite rolled the whole
//     transaction back (a full disk, an I/O error), fails every write of the
//     group not yet acknowledged with an error that says so (groupLost); none
//     of them is in the database.
//   - A write whose context ends before it started is not run, and its caller
//     gets the context's error. One whose context ends while it runs is
//     interrupted, as in autocommit; SQLite then rolls back the whole
//     transaction, and the group runs the writes before it again (replay):
//     none of them was acknowledged.
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
	fp    uint64 // the sender's fingerprint (bridge_group_conn): the runner's must be equal
	ctx   context.Context
	query string
	args  []driver.NamedValue
	size  int           // bytes of SQL and arguments, for the group's cap
	taken bool          // a group took it (under the gate's mu)
	done  chan struct{} // closed when the fields below are final

	// before: the sender's counters when it queued; after: what running the
	// write left, for the sender to take over (ran).
	before, after counters
	ran           bool
	err           error
	// The group's COMMIT that held it: its writes, and how long it took
	// (for the tracer).
	groupN      int
	groupCommit time.Duration

	// A write whose caller reads its rows (queryGrouped): out holds them,
	// read to the end in the group.
	rows bool
	out  *rowsBuffer
}

// The caps of one group: it takes no more writes once it holds this many,
// this many bytes of SQL and arguments, or has run this long, so that the
// first write of a group waits for a bounded time and the transaction's
// dirty pages fit SQLite's cache.
const (
	groupMaxUnits = 256
	groupMaxBytes = 4 << 20
)

// groupMaxTime is a variable for the tests that count groups: on a loaded
// machine a group may run past it, and the rest of its queue then forms
// another.
var groupMaxTime = 5 * time.Millisecond

// groupable is the seam of the write path: it reports whether s, the whole
// of an Exec's or a Query's SQL on c, may go to a group (execGrouped,
// queryGrouped), which then decides, with the predicate, whether it runs
// alone or grouped; otherwise it runs as without the switch. It costs no
// cgo call: the predicate runs once the write is on its way to the turn.
func (c *SQLiteConn) groupable(s *SQLiteStmt) bool {
	k := c.core
	return k.groupOn && stmtGroupable(s.h) && !c.inTx && k.gate != nil && !k.turn && k.gate.conns.Load() >= 2
}

// groupEntry says how a groupable write goes on once joinGroup returns.
type groupEntry int

const (
	entryAlone groupEntry = iota // not grouped: the caller runs it as any statement (its takeTurn finds the turn held, or the wait given up)
	entryHome                    // the turn is held and writes wait behind it: it runs a group (runGroup)
	entryRan                     // it ran in another connection's group: its outcome is in its unit
)

// joinGroup brings s, a groupable write (query, with args; rows when its
// caller reads its rows), to the file's write turn: it joins the group
// running when it gets there, or takes the turn, to run a group itself or
// to run alone. size is the write's bytes of SQL and arguments, fp the
// connection's fingerprint when it queued or runs a group.
func (c *SQLiteConn) joinGroup(ctx context.Context, s *SQLiteStmt, query string, args []driver.NamedValue, rows bool) (entry groupEntry, u *groupUnit, size int, fp uint64, err error) {
	k := c.core
	ms := cGroupTurn(k.h, s.h)
	if ms < 0 {
		return entryAlone, nil, 0, 0, nil
	}
	size = len(query) + argsSize(args)
	if !k.gate.tryTake() {
		// The turn is taken: queue a unit. (A lone writer finds the turn
		// free and allocates nothing more than without the switch.)
		if ctx == nil {
			ctx = context.Background()
		}
		fp = cGroupFP(k.h)
		u = &groupUnit{sig: k.groupSig, fp: fp, ctx: ctx, query: query, args: args, size: size, rows: rows,
			done: make(chan struct{}), before: cCounters(k.h)}
		timeout := time.Duration(ms) * time.Millisecond
		waited, ran, err := k.gate.wait(ctx, timeout, u)
		switch {
		case ran:
			if u.ran {
				cSetCounters(k.h, u.after)
			}
			return entryRan, u, size, fp, nil
		case err == errBusyTurn:
			// As takeTurn: the write runs without the turn and without
			// waiting any more, for SQLite to refuse it with its own error.
			cSetWaitLeft(k.h, time.Nanosecond)
			k.waitLimited = true
			return entryAlone, nil, size, fp, nil
		case err != nil:
			return 0, nil, size, fp, c.contextError(ctx)
		}
		if waited > 0 {
			cTurnCounted(k.h, waited)
			k.note.turnWait += waited // tracer.go
			cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
		}
	}
	k.turn = true
	if !k.gate.gather(k.groupSig) {
		return entryAlone, nil, size, fp, nil
	}
	return entryHome, nil, size, cGroupFP(k.h), nil
}

// execGrouped runs s, the whole of query, a groupable write with its
// arguments not yet bound, through the file's write turn (joinGroup). When
// it reports !grouped, the write did not go to a group: the caller runs it
// as any statement, the turn taken already when joinGroup took it. s stays
// the caller's, to release.
func (c *SQLiteConn) execGrouped(w *watch, s *SQLiteStmt, query string, args []driver.NamedValue) (res driver.Result, grouped bool, err error) {
	entry, u, size, fp, err := c.joinGroup(w.ctx, s, query, args, false)
	switch {
	case err != nil:
		return nil, true, err
	case entry == entryRan:
		if u.err != nil {
			return nil, true, u.err
		}
		c.core.noteGroup(u.groupN, u.groupCommit) // tracer.go
		c.core.groupCommitted()
		return c.newResult(u.after.rowid, u.after.changes), true, nil
	case entry == entryHome:
		var own groupUnit
		if err := c.runGroup(w, s, args, size, fp, &own); err != nil {
			return nil, true, err
		}
		return c.newResult(own.after.rowid, own.after.changes), true, nil
	}
	return nil, false, nil
}

// queryGrouped runs s, the whole of query, a groupable write whose rows
// the caller reads (INSERT ... RETURNING), with its arguments not yet
// bound, as execGrouped does. In a group its rows are read to the end there
// and handed out once the group has committed: SQLite itself makes all of
// such a statement's changes at its first step and buffers the rows it
// returns, so reading them first changes no result, and no caller sees a
// row of a write that is not yet in the database. When grouped, the rows
// (or the error) take over w; otherwise the caller keeps it.
func (c *SQLiteConn) queryGrouped(w watch, s *SQLiteStmt, query string, args []driver.NamedValue) (rows driver.Rows, grouped bool, err error) {
	entry, u, size, fp, err := c.joinGroup(w.ctx, s, query, args, true)
	switch {
	case err != nil:
		w.done()
		return nil, true, err
	case entry == entryRan:
		if u.err != nil {
			w.done()
			return nil, true, u.err
		}
		c.core.noteGroup(u.groupN, u.groupCommit) // tracer.go
		c.core.groupCommitted()
		return s.bufferedRows(w, u.out), true, nil
	case entry == entryHome:
		own := groupUnit{rows: true}
		if err := c.runGroup(&w, s, args, size, fp, &own); err != nil {
			w.done()
			return nil, true, err
		}
		return s.bufferedRows(w, own.out), true, nil
	}
	return nil, false, nil
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

// Running a group: the connection that holds the file's write turn, with
// its exclusion held, begins a transaction, runs its own write, then the
// writes queued behind it that the predicate lets it run (drain), and
// commits them all at once.

// group is a group being run.
type group struct {
	fp         uint64 // the runner's fingerprint: a write is taken only from a connection with the same
	savepoints bool   // foreign keys are on: each write in a savepoint (groupStep)
	start      time.Time
	waitFrom   time.Time // when it began waiting for more writes (waitForMore)
	n, size    int
	ok         int          // writes that succeeded: what its COMMIT holds
	done       []*groupUnit // run, waiting for the COMMIT
	lead       func() error // runs the leader's own write again (replay)
	commitTook time.Duration
}

func (c *SQLiteConn) newGroup(fp uint64) *group {
	return &group{fp: fp, savepoints: cForeignKeysOn(c.core.h), start: time.Now()}
}

// full reports whether g has reached one of its caps.
func (g *group) full() bool {
	return g.n >= groupMaxUnits || g.size >= groupMaxBytes || time.Since(g.start) >= groupMaxTime
}

// runGroup runs a group with the turn held: its own write first (s with
// args, whose outcome goes to own, cancelled as w says), then the writes
// waiting behind it, and commits them. It returns its own write's error;
// every other write's outcome goes to its caller through its unit.
func (c *SQLiteConn) runGroup(w *watch, s *SQLiteStmt, args []driver.NamedValue, size int, fp uint64, own *groupUnit) error {
	k := c.core
	if err := c.execOne("BEGIN IMMEDIATE"); err != nil {
		// The lock is another process's: the waiting writes stay in the
		// queue, and the next holder of the turn tries again.
		return err
	}
	g := c.newGroup(fp)
	g.n, g.size = 1, size
	own.ctx = w.ctx
	before := cCounters(k.h)
	err := c.groupStep(s, args, g.savepoints, own, w.gen)
	if err != nil && cAutocommit(k.h) {
		return err // SQLite rolled back all there was: its own write
	}
	own.err = err
	if err == nil {
		g.ok++
	}
	// Its own rows changed: a success, or a failure that kept some (OR FAIL).
	changed := cCounters(k.h).total > before.total
	g.lead = func() error {
		// SQLite undid the first run, not what it added to the counters:
		// they read as if this run were the only one.
		cSetCounters(k.h, before)
		own.out = nil
		own.err = c.groupStep(s, args, g.savepoints, own, 0)
		return own.err
	}
	var lost error
	if changed {
		// Other writes join only behind one that changed rows: each of them
		// then follows a change of another connection, as its own commit
		// would have (PRAGMA data_version moves on its connection either
		// way). Behind a write that changed nothing, they wait for the turn.
		lost = c.drain(g)
	}
	if lost == nil {
		if err := c.commitTimed(g); err != nil {
			if !cAutocommit(k.h) {
				_ = c.execOne("ROLLBACK")
			}
			lost = groupLost(err, "its group's COMMIT failed")
		} else if g.othersChanged() {
			cGroupCommittedOthers(k.h)
		}
	}
	g.finish(c, lost)
	if lost != nil && (own.err == nil || changed) {
		own.err = lost
	}
	return own.err
}

// drain runs the writes waiting for the turn that may join the group, in
// the transaction the connection holds, until none is left, the first one
// waiting is one the predicate keeps on its own connection, or the group is
// full. It returns a groupLost error once SQLite has rolled the whole
// transaction back.
func (c *SQLiteConn) drain(g *group) error {
	k := c.core
	for !g.full() {
		u := k.gate.firstUnit(k.groupSig)
		if u == nil {
			if c.waitForMore(g) {
				continue
			}
			return nil
		}
		s := c.prepareUnit(u, g.fp)
		if s == nil {
			// It runs on its own connection, whose turn comes next: the
			// group ends here, so that the queue's order holds.
			return nil
		}
		if !k.gate.takeUnit(u) {
			c.release(s) // its caller stopped waiting meanwhile
			continue
		}
		g.n++
		g.size += u.size
		if err := u.ctx.Err(); err != nil {
			c.release(s)
			u.err = c.contextError(u.ctx)
			close(u.done)
			continue
		}
		uw, _ := c.watch(u.ctx) // its context ended before it started: not run (above)
		err := c.runUnit(g, s, u, uw.gen)
		uw.done()
		c.release(s)
		if !g.ran(c, u, err) {
			continue
		}
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return groupLost(err, "rolled back by another write of its group")
		}
		// Its context ended while it ran: as in autocommit, it is
		// interrupted, and SQLite rolls back the whole transaction, which
		// the writes before it did not ask for.
		if lost := c.replay(g); lost != nil {
			return lost
		}
	}
	return nil
}

// ran notes the outcome of u, run in g with error err. A write that
// succeeded, or failed keeping some of its changes (OR FAIL, RAISE(FAIL):
// in autocommit those are committed), waits for the group's COMMIT with
// the others; one that failed leaving nothing is told at once. It reports
// whether SQLite rolled the whole transaction back, u being told then.
func (g *group) ran(c *SQLiteConn, u *groupUnit, err error) (rolledBack bool) {
	u.err = err
	switch {
	case err != nil && cAutocommit(c.core.h):
		close(u.done)
		return true
	case err == nil:
		g.ok++
		g.done = append(g.done, u)
	case u.after.total > u.before.total:
		g.done = append(g.done, u)
	default:
		close(u.done)
	}
	return false
}

// replay runs again, in a new transaction and in their order, the writes
// of g that SQLite undid when it interrupted one of its writes: none of
// them was acknowledged yet, and the interrupted one would have undone
// only itself in autocommit. They run to their end this time: each had
// started before its context ended.
func (c *SQLiteConn) replay(g *group) error {
	k := c.core
	if err := c.execOne("BEGIN IMMEDIATE"); err != nil {
		return groupLost(err, "its group could not begin again after another write of it was interrupted")
	}
	g.ok = 0
	if g.lead != nil {
		if err := g.lead(); err == nil {
			g.ok++
		} else if cAutocommit(k.h) {
			return groupLost(err, "rolled back by another write of its group")
		}
	}
	run := g.done
	g.done = nil
	for i, u := range run {
		u.out = nil
		s := c.prepareUnit(u, g.fp)
		if s == nil {
			u.err = groupLost(errors.New("the schema changed meanwhile"), "its group ran again after another write of it was interrupted, and it could not")
			close(u.done)
			continue
		}
		err := c.runUnit(g, s, u, 0)
		c.release(s)
		if g.ran(c, u, err) {
			// The writes not run again hear it with the others (finish).
			g.done = append(g.done, run[i+1:]...)
			return groupLost(err, "rolled back by another write of its group")
		}
	}
	return nil
}

// prepareUnit compiles u's SQL on the group's connection and asks the
// predicate whether the group may run it (bridge_group_host); nil when not,
// or when it does not compile here: its own connection then runs it, and
// gets its own outcome.
func (c *SQLiteConn) prepareUnit(u *groupUnit, fp uint64) *SQLiteStmt {
	if u.fp != fp {
		return nil
	}
	for try := 0; try < 2; try++ {
		s, tail, rc, err := c.prepareCached(u.query, 0)
		if err != nil || rc != sqliteOK || s == nil {
			return nil
		}
		if tail < len(u.query) {
			c.release(s)
			return nil
		}
		switch cGroupHost(c.core.h, s.h) {
		case groupHostOK:
			return s
		case groupHostRefused:
			c.release(s)
			return nil
		}
		// Compiled before the schema changed, it would be compiled again
		// inside its step, unchecked: a cached one is dropped, and a new
		// one tried once.
		cached := s.cacheKey != ""
		s.cacheKey = ""
		c.release(s)
		if !cached {
			return nil
		}
	}
	return nil
}

// runUnit runs u, another connection's write compiled here as s, with the
// counters of u's connection in place of this one's for the time of the
// write, so that last_insert_rowid() and LastInsertId read as on u's
// connection, and keeps what it left for u's connection to take over. gen
// arms the cancellation of u's context.
func (c *SQLiteConn) runUnit(g *group, s *SQLiteStmt, u *groupUnit, gen uint64) error {
	h := c.core.h
	mine := cCounters(h)
	cSetCounters(h, counters{u.before.rowid, mine.changes, mine.total})
	err := c.groupStep(s, u.args, g.savepoints, u, gen)
	got := cCounters(h)
	u.ran = true
	u.after = counters{got.rowid, got.changes, u.before.total + got.total - mine.total}
	cSetCounters(h, mine)
	return err
}

// commitTimed runs the group's COMMIT, noting its size and how long the
// COMMIT took for the next group (waitForMore).
func (c *SQLiteConn) commitTimed(g *group) error {
	start := time.Now()
	err := c.execOne("COMMIT")
	gt := c.core.gate
	g.commitTook = time.Since(start)
	gt.lastCommit.Store(int64(g.commitTook))
	if g.n > 1 {
		gt.lastGroup.Store(int32(g.n))
	}
	return err
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

// othersChanged reports whether a write of another connection in g changed
// rows that its COMMIT holds.
func (g *group) othersChanged() bool {
	for _, u := range g.done {
		if u.after.total > u.before.total {
			return true
		}
	}
	return false
}

// finish acknowledges the group's writes that waited for its COMMIT, each
// with its own result, or with lost, and counts the writes its COMMIT held.
func (g *group) finish(c *SQLiteConn, lost error) {
	if g.ok > 1 && lost == nil {
		groupStats.groups.Add(1)
		groupStats.units.Add(int64(g.ok))
		cGroupCounted(c.core.h, g.ok)
		c.core.noteGroup(g.ok, g.commitTook) // tracer.go
	}
	for _, u := range g.done {
		if lost != nil {
			u.err = lost
		}
		u.groupN, u.groupCommit = g.ok, g.commitTook
		close(u.done)
	}
}

// groupStep binds args to s and runs it inside the group's transaction, in
// a savepoint when foreign keys are on: a deferred constraint it leaves
// unresolved would otherwise fail the group's COMMIT, where in autocommit it
// fails the write alone. When u asks for rows, they go to u (groupRows).
// u.after gets its last insert rowid and changes. gen arms the
// cancellation of u.ctx (0: none).
func (c *SQLiteConn) groupStep(s *SQLiteStmt, args []driver.NamedValue, savepoint bool, u *groupUnit, gen uint64) error {
	b := binder{args: args, strict: c.strict}
	if err := s.bind(&b, true); err != nil {
		return err
	}
	var pre counters
	if savepoint {
		pre = cCounters(c.h)
		if err := c.execOne("SAVEPOINT fastsqlite_group"); err != nil {
			return err
		}
	}
	var rc int
	if u.rows {
		rc = c.groupRows(s, u, gen)
	} else {
		rc = cExec(s.h, gen)
		u.after.rowid, u.after.changes = stmtLastInsertID(s.h), stmtChanges(s.h)
	}
	unresolved := savepoint && cDeferredFKs(c.h)
	if rc == sqliteOK && unresolved {
		rc = sqliteConstraintForeignKey
	}
	if rc == sqliteOK {
		if savepoint {
			return c.execOne("RELEASE fastsqlite_group")
		}
		return nil
	}
	u.out = nil
	var err error
	if rc == sqliteConstraintForeignKey && unresolved {
		err = Error{Code: ErrConstraint, ExtendedCode: ErrConstraintForeignKey, err: "FOREIGN KEY constraint failed", offset: -1}
	} else {
		err = c.errorFor(rc, &watch{gen: gen, ctx: u.ctx}, 0)
	}
	if savepoint && !cAutocommit(c.h) {
		// SQLite undid what autocommit would undo of the failed statement
		// (ABORT: all of it, FAIL: nothing); what it kept stays, as in
		// autocommit, unless a foreign key is left unresolved, which fails
		// autocommit's COMMIT and so the whole statement.
		if !unresolved || c.execOne("ROLLBACK TO fastsqlite_group") == nil {
			_ = c.execOne("RELEASE fastsqlite_group")
		}
		if unresolved {
			// Autocommit's failed COMMIT counts none of the statement's
			// changes (its last insert rowid stays, as there).
			cSetCounters(c.h, counters{cCounters(c.h).rowid, 0, pre.total})
			u.after.changes = 0
		}
	}
	return err
}

// groupRows runs s, bound, to its end, copying its rows into u.out with
// their column names and classes; it returns SQLite's result code,
// sqliteOK once the statement is done. The values are converted by the
// caller's Next, on its own goroutine, once the group has committed: the
// turn is not held for it.
func (c *SQLiteConn) groupRows(s *SQLiteStmt, u *groupUnit, gen uint64) int {
	rc := cQuery(s.h, gen, false)
	s.syncShape()
	b := &rowsBuffer{ncol: len(s.cols), i: -1}
	for ; rc == sqliteRow; rc = cStep(s.h, gen) {
		b.add(s.cols)
	}
	if rc != sqliteDone {
		return rc
	}
	b.seal()
	got := cCounters(c.core.h)
	u.after.rowid, u.after.changes = got.rowid, got.changes
	if s.names == nil {
		names, rc := cColumnNames(s.h)
		if rc != sqliteOK {
			return rc
		}
		s.names = names
	}
	b.names, b.classes = s.names, append([]uint8(nil), s.classes...)
	u.out = b
	return sqliteOK
}

// rowsBuffer holds the rows of a write that ran in a group (queryGrouped),
// as the bridge handed them out, TEXT and BLOB values copied into data,
// with what converts them: the columns' names and classes as the group's
// connection compiled the statement (a statement of the caller's own may
// predate a schema change). SQLiteRows reads it row by row as it reads the
// bridge's row buffer.
type rowsBuffer struct {
	cols    []rowCol // ncol per row; a TEXT or BLOB value points into data once sealed
	data    []byte
	ncol    int
	names   []string
	classes []uint8
	i       int // the current row
}

// add copies row, the statement's current row, into b. A TEXT or BLOB
// value keeps its offset in data until seal: data may move as it grows.
func (b *rowsBuffer) add(row []rowCol) {
	for _, col := range row {
		if col.typ == typeText || col.typ == typeBlob {
			off := int64(len(b.data))
			b.data = append(b.data, col.bytes()...)
			*(*int64)(unsafe.Pointer(&col.v)) = off
		}
		b.cols = append(b.cols, col)
	}
}

// seal points each TEXT and BLOB value at its bytes in data, which b keeps
// alive for as long as its rows can be read.
func (b *rowsBuffer) seal() {
	for i := range b.cols {
		col := &b.cols[i]
		if col.typ != typeText && col.typ != typeBlob {
			continue
		}
		var p unsafe.Pointer
		if col.n > 0 {
			p = unsafe.Pointer(&b.data[col.int64()])
		}
		*(*unsafe.Pointer)(unsafe.Pointer(&col.v)) = p
	}
}

// len is the number of rows in b.
func (b *rowsBuffer) len() int {
	if b == nil || b.ncol == 0 {
		return 0
	}
	return len(b.cols) / b.ncol
}

// row is row i of b.
func (b *rowsBuffer) row(i int) []rowCol {
	return b.cols[i*b.ncol : (i+1)*b.ncol : (i+1)*b.ncol]
}

// drop lets the rows go, once they cannot be read any more.
func (b *rowsBuffer) drop() { b.cols, b.data = nil, nil }

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

// groupStats counts groups in this process, for the tests and the benchmarks.
var groupStats struct {
	groups, units atomic.Int64
}
