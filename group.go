//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"time"
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
// asks again before it takes the write from the queue (group_run.go,
// drain); a write H refuses stays first in the queue, H commits, and the
// turn passes to A. What a write changes on its connection and SQL reads
// back (last_insert_rowid(), changes(), total_changes()) is carried from A
// to H and back. A transaction (BeginTx) always runs on its own
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

	// A write whose caller reads its rows (queryGrouped): out holds them,
	// read to the end in the group, and names their columns.
	rows  bool
	out   [][]driver.Value
	names []string
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
		c.core.note.grouped = true // tracer.go
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
		c.core.note.grouped = true // tracer.go
		c.core.groupCommitted()
		return s.bufferedRows(w, u.out, u.names), true, nil
	case entry == entryHome:
		own := groupUnit{rows: true}
		if err := c.runGroup(&w, s, args, size, fp, &own); err != nil {
			w.done()
			return nil, true, err
		}
		return s.bufferedRows(w, own.out, nil), true, nil
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
