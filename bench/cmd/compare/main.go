// Command compare runs the workloads of package workload on every driver,
// on SQLite's C API directly and on a do-nothing database/sql driver, and
// prints how they compare.
//
//	cd bench && go run ./cmd/compare [-rounds N] [-benchtime D] [-only REGEXP]
//
// It builds one program per driver (each in its own process: two cgo copies
// of SQLite cannot share a binary) and the C program once, then runs them
// round-robin for several rounds, rotating the order each round, so that
// drift in a shared machine's load hits every driver alike. Raw results go to
// results/<driver>.txt (benchstat-readable); the tables, printed and written
// to results/tables.md, use each workload's median over the rounds; charts of
// ns/op and of cpu-ns/op relative to this driver go to results/chart.svg and
// results/chart-cpu.svg. With -report DIR, it only remakes the tables and
// charts from the raw results in DIR.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fastsqlite/sqlite3/bench/internal/runbench"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

// allDrivers lists the drivers in table order. "c" is the C program, "nop"
// the database/sql floor, "cfloor" the two in one process (the nop driver
// doing the C program's work, one cgo call per operation); the others are Go
// programs in cmd/<name>.
var allDrivers = []string{"c", "nop", "cfloor", "ours", "mattn", "modernc", "ncruces"}

// directDrivers run drivers' own statement APIs instead of database/sql
// (cmd/direct: this driver's DirectStmt; cmd/ncrucesdirect: ncruces's
// sqlite3.Stmt; zombiezendirect: zombiezen.com/go/sqlite's sqlite.Stmt;
// cmd/dfloor: the C program's operations, one cgo call each, the floor of a
// cgo direct API), on the workloads of workload.DirectWorkloads. They run
// only when named: -drivers c,dfloor,ours,direct,ncrucesdirect,zombiezendirect
// -only 'IntScan|...'.
var directDrivers = []string{"dfloor", "direct", "ncrucesdirect", "zombiezendirect"}

// olderDrivers are database/sql drivers at a version older than their
// column's, run only when named (-drivers ours,ncruces,ncruces025): a number
// measured elsewhere against an older release can be checked against the
// newest in one interleaved run.
var olderDrivers = []string{"ncruces025"}

// floorPrograms are the programs that compile package cfloor, whose SQLite
// must be built with the driver's options.
var floorPrograms = map[string]bool{"cfloor": true, "dfloor": true}

// nestedModules are the drivers whose program, cmd/<driver>, is in a module
// of its own, in this directory under the bench module: their requirements
// would otherwise join bench/'s and could move the versions of the drivers
// it measures.
var nestedModules = map[string]string{"zombiezendirect": "zombiezen", "ncruces025": "ncruces025"}

func main() {
	rounds := flag.Int("rounds", 5, "rounds: each runs every driver once, in a rotating order")
	benchtime := flag.String("benchtime", "500ms", "time (or Nx count) per workload per round, as go test -benchtime")
	only := flag.String("only", "", "run only the workloads whose name matches this regular expression")
	driversFlag := flag.String("drivers", strings.Join(allDrivers, ","), "comma-separated drivers to run")
	out := flag.String("out", "results", "directory for the raw results, tables and chart")
	timeout := flag.Duration("timeout", 15*time.Minute, "limit for one driver's run of one round")
	report := flag.String("report", "", "make the tables and chart from the results in this directory, running nothing")
	metric := flag.String("metric", "ns/op", `time metric of the ratio tables: "ns/op" (wall clock) or "cpu-ns/op" (process CPU time)`)
	flag.Parse()
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	var re *regexp.Regexp
	if *only != "" {
		var err error
		if re, err = regexp.Compile(*only); err != nil {
			fatal(fmt.Errorf("-only: %w", err))
		}
	}
	names := workload.Names(re)
	if len(names) == 0 {
		fatal(fmt.Errorf("-only %q matches no workload", *only))
	}
	drivers, err := parseDrivers(*driversFlag)
	if err != nil {
		fatal(err)
	}
	if metricDoc[*metric] == "" {
		fatal(fmt.Errorf("-metric %q: want ns/op or cpu-ns/op", *metric))
	}
	if *rounds < 1 {
		fatal(errors.New("-rounds must be at least 1"))
	}

	if *report != "" {
		res, err := readResults(*report, drivers, names)
		if err != nil {
			fatal(err)
		}
		if err := writeReport(res, *report, *metric, "results in "+*report); err != nil {
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
	bins, err := build(root, binDir, drivers, log)
	if err != nil {
		fatal(err)
	}
	log("built in %s", time.Since(start).Round(time.Second))

	res := newResults(drivers, names)
	raw := map[string]*os.File{}
	for _, d := range drivers {
		f, err := os.Create(filepath.Join(outDir, d+".txt"))
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		// One header for all files, without the programs' "driver:" line:
		// benchstat puts files with equal configurations side by side
		// (benchstat results/ours.txt results/mattn.txt).
		fmt.Fprintf(f, "goos: %s\ngoarch: %s\npkg: github.com/fastsqlite/sqlite3/bench\ncpu: %s\n",
			runtime.GOOS, runtime.GOARCH, runbench.CPUName())
		raw[d] = f
	}
	args := []string{"-benchtime", *benchtime, "-names", strings.Join(names, ",")}
	procs := fmt.Sprint(runtime.GOMAXPROCS(0))
	for r := range *rounds {
		for i := range drivers {
			d := drivers[(i+r)%len(drivers)]
			a := args
			if d == "c" {
				a = append(a[:len(a):len(a)], "-procs", procs)
			}
			t0 := time.Now()
			lines, err := runbench.RunOne(bins[d], a, *timeout)
			log("round %d/%d: %-8s %6s%s", r+1, *rounds, d, time.Since(t0).Round(100*time.Millisecond), runbench.ErrSuffix(err))
			for _, l := range dropConfig(lines) {
				fmt.Fprintln(raw[d], l)
				res.addLine(d, l)
			}
			if err != nil {
				res.addFailure(d, err)
			}
		}
	}

	setting := fmt.Sprintf("%d rounds, -benchtime %s, GOMAXPROCS %s, %s/%s, %s",
		*rounds, *benchtime, procs, runtime.GOOS, runtime.GOARCH, runbench.CPUName())
	if err := writeReport(res, outDir, *metric, setting); err != nil {
		fatal(err)
	}
	log("done in %s; results in %s", time.Since(start).Round(time.Second), outDir)
}

// writeReport prints the tables and writes them to dir, with two charts:
// chart.svg of ns/op and chart-cpu.svg of cpu-ns/op relative to ours.
func writeReport(res *results, dir, metric, setting string) error {
	var md bytes.Buffer
	fmt.Fprintf(&md, "%s; medians over the rounds.\n\n", setting)
	res.writeTables(&md, metric)
	os.Stdout.Write(md.Bytes())
	if err := os.WriteFile(filepath.Join(dir, "tables.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	for file, m := range map[string]string{"chart.svg": "ns/op", "chart-cpu.svg": "cpu-ns/op"} {
		var svg bytes.Buffer
		res.writeChart(&svg, m, setting)
		if err := os.WriteFile(filepath.Join(dir, file), svg.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readResults reads dir/<driver>.txt, as written by a run, for every driver
// that has a file there.
func readResults(dir string, drivers, names []string) (*results, error) {
	var have []string
	for _, d := range drivers {
		if _, err := os.Stat(filepath.Join(dir, d+".txt")); err == nil {
			have = append(have, d)
		}
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("no results in %s", dir)
	}
	res := newResults(have, names)
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

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(1)
}

func parseDrivers(s string) ([]string, error) {
	var ds []string
	for d := range strings.SplitSeq(s, ",") {
		d = strings.TrimSpace(d)
		ok := false
		for _, a := range slices.Concat(allDrivers, directDrivers, olderDrivers) {
			ok = ok || a == d
		}
		if !ok {
			return nil, fmt.Errorf("unknown driver %q (have %s, %s, %s)", d, strings.Join(allDrivers, ", "), strings.Join(directDrivers, ", "), strings.Join(olderDrivers, ", "))
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// build builds the programs of drivers into binDir and returns their paths.
func build(root, binDir string, drivers []string, log func(string, ...any)) (map[string]string, error) {
	bins := map[string]string{}
	var pkgs []string
	for _, d := range drivers {
		bins[d] = filepath.Join(binDir, d)
		if d != "c" && !floorPrograms[d] && nestedModules[d] == "" {
			pkgs = append(pkgs, "./cmd/"+d)
		}
	}
	if len(pkgs) > 0 {
		log("building %s (cgo drivers compile SQLite: about a minute each on two cores, cached after)",
			strings.Join(pkgs, " "))
		if err := runbench.GoBuild(root, binDir+string(os.PathSeparator), pkgs...); err != nil {
			return nil, err
		}
	}
	for _, d := range drivers {
		if mod := nestedModules[d]; mod != "" {
			log("building ./cmd/%s in the module %s", d, mod)
			if err := runbench.GoBuild(filepath.Join(root, mod), bins[d], "./cmd/"+d); err != nil {
				return nil, err
			}
		}
	}
	if _, ok := bins["c"]; ok {
		if err := buildC(root, bins["c"], log); err != nil {
			return nil, fmt.Errorf("building the C program: %w", err)
		}
	}
	for _, d := range drivers {
		if floorPrograms[d] {
			if err := buildFloor(root, bins[d], "./cmd/"+d, log); err != nil {
				return nil, fmt.Errorf("building cmd/%s: %w", d, err)
			}
		}
	}
	return bins, nil
}

// sqliteFlags are the flags the C program and package cfloor compile the
// vendored amalgamation with, exactly those cgo uses for the driver:
// CGO_CFLAGS (-O2 -g by default) and the #cgo CFLAGS of compile_options.go;
// dir is the driver's directory, which holds the amalgamation.
func sqliteFlags(root string) (cflags []string, dir string, err error) {
	const pkg = "github.com/fastsqlite/sqlite3"
	if dir, err = runbench.GoOutput(root, "list", "-f", "{{.Dir}}", pkg); err != nil {
		return nil, "", err
	}
	cgoFlags, err := runbench.GoOutput(root, "list", "-f", `{{join .CgoCFLAGS " "}}`, pkg)
	if err != nil {
		return nil, "", err
	}
	envFlags, err := runbench.GoOutput(root, "env", "CGO_CFLAGS")
	if err != nil {
		return nil, "", err
	}
	cflags = strings.Fields(envFlags)
	for _, f := range strings.Fields(cgoFlags) {
		// The driver compiles the amalgamation inside bridge.c (one
		// translation unit); these two only make the file's own compile
		// empty there. The C program compiles it on its own.
		if f != "-DUSE_LIBSQLITE3" && f != "-DBRIDGE_UNITY" {
			cflags = append(cflags, f)
		}
	}
	return cflags, dir, nil
}

// buildFloor builds pkg (cmd/cfloor, cmd/dfloor) with SQLite compiled with
// the driver's flags (in CGO_CFLAGS, which go build's cache keys on).
func buildFloor(root, exe, pkg string, log func(string, ...any)) error {
	cflags, _, err := sqliteFlags(root)
	if err != nil {
		return err
	}
	log("building %s (it compiles SQLite too, with the driver's options)", pkg)
	cmd := exec.Command("go", "build", "-o", exe, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_CFLAGS="+strings.Join(cflags, " "))
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// buildC compiles c/bench.c against the driver's vendored amalgamation with
// exactly the flags cgo uses for the driver: CGO_CFLAGS (-O2 -g by default)
// and the #cgo CFLAGS of compile_options.go. The amalgamation's object file
// is cached in the user cache directory, keyed by its source, flags and
// compiler, since compiling it takes about a minute.
func buildC(root, exe string, log func(string, ...any)) error {
	cflags, dir, err := sqliteFlags(root)
	if err != nil {
		return err
	}
	ldFlags, err := runbench.GoOutput(root, "list", "-f", `{{join .CgoLDFLAGS " "}}`, "github.com/fastsqlite/sqlite3")
	if err != nil {
		return err
	}
	cc, err := runbench.GoOutput(root, "env", "CC")
	if err != nil {
		return err
	}
	ccArgs := strings.Fields(cc)

	src := filepath.Join(dir, "sqlite3-binding.c")
	h := sha256.New()
	for _, f := range []string{src, filepath.Join(dir, "sqlite3-binding.h")} {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		h.Write(b)
	}
	version, _ := exec.Command(ccArgs[0], "--version").Output()
	// Keyed without the -I of the driver's directory, so that clones of the
	// repository (CI's) share the object.
	fmt.Fprintf(h, "\x00%q\x00%s", cflags, version)
	cflags = append(cflags, "-I"+dir)
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = os.TempDir()
	}
	cacheDir = filepath.Join(cacheDir, "fastsqlite-bench")
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	obj := filepath.Join(cacheDir, "sqlite3-"+hex.EncodeToString(h.Sum(nil))[:16]+".o")
	if _, err := os.Stat(obj); err != nil {
		log("compiling the SQLite amalgamation for the C program: %s", strings.Join(cflags, " "))
		tmp := obj + ".tmp"
		if err := run(ccArgs, cflags, "-c", src, "-o", tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, obj); err != nil {
			return err
		}
	}
	mainObj := exe + ".o"
	if err := run(ccArgs, cflags, "-c", filepath.Join(root, "c", "bench.c"), "-o", mainObj); err != nil {
		return err
	}
	link := []string{mainObj, obj, "-o", exe, "-lpthread"}
	return run(ccArgs, append(link, strings.Fields(ldFlags)...))
}

func run(cc []string, args []string, more ...string) error {
	all := append(append(append([]string{}, cc[1:]...), args...), more...)
	cmd := exec.Command(cc[0], all...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", cc[0], err)
	}
	return nil
}

// dropConfig removes the "key: value" header lines that every run prints.
func dropConfig(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Benchmark") || strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
