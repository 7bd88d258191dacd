// Package harness is the differential test of this driver against
// github.com/mattn/go-sqlite3 v1.14.53: random programs of connections
// mixing writes to the main database, TEMP and ATTACHed files, VACUUM INTO,
// pragmas, deserialize, long readers, leaked Rows, cancellations and
// read-only pools, run on each driver in its own process (the difftest command
// builds difftest/ours and difftest/mattn), each printing a canonical
// transcript: every operation's outcome class and the final databases.
//
// A program is generated from a seed alone (Generate), so the same seed is
// the same program on both drivers, and anyone can rerun it:
//
//	cd difftest && go run . -seed N
//
// The programs are built so that a correct driver's transcript does not
// depend on timing: operations run one at a time, so a lock another
// connection holds is held by a connection that waits for nothing (a busy
// timeout can only run out, whatever its length, so the serial connections
// have short ones); concurrent phases wait for locks that are certainly
// released (a busy timeout of 2 s), or do work that never waits on a
// correct driver (WAL: a TEMP table, an ATTACHed file of its own, VACUUM
// INTO, beside writers), and their transcript is their counts. What mattn
// does that depends on timing (a context already cancelled may still let
// the statement run) is folded into one class; what this driver does
// differently on purpose is in Exceptions.
package harness

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

// Kinds of operation.
const (
	KExec      = "exec"      // ExecContext of SQL (in the connection's Tx if it has one)
	KQuery     = "query"     // QueryContext of SQL, every row read
	KBegin     = "begin"     // BeginTx (the pool's _txlock)
	KCommit    = "commit"    // Tx.Commit
	KRollback  = "rollback"  // Tx.Rollback
	KVacuum    = "vacuum"    // VACUUM INTO a new file, then that file is opened and checked
	KDeser     = "deser"     // Deserialize an image into main (conn.Raw)
	KSer       = "ser"       // Serialize main; the image is loaded into a scratch :memory: database and counted
	KOpen      = "open"      // a long reader: Query, one row read, the Rows kept
	KClose     = "close"     // the long reader's remaining rows read, Rows closed
	KLeak      = "leak"      // Query through the connection's pool, one row read, Rows dropped; runtime.GC
	KCancelPre = "cancelpre" // Query with a context cancelled before it
	KCancelDur = "canceldur" // an endless query whose context is cancelled after Ms milliseconds
	KPhase     = "phase"     // a concurrent phase (Phase)
	KDirect    = "direct"    // SQL through the direct API (PrepareDirect) on the connection, in its Tx if any; on mattn through database/sql
	KBlob      = "blob"      // incremental BLOB I/O (OpenBlob) on main.b, in the connection's Tx if any; on mattn through SQL
	KSlowWrite = "slowwrite" // a write that takes seconds, whose context ends after Ms milliseconds
)

// Concurrent phases.
const (
	PWriters  = "writers"  // G goroutines, each on a new connection (busy 2 s), N transactions of inserts; read-only readers beside
	PSide     = "side"     // writers as PWriters, and goroutines doing TEMP, ATTACH, pragma and VACUUM INTO work beside them
	PBackup   = "backup"   // WAL: VACUUM INTO of a large table while a writer with a 2 ms busy timeout inserts
	PSessions = "sessions" // G sessions of N steps of the per-connection vocabulary, behind a holder (sessions.go)
	bigRowsKV = 30000      // rows of the table PBackup copies
)

// Conn is one pinned connection (a sql.Conn) and the pool it comes from.
type Conn struct {
	TxLock   string // immediate or deferred
	Busy     int    // _busy_timeout, ms
	RO       bool   // mode=ro
	WALBound string // "" (default), "0" or a byte count
}

// Op is one operation of a program.
type Op struct {
	Kind  string
	Conn  int
	SQL   string
	Args  []any
	Ms    int    // KCancelDur: when the context is cancelled
	Phase string // KPhase
	G, N  int    // KPhase: goroutines, transactions each
	Seq   int    // a number for file names (VACUUM INTO targets)
	Img   int    // KDeser: 0 the fixed image, 1 the last Serialize of the program
	Data  string // KBlob: the bytes written at offset Ms ("": read 8 bytes there)
	Flags int    // PSessions: FLostGroup, FSlowWrite, FLeak
}

// Program is what a seed generates.
type Program struct {
	Seed uint64
	Mode string // WAL or DELETE
	FK   bool   // _fk=1 on the writable pools
	// Hooks: ConnectHook installs the change feed's hooks (hooks.go). In
	// half the programs only: a connection with hooks never takes part in
	// group commit, and the other half must let groups form.
	Hooks bool
	Conns []Conn
	Ops   []Op
}

// ExtraDSNEnv names an environment variable whose value, when set, is added
// to every writable pool's DSN: DIFFTEST_DSN_EXTRA=_group_commit=1 runs the
// programs with group commit (mattn ignores parameters it does not know).
const ExtraDSNEnv = "DIFFTEST_DSN_EXTRA"

// DSN returns the connection string of conn's pool for the database at path.
func (c Conn) DSN(path, mode string, fk bool) string {
	var p []string
	if c.RO {
		p = append(p, "mode=ro")
	} else {
		p = append(p, "_journal_mode="+mode)
	}
	p = append(p, "_txlock="+c.TxLock, fmt.Sprintf("_busy_timeout=%d", c.Busy))
	if fk && !c.RO {
		p = append(p, "_fk=1")
	}
	if c.WALBound != "" {
		p = append(p, "_wal_bound="+c.WALBound)
	}
	if extra := os.Getenv(ExtraDSNEnv); extra != "" && !c.RO {
		p = append(p, extra)
	}
	return "file:" + path + "?" + strings.Join(p, "&")
}

func (c Conn) String() string {
	s := fmt.Sprintf("txlock=%s busy=%dms", c.TxLock, c.Busy)
	if c.RO {
		s += " mode=ro"
	}
	if c.WALBound != "" {
		s += " wal_bound=" + c.WALBound
	}
	return s
}

func (o Op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "c%d %s", o.Conn, o.Kind)
	switch o.Kind {
	case KPhase:
		fmt.Fprintf(&b, " %s goroutines=%d tx=%d", o.Phase, o.G, o.N)
		if o.Phase == PSessions {
			fmt.Fprintf(&b, " flags=%d", o.Flags)
		}
	case KBlob:
		fmt.Fprintf(&b, " offset %d", o.Ms)
		if o.Data != "" {
			fmt.Fprintf(&b, " write %q", o.Data)
		}
	case KCancelDur, KSlowWrite:
		fmt.Fprintf(&b, " after %d ms", o.Ms)
	case KDeser:
		fmt.Fprintf(&b, " image=%d", o.Img)
	case KVacuum:
		fmt.Fprintf(&b, " vac-%d.db", o.Seq)
	}
	if o.SQL != "" {
		fmt.Fprintf(&b, " %q", o.SQL)
	}
	if len(o.Args) > 0 {
		fmt.Fprintf(&b, " %v", o.Args)
	}
	return b.String()
}

// Text is the program as people read it.
func (p *Program) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, journal_mode=%s, fk=%v\n", p.Seed, p.Mode, p.FK)
	for i, c := range p.Conns {
		fmt.Fprintf(&b, "  c%d: %s\n", i, c)
	}
	for i, o := range p.Ops {
		fmt.Fprintf(&b, "  %3d %s\n", i, o)
		if o.Kind == KPhase && o.Phase == PSessions {
			for g, s := range o.Sessions(p.Seed) {
				fmt.Fprintf(&b, "        s%d pinned=%v %v\n", g, s.Pinned, s.Steps)
			}
		}
	}
	return b.String()
}

// connState is what the generator knows of a connection, to build programs
// whose outcome does not depend on timing.
type connState struct {
	tx, reader, deser bool
	// blobbed: a BLOB write ran on it, which mattn's program makes with an
	// UPDATE: changes() and total_changes() count it there only.
	blobbed bool
}

// Generate makes the program of seed: the same on every machine and driver.
func Generate(seed uint64) *Program {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	p := &Program{Seed: seed, Mode: "WAL", Hooks: seed%2 == 1} // not from r: the rest of each program stays as it was
	if r.IntN(3) == 0 {
		p.Mode = "DELETE"
	}
	p.FK = r.IntN(2) == 0
	nconn := 3 + r.IntN(3)
	busy := []int{0, 10, 30}
	for i := 0; i < nconn; i++ {
		c := Conn{TxLock: "immediate", Busy: busy[r.IntN(len(busy))]}
		if r.IntN(3) == 0 {
			c.TxLock = "deferred"
		}
		if i > 0 && r.IntN(4) == 0 {
			c.RO = true
		}
		switch r.IntN(4) {
		case 0:
			c.WALBound = "0"
		case 1:
			c.WALBound = "65536"
		}
		p.Conns = append(p.Conns, c)
	}
	st := make([]connState, nconn)
	seq := 0
	add := func(o Op) { p.Ops = append(p.Ops, o) }
	val := func() string { return fmt.Sprintf("v%d", len(p.Ops)) }
	// closeAll ends every transaction and long reader (before a phase, and
	// at the end): readers first, then transactions.
	closeAll := func() {
		for i := range st {
			if st[i].reader {
				add(Op{Kind: KClose, Conn: i})
				st[i].reader = false
			}
		}
		for i := range st {
			if st[i].tx {
				k := KCommit
				if r.IntN(3) == 0 {
					k = KRollback
				}
				add(Op{Kind: k, Conn: i})
				st[i].tx = false
			}
		}
	}
	phases := 0
	nops := 25 + r.IntN(30)
	for len(p.Ops) < nops {
		c := r.IntN(nconn)
		s := &st[c]
		k := r.IntN(135)
		if k >= 100 {
			vocabulary(r, p, c, s, k-100)
			continue
		}
		switch {
		case k < 22: // writes to main
			if s.deser {
				// The deserialized image has free pages for these: mattn's
				// image cannot grow (Exceptions).
				add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO m(x) VALUES(?)", Args: []any{int64(r.IntN(100))}})
				break
			}
			key := int64(r.IntN(40))
			switch r.IntN(6) {
			case 0, 1:
				add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO t(k, v) VALUES(?, ?)", Args: []any{key, val()}})
			case 5:
				// A write whose rows its caller reads: with group commit,
				// read in the group and converted by the caller.
				add(Op{Kind: KQuery, Conn: c, SQL: "INSERT INTO t(k, v) VALUES(?, ?) RETURNING k, v, typeof(v), length(v)", Args: []any{key, val()}})
			case 2:
				add(Op{Kind: KExec, Conn: c, SQL: "UPDATE t SET v = ? WHERE k = ?", Args: []any{val(), key}})
			case 3:
				add(Op{Kind: KExec, Conn: c, SQL: "DELETE FROM t WHERE k = ?", Args: []any{key}})
			case 4:
				add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR REPLACE INTO t(k, v) VALUES(?, ?)", Args: []any{key, val()}})
			}
		case k < 30: // reads
			if s.deser {
				add(Op{Kind: KQuery, Conn: c, SQL: "SELECT count(*), total(x) FROM m"})
			} else {
				add(Op{Kind: KQuery, Conn: c, SQL: "SELECT count(*), total(k), group_concat(v, ',') FROM (SELECT k, v FROM t ORDER BY k)"})
			}
		case k < 38: // TEMP
			switch r.IntN(3) {
			case 0:
				add(Op{Kind: KExec, Conn: c, SQL: "CREATE TEMP TABLE IF NOT EXISTS s(x)"})
			case 1:
				add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO temp.s VALUES(?)", Args: []any{val()}})
			case 2:
				add(Op{Kind: KQuery, Conn: c, SQL: "SELECT count(*) FROM temp.s"})
			}
		case k < 46: // an ATTACHed file
			switch r.IntN(4) {
			case 0:
				add(Op{Kind: KExec, Conn: c, SQL: "ATTACH $AUX AS aux"})
			case 1, 2:
				add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO aux.a(v) VALUES(?)", Args: []any{val()}})
			case 3:
				add(Op{Kind: KQuery, Conn: c, SQL: "SELECT count(*) FROM aux.a"})
			}
		case k < 56: // transactions
			if s.tx {
				if r.IntN(3) == 0 {
					add(Op{Kind: KRollback, Conn: c})
				} else {
					add(Op{Kind: KCommit, Conn: c})
				}
				s.tx = false
			} else {
				add(Op{Kind: KBegin, Conn: c})
				s.tx = true
			}
		case k < 60:
			seq++
			add(Op{Kind: KVacuum, Conn: c, Seq: seq})
		case k < 70: // pragmas
			pr := []string{
				"PRAGMA journal_mode",
				"PRAGMA journal_mode=" + p.Mode,
				"PRAGMA wal_checkpoint(PASSIVE)",
				"PRAGMA wal_checkpoint(TRUNCATE)",
				"PRAGMA user_version",
				fmt.Sprintf("PRAGMA user_version=%d", len(p.Ops)),
				"PRAGMA busy_timeout",
			}[r.IntN(7)]
			if p.Conns[c].RO && strings.Contains(pr, "wal_checkpoint") {
				// On a read-only connection a checkpoint fails (IOERR_WRITE)
				// if there is anything to copy, which this driver's WAL
				// bound may have copied already (Exceptions).
				pr = "PRAGMA journal_mode"
			}
			add(Op{Kind: KQuery, Conn: c, SQL: pr})
		case k < 72:
			add(Op{Kind: KDeser, Conn: c, Img: r.IntN(2)})
			s.deser = true // (if it failed, writes to m fail alike)
		case k < 74:
			add(Op{Kind: KSer, Conn: c})
		case k < 82: // long readers
			if s.reader {
				add(Op{Kind: KClose, Conn: c})
				s.reader = false
			} else if !s.tx {
				add(Op{Kind: KOpen, Conn: c, SQL: "SELECT id, v FROM t ORDER BY id"})
				s.reader = true
			}
		case k < 86: // leaked Rows, then the collector
			if r.IntN(2) == 0 {
				add(Op{Kind: KLeak, Conn: c, SQL: "INSERT INTO t(k, v) VALUES(?, ?) RETURNING id", Args: []any{int64(100 + len(p.Ops)), val()}})
			} else {
				add(Op{Kind: KLeak, Conn: c, SQL: "SELECT id FROM t ORDER BY id"})
			}
		case k < 92: // cancellation (never on a connection with an open reader: mattn's interrupt stops it too, Exceptions)
			if s.reader {
				break
			}
			if r.IntN(2) == 0 {
				add(Op{Kind: KCancelPre, Conn: c, SQL: "SELECT count(*) FROM t"})
			} else {
				add(Op{Kind: KCancelDur, Conn: c, Ms: 5 + r.IntN(20),
					SQL: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n"})
			}
		default: // a concurrent phase
			if phases >= 3 {
				break
			}
			phases++
			closeAll()
			ph := []string{PWriters, PSide, PBackup, PSessions, PSessions, PSessions}[r.IntN(6)]
			if ph == PBackup && p.Mode != "WAL" {
				ph = PWriters
			}
			seq++
			o := Op{Kind: KPhase, Conn: c, Phase: ph, G: 2 + r.IntN(3), N: 3 + r.IntN(6), Seq: seq}
			if ph == PSessions {
				o.G = 3 + r.IntN(3)
				o.N = 4 + r.IntN(5)
				if r.IntN(5) == 0 {
					o.Flags |= FLostGroup
				}
				if r.IntN(4) == 0 {
					o.Flags |= FSlowWrite
				}
				if r.IntN(3) == 0 {
					o.Flags |= FLeak
				}
			}
			add(o)
		}
	}
	closeAll()
	return p
}

// endLost rolls back c's transaction right after a statement that makes
// SQLite roll it back: what mattn does next in it runs in autocommit, where
// this driver refuses it (tx-lost in Exceptions), so nothing else runs in it.
func endLost(p *Program, c int, s *connState) {
	if s.tx {
		p.Ops = append(p.Ops, Op{Kind: KRollback, Conn: c})
		s.tx = false
	}
}

// vocabulary adds an op of the per-connection vocabulary (k in [0, 35)) on
// connection c: SQL that reads the connection's own state, the direct API,
// BLOB I/O, ConnectHook functions and collations, conflict clauses and
// triggers, deadlines on writes, TEMP objects in transactions. Serial, so
// every outcome is exact.
func vocabulary(r *rand.Rand, p *Program, c int, s *connState, k int) {
	add := func(o Op) { p.Ops = append(p.Ops, o) }
	tag := fmt.Sprintf("v%d", len(p.Ops))
	switch {
	case k < 5: // the parent/child pattern on one connection
		add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO parent(tag) VALUES(?)", Args: []any{tag}})
		add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO child(pid, tag) VALUES(last_insert_rowid(), ?)", Args: []any{tag}})
	case k < 7:
		if s.blobbed {
			add(Op{Kind: KQuery, Conn: c, SQL: "SELECT last_insert_rowid()"})
		} else {
			add(Op{Kind: KQuery, Conn: c, SQL: "SELECT last_insert_rowid(), changes(), total_changes()"})
		}
	case k < 10:
		switch r.IntN(5) {
		case 0:
			add(Op{Kind: KDirect, Conn: c, SQL: "SELECT count(*), total(k), group_concat(v, ',') FROM (SELECT k, v FROM t ORDER BY k)"})
		case 1:
			add(Op{Kind: KDirect, Conn: c, SQL: "INSERT INTO t(k, v) VALUES(?, ?)", Args: []any{int64(r.IntN(40)), tag}})
		case 2:
			add(Op{Kind: KDirect, Conn: c, SQL: "SELECT id, hex(data) FROM b ORDER BY id"})
		case 3:
			add(Op{Kind: KDirect, Conn: c, SQL: "UPDATE c SET v = v + 1 WHERE id < ?", Args: []any{int64(r.IntN(20))}})
		case 4:
			add(Op{Kind: KDirect, Conn: c, SQL: "SELECT last_insert_rowid(), conn_ord()"})
		}
	case k < 13:
		o := Op{Kind: KBlob, Conn: c, Args: []any{int64(1 + r.IntN(4))}, Ms: r.IntN(25)}
		if r.IntN(2) == 0 {
			o.Data = fmt.Sprintf("%-8.8s", tag)
			s.blobbed = true
		}
		add(o)
	case k < 16:
		if r.IntN(2) == 0 {
			add(Op{Kind: KQuery, Conn: c, SQL: "SELECT conn_ord(), conn_calls()"})
		} else {
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO fn(tag, ord, n) VALUES(?, conn_ord(), conn_calls())", Args: []any{tag}})
		}
	case k < 18:
		if r.IntN(2) == 0 {
			add(Op{Kind: KQuery, Conn: c, SQL: "SELECT count(*) FROM t WHERE v = 'A' COLLATE odd"})
		} else {
			add(Op{Kind: KExec, Conn: c, SQL: "UPDATE t SET v = v || '' WHERE v = 'B' COLLATE odd"})
		}
	case k < 25:
		id := int64(r.IntN(20))
		switch r.IntN(7) {
		case 0:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR FAIL INTO c(id, v) VALUES(?, 1), (?, -1)", Args: []any{id, id + 1}})
		case 1:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO u(id, v) VALUES(?, 1), (?, -1)", Args: []any{id, id + 1}})
		case 2:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR IGNORE INTO c(id, v) VALUES(?, ?)", Args: []any{id, int64(r.IntN(4) - 1)}})
		case 3:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR REPLACE INTO c(id, v) VALUES(?, ?)", Args: []any{id, int64(r.IntN(4) - 1)}})
		case 4:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR ROLLBACK INTO c(id, v) VALUES(?, 1), (?, -1)", Args: []any{id, id + 1}})
			endLost(p, c, s)
		case 5:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT INTO child(pid, tag) VALUES(?, ?)", Args: []any{int64(r.IntN(6)), tag}})
		case 6:
			add(Op{Kind: KExec, Conn: c, SQL: "INSERT OR FAIL INTO c(id, v) VALUES(?, 5)", Args: []any{id}})
		}
	case k < 28: // never beside an open reader of the connection: mattn's interrupt stops it too (Exceptions)
		if s.reader {
			break
		}
		// Its deadline 10 ms or more past the longest busy timeout (30 ms):
		// mattn waits a busy timeout out whatever the context (Exceptions).
		add(Op{Kind: KSlowWrite, Conn: c, Ms: 40 + r.IntN(50), SQL: "INSERT INTO t(k, v) SELECT ?, 'slow' || c FROM (" + slowCount + ")",
			Args: []any{int64(1000 + len(p.Ops))}})
		endLost(p, c, s)
	default: // a TEMP table named as a main table, made in a transaction, then used by the ops that write t
		if s.tx && r.IntN(3) != 0 {
			add(Op{Kind: KExec, Conn: c, SQL: "CREATE TEMP TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)"})
		} else {
			add(Op{Kind: KExec, Conn: c, SQL: "DROP TABLE IF EXISTS temp.t"})
		}
	}
}
