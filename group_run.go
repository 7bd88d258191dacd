//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"math"
	"sync/atomic"
	"time"
)

// Running a group (group.go has the design): the connection that holds the
// file's write turn, with its exclusion held, begins a transaction, runs
// its own write, then the writes queued behind it that the predicate lets
// it run (drain), and commits them all at once.

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
	total := cCounters(k.h).total
	err := c.groupStep(s, args, g.savepoints, own, w.gen)
	if err != nil && cAutocommit(k.h) {
		return err // SQLite rolled back all there was: its own write
	}
	own.err = err
	if err == nil {
		g.ok++
	}
	kept := cCounters(k.h).total > total // a failure that kept changes (OR FAIL)
	g.lead = func() error {
		own.out = nil
		own.err = c.groupStep(s, args, g.savepoints, own, 0)
		return own.err
	}
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
	if lost != nil && (own.err == nil || kept) {
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
	gt.lastCommit.Store(int64(time.Since(start)))
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

// finish acknowledges the group's writes that waited for its COMMIT, each
// with its own result, or with lost, and counts the writes its COMMIT held.
func (g *group) finish(c *SQLiteConn, lost error) {
	if g.ok > 1 && lost == nil {
		groupStats.groups.Add(1)
		groupStats.units.Add(int64(g.ok))
		cGroupCounted(c.core.h, g.ok)
		c.core.note.grouped = true // tracer.go
	}
	for _, u := range g.done {
		if lost != nil {
			u.err = lost
		}
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
	if savepoint {
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
	}
	return err
}

// groupRows runs s, bound, to its end, keeping its rows' values in u as
// Next would hand them out, and their column names; it returns SQLite's
// result code, sqliteOK once the statement is done.
func (c *SQLiteConn) groupRows(s *SQLiteStmt, u *groupUnit, gen uint64) int {
	rc := cQuery(s.h, gen, false)
	s.syncShape()
	r := SQLiteRows{s: s}
	for rc == sqliteRow {
		s.run = rowCursor{cur: s.cols}
		row := make([]driver.Value, len(s.cols))
		r.decode(row)
		u.out = append(u.out, row)
		rc = cStep(s.h, gen)
	}
	if rc != sqliteDone {
		return rc
	}
	got := cCounters(c.core.h)
	u.after.rowid, u.after.changes = got.rowid, got.changes
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

// groupStats counts groups in this process, for the tests and the benchmarks.
var groupStats struct {
	groups, units atomic.Int64
}
