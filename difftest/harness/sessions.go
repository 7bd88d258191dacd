package harness

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Categories of a sessions phase's steps: each names what a step checks,
// and a transcript line "op N cK phase.CAT: ..." carries its outcomes, so
// that a difference says which part of the per-connection vocabulary it is.
const (
	CWrite     = "write"     // an autocommit insert of the session's own row
	CLastRowID = "lastrowid" // INSERT parent, last_insert_rowid()/changes(), INSERT child(pid) VALUES(last_insert_rowid())
	CChanges   = "changes"   // changes() after an UPDATE, total_changes() over the session
	CTemp      = "temp"      // TEMP objects created in a transaction, then used
	CDirect    = "direct"    // the direct API (PrepareDirect) in a transaction
	CBlob      = "blob"      // incremental BLOB I/O (OpenBlob) in a transaction
	CFunc      = "func"      // ConnectHook functions whose value is the connection's own
	CCollate   = "collate"   // a collation registered on some connections only
	CHooks     = "hooks"     // update/commit/rollback hooks keeping a change feed
	CConflict  = "conflict"  // OR FAIL/IGNORE/REPLACE/ROLLBACK, RAISE(FAIL), foreign keys (immediate and deferred)
	CDeadline  = "deadline"  // context deadlines on reads and writes, in transactions too
	CPool      = "pool"      // a lookup through the bounded pool inside a transaction
	CLeak      = "leak"      // a transaction left open with its Rows; writes queued before it
)

// Session is one goroutine of a sessions phase: on a pinned sql.Conn, or
// through the pool (every call takes a connection and gives it back).
type Session struct {
	Pinned bool
	Steps  []Step
}

// Step is one scenario of a session.
type Step struct {
	Cat string
	Var int
}

// Flags of a sessions phase: behaviours a group of writes must treat apart
// (a write that would roll back the whole transaction runs alone; one
// interrupted at its deadline makes the group run again without it), in
// some phases only, so that the other checks of a phase stay in most.
const (
	FLostGroup = 1 << iota // INSERT OR ROLLBACK in autocommit, among grouped writes
	FSlowWrite             // an autocommit write that outlives its deadline once started
	FLeak                  // the leak scenario at the end of the phase
)

// Sessions is the plan of a sessions phase: made from the program's seed
// and the phase's number alone, as the program is.
func (o Op) Sessions(seed uint64) []Session {
	r := rand.New(rand.NewPCG(seed, uint64(o.Seq)))
	pinnedCats := []string{CLastRowID, CLastRowID, CChanges, CTemp, CDirect, CBlob, CFunc, CCollate, CHooks, CConflict, CDeadline, CPool, CWrite}
	poolCats := []string{CHooks, CConflict, CDeadline, CPool, CWrite, CWrite}
	var ss []Session
	for g := 0; g < o.G; g++ {
		s := Session{Pinned: g%3 != 2}
		cats := poolCats
		if s.Pinned {
			cats = pinnedCats
		}
		// The first step writes, so that every session queues for the write
		// turn behind the phase's holder.
		first := []string{CWrite, CHooks, CLastRowID}
		if !s.Pinned {
			first = first[:2] // last_insert_rowid() through the pool is another call's connection's
		}
		s.Steps = append(s.Steps, Step{Cat: first[r.IntN(len(first))], Var: r.IntN(2)})
		for j := 1; j < o.N; j++ {
			s.Steps = append(s.Steps, Step{Cat: cats[r.IntN(len(cats))], Var: r.IntN(6)})
		}
		ss = append(ss, s)
	}
	return ss
}

const (
	stepTimeout   = 10 * time.Second        // every call of a session: a wait past it shows as canceled, not as a hang
	lookupTimeout = 5 * time.Second         // a lookup through the pool inside a transaction
	shortDeadline = 50 * time.Millisecond   // reads and writes that take seconds: they must stop at it
	sessionsBusy  = 2000                    // the phase pool's busy timeout, ms
	holdFor       = 50 * time.Millisecond   // the holder's transaction, while the sessions queue behind it
	phaseLimit    = 40 * time.Second        // past it, the sessions still running are reported hung
	leakWait      = 4500 * time.Millisecond // the leak scenario's write returns by the busy timeout on a correct driver
)

// slowCount takes seconds: only a deadline or an interrupt ends it early.
const slowCount = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20000000) SELECT count(*) AS c FROM n"

type session struct {
	r      *runner
	db     *sql.DB
	c      *sql.Conn // nil: through the pool
	tx     *sql.Tx
	id     int
	seq    int
	base   int64 // the session's keys: base .. base+9999
	n      int64 // keys used so far
	pinned bool
	out    map[string][]string
	// sqlBlobWrites counts the BLOB writes made through SQL on a driver
	// without BLOB I/O: an UPDATE counts in total_changes(), a blob write
	// does not.
	sqlBlobWrites int64
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *session) q() execer {
	switch {
	case s.tx != nil:
		return s.tx
	case s.c != nil:
		return s.c
	}
	return s.db
}

func (s *session) key() int64 {
	s.n++
	return s.base + s.n
}

func (s *session) tag() string { return fmt.Sprintf("S%d-%d-%d", s.seq, s.id, s.n) }

func (s *session) note(cat, outcome string) { s.out[cat] = append(s.out[cat], outcome) }

func (s *session) exec(query string, args ...any) string {
	ctx, cancel := context.WithTimeout(s.r.ctx, stepTimeout)
	defer cancel()
	res, err := s.q().ExecContext(ctx, query, args...)
	if err != nil {
		return s.r.class(err)
	}
	if !isDML(query) {
		// RowsAffected is then the connection's last DML's count, which on
		// mattn may be the UPDATE that stands in for a BLOB write.
		return "ok"
	}
	n, _ := res.RowsAffected()
	return fmt.Sprintf("ok/%d", n)
}

func isDML(q string) bool {
	for _, w := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if strings.HasPrefix(q, w) {
			return true
		}
	}
	return false
}

func (s *session) scan(query string, args []any, dest ...any) error {
	ctx, cancel := context.WithTimeout(s.r.ctx, stepTimeout)
	defer cancel()
	return s.q().QueryRowContext(ctx, query, args...).Scan(dest...)
}

func (s *session) begin() string {
	ctx, cancel := context.WithTimeout(s.r.ctx, stepTimeout)
	defer cancel()
	var tx *sql.Tx
	var err error
	// The transaction's context is not the step's: database/sql would roll
	// the transaction back when that one ends.
	if s.c != nil {
		tx, err = s.c.BeginTx(context.WithoutCancel(ctx), nil)
	} else {
		tx, err = s.db.BeginTx(context.WithoutCancel(ctx), nil)
	}
	if err != nil {
		return s.r.class(err)
	}
	s.tx = tx
	return "begin"
}

func (s *session) end(commit bool) string {
	tx := s.tx
	s.tx = nil
	if tx == nil {
		return "no-tx"
	}
	if commit {
		return "commit:" + s.r.class(tx.Commit())
	}
	return "rollback:" + s.r.rollbackClass(tx.Rollback())
}

// withDeadline runs a statement that takes seconds with a short deadline:
// it must stop there (canceled), whatever runs it.
func (s *session) withDeadline(write bool) string {
	ctx, cancel := context.WithTimeout(s.r.ctx, shortDeadline)
	defer cancel()
	var err error
	if write {
		k := s.key()
		_, err = s.q().ExecContext(ctx, "INSERT INTO t(id, k, v) SELECT ?, ?, 'slow' || c FROM ("+slowCount+")", k, k)
	} else {
		var n int64
		err = s.q().QueryRowContext(ctx, slowCount).Scan(&n)
	}
	return s.r.class(err)
}

func (s *session) step(st Step) {
	r := s.r
	switch st.Cat {
	case CWrite:
		k := s.key()
		s.note(st.Cat, s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, ?)", k, k, s.tag()))
	case CLastRowID:
		var o []string
		if st.Var%2 == 1 {
			o = append(o, s.begin())
		}
		s.n++
		tag := s.tag()
		ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
		res, err := s.q().ExecContext(ctx, "INSERT INTO parent(tag) VALUES(?)", tag)
		cancel()
		if err != nil {
			o = append(o, r.class(err))
		} else {
			own, _ := res.LastInsertId()
			var lr, ch int64
			if err := s.scan("SELECT last_insert_rowid(), changes()", nil, &lr, &ch); err != nil {
				o = append(o, r.class(err))
			} else {
				o = append(o, fmt.Sprintf("ok rowid-is-own=%v changes=%d", lr == own, ch))
			}
		}
		o = append(o, s.exec("INSERT INTO child(pid, tag) VALUES(last_insert_rowid(), ?)", tag))
		if s.tx != nil {
			o = append(o, s.end(true))
		}
		s.note(st.Cat, strings.Join(o, " "))
	case CChanges:
		o := s.exec("UPDATE t SET v = v || '+' WHERE k BETWEEN ? AND ?", s.base, s.base+9999)
		var ch int64
		if err := s.scan("SELECT changes()", nil, &ch); err != nil {
			o += " " + r.class(err)
		} else {
			o += fmt.Sprintf(" changes()=%d", ch)
		}
		s.note(st.Cat, o)
	case CTemp:
		o := []string{s.begin()}
		k := s.key()
		if st.Var%2 == 0 {
			o = append(o, s.exec("CREATE TEMP TABLE IF NOT EXISTS ts(x)"),
				s.exec("INSERT INTO ts VALUES(?)", k),
				s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'temp')", k, k))
			o = append(o, s.end(st.Var != 4))
			var n int64
			err := s.scan("SELECT count(*) FROM temp.ts", nil, &n)
			o = append(o, fmt.Sprintf("temp.ts=%d/%s", n, r.class(err)))
		} else {
			// A TEMP table with a main table's name: the session's unqualified
			// writes to t then go to it, on its own connection only.
			o = append(o, s.exec("CREATE TEMP TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)"),
				s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'shadow')", k, k))
			o = append(o, s.end(true))
			var n int64
			err := s.scan("SELECT count(*) FROM temp.t", nil, &n)
			o = append(o, fmt.Sprintf("temp.t=%d/%s", n, r.class(err)), s.exec("DROP TABLE temp.t"))
		}
		s.note(st.Cat, strings.Join(o, " "))
	case CDirect:
		o := []string{s.begin()}
		k := s.key()
		o = append(o, s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'sql')", k, k))
		ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
		o = append(o, r.direct(ctx, s.c, s.q(), "SELECT count(*) FROM t WHERE k BETWEEN ? AND ?", []any{s.base, s.base + 9999}))
		k = s.key()
		o = append(o, r.direct(ctx, s.c, s.q(), "INSERT INTO t(id, k, v) VALUES(?, ?, 'direct')", []any{k, k}))
		cancel()
		o = append(o, s.end(st.Var != 5))
		var n int64
		err := s.scan("SELECT count(*) FROM t WHERE k BETWEEN ? AND ?", []any{s.base, s.base + 9999}, &n)
		o = append(o, fmt.Sprintf("own=%d/%s", n, r.class(err)))
		s.note(st.Cat, strings.Join(o, " "))
	case CBlob:
		o := []string{s.begin()}
		ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
		off := st.Var * 3
		data := []byte(fmt.Sprintf("s%d.%d", s.id, s.n))
		if st.Var%2 == 0 {
			got := r.blob(ctx, s.c, s.q(), s.base, off, data, 0)
			if got == "blob:ok" && r.d.Blob == nil {
				s.sqlBlobWrites++
			}
			o = append(o, got)
		} else {
			o = append(o, s.exec("UPDATE b SET data = zeroblob(32) WHERE id = ?", s.base))
		}
		var hex string
		err := s.scan("SELECT hex(data) FROM b WHERE id = ?", []any{s.base}, &hex)
		o = append(o, fmt.Sprintf("sql=%s/%s", hex, r.class(err)))
		o = append(o, r.blob(ctx, s.c, s.q(), s.base, 0, nil, 16))
		cancel()
		o = append(o, s.end(st.Var != 3))
		s.note(st.Cat, strings.Join(o, " "))
	case CFunc:
		// The connection's own values, read on it outside any transaction.
		var ord, calls int64
		if err := s.scan("SELECT conn_ord(), conn_calls()", nil, &ord, &calls); err != nil {
			s.note(st.Cat, r.class(err))
			return
		}
		var o []string
		if st.Var%2 == 1 {
			o = append(o, s.begin())
		}
		s.n++
		tag := s.tag()
		o = append(o, s.exec("INSERT INTO fn(tag, ord, n) VALUES(?, conn_ord(), conn_calls())", tag))
		if s.tx != nil {
			o = append(o, s.end(true))
		}
		var gotOrd, gotCalls int64
		if err := s.scan("SELECT ord, n FROM fn WHERE tag = ?", []any{tag}, &gotOrd, &gotCalls); err != nil {
			o = append(o, r.class(err))
		} else {
			o = append(o, fmt.Sprintf("ord-is-own=%v calls-is-next=%v", gotOrd == ord, gotCalls == calls+1))
		}
		s.note(st.Cat, strings.Join(o, " "))
	case CCollate:
		var ord int64
		if err := s.scan("SELECT conn_ord()", nil, &ord); err != nil {
			s.note(st.Cat, r.class(err))
			return
		}
		var o []string
		if st.Var%2 == 1 {
			o = append(o, s.begin())
		}
		got := s.exec("UPDATE t SET v = v WHERE k = ? AND v = 'X' COLLATE odd", s.base+1)
		// The rule: the write has the collation exactly where its connection does.
		has := ord%2 == 1
		if has == strings.HasPrefix(got, "ok") {
			o = append(o, "rule-holds")
		} else {
			o = append(o, fmt.Sprintf("rule-broken(has=%v got=%s)", has, got))
		}
		if s.tx != nil {
			o = append(o, s.end(true))
		}
		s.note(st.Cat, strings.Join(o, " "))
	case CHooks:
		k := s.key()
		if st.Var%2 == 0 {
			// One statement, two rows; the second may fail the CHECK after
			// the first was inserted (and the update hook saw it).
			second := int64(1)
			if st.Var == 2 {
				second = -1
			}
			s.n++
			s.note(st.Cat, s.exec("INSERT INTO h(id, v) VALUES(?, 1), (?, ?)", k, k+1, second))
			return
		}
		// In a transaction, statements that fail half-way are left out: their
		// undone first row stays in SQLite's pending changes on any driver.
		o := []string{s.begin(), s.exec("INSERT INTO h(id, v) VALUES(?, 1)", k),
			s.exec("DELETE FROM h WHERE id = ?", k-2)}
		o = append(o, s.end(st.Var != 5))
		s.note(st.Cat, strings.Join(o, " "))
	case CConflict:
		k := s.key()
		s.n++
		var o string
		switch st.Var {
		case 0:
			o = "fail:" + s.exec("INSERT OR FAIL INTO c(id, v) VALUES(?, 1), (?, -1)", k, k+1)
		case 1:
			o = "raise:" + s.exec("INSERT INTO u(id, v) VALUES(?, 1), (?, -1)", k, k+1)
		case 2:
			o = "ignore:" + s.exec("INSERT OR IGNORE INTO c(id, v) VALUES(?, 1), (?, -1)", k, k+1) +
				" replace:" + s.exec("INSERT OR REPLACE INTO c(id, v) VALUES(?, 2)", k)
		case 3:
			// An orphan, every other time of a deferred constraint: autocommit
			// fails it at its end, a group undoes it in a savepoint.
			table := "child"
			if s.n%2 == 0 {
				table = "dchild"
			}
			o = "fk:" + s.exec("INSERT INTO "+table+"(pid, tag) VALUES(-1, ?)", fmt.Sprintf("F%d-%d-%d", s.seq, s.id, s.n))
		case 4:
			o = strings.Join([]string{s.begin(), "fail:" + s.exec("INSERT OR FAIL INTO c(id, v) VALUES(?, 1), (?, -1)", k, k+1),
				"raise:" + s.exec("INSERT INTO u(id, v) VALUES(?, 1), (?, -1)", k, k+1), s.end(true)}, " ")
		case 5:
			if s.r.flags&FLostGroup != 0 {
				o = "rollback:" + s.exec("INSERT OR ROLLBACK INTO c(id, v) VALUES(?, 1), (?, -1)", k, k+1)
			} else {
				o = strings.Join([]string{s.begin(), s.exec("INSERT INTO c(id, v) VALUES(?, 3)", k+2),
					"rollback:" + s.exec("INSERT OR ROLLBACK INTO c(id, v) VALUES(?, 1), (?, -1)", k, k+1), s.end(false)}, " ")
			}
		}
		var n int64
		err := s.scan("SELECT count(*) FROM c WHERE id BETWEEN ? AND ?", []any{s.base, s.base + 9999}, &n)
		s.note(st.Cat, fmt.Sprintf("%s c=%d/%s", o, n, r.class(err)))
	case CDeadline:
		var o []string
		switch st.Var {
		case 0: // in a transaction that wrote, a read: the transaction goes on
			k := s.key()
			o = append(o, s.begin(), s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'dl')", k, k), s.withDeadline(false), s.end(true))
		case 1: // a write: SQLite rolls the transaction back, which the program then does too
			k := s.key()
			o = append(o, s.begin(), s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'dl')", k, k), s.withDeadline(true), s.end(false))
		case 2:
			if s.r.flags&FSlowWrite != 0 {
				o = append(o, "write:"+s.withDeadline(true))
				break
			}
			fallthrough
		default:
			o = append(o, "read:"+s.withDeadline(false))
		}
		s.note(st.Cat, strings.Join(o, " "))
	case CPool:
		o := []string{s.begin()}
		k := s.key()
		o = append(o, s.exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'pool')", k, k))
		ctx, cancel := context.WithTimeout(r.ctx, stepTimeout)
		rows, err := s.q().QueryContext(ctx, "SELECT k FROM t WHERE k BETWEEN ? AND ?", s.base, s.base+9999)
		if err != nil {
			o = append(o, r.class(err))
		} else {
			rows.Next() // a cursor of the transaction stays open across the lookup
			lctx, lcancel := context.WithTimeout(r.ctx, lookupTimeout)
			var n int64
			err := s.db.QueryRowContext(lctx, "SELECT count(*) FROM t WHERE k BETWEEN ? AND ?", s.base, s.base+9999).Scan(&n)
			lcancel()
			o = append(o, fmt.Sprintf("lookup=%d/%s", n, r.class(err)))
			rows.Close()
		}
		cancel()
		o = append(o, s.end(true))
		s.note(st.Cat, strings.Join(o, " "))
	}
}

// sessions runs a sessions phase: goroutines each on a connection of a
// bounded pool of its own (pinned, or through the pool), all writing, so
// that on a driver that groups writes they queue behind one another, and
// first behind a holder's transaction. Each session touches its own keys,
// so its outcomes are its own; what depends on who ran first (row ids, the
// connections' numbers) is checked against a rule and printed as whether it
// holds.
func (r *runner) sessions(o Op) []string {
	main := filepath.Join(r.dir, "main.db")
	spec := r.p.Conns[o.Conn]
	plan := o.Sessions(r.p.Seed)
	r.flags = o.Flags
	defer func() { r.flags = 0 }()
	dsn := Conn{TxLock: "immediate", Busy: sessionsBusy, WALBound: spec.WALBound}.DSN(main, r.p.Mode, r.p.FK)
	db, err := sql.Open(DriverName, dsn)
	if err != nil {
		return []string{r.class(err)}
	}
	npinned := 0
	for _, s := range plan {
		if s.Pinned {
			npinned++
		}
	}
	// Room for every session and one more: the holder's, then a lookup's.
	// A lookup inside a transaction then always finds a connection once the
	// sessions that wait for the write lock are counted.
	db.SetMaxOpenConns(len(plan) + 1)
	var ss []*session
	for i, p := range plan {
		s := &session{r: r, db: db, id: i, seq: o.Seq, base: 10_000_000*int64(o.Seq) + 10_000*int64(i), pinned: p.Pinned, out: map[string][]string{}}
		if p.Pinned {
			c, err := db.Conn(r.ctx)
			if err != nil {
				db.Close()
				return []string{"pin " + r.class(err)}
			}
			s.c = c
		}
		ss = append(ss, s)
	}
	var lines []string
	hold, err := db.BeginTx(r.ctx, nil)
	if err != nil {
		lines = append(lines, "holder: "+r.class(err))
	} else if _, err := hold.Exec("INSERT INTO t(id, k, v) VALUES(?, ?, 'holder')", 10_000_000*int64(o.Seq)+9_999_999, 10_000_000*int64(o.Seq)+9_999_999); err != nil {
		lines = append(lines, "holder: "+r.class(err))
	}
	done := make(chan int, len(ss))
	for i, s := range ss {
		go func() {
			defer func() { done <- i }()
			var tc0 int64
			if s.c != nil {
				s.scan("SELECT total_changes()", nil, &tc0)
				// the session's BLOB row, by a write that queues as any other
				s.note(CBlob, "row:"+s.exec("INSERT INTO b(id, data) VALUES(?, zeroblob(32))", s.base))
			}
			for _, st := range plan[i].Steps {
				if !s.pinned && (st.Cat == CLastRowID || st.Cat == CTemp || st.Cat == CDirect || st.Cat == CBlob ||
					st.Cat == CFunc || st.Cat == CCollate || st.Cat == CChanges) {
					continue // per-connection state: pinned sessions only
				}
				s.step(st)
			}
			if s.c != nil {
				var tc int64
				err := s.scan("SELECT total_changes()", nil, &tc)
				s.note(CChanges, fmt.Sprintf("total_changes+=%d/%s", tc-tc0-s.sqlBlobWrites, r.class(err)))
			}
		}()
	}
	var holdErr = make(chan error, 1)
	if hold != nil {
		time.Sleep(holdFor)
		go func() { holdErr <- hold.Commit() }()
	} else {
		holdErr <- nil
	}
	var hung []string
	finished := map[int]bool{}
	limit := time.After(phaseLimit)
wait:
	for len(finished) < len(ss) {
		select {
		case i := <-done:
			finished[i] = true
		case <-limit:
			for i := range ss {
				if !finished[i] {
					hung = append(hung, fmt.Sprintf("s%d", i))
				}
			}
			break wait
		}
	}
	select {
	case err := <-holdErr:
		lines = append(lines, "holder: commit "+r.class(err))
	case <-time.After(stepTimeout):
		lines = append(lines, "holder: commit hung")
	}
	if len(hung) > 0 {
		// Their connections stay as they are: closing them could wait too.
		lines = append(lines, "hung: "+strings.Join(hung, " "))
		return lines
	}
	cats := map[string]bool{}
	for _, s := range ss {
		for c := range s.out {
			cats[c] = true
		}
	}
	var names []string
	for c := range cats {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		var b strings.Builder
		for _, s := range ss {
			if len(s.out[c]) > 0 {
				fmt.Fprintf(&b, " s%d=[%s]", s.id, strings.Join(s.out[c], "; "))
			}
		}
		lines = append(lines, c+":"+b.String())
	}
	for _, s := range ss {
		if s.c != nil {
			s.c.Close()
		}
	}
	if o.Flags&FLeak != 0 {
		lines = append(lines, CLeak+": "+r.leak(db))
	}
	lines = append(lines, r.sessionChecks(db, o.Seq)...)
	db.Close()
	return lines
}

// sessionChecks are the invariants of a sessions phase, then the removal
// of its rows whose ids depend on the order the sessions ran in.
func (r *runner) sessionChecks(db *sql.DB, seq int) []string {
	var lines []string
	var wrong, total int64
	err := db.QueryRow(`SELECT count(*), coalesce(sum(p.tag IS NOT c.tag), 0) FROM child c LEFT JOIN parent p ON p.id = c.pid
		WHERE c.tag LIKE ?`, fmt.Sprintf("S%d-%%", seq)).Scan(&total, &wrong)
	lines = append(lines, fmt.Sprintf("%s-check: children=%d not-their-parent's=%d/%s", CLastRowID, total, wrong, r.class(err)))
	lines = append(lines, CHooks+"-check: "+r.feed(db))
	var orphans int64
	err = db.QueryRow("SELECT count(*) FROM dchild WHERE tag LIKE ?", fmt.Sprintf("F%d-%%", seq)).Scan(&orphans)
	lines = append(lines, fmt.Sprintf("%s-check: deferred orphans kept=%d/%s", CConflict, orphans, r.class(err)))
	for _, q := range []string{"DELETE FROM child WHERE tag LIKE ?1 OR tag LIKE ?2", "DELETE FROM dchild WHERE tag LIKE ?2",
		"DELETE FROM parent WHERE tag LIKE ?1", "DELETE FROM fn WHERE tag LIKE ?1"} {
		if _, err := db.Exec(q, fmt.Sprintf("S%d-%%", seq), fmt.Sprintf("F%d-%%", seq)); err != nil {
			lines = append(lines, "cleanup: "+r.class(err))
		}
	}
	var busy int
	err = db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, new(int), new(int))
	lines = append(lines, fmt.Sprintf("checkpoint: busy=%d %s", busy, r.class(err)))
	return lines
}

// feed compares the hooks' change feed with the rows of h.
func (r *runner) feed(db *sql.DB) string {
	rows, err := db.Query("SELECT id FROM h")
	if err != nil {
		return r.class(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return r.class(err)
	}
	return feedCheck(ids)
}

// leak: a write queued for the write turn (B), then a transaction that
// reads and is left open with its Rows (A, as a handler that panicked), both
// behind a holder. A correct driver returns B by its deadline or its busy
// timeout: it wrote first, or A's lock made it wait and fail. Then A is
// ended (which a real leak never does) so that the program goes on.
func (r *runner) leak(db *sql.DB) string {
	hold, err := db.BeginTx(r.ctx, nil)
	if err != nil {
		return "holder " + r.class(err)
	}
	bDone := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(r.ctx, time.Second)
		defer cancel()
		_, err := db.ExecContext(ctx, "INSERT INTO t(k, v) VALUES(NULL, 'leak-b')")
		bDone <- err
	}()
	time.Sleep(holdFor)
	type leaked struct {
		tx   *sql.Tx
		rows *sql.Rows
		err  error
	}
	aDone := make(chan leaked, 1)
	go func() {
		tx, err := db.BeginTx(r.ctx, nil)
		if err != nil {
			aDone <- leaked{err: err}
			return
		}
		rows, err := tx.Query("SELECT k FROM t")
		if err == nil {
			rows.Next()
		}
		aDone <- leaked{tx, rows, err}
	}()
	time.Sleep(holdFor)
	hDone := make(chan error, 1)
	go func() { hDone <- hold.Commit() }()
	out := "b="
	bReturned := false
	select {
	case err := <-bDone:
		bReturned = true
		// ok (B wrote before A began), busy or canceled (A's lock held it):
		// which one is timing; returning is not.
		if cl := r.class(err); cl == "ok" || strings.HasPrefix(cl, "busy") || cl == "canceled" {
			out += "returned"
		} else {
			out += cl
		}
	case <-time.After(leakWait):
		out += "hung"
	}
	select {
	case a := <-aDone:
		if a.err != nil {
			out += " a=" + r.class(a.err)
		}
		if a.rows != nil {
			a.rows.Close()
		}
		if a.tx != nil {
			a.tx.Rollback()
		}
	case <-time.After(leakWait):
		out += " a=hung"
	}
	select {
	case err := <-hDone:
		out += " holder=" + r.class(err)
	case <-time.After(leakWait):
		out += " holder=hung"
	}
	if !bReturned {
		select {
		case <-bDone:
		case <-time.After(leakWait):
		}
	}
	// B's row, if it wrote, is timing: remove it.
	if _, err := db.Exec("DELETE FROM t WHERE v = 'leak-b'"); err != nil {
		out += " cleanup=" + r.class(err)
	}
	return out
}
