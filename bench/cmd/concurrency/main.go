// Command concurrency runs the concurrent workloads of package workload
// (issue 23: many writers on one WAL file, and WAL growth under steady
// readers) on every driver and prints a table per workload.
//
//	cd bench && go run ./cmd/concurrency [-rounds N] [-drivers LIST] [-refs LIST]
//
// As compare does, it builds each driver's program, cmd/<driver>, once and
// runs them round-robin, in a rotated order each round (each program runs
// its cases with -concurrent). Its tables are not compare's: a concurrent
// case has a distribution of latencies and error counts rather than a cost
// per op, so each workload gets its own table of drivers × throughput,
// latency percentiles and errors. Raw lines go to <out>/<driver>.txt, in Go's
// benchmark format (benchstat reads them); the tables to <out>/tables.md.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fastsqlite/sqlite3/bench/internal/runbench"
)

// allDrivers are the database/sql drivers whose programs have a WALDSN.
var allDrivers = []string{"ours", "grouped", "mattn", "modernc", "ncruces"}

func main() {
	rounds := flag.Int("rounds", 5, "rounds: each runs every driver once, in a rotating order")
	driversFlag := flag.String("drivers", strings.Join(allDrivers, ","), "comma-separated drivers to run")
	refsFlag := flag.String("refs", "ours", "drivers that also run the reference rows (serial writer, single-writer pool, WAL with one reader)")
	only := flag.String("only", "", "run only the cases whose name matches this regular expression")
	txScale := flag.Float64("txscale", 1, "multiply the transactions per writer (a smoke run uses a fraction)")
	walFor := flag.Duration("walfor", 10*time.Second, "how long WALGrowth writes and reads")
	walRate := flag.Float64("walrate", 2000, "WALGrowth's rows per second (0: as fast as the writer can)")
	synchronous := flag.String("synchronous", "", "PRAGMA synchronous for every connection (default: each driver's own)")
	out := flag.String("out", "results/concurrency", "directory for the raw results and tables")
	timeout := flag.Duration("timeout", 10*time.Minute, "limit for one driver's run of one round")
	report := flag.String("report", "", "make the tables from the results in this directory, running nothing")
	flag.Parse()
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	drivers, err := parseDrivers(*driversFlag)
	if err != nil {
		fatal(err)
	}
	refs, err := parseDrivers(*refsFlag)
	if err != nil {
		fatal(err)
	}
	if *rounds < 1 {
		fatal(errors.New("-rounds must be at least 1"))
	}
	if *report != "" {
		res, err := readResults(*report, drivers)
		if err != nil {
			fatal(err)
		}
		if err := writeReport(res, *report, "results in "+*report); err != nil {
			fatal(err)
		}
		if err := writeChartFile(res, filepath.Join(*report, "chart.svg")); err != nil {
			fatal(err)
		}
		if err := writeThroughputFile(res, filepath.Join(*report, "throughput.svg")); err != nil {
			fatal(err)
		}
		return
	}

	root, err := runbench.ModuleRoot()
	if err != nil {
		fatal(err)
	}
	outDir := *out
	if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(root, outDir)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		fatal(err)
	}
	binDir, err := os.MkdirTemp("", "sqlite-bench-bin-*")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(binDir)
	start := time.Now()
	var pkgs []string
	for _, d := range drivers {
		pkgs = append(pkgs, "./cmd/"+d)
	}
	log("building %s (cgo drivers compile SQLite: about a minute each on two cores, cached after)", strings.Join(pkgs, " "))
	if err := runbench.GoBuild(root, binDir+string(os.PathSeparator), pkgs...); err != nil {
		fatal(err)
	}
	log("built in %s", time.Since(start).Round(time.Second))

	res := newResults(drivers)
	raw := map[string]*os.File{}
	for _, d := range drivers {
		f, err := os.Create(filepath.Join(outDir, d+".txt"))
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		fmt.Fprintf(f, "goos: %s\ngoarch: %s\npkg: github.com/fastsqlite/sqlite3/bench\ncpu: %s\n",
			runtime.GOOS, runtime.GOARCH, runbench.CPUName())
		raw[d] = f
	}
	args := []string{"-concurrent", "-txscale", fmt.Sprint(*txScale), "-walfor", walFor.String(),
		"-walrate", fmt.Sprint(*walRate)}
	if *only != "" {
		args = append(args, "-only", *only)
	}
	if *synchronous != "" {
		args = append(args, "-synchronous", *synchronous)
	}
	for r := range *rounds {
		for i := range drivers {
			d := drivers[(i+r)%len(drivers)]
			a := args
			if slices.Contains(refs, d) {
				a = append(a[:len(a):len(a)], "-refs")
			}
			t0 := time.Now()
			lines, err := runbench.RunOne(filepath.Join(binDir, d), a, *timeout)
			log("round %d/%d: %-8s %6s%s", r+1, *rounds, d, time.Since(t0).Round(100*time.Millisecond), runbench.ErrSuffix(err))
			for _, l := range lines {
				if strings.HasPrefix(l, "Benchmark") || strings.HasPrefix(l, "#") {
					fmt.Fprintln(raw[d], l)
					res.addLine(d, l)
				}
			}
			if err != nil {
				res.errs = append(res.errs, fmt.Sprintf("%s, round %d: %v", d, r+1, err))
			}
		}
	}
	setting := fmt.Sprintf("%d rounds, -txscale %g, -walfor %s, -walrate %g, synchronous %s, GOMAXPROCS %d, %s/%s, %s",
		*rounds, *txScale, *walFor, *walRate, cmp(*synchronous, "as each driver's default"),
		runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runbench.CPUName())
	if err := writeReport(res, outDir, setting); err != nil {
		fatal(err)
	}
	log("done in %s; results in %s", time.Since(start).Round(time.Second), outDir)
	if len(res.errs) > 0 {
		os.Exit(1)
	}
}

func cmp(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// writeReport prints the tables and writes them to dir/tables.md.
func writeReport(res *results, dir, setting string) error {
	var md bytes.Buffer
	fmt.Fprintf(&md, "%s.\n\n", setting)
	res.writeTables(&md)
	os.Stdout.Write(md.Bytes())
	return os.WriteFile(filepath.Join(dir, "tables.md"), md.Bytes(), 0o644)
}

// readResults reads dir/<driver>.txt, as written by a run, for every driver
// that has a file there, then every dir/<driver>@<label>.txt: another
// build of a driver (ours@3e660eb, the driver before a change), put there
// by hand to be compared in the same tables.
func readResults(dir string, drivers []string) (*results, error) {
	var have []string
	for _, d := range drivers {
		if _, err := os.Stat(filepath.Join(dir, d+".txt")); err == nil {
			have = append(have, d)
		}
	}
	others, err := filepath.Glob(filepath.Join(dir, "*@*.txt"))
	if err != nil {
		return nil, err
	}
	slices.Sort(others)
	for _, f := range others {
		have = append(have, strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("no results in %s", dir)
	}
	res := newResults(have)
	for _, d := range have {
		b, err := os.ReadFile(filepath.Join(dir, d+".txt"))
		if err != nil {
			return nil, err
		}
		for l := range strings.SplitSeq(string(b), "\n") {
			res.addLine(d, l)
		}
	}
	return res, nil
}

func parseDrivers(s string) ([]string, error) {
	var ds []string
	for d := range strings.SplitSeq(s, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if !slices.Contains(allDrivers, d) {
			return nil, fmt.Errorf("unknown driver %q (have %s)", d, strings.Join(allDrivers, ", "))
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "concurrency:", err)
	os.Exit(1)
}
