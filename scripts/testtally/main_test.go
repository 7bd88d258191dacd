package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// A run under Wine in miniature, as `go test -v` prints it: a test whose
// only failure is the artifact, one with a log line and the artifact, one
// with a real failure besides the artifact, a parent failing through its
// subtest, and an example's got/want.
const run = `=== RUN   TestArtifactOnly
    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\t\001: Invalid function.
--- FAIL: TestArtifactOnly (0.00s)
=== RUN   TestLogAndArtifact
    x_test.go:4: a log line with a colon: 1
    x_test.go:7: a log over two lines
    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\t\002: Invalid function.
--- FAIL: TestLogAndArtifact (0.00s)
=== RUN   TestRealAndArtifact
    x_test.go:5: a real failure
    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\t\003: Invalid function.
--- FAIL: TestRealAndArtifact (0.00s)
=== RUN   TestParent
=== RUN   TestParent/child
    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\t\004: Sharing violation.
--- FAIL: TestParent (0.00s)
    --- FAIL: TestParent/child (0.00s)
=== RUN   TestPass
--- PASS: TestPass (0.00s)
=== RUN   ExampleX
--- FAIL: ExampleX (0.00s)
got:
1
want:
2
FAIL
`

func TestClassify(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command for test2json")
	}
	cmd := exec.Command("go", "tool", "test2json", "-p", "x")
	cmd.Stdin = strings.NewReader(run)
	events, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	tests, order, pkg, err := read(strings.NewReader(string(events)))
	if err != nil || pkg != "fail" {
		t.Fatalf("read: %v, package result %q", err, pkg)
	}
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/x_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/x_test.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	a := &artifact{name: "removeall", re: regexp.MustCompile(`^[A-Za-z0-9_]+\.go:[0-9]+: TempDir RemoveAll cleanup: unlinkat .*: Invalid function\.$`)}
	c, real := classify(tests, order, logLines{dir: dir, files: map[string][]string{}}, []*artifact{a})

	if want := (counts{passed: 1, failed: 5, subFailed: 1}); c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	if got, want := strings.Join(a.tests, ","), "TestArtifactOnly,TestLogAndArtifact"; got != want {
		t.Errorf("artifact failures %s, want %s", got, want)
	}
	var names []string
	for _, r := range real {
		names = append(names, strings.SplitN(r, ":", 2)[0])
	}
	if got, want := strings.Join(names, ","), "TestRealAndArtifact,TestParent/child,ExampleX"; got != want {
		t.Errorf("real failures %s, want %s\n%s", got, want, strings.Join(real, "\n"))
	}
}
