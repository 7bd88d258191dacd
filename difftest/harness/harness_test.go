package harness

import (
	"slices"
	"strings"
	"testing"
)

func TestGenerateDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		a, b := Generate(seed).Text(), Generate(seed).Text()
		if a != b {
			t.Fatalf("seed %d: two programs", seed)
		}
		if seed > 1 && a == Generate(seed-1).Text() {
			t.Fatalf("seeds %d and %d: the same program", seed-1, seed)
		}
	}
}

// TestGenerateConstruction checks what keeps a correct driver's transcript
// independent of timing.
func TestGenerateConstruction(t *testing.T) {
	kinds := map[string]int{}
	for seed := uint64(1); seed <= 500; seed++ {
		p := Generate(seed)
		tx := make([]bool, len(p.Conns))
		reader := make([]bool, len(p.Conns))
		for i, o := range p.Ops {
			kinds[o.Kind]++
			if o.Kind == KPhase {
				kinds[o.Phase]++
			}
			switch o.Kind {
			case KBegin:
				tx[o.Conn] = true
			case KCommit, KRollback:
				tx[o.Conn] = false
			case KOpen:
				if tx[o.Conn] {
					t.Errorf("seed %d op %d: a long reader opened inside a transaction", seed, i)
				}
				reader[o.Conn] = true
			case KClose:
				reader[o.Conn] = false
			case KCancelPre, KCancelDur, KSlowWrite:
				if reader[o.Conn] {
					t.Errorf("seed %d op %d: cancellation on a connection with an open reader", seed, i)
				}
				if o.Kind == KSlowWrite && tx[o.Conn] {
					if i+1 >= len(p.Ops) || p.Ops[i+1].Kind != KRollback || p.Ops[i+1].Conn != o.Conn {
						t.Errorf("seed %d op %d: a write SQLite rolls back is not followed by its Tx's Rollback", seed, i)
					}
				}
			case KPhase:
				for c := range p.Conns {
					if tx[c] || reader[c] {
						t.Errorf("seed %d op %d: phase while c%d holds a transaction or reader", seed, i, c)
					}
				}
				if o.Phase == PBackup && p.Mode != "WAL" {
					t.Errorf("seed %d op %d: backup phase in rollback mode", seed, i)
				}
				if o.Phase == PSessions {
					for g, s := range o.Sessions(seed) {
						kinds["session-pinned"] += btoi(s.Pinned)
						if first := s.Steps[0].Cat; first != CWrite && first != CHooks && first != CLastRowID {
							t.Errorf("seed %d op %d: session %d does not begin with a write", seed, i, g)
						}
						for _, st := range s.Steps {
							kinds[st.Cat]++
						}
					}
				}
			}
		}
		for c := range p.Conns {
			if tx[c] || reader[c] {
				t.Errorf("seed %d: c%d ends with a transaction or reader open", seed, c)
			}
		}
	}
	for _, k := range []string{KExec, KQuery, KBegin, KCommit, KRollback, KVacuum, KDeser, KSer, KOpen, KClose,
		KLeak, KCancelPre, KCancelDur, PWriters, PSide, PBackup, KDirect, KBlob, KSlowWrite, PSessions, "session-pinned",
		CWrite, CLastRowID, CChanges, CTemp, CDirect, CBlob, CFunc, CCollate, CHooks, CConflict, CDeadline, CPool} {
		if kinds[k] == 0 {
			t.Errorf("no %s op in 500 programs", k)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCompareLabels(t *testing.T) {
	p := &Program{Ops: []Op{{Kind: KPhase}}}
	a := []string{"op 0 c0 phase: ok", "op 0 c0 phase.lastrowid: s0=[ok]", "final main table t=rows=1", "final hooks ghosts=0"}
	b := []string{"op 0 c0 phase: ok", "op 0 c0 phase.lastrowid: s0=[no]", "final main table t=rows=2", "final hooks ghosts=1"}
	r := Compare(p, a, b)
	if want := []string{"phase.lastrowid", "final t", "final hooks"}; !slices.Equal(r.Labels, want) {
		t.Fatalf("labels %q, want %q", r.Labels, want)
	}
}

func TestCompare(t *testing.T) {
	p := &Program{Ops: []Op{{Kind: KDeser, Conn: 1}, {Kind: KExec, Conn: 1}, {Kind: KExec, Conn: 0}}}
	base := []string{"program seed=1", "op 0 c1 deser: ok", "op 1 c1 exec: ok n=1", "op 2 c0 exec: ok n=1", "final main t=rows=1"}
	with := func(i int, l string) []string {
		s := append([]string(nil), base...)
		s[i] = l
		return s
	}
	if r := Compare(p, base, base); !r.Same {
		t.Fatalf("same transcripts: %+v", r)
	}
	r := Compare(p, with(3, "op 2 c0 exec: busy(5/5)"), base)
	if r.Same || r.Op != 2 || r.Known != nil || !strings.Contains(r.Ours, "busy") {
		t.Fatalf("a difference at op 2: %+v", r)
	}
	r = Compare(p, base, with(2, "op 1 c1 exec: full(13/13)"))
	if r.Known == nil || r.Known.Name != "deserialize-growth" {
		t.Fatalf("mattn's full image after deserialize is a known difference: %+v", r)
	}
	r = Compare(p, with(3, "op 2 c0 exec: full(13/13)"), base)
	if r.Known != nil {
		t.Fatalf("full on a connection that did not deserialize is not known: %+v", r)
	}
	r = Compare(p, base[:2], base)
	if r.Same || r.Op != 1 || r.Ours != "" {
		t.Fatalf("a transcript cut short (a crash): %+v", r)
	}
	r = Compare(p, with(4, "final main t=rows=2"), base)
	if r.Same || r.Op != -1 || !r.FinalDiff {
		t.Fatalf("final databases differ: %+v", r)
	}
}
