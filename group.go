//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
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
// Which writes join: an Exec (or a prepared statement's Exec) of one
// statement that writes only the main database (bridge_writes_main: no
// transaction control, VACUUM, journal-mode change or checkpoint), outside a
// transaction, on a connection whose busy handler is the driver's. A
// connection joins only groups of connections opened by the same driver
// with the same DSN, and leaves grouping for good once it holds what would
// make the same SQL mean something else on another connection: anything in
// TEMP or ATTACHed (bridge_group_ready, looked at for each write), a PRAGMA
// that sets something, or a hook, function, collation, module, limit,
// authorizer, busy handler, trace, session or extension added after open
// (leaveGroups). What ConnectHook sets up is on every connection and does not
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

	id, changes int64
	err         error
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

// execGrouped runs s, the whole of query, a groupable write with its
// arguments not yet bound, through the file's write turn: it joins the
// group running when it gets there, or runs one itself. s stays the
// caller's, to release.
func (c *SQLiteConn) execGrouped(w *watch, s *SQLiteStmt, query string, args []driver.NamedValue) (driver.Result, error) {
	k := c.core
	ctx := w.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ms := cTurnTimeout(k.h)
	if ms < 0 || !cGroupReady(k.h) {
		return c.execAlone(w, s, args, true)
	}
	u := &groupUnit{sig: k.groupSig, ctx: ctx, query: query, args: args, size: len(query) + argsSize(args), done: make(chan struct{})}
	timeout := time.Duration(ms) * time.Millisecond
	waited, ran, err := k.gate.wait(ctx, timeout, u)
	if ran {
		if u.err != nil {
			return nil, u.err
		}
		return c.newResult(u.id, u.changes), nil
	}
	if err == errBusyTurn {
		// As takeTurn: the write runs without the turn and without waiting
		// any more, for SQLite to refuse it with its own error.
		cSetWaitLeft(k.h, time.Nanosecond)
		k.waitLimited = true
		return c.execAlone(w, s, args, false)
	}
	if err != nil {
		return nil, c.contextError(ctx)
	}
	k.turn = true
	if waited > 0 {
		cTurnCounted(k.h, waited)
		cSetWaitLeft(k.h, max(timeout-waited, time.Millisecond))
	}
	if !k.gate.unitNext(k.groupSig) {
		return c.execAlone(w, s, args, false)
	}
	return c.runGroup(s, u)
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

// runGroup runs a group with the turn held: own (s, whose unit is own)
// first, then the writes waiting behind it, and commits them. It returns
// own's result; every other write's goes to its caller through its unit.
func (c *SQLiteConn) runGroup(s *SQLiteStmt, own *groupUnit) (driver.Result, error) {
	k := c.core
	if err := c.execOne("BEGIN IMMEDIATE"); err != nil {
		// The lock is another process's: the waiting writes stay in the
		// queue, and the next holder of the turn tries again.
		return nil, err
	}
	savepoints := cForeignKeysOn(k.h)
	var done []*groupUnit // run and waiting for the COMMIT
	var lost error
	start := time.Now()
	n, size := 0, 0
	for u := own; u != nil; u = k.gate.takeUnit(k.groupSig) {
		n++
		size += u.size
		if u != own {
			if err := u.ctx.Err(); err != nil {
				u.err = c.contextError(u.ctx)
				close(u.done)
				continue
			}
		}
		var err error
		if u == own {
			u.id, u.changes, err = c.groupStep(s, u.args, savepoints)
		} else {
			u.id, u.changes, err = c.groupRun(u, savepoints)
		}
		if err != nil {
			u.err = err
			if cAutocommit(k.h) {
				// SQLite rolled the whole transaction back.
				lost = groupLost(err, "rolled back by another write of its group")
				if u != own {
					close(u.done)
				}
				break
			}
			if u != own {
				close(u.done)
			}
			continue
		}
		done = append(done, u)
		if n >= groupMaxUnits || size >= groupMaxBytes || time.Since(start) >= groupMaxTime {
			break
		}
	}
	if lost == nil {
		if err := c.execOne("COMMIT"); err != nil {
			if !cAutocommit(k.h) {
				_ = c.execOne("ROLLBACK")
			}
			lost = groupLost(err, "its group's COMMIT failed")
		}
	}
	groupStats.groups.Add(1)
	groupStats.units.Add(int64(n))
	for _, u := range done {
		if lost != nil {
			u.err = lost
		}
		if u != own {
			close(u.done)
		}
	}
	if own.err != nil {
		return nil, own.err
	}
	return c.newResult(own.id, own.changes), nil
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
	return c.groupStep(s, u.args, savepoints)
}

// groupStep binds args to s and runs it inside the group's transaction, in
// a savepoint when foreign keys are on: a deferred constraint it leaves
// unresolved would otherwise fail the group's COMMIT, where in autocommit it
// fails the write alone.
func (c *SQLiteConn) groupStep(s *SQLiteStmt, args []driver.NamedValue, savepoint bool) (id, changes int64, err error) {
	b := binder{args: args, strict: c.strict}
	if err := s.bind(&b, true); err != nil {
		return 0, 0, err
	}
	if savepoint {
		if err := c.execOne("SAVEPOINT fastsqlite_group"); err != nil {
			return 0, 0, err
		}
	}
	rc := cExec(s.h, 0)
	if rc == sqliteOK && savepoint && cDeferredFKs(c.h) {
		rc = sqliteConstraintForeignKey
	}
	if rc != sqliteOK {
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
