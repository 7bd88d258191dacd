// Command difftest runs the differential test of package harness: it builds
// the program of each driver (./ours, ./mattn: two cgo copies of SQLite
// cannot share a binary), runs both on the same seeds, and
// compares their transcripts line by line: each operation's outcome class,
// then the final databases.
//
//	cd difftest
//	go run .                           # seeds 1-20
//	go run . -seeds 1-20 -budget 90s   # then 21, 22, ... until 90 s have passed
//	go run . -seed 7                   # one seed: its program, and every difference
//	go run . -self mattn               # noise check: mattn against itself
//
// A difference prints the seed, the first differing op with its program
// text, and the command that reproduces it. Exit status 1 if any program
// differs in a way harness.Exceptions does not explain.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastsqlite/sqlite3/difftest/harness"
)

func main() {
	one := flag.Uint64("seed", 0, "run this seed alone and show its program and every difference")
	seeds := flag.String("seeds", "1-20", "the fixed seeds, FROM-TO")
	budget := flag.Duration("budget", 0, "after the fixed seeds, go on with the next seeds until this much time has passed since the programs started (builds not counted)")
	timeout := flag.Duration("timeout", 60*time.Second, "limit for one program on one driver")
	bin := flag.String("bin", "", "directory for the two programs (default: a temporary one)")
	verbose := flag.Bool("v", false, "a line for every program, also when the transcripts agree")
	exceptions := flag.Bool("exceptions", false, "print the known differences and exit")
	self := flag.String("self", "", "noise check: run this driver (ours or mattn) in both columns; any difference is the harness's")
	flag.Parse()
	if *exceptions {
		for _, e := range harness.Exceptions {
			how := "matched in transcripts"
			if e.Match == nil {
				how = "avoided by construction"
			}
			fmt.Printf("%s (%s):\n  %s\n", e.Name, how, e.Why)
		}
		return
	}
	start := time.Now()
	from, to, err := parseRange(*seeds)
	if err != nil {
		fail(err)
	}
	if *one != 0 {
		from, to, *budget = *one, *one, 0
	}
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	dir := *bin
	if dir == "" {
		if dir, err = os.MkdirTemp("", "difftest-bin"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	bins := map[string]string{}
	for _, d := range []string{"ours", "mattn"} {
		pkg := d
		if *self != "" {
			pkg = *self
		}
		bins[d] = filepath.Join(dir, pkg)
		if err := goBuild(root, bins[d], "./"+pkg); err != nil {
			fail(err)
		}
	}
	fmt.Printf("difftest: built in %v\n", time.Since(start).Round(time.Second))
	start = time.Now() // the budget is the programs' (mattn's first build takes minutes)

	var nsame, nknown, ndiff int
	var diffSeeds []string
	known := map[string][]uint64{}
	byLabel := map[string][]uint64{}
	for seed := from; seed <= to || (*budget > 0 && time.Since(start) < *budget); seed++ {
		p := harness.Generate(seed)
		t0 := time.Now()
		out := map[string][]string{}
		errs := map[string]error{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for d, b := range bins {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lines, err := run(b, seed, *timeout)
				mu.Lock()
				out[d], errs[d] = lines, err
				mu.Unlock()
			}()
		}
		wg.Wait()
		took := time.Since(t0).Round(time.Millisecond)
		for d, err := range errs {
			if err != nil { // a crash or a hang ends the transcript there
				out[d] = append(out[d], "exited: "+err.Error())
			}
		}
		crashes := ""
		for _, d := range []string{"ours", "mattn"} {
			if errs[d] != nil {
				crashes += fmt.Sprintf("  %s exited after %d lines: %v\n", d, len(out[d])-1, errs[d])
			}
		}
		res := harness.Compare(p, out["ours"], out["mattn"])
		switch {
		case res.Same:
			nsame++
			if *verbose || *one != 0 {
				fmt.Printf("seed %d: same (%d ops, %v)\n", seed, len(p.Ops), took)
			}
		case res.Known != nil && crashes == "":
			nknown++
			known[res.Known.Name] = append(known[res.Known.Name], seed)
			fmt.Printf("seed %d: known difference %s at op %d (%s): ours %q, mattn %q\n", seed, res.Known.Name, res.Op, p.Ops[res.Op], res.Ours, res.Mattn)
		default:
			ndiff++
			diffSeeds = append(diffSeeds, strconv.FormatUint(seed, 10))
			for _, l := range res.Labels {
				byLabel[l] = append(byLabel[l], seed)
			}
			report(p, res, seed)
			fmt.Print(crashes)
		}
		if *one != 0 {
			fmt.Printf("\nprogram:\n%s", p.Text())
			fmt.Println("\ntranscripts (ours | mattn, * where they differ):")
			n := max(len(out["ours"]), len(out["mattn"]))
			for i := 0; i < n; i++ {
				a, b := at(out["ours"], i), at(out["mattn"], i)
				if a == b {
					fmt.Printf("   %s\n", a)
				} else {
					fmt.Printf(" * ours:  %s\n   mattn: %s\n", a, b)
				}
			}
		}
	}
	total := nsame + nknown + ndiff
	fmt.Printf("difftest: %d programs in %v: %d same, %d known differences, %d different\n",
		total, time.Since(start).Round(time.Second), nsame, nknown, ndiff)
	for name, s := range known {
		fmt.Printf("  known %s: seeds %v\n", name, s)
	}
	if g := groupCommits.Load(); g > 0 {
		fmt.Printf("  ours: %d group commits of %d writes (%s)\n", g, groupedWrites.Load(), os.Getenv(harness.ExtraDSNEnv))
	}
	if len(byLabel) > 0 {
		// What differs, over every differing line of every program (a
		// program's later lines may follow from its first difference).
		var labels []string
		for l := range byLabel {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		fmt.Println("  what differs (op kind, phase.category or final table: seeds):")
		for _, l := range labels {
			fmt.Printf("    %s: %v\n", l, byLabel[l])
		}
	}
	if ndiff > 0 {
		fmt.Printf("  different: seeds %s (go run . -seed N shows one)\n", strings.Join(diffSeeds, " "))
		os.Exit(1)
	}
}

func report(p *harness.Program, res harness.Result, seed uint64) {
	where := "the final databases"
	if res.Op >= 0 {
		where = fmt.Sprintf("op %d (%s)", res.Op, p.Ops[res.Op])
	} else if !strings.HasPrefix(res.Ours, "final") && !strings.HasPrefix(res.Mattn, "final") {
		where = fmt.Sprintf("line %d", res.Line)
	}
	fmt.Printf("seed %d: DIFFERENT at %s\n  ours:  %s\n  mattn: %s\n", seed, where, res.Ours, res.Mattn)
	if n := len(res.OtherOps); n > 10 {
		fmt.Printf("  later ops that differ too: %v ... (%d in all)\n", res.OtherOps[:10], n)
	} else if n > 0 {
		fmt.Printf("  later ops that differ too: %v\n", res.OtherOps)
	}
	if res.FinalDiff && res.Op >= 0 {
		fmt.Println("  the final databases differ too")
	}
	fmt.Printf("  reproduce: cd difftest && go run . -seed %d\n", seed)
}

// run runs one driver's program on seed: its transcript, and for a crash
// the signal or panic and the first frames of the driver that it names.
func run(bin string, seed uint64, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-seed", strconv.FormatUint(seed, 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	for _, l := range strings.Split(stderr.String(), "\n") {
		var g, u int64
		if n, _ := fmt.Sscanf(l, "# stat grouped %d %d", &g, &u); n == 2 {
			groupCommits.Add(g)
			groupedWrites.Add(u)
		}
	}
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	if ctx.Err() != nil {
		return lines, fmt.Errorf("timed out after %v", timeout)
	}
	if err != nil {
		var why []string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if crashLine.MatchString(l) && len(why) < 6 {
				why = append(why, strings.TrimSpace(l))
			}
		}
		return lines, fmt.Errorf("%w: %s", err, strings.Join(why, " | "))
	}
	return lines, nil
}

// groupCommits and groupedWrites sum what this driver's programs report
// (harness.Driver.Stats): with DIFFTEST_DSN_EXTRA=_group_commit=1, whether
// the programs grouped anything.
var groupCommits, groupedWrites atomic.Int64

var crashLine = regexp.MustCompile(`^(SIG|fatal error|panic:|==\d+==ERROR|signal arrived)|^github.com/fastsqlite/sqlite3\._Cfunc|^github.com/mattn/go-sqlite3\._Cfunc`)

func at(l []string, i int) string {
	if i < len(l) {
		return l[i]
	}
	return "(nothing)"
}

func parseRange(s string) (uint64, uint64, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	from, err1 := strconv.ParseUint(a, 10, 64)
	to, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || from == 0 || to < from {
		return 0, 0, fmt.Errorf("-seeds %q: want FROM-TO, from 1", s)
	}
	return from, to, nil
}

// moduleRoot is the directory of this module, wherever in it the command
// runs: the drivers' programs are built from there.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if filepath.Base(gomod) != "go.mod" || filepath.Base(filepath.Dir(gomod)) != "difftest" {
		return "", fmt.Errorf("run inside the difftest module (cd difftest), not %q", gomod)
	}
	return filepath.Dir(gomod), nil
}

func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s in %s: %w", pkg, dir, err)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "difftest:", err)
	os.Exit(2)
}
