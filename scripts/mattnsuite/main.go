// Command mattnsuite runs github.com/mattn/go-sqlite3's own test files and
// _example programs against this driver and against mattn's package, and
// reports every test or example that passes on mattn and fails here. It is
// the worker of scripts/mattn-suite.sh (which fetches mattn's module through
// the module proxy and documents the whole); run that script.
//
//	go run ./scripts/mattnsuite -mattn DIR [-ours .] [-work DIR] [-run RE] [-j N]
//	    [-timeout 60s] [-exceptions FILE] [-examples=true] [-sets untagged,tagged] [-dev] [-list]
//
// Nothing of mattn's is kept in this repository: its files are copied at run
// time into -work, a stable directory (the Go build cache keys cgo packages
// by their directory, so a stable one lets later runs reuse the SQLite
// compiles), as two packages with mattn's import path: "mattn" (mattn's own
// files) and "ours" (this driver's non-test files). Both get the same test
// files: mattn's, minus the declarations that do not compile against either
// side (they reach mattn's unexported internals), found by type checking and
// listed by name. Each test then runs in its own process with a time limit,
// so that a crash or a hang fails that test alone.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

// mattnTags are the build tags of mattn's own CI test run that change what
// its package offers (virtual tables, pre-update hook, unlock notify, math
// functions, column metadata); the second of the two runs uses them.
var mattnTags = []string{"sqlite_vtable", "sqlite_preupdate_hook", "sqlite_unlock_notify", "sqlite_math_functions", "sqlite_column_metadata"}

type tagSet struct {
	name string
	tags []string
}

var tagSets = []tagSet{{"untagged", nil}, {"tagged", mattnTags}}

type options struct {
	mattn, ours, work string
	run               *regexp.Regexp
	par               int
	limit             time.Duration
	exceptions        map[string]string
	examples, dev     bool
	list              bool
	sets              []tagSet
}

func main() {
	var o options
	var run, exc, sets string
	flag.StringVar(&o.mattn, "mattn", "", "mattn's module directory (go mod download -json ...@v1.14.53 gives it)")
	flag.StringVar(&o.ours, "ours", ".", "this driver's package directory")
	flag.StringVar(&o.work, "work", defaultWork(), "stable scratch directory (keep it between runs: the build cache is keyed by path)")
	flag.StringVar(&run, "run", "", "run only the tests matching this regexp (development)")
	flag.IntVar(&o.par, "j", runtime.NumCPU(), "test processes at a time")
	flag.DurationVar(&o.limit, "timeout", 60*time.Second, "time limit of one test")
	flag.StringVar(&exc, "exceptions", "", "file of allowed differences: a test name and the reason, one a line")
	flag.BoolVar(&o.examples, "examples", true, "also run mattn's _example programs")
	flag.StringVar(&sets, "sets", "untagged,tagged", "which runs: untagged (no tags), tagged (mattn's five tags)")
	flag.BoolVar(&o.dev, "dev", false, "build this driver with -tags fastsqlite_dev (prebuilt .dev/sqlite3.o: fast, but C flags of tags not applied)")
	flag.BoolVar(&o.list, "list", false, "only print what is left out of mattn's test files (seconds: no compile, no run)")
	flag.Parse()
	if o.mattn == "" {
		fatalf("-mattn is required")
	}
	var err error
	if o.ours, err = filepath.Abs(o.ours); err != nil {
		fatalf("%v", err)
	}
	if run != "" {
		o.run = regexp.MustCompile(run)
	}
	if o.exceptions, err = readExceptions(exc); err != nil {
		fatalf("%v", err)
	}
	for _, s := range strings.Split(sets, ",") {
		found := false
		for _, ts := range tagSets {
			if ts.name == s {
				o.sets, found = append(o.sets, ts), true
			}
		}
		if !found {
			fatalf("-sets: unknown %q", s)
		}
	}
	lk, err := lock(o.work)
	if err != nil {
		fatalf("%v", err)
	}
	if err := prepare(o); err != nil {
		fatalf("%v", err)
	}
	var sum summary
	for _, ts := range o.sets {
		if err := suite(o, ts, &sum); err != nil {
			fatalf("%v", err)
		}
	}
	if o.list {
		return
	}
	if o.examples {
		if err := examples(o, &sum); err != nil {
			fatalf("%v", err)
		}
	}
	code := sum.print()
	lk.Close() // held, and kept reachable, until here
	os.Exit(code)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mattnsuite: "+format+"\n", args...)
	os.Exit(2)
}

func defaultWork() string {
	if d := os.Getenv("FASTSQLITE_SUITE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "fastsqlite-mattn-suite")
}

// lock takes the scratch directory for this run, waiting for another run
// (from another checkout, say) to end: both would rewrite the same files. The
// lock lasts while the returned file is open.
func lock(work string) (*os.File, error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(work, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		fmt.Printf("waiting for another run using %s\n", work)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// readExceptions reads "TestName reason..." lines; # starts a comment.
func readExceptions(path string) (map[string]string, error) {
	m := map[string]string{}
	if path == "" {
		return m, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s: %q has no reason", path, name)
		}
		m[name] = strings.TrimSpace(reason)
	}
	return m, sc.Err()
}

// prepare (re)creates the two packages under o.work: the non-test files of
// each side, and a go.mod with mattn's module path (its tests are internal
// tests of package sqlite3 at that path).
func prepare(o options) error {
	goLine, err := goVersion(filepath.Join(o.ours, "go.mod"))
	if err != nil {
		return err
	}
	for _, side := range []struct {
		name, from string
		keep       func(string) bool
	}{
		{"mattn", o.mattn, func(n string) bool { return n != "go.mod" && n != "go.sum" }},
		{"ours", o.ours, func(n string) bool {
			return strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".c") || strings.HasSuffix(n, ".h")
		}},
	} {
		dir := filepath.Join(o.work, side.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		old, _ := os.ReadDir(dir)
		for _, e := range old {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
		ents, err := os.ReadDir(side.from)
		if err != nil {
			return err
		}
		for _, e := range ents {
			n := e.Name()
			if !e.Type().IsRegular() || strings.HasSuffix(n, "_test.go") || !side.keep(n) {
				continue
			}
			if err := copyFile(filepath.Join(side.from, n), filepath.Join(dir, n)); err != nil {
				return err
			}
		}
		// Both sides at this driver's language version, so that the shared
		// test files mean the same on both (loop variables, ...).
		mod := "module github.com/mattn/go-sqlite3\n\n" + goLine + "\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
			return err
		}
		if side.name == "ours" && o.dev {
			if err := exec.Command("cp", "-r", filepath.Join(o.ours, ".dev"), dir).Run(); err != nil {
				return fmt.Errorf("-dev: copying .dev: %v (run scripts/dev-prebuild.sh)", err)
			}
		}
	}
	return nil
}

func goVersion(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^go \S+`).Find(b)
	if m == nil {
		return "", fmt.Errorf("%s: no go line", gomod)
	}
	return string(m), nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// suite runs one tag set: filter the test files, build both test binaries,
// run every test on both, and add the outcome to sum.
func suite(o options, ts tagSet, sum *summary) error {
	fmt.Printf("\n== mattn's tests, %s (tags: %s)\n", ts.name, tagList(ts.tags))
	files, err := mattnTestFiles(o.mattn, ts.tags)
	if err != nil {
		return err
	}
	dirs := []string{filepath.Join(o.work, "mattn"), filepath.Join(o.work, "ours")}
	oursTags := ts.tags
	if o.dev {
		oursTags = append(append([]string{}, ts.tags...), "fastsqlite_dev")
	}
	var drops []dropped
	bins := make([]string, 2)
	for attempt := 0; ; attempt++ {
		var more []dropped
		// go/types first: seconds, where each compile costs a minute.
		files, more, err = filterTestsSides(files, dirs, [][]string{ts.tags, oursTags})
		if err != nil {
			return err
		}
		drops = append(drops, more...)
		if o.list {
			printDrops(drops)
			return nil
		}
		for i, d := range dirs {
			if err := writeTests(d, files); err != nil {
				return err
			}
			bins[i] = filepath.Join(o.work, "bin", filepath.Base(d)+"-"+ts.name+".test")
		}
		start := time.Now()
		var errs []compileError
		var failed string
		for i, d := range dirs {
			tags := ts.tags
			if i == 1 {
				tags = oursTags
			}
			out, err := goCmd(d, "test", "-c", "-tags", strings.Join(tags, ","), "-gcflags=-e", "-o", bins[i]).CombinedOutput()
			if err != nil {
				errs = append(errs, compilerErrors(string(out))...)
				failed += string(out)
			}
		}
		fmt.Printf("built both test binaries in %s\n", time.Since(start).Round(time.Second))
		if failed == "" {
			break
		}
		if attempt == 3 || len(errs) == 0 {
			return fmt.Errorf("test binaries do not build:\n%s", failed)
		}
		// What go/types let through: drop what the compiler names, again.
		files, more, err = dropFor(files, errs)
		if err != nil {
			return fmt.Errorf("%v\n%s", err, failed)
		}
		drops = append(drops, more...)
	}
	printDrops(drops)

	names, err := listTests(bins[0])
	if err != nil {
		return err
	}
	if o.run != nil {
		var keep []string
		for _, n := range names {
			if o.run.MatchString(n) {
				keep = append(keep, n)
			}
		}
		names = keep
	}
	var jobs []job
	for _, n := range names {
		for _, b := range bins {
			jobs = append(jobs, job{bin: b, name: n})
		}
	}
	start := time.Now()
	runAll(jobs, o.par, o.limit)
	fmt.Printf("ran %d tests on both sides, one process each, in %s\n", len(names), time.Since(start).Round(time.Second))
	res := map[string][2]result{}
	for i, n := range names {
		m, h := jobs[2*i].res, jobs[2*i+1].res
		// A failure here of a test that passes on mattn runs again, alone:
		// two processes at a time on a loaded machine can upset a test that
		// waits on locks. A hang is not retried (it costs the time limit).
		if (m.status == pass || m.status == skip) && (h.status == fail || h.status == crash) {
			if again := runOne(bins[1], n, o.limit); again.status == pass || again.status == skip {
				again.flaky = fmt.Sprintf("failed [%s], then passed alone: %s", h.status, excerpt(h.out, 1))
				h = again
			}
		}
		res[n] = [2]result{m, h}
	}
	sum.add(o, "tests, "+ts.name, names, res)
	return nil
}

// filterTestsSides filters against both package directories, each with its
// own tags (only -dev makes them differ).
func filterTestsSides(files []testFile, dirs []string, tags [][]string) ([]testFile, []dropped, error) {
	var all []dropped
	for {
		var drops []dropped
		var err error
		for i, d := range dirs {
			var more []dropped
			files, more, err = filterTests(files, []string{d}, tags[i])
			if err != nil {
				return nil, nil, err
			}
			drops = append(drops, more...)
		}
		if len(drops) == 0 {
			return files, all, nil
		}
		all = append(all, drops...)
	}
}

// afterTests is added to the test files of both sides: after the test ran,
// it collects the garbage and waits for the finalizers and cleanups that
// follow, so that a crash in one (an object the test left unclosed) happens
// in, and fails, the test that leaked it rather than a later one.
const afterTests = `package sqlite3

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	for range 3 {
		fin, cln := make(chan bool), make(chan bool)
		f, c := new([64]byte), new([64]byte)
		runtime.SetFinalizer(f, func(*[64]byte) { close(fin) })
		runtime.AddCleanup(c, func(ch chan bool) { close(ch) }, cln)
		f, c = nil, nil
		runtime.GC()
		for _, ch := range []chan bool{fin, cln} {
			select {
			case <-ch:
			case <-time.After(time.Second):
			}
		}
	}
	os.Exit(code)
}
`

// afterTestsFile is its name, beside mattn's files.
const afterTestsFile = "zz_mattnsuite_main_test.go"

func writeTests(dir string, files []testFile) error {
	old, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range old {
		os.Remove(f)
	}
	for _, f := range append(files, testFile{afterTestsFile, []byte(afterTests)}) {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd
}

func tagList(tags []string) string {
	if len(tags) == 0 {
		return "none"
	}
	return strings.Join(tags, " ")
}

// printDrops lists the declarations left out, tests first; imports that went
// unused with them are not worth a line.
func printDrops(drops []dropped) {
	var tests, helpers []string
	for _, d := range drops {
		if strings.HasPrefix(d.decl, "import ") {
			continue
		}
		why, _, _ := strings.Cut(d.why, "\n")
		line := fmt.Sprintf("  %s: %s (%s)", d.file, d.decl, why)
		if isTestName(d.decl) {
			tests = append(tests, line)
		} else {
			helpers = append(helpers, line)
		}
	}
	sort.Strings(tests)
	sort.Strings(helpers)
	fmt.Printf("left out, as they do not compile against this driver (mattn's unexported internals): %d tests, %d helpers\n", len(tests), len(helpers))
	for _, l := range append(tests, helpers...) {
		fmt.Println(l)
	}
}

func isTestName(s string) bool {
	for _, p := range []string{"Test", "Example", "Benchmark", "Fuzz"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
