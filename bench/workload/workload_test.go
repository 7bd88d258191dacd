package workload

import (
	"database/sql"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fastsqlite/sqlite3/bench/nopdriver"
)

var registerNop, registerFloor sync.Once

// TestNop runs every workload once on the nop driver: it checks the harness
// (fixtures, checks, result lines) without any SQLite driver.
func TestNop(t *testing.T) {
	registerNop.Do(func() { nopdriver.Register("nop-test", NopAnswers()) })
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)

	seen := map[string]bool{}
	err := Run(Driver{Label: "nop", SQLName: "nop-test"}, nil, func(r Result) {
		seen[r.Name] = true
		switch {
		case r.Err != nil:
			t.Errorf("%s: %v", r.Name, r.Err)
		case r.Skip != "" && !DirectOnly[r.Name]:
			t.Errorf("%s: skipped: %s", r.Name, r.Skip)
		case r.Skip == "" && DirectOnly[r.Name]:
			t.Errorf("%s: ran on database/sql", r.Name)
		default:
			t.Log(r.Header)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names(nil) {
		if !seen[name] {
			t.Errorf("%s did not run", name)
		}
	}
}

func TestUnknownWorkload(t *testing.T) {
	if err := Run(Driver{SQLName: "nop-test"}, []string{"NoSuchWorkload"}, func(Result) {}); err == nil {
		t.Fatal("Run accepted an unknown workload name")
	}
}

// TestCProgramNames checks that the C program's workload table has the same
// names, in the same order, as All, so that its results line up.
func TestCProgramNames(t *testing.T) {
	src, err := os.ReadFile("../c/bench.c")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "static const workload all[] = {")
	if !ok {
		t.Fatal("bench.c has no workload table")
	}
	table, _, _ = strings.Cut(table, "};")
	var names []string
	for _, m := range regexp.MustCompile(`\{"([^"]+)",`).FindAllStringSubmatch(table, -1) {
		names = append(names, m[1])
	}
	if got, want := strings.Join(names, " "), strings.Join(Names(nil), " "); got != want {
		t.Errorf("bench.c workloads:\n%s\nwant:\n%s", got, want)
	}
}

// TestFloorWiring runs every workload once on the nop driver with
// FloorAnswers, its C ops replaced by counters: each workload that the floor
// program runs must call its own C op (and only the fixtures' fills may build
// the large C fixtures), or cfloor would time database/sql alone.
func TestFloorWiring(t *testing.T) {
	calls := map[string]int{}
	count := func(name string) func() error { return func() error { calls[name]++; return nil } }
	ops := FloorOps{
		WideSetup: count("WideSetup"), IntSetup: count("IntSetup"), PointSetup: count("PointSetup"),
		Exec: count("Exec"), Query: count("Query"), Params: count("Params"), Rows: count("Rows"),
		Stmt10Cols: count("Stmt10Cols"), ExecStep: count("ExecStep"), QueryStep: count("QueryStep"),
		Custom: count("Custom"), WideScan: count("WideScan"), IntScan: count("IntScan"),
		Tiny:       func(int64) error { calls["Tiny"]++; return nil },
		BatchExec:  func(sql string) error { calls["BatchExec "+sql]++; return nil },
		BatchRow:   func(int64) error { calls["BatchRow"]++; return nil },
		PointOpen:  func() (any, error) { calls["PointOpen"]++; return new(int), nil },
		PointClose: func(any) { calls["PointClose"]++ },
		Point: func(w any, key int64) error {
			if _, ok := w.(*int); !ok || key < 1 || key > pointRows {
				t.Errorf("point lookup of key %d on worker %v", key, w)
			}
			calls["Point"]++
			return nil
		},
	}
	answers, tx, closeConn := FloorAnswers(ops)
	d := nopdriver.New(answers)
	d.Tx, d.Close = tx, closeConn
	registerFloor.Do(func() { sql.Register("floor-test", d) })
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)

	want := map[string][]string{
		"Exec": {"Exec"}, "Query": {"Query"}, "Params": {"Params"}, "Stmt": {"Params"},
		"Rows": {"Rows"}, "StmtRows": {"Rows"}, "Stmt10Cols": {"Stmt10Cols"},
		"ExecStep": {"ExecStep"}, "QueryStep": {"QueryStep"}, "CustomFunctions": {"Custom"},
		"WideScan/String": {"WideScan", "WideSetup"}, "WideScan/RawBytes": {"WideScan"},
		"IntScan":       {"IntScan", "IntSetup"},
		"BatchInsert":   {"BatchRow", "BatchExec BEGIN", "BatchExec COMMIT", "BatchExec DELETE FROM batch"},
		"PointLookup/1": {"Point", "PointOpen", "PointSetup"}, "PointLookup/8": {"Point"},
		"PreparedQueryRow": {"Tiny"},
	}
	var names []string
	for _, n := range Names(nil) {
		if FloorSkip[n] == "" {
			names = append(names, n)
		} else if want[n] != nil {
			t.Errorf("%s is skipped but has ops", n)
		}
	}
	before := map[string]int{}
	err := Run(Driver{Label: "cfloor", SQLName: "floor-test"}, names, func(r Result) {
		if r.Err != nil || r.Skip != "" {
			t.Errorf("%s: %v %s", r.Name, r.Err, r.Skip)
		}
		for _, op := range want[r.Name] {
			if calls[op] == before[op] {
				t.Errorf("%s did not call the C op %s", r.Name, op)
			}
		}
		if len(want[r.Name]) == 0 {
			t.Errorf("%s has no C op in this test", r.Name)
		}
		maps.Copy(before, calls)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Run closed its databases: every worker opened was closed.
	if calls["PointOpen"] == 0 || calls["PointClose"] != calls["PointOpen"] {
		t.Errorf("%d point workers opened, %d closed", calls["PointOpen"], calls["PointClose"])
	}
	for _, setup := range []string{"WideSetup", "IntSetup", "PointSetup"} {
		if calls[setup] != 1 {
			t.Errorf("%s ran %d times, want once (with the fixture)", setup, calls[setup])
		}
	}
}

// nopConn is the connection an Own driver's Build returns in TestOwn: a nop
// database, recording its path and whether it was closed.
type nopConn struct {
	*sql.DB
	path   string
	closed bool
}

func (c *nopConn) Close() error { c.closed = true; return c.DB.Close() }

// TestOwn runs every direct workload once as an API without a database/sql
// driver (Driver.Own) would, its Build running DirectFixture's steps on the
// nop driver: each step's Want must match what the nop driver answers for the
// database/sql fixture's checks, fixtures with one Key must share one
// connection, and every connection must be closed at the end.
func TestOwn(t *testing.T) {
	registerNop.Do(func() { nopdriver.Register("nop-test", NopAnswers()) })
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)

	var conns []*nopConn
	build := func(f Fixture, path string) (io.Closer, error) {
		if (f.File == "") != (path == ":memory:") || (f.File != "" && filepath.Base(path) != f.File) {
			t.Errorf("fixture %s (file %q) built at %q", f.Key, f.File, path)
		}
		db, err := sql.Open("nop-test", path)
		if err != nil {
			return nil, err
		}
		c := &nopConn{DB: db, path: path}
		conns = append(conns, c)
		for _, s := range f.Steps {
			switch {
			case s.Rows != nil:
				for _, r := range s.Rows {
					if _, err = db.Exec(s.SQL, r...); err != nil {
						break
					}
				}
			case s.Want != nil:
				row := make([]string, len(s.Want))
				if err = db.QueryRow(s.SQL).Scan(ptrs(row)...); err == nil {
					err = s.Check(row)
				}
			default:
				_, err = db.Exec(s.SQL)
			}
			if err != nil {
				c.Close()
				return nil, err
			}
		}
		return c, nil
	}
	got := map[string]io.Closer{}
	own := &Own{Build: build, Workloads: map[string]OwnFunc{}}
	for name := range DirectWorkloads {
		own.Workloads[name] = func(b *testing.B, conn io.Closer) error {
			got[name] = conn
			return Loop(b, func() error { return nil })
		}
	}
	var ran []string
	err := Run(Driver{Label: "own", Own: own}, nil, func(r Result) {
		switch _, direct := DirectWorkloads[r.Name]; {
		case r.Err != nil:
			t.Errorf("%s: %v", r.Name, r.Err)
		case direct && r.Skip != "":
			t.Errorf("%s: skipped: %s", r.Name, r.Skip)
		case !direct && r.Skip == "":
			t.Errorf("%s ran: it is no direct workload", r.Name)
		case direct:
			ran = append(ran, r.Name)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != len(DirectWorkloads) {
		t.Errorf("ran %v, want every one of DirectWorkloads", ran)
	}
	if got["WideScan/String"] != got["WideScan/RawBytes"] {
		t.Error("the two WideScan workloads ran on different connections")
	}
	if got["BatchInsert"] != got["BatchInsert/Bulk"] {
		t.Error("the two BatchInsert workloads ran on different connections")
	}
	// One fixture each, but one for the two WideScans and the two BatchInserts.
	if want := len(DirectWorkloads) - 2; len(conns) != want {
		t.Errorf("built %d fixtures, want %d", len(conns), want)
	}
	for _, c := range conns {
		if !c.closed {
			t.Errorf("connection to %s not closed", c.path)
		}
	}
}

func TestFixtureStepCheck(t *testing.T) {
	s := FixtureStep{SQL: "PRAGMA journal_mode=WAL", Want: []string{"wal"}}
	if err := s.Check([]string{"WAL"}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{"delete"}, {}, {"wal", "x"}} {
		if s.Check(bad) == nil {
			t.Errorf("Check accepted %q", bad)
		}
	}
	if _, err := DirectFixture("Exec"); err == nil {
		t.Error("DirectFixture accepted a database/sql workload")
	}
}
