// Command testtally reads a test binary's run as `go tool test2json` events
// on standard input, prints how many tests passed, failed and were skipped,
// and sorts every failure into real failures and known artifacts of the
// platform it ran on (an emulator's gap, not the driver's). It exits 1 when
// any failure is not wholly explained by the artifacts named with -artifact,
// or when the run ended without its closing result.
//
//	wine64 sqlite3.test.exe -test.v=test2json | go tool test2json -p sqlite3 |
//	    go run ./scripts/testtally -src . -artifact 'NAME=REGEXP' ...
//
// Which lines of a failed test are its failure messages: `go test -v` prints
// t.Log and t.Error alike as "file.go:LINE: text". So a line counts as a log
// only when the source line it names (in -src) is a Log or Logf call;
// everything else a failed test printed (testing.go's own messages, a
// helper's, a panic, an example's got/want) is a failure message. A failure
// is an artifact only when each of its messages matches an artifact's
// pattern: an artifact never hides another failure in the same test.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type event struct {
	Action string
	Test   string
	Output string
}

type artifact struct {
	name  string
	re    *regexp.Regexp
	tests []string
}

type artifactFlags []*artifact

func (a *artifactFlags) String() string { return "" }

func (a *artifactFlags) Set(s string) error {
	name, pattern, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=REGEXP, got %q", s)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return err
	}
	*a = append(*a, &artifact{name: name, re: re})
	return nil
}

type test struct {
	name     string
	result   string   // pass, fail, skip; "" when the run ended inside it
	messages []string // each with its continuation lines
}

// location is the "file.go:LINE: " prefix of a test's own output line.
var location = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+\.go):([0-9]+): `)

func main() {
	var artifacts artifactFlags
	src := flag.String("src", ".", "directory of the test files, to tell t.Log lines from failure messages")
	label := flag.String("label", "tests", "what to call the run in the summary")
	show := flag.String("show", "", "print the output lines of passing tests that match this regexp too (a torture's counts)")
	flag.Var(&artifacts, "artifact", "NAME=REGEXP: a failure message of the platform, not of the code under test (repeatable)")
	flag.Parse()

	tests, order, pkgResult, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtally:", err)
		os.Exit(2)
	}
	logs := logLines{dir: *src, files: map[string][]string{}}

	c, real := classify(tests, order, logs, artifacts)
	fmt.Printf("%s: top-level tests and examples: %d passed, %d failed, %d skipped; subtests: %d passed, %d failed, %d skipped; failures not explained by an artifact: %d\n",
		*label, c.passed, c.failed, c.skipped, c.subPassed, c.subFailed, c.subSkipped, len(real))
	for _, name := range order {
		if t := tests[name]; t.result == "skip" && !strings.Contains(name, "/") {
			why := ""
			if len(t.messages) > 0 {
				why = ": " + strings.TrimSpace(location.ReplaceAllString(t.messages[0], ""))
			}
			fmt.Printf("%s: skipped %s%s\n", *label, name, why)
		}
	}
	if *show != "" {
		re, err := regexp.Compile(*show)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtally: -show:", err)
			os.Exit(2)
		}
		for _, name := range order {
			for _, m := range tests[name].messages {
				if re.MatchString(m) {
					fmt.Printf("%s: %s: %s\n", *label, name, strings.TrimSpace(m))
				}
			}
		}
	}
	for _, a := range artifacts {
		sort.Strings(a.tests)
		fmt.Printf("%s: artifact %q: %d failures\n", *label, a.name, len(a.tests))
		for _, n := range a.tests {
			fmt.Printf("    %s\n", n)
		}
	}
	if len(real) > 0 {
		fmt.Printf("%s: %d failures that are not artifacts:\n", *label, len(real))
		for _, r := range real {
			fmt.Printf("--- %s\n", r)
		}
		os.Exit(1)
	}
	if pkgResult == "" {
		fmt.Printf("%s: the run ended without its closing result (crash or timeout)\n", *label)
		os.Exit(1)
	}
	if len(order) == 0 {
		fmt.Printf("%s: no test ran\n", *label)
		os.Exit(1)
	}
	fmt.Printf("%s: no failure but the artifacts above\n", *label)
}

type counts struct {
	passed, failed, skipped, subPassed, subFailed, subSkipped int
}

// classify counts the results and returns the failures that the artifacts
// do not explain; it adds each explained failure to its artifact's tests.
func classify(tests map[string]*test, order []string, logs logLines, artifacts []*artifact) (counts, []string) {
	var c counts
	var real []string
	for _, name := range order {
		t := tests[name]
		sub := strings.Contains(name, "/")
		switch t.result {
		case "pass":
			if sub {
				c.subPassed++
			} else {
				c.passed++
			}
			continue
		case "skip":
			if sub {
				c.subSkipped++
			} else {
				c.skipped++
			}
			continue
		}
		if sub {
			c.subFailed++
		} else {
			c.failed++
		}
		if t.result == "" {
			real = append(real, fmt.Sprintf("%s: the run ended inside it\n%s", name, strings.Join(t.messages, "\n")))
			continue
		}
		var own []string
		for _, m := range t.messages {
			if !logs.isLog(m) {
				own = append(own, m)
			}
		}
		if len(own) == 0 && failedChild(tests, name) {
			continue // its subtests' failures are counted on their own
		}
		if len(own) == 0 {
			real = append(real, name+": failed with no message")
			continue
		}
		var unexplained []string
		matched := map[*artifact]bool{}
		for _, m := range own {
			a := match(artifacts, m)
			if a == nil {
				unexplained = append(unexplained, m)
			} else {
				matched[a] = true
			}
		}
		if len(unexplained) > 0 {
			real = append(real, name+":\n"+strings.Join(unexplained, "\n"))
			continue
		}
		for a := range matched {
			a.tests = append(a.tests, name)
		}
	}

	return c, real
}

func read(r io.Reader) (map[string]*test, []string, string, error) {
	tests := map[string]*test{}
	var order []string
	pkgResult := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, nil, "", fmt.Errorf("not a test2json event: %q", sc.Text())
		}
		if e.Test == "" {
			if e.Action == "pass" || e.Action == "fail" {
				pkgResult = e.Action
			}
			continue
		}
		t := tests[e.Test]
		if t == nil {
			t = &test{name: e.Test}
			tests[e.Test] = t
			order = append(order, e.Test)
		}
		switch e.Action {
		case "pass", "fail", "skip":
			t.result = e.Action
		case "output":
			line := strings.TrimRight(e.Output, "\r\n")
			trimmed := strings.TrimSpace(line)
			if trimmed == "" || framing(trimmed) {
				continue
			}
			// A message's later lines are indented past its first.
			if len(t.messages) > 0 && indent(line) > indent(t.messages[len(t.messages)-1]) {
				t.messages[len(t.messages)-1] += "\n" + line
				continue
			}
			t.messages = append(t.messages, line)
		}
	}
	return tests, order, pkgResult, sc.Err()
}

func framing(s string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return s == "PASS" || s == "FAIL"
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

func failedChild(tests map[string]*test, name string) bool {
	for n, t := range tests {
		if t.result == "fail" && strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

// match returns the artifact that explains the whole message, first line and
// continuations alike, or nil.
func match(artifacts []*artifact, m string) *artifact {
	for _, a := range artifacts {
		if a.re.MatchString(strings.TrimSpace(m)) && !strings.Contains(m, "\n") {
			return a
		}
	}
	return nil
}

type logLines struct {
	dir   string
	files map[string][]string
}

// isLog reports whether message m was printed by a t.Log or t.Logf call: the
// line it names is one, or continues the arguments of one (the lines above
// it end in "," or "(").
func (l logLines) isLog(m string) bool {
	loc := location.FindStringSubmatch(m)
	if loc == nil {
		return false
	}
	lines, ok := l.files[loc[1]]
	if !ok {
		data, err := os.ReadFile(filepath.Join(l.dir, loc[1]))
		if err == nil {
			lines = strings.Split(string(data), "\n")
		}
		l.files[loc[1]] = lines
	}
	n, _ := strconv.Atoi(loc[2])
	for i := n - 1; i >= 0 && i >= n-4 && i < len(lines); i-- {
		s := strings.TrimSpace(lines[i])
		if i < n-1 && !strings.HasSuffix(s, ",") && !strings.HasSuffix(s, "(") {
			return false
		}
		if strings.Contains(s, ".Log(") || strings.Contains(s, ".Logf(") {
			return true
		}
	}
	return false
}
