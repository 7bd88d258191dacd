package harness

import (
	"fmt"
	"slices"
	"strings"
)

// Exception is a difference between the two drivers that is known and
// intended: the README's compatibility section says why this driver differs
// from mattn there. A transcript difference that one of them explains is
// reported as known, and the rest of that program is not compared (its
// state may differ from there on).
type Exception struct {
	Name string
	Why  string
	// Match reports whether the difference at op (ours' and mattn's
	// outcome) is this one. Nil: avoided by construction, listed so that
	// nobody has to wonder.
	Match func(p *Program, i int, ours, mattn string) bool
}

// Exceptions is the list of known differences, and of those the generator
// avoids by construction.
var Exceptions = []Exception{
	{
		Name: "deserialize-growth",
		Why: "mattn's Deserialize does not pass SQLITE_DESERIALIZE_RESIZEABLE: its in-memory database cannot grow " +
			"(SQLITE_FULL); this driver's grows. The fixed image has free pages so that programs rarely reach it.",
		Match: func(p *Program, i int, ours, mattn string) bool {
			return deserialized(p, i) && strings.HasPrefix(mattn, "full(13") && strings.HasPrefix(ours, "ok")
		},
	},
	{
		Name: "cancel-before",
		Why: "mattn checks a context already cancelled only from a goroutine that races with the statement: " +
			"the statement may run. cancelpre ops fold ok and canceled into one class (ok-or-canceled), and only read.",
	},
	{
		Name: "cancel-before-error",
		Why: "A query whose context is already cancelled: this driver returns the context's error before it " +
			"prepares; mattn prepares first and returns the statement's own error when it has one (no such table in a " +
			"deserialized main). Both fail.",
		Match: func(p *Program, i int, ours, mattn string) bool {
			return i >= 0 && i < len(p.Ops) && p.Ops[i].Kind == KCancelPre && ours == "ok-or-canceled" && strings.HasPrefix(mattn, "error(")
		},
	},
	{
		Name: "busy-wait-deadline",
		Why: "mattn cannot end a wait for a lock by the context (its interrupt does not reach SQLite's busy handler): a " +
			"write blocked by another connection's lock fails with SQLITE_BUSY once the busy timeout has passed, whatever " +
			"the deadline. This driver returns the context's error at the deadline. Slow writes' deadlines are set 10 ms or " +
			"more past every busy timeout, so that both fail busy, but on a loaded machine the deadline may still come first.",
		Match: func(p *Program, i int, ours, mattn string) bool {
			return i >= 0 && i < len(p.Ops) && p.Ops[i].Kind == KSlowWrite && ours == "canceled" && strings.HasPrefix(mattn, "busy(")
		},
	},
	{
		Name: "interrupt-other-rows",
		Why: "README: on mattn a cancelled operation interrupts every statement of the connection, an open Rows " +
			"included; here only the operation given the context. Programs never cancel on a connection with an open reader.",
	},
	{
		Name: "leaked-rows-collector",
		Why: "README: a busy wait of this driver that lasts 100 ms runs the collector, which finalizes leaked " +
			"Rows, where mattn waits for a collection to happen. Every leak op runs runtime.GC itself, so both drivers " +
			"have finalized the leaked statement before the next op.",
	},
	{
		Name: "mode-ro-plain-filename",
		Why:  "README: mattn ignores mode=ro on a plain filename. Programs use file: URIs only.",
	},
	{
		Name: "readonly-tx, isolation levels, multi-statement Query, strict checks",
		Why:  "README's compatibility table; programs use none of them (BeginTx with nil options, one statement per Query).",
	},
	{
		Name: "wal-bound-checkpoint",
		Why: "This driver's WAL bound (_wal_bound, 64 KiB in some programs) checkpoints on its own, where mattn " +
			"does not: the WAL's content, not a result, differs. Transcripts keep only wal_checkpoint's busy column, " +
			"and read-only connections never run one (they fail with IOERR_WRITE when there are frames to copy).",
	},
	{
		Name: "direct-and-blob-through-sql",
		Why: "mattn has no direct statement API nor BLOB I/O: its program runs the same SQL through database/sql (in the " +
			"connection's Tx), and a BLOB write as a read, a splice and an UPDATE of the whole value. The UPDATE counts in " +
			"changes(), total_changes() and a later DDL's RowsAffected, a blob write does not: programs stop asking for " +
			"changes() on a connection that wrote a BLOB, sessions subtract those UPDATEs from total_changes(), and RowsAffected " +
			"is printed for DML only there. sqlite3_blob_open reports most failures as SQLITE_ERROR, so a BLOB op's class is " +
			"ok or failed.",
	},
	{
		Name: "rollback-ended",
		Why: "A Rollback after SQLite rolled the transaction back itself (an interrupted write, INSERT OR ROLLBACK): mattn " +
			"returns SQLite's 'cannot rollback - no transaction is active', this driver nil. Both mean the transaction is " +
			"gone: Rollback's error(1/1) is folded into ok.",
	},
	{
		Name: "tx-lost",
		Why: "After SQLite rolled a transaction back itself, mattn runs the Tx's later statements in autocommit (they " +
			"commit at once) and its Commit fails with 'cannot commit - no transaction is active'; this driver fails them " +
			"('the transaction was rolled back by SQLite after an earlier error') and its Commit too (docs/switching.md). " +
			"Programs roll such a Tx back at once (endLost), so nothing else runs in it.",
	},
	{
		Name: "deserialize-error-text",
		Why: "mattn's Deserialize returns a plain error \"deserialize failed with return N\", this driver an Error with " +
			"code N: the transcript reads the code out of mattn's text.",
	},
}

// deserialized reports whether op i's connection has run a deserialize op
// before it.
func deserialized(p *Program, i int) bool {
	if i < 0 || i >= len(p.Ops) {
		return false
	}
	c := p.Ops[i].Conn
	for _, o := range p.Ops[:i] {
		if o.Kind == KDeser && o.Conn == c {
			return true
		}
	}
	return false
}

// Explain returns the exception that explains a difference at op i, if any.
func Explain(p *Program, i int, ours, mattn string) (Exception, bool) {
	for _, e := range Exceptions {
		if e.Match != nil && e.Match(p, i, ours, mattn) {
			return e, true
		}
	}
	return Exception{}, false
}

// Result is the comparison of one program's two transcripts.
type Result struct {
	Same      bool
	Known     *Exception // the first difference is a known one
	Line      int        // first differing line (0-based)
	Op        int        // its op, or -1 for the final dump or the header
	Ours      string     // the two lines ("" when a transcript ended there)
	Mattn     string
	OtherOps  []int // later ops whose outcomes differ too
	FinalDiff bool  // the final databases differ
	// Labels names what differs, each once: an op's kind, a phase's
	// category ("phase.lastrowid"), "final TABLE" or "final hooks".
	Labels []string
}

// Compare compares ours' and mattn's transcripts of p line by line.
func Compare(p *Program, ours, mattn []string) Result {
	res := Result{Same: true, Line: -1, Op: -1}
	n := max(len(ours), len(mattn))
	for i := 0; i < n; i++ {
		var a, b string
		if i < len(ours) {
			a = ours[i]
		}
		if i < len(mattn) {
			b = mattn[i]
		}
		if a == b {
			continue
		}
		if l := label(a, b); !slices.Contains(res.Labels, l) {
			res.Labels = append(res.Labels, l)
		}
		op := opIndex(a, b)
		if strings.HasPrefix(a, "final") || strings.HasPrefix(b, "final") {
			res.FinalDiff = true
		}
		if res.Same {
			res.Same = false
			res.Line, res.Op, res.Ours, res.Mattn = i, op, a, b
			if op >= 0 {
				if e, ok := Explain(p, op, outcome(a), outcome(b)); ok {
					res.Known = &e
					return res
				}
			}
			continue
		}
		if op >= 0 {
			res.OtherOps = append(res.OtherOps, op)
		}
	}
	return res
}

// label is what a differing line is about: "op N cK KIND: ..." gives KIND
// (a phase's "phase.CATEGORY"), "final main table T=..." gives "final T".
func label(a, b string) string {
	l := a
	if l == "" {
		l = b
	}
	f := strings.Fields(l)
	switch {
	case len(f) >= 4 && f[0] == "op":
		return strings.TrimSuffix(f[3], ":")
	case len(f) >= 4 && f[0] == "final" && f[2] == "table":
		return "final " + strings.SplitN(f[3], "=", 2)[0]
	case len(f) >= 2 && f[0] == "final":
		return "final " + f[1]
	case len(f) >= 1:
		return f[0]
	}
	return "?"
}

// opIndex is the op number of a transcript line "op N cK kind: outcome".
func opIndex(a, b string) int {
	for _, l := range []string{a, b} {
		var n int
		if _, err := fmt.Sscanf(l, "op %d ", &n); err == nil {
			return n
		}
	}
	return -1
}

// outcome is what follows "op N cK kind: ".
func outcome(l string) string {
	if _, o, ok := strings.Cut(l, ": "); ok {
		return o
	}
	return l
}
