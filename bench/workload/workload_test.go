package workload

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fastsqlite/sqlite3/bench/nopdriver"
)

var registerNop sync.Once

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
		case r.Skip != "":
			t.Errorf("%s: skipped: %s", r.Name, r.Skip)
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
