package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// A package that offers Open but not mattn's internal handle; test files
// that use the handle, directly or through a helper, must go, and with them
// the imports only they used, while the rest stays byte for byte.
func TestFilterTestsDropsWhatDoesNotCompile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/mattn/go-sqlite3\n\ngo 1.26\n")
	write("pkg.go", "package sqlite3\n\nfunc Open() int { return 1 }\n\nfunc helper() int { return 2 }\n")
	test := `package sqlite3

import (
	"strings"
	"testing"
)

import "fmt"

// TestOpen stays.
func TestOpen(t *testing.T) {
	if Open() != 1 {
		t.Fatal("open")
	}
}

// internalHandle reaches an internal that does not exist here.
func internalHandle() string { return fmt.Sprint(handleVals) }

func TestHandle(t *testing.T) {
	if !strings.Contains(internalHandle(), "x") {
		t.Fatal()
	}
}

var (
	keep  = 1
	table = handleVals
)

// helper is the driver's own name too.
func helper() int { return keep }
`
	files := []testFile{{"a_test.go", []byte(test)}}
	out, drops, err := filterTests(files, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range drops {
		names = append(names, d.decl)
	}
	sort.Strings(names)
	want := []string{"TestHandle", "helper", "import \"fmt\"", "import \"strings\"", "internalHandle", "var table"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("dropped %q, want %q", names, want)
	}
	got := string(out[0].src)
	for _, s := range []string{"func TestOpen", "// TestOpen stays.", "keep  = 1", `"testing"`} {
		if !strings.Contains(got, s) {
			t.Errorf("%q lost:\n%s", s, got)
		}
	}
	for _, s := range []string{"handleVals", "internalHandle", "fmt", "strings", "func helper"} {
		if strings.Contains(got, s) {
			t.Errorf("%q kept:\n%s", s, got)
		}
	}
	if _, err := typeCheck(dir, nil, out); err != nil {
		t.Fatal(err)
	}
}

func TestCompilerErrors(t *testing.T) {
	out := "# github.com/mattn/go-sqlite3 [github.com/mattn/go-sqlite3.test]\n./sqlite3_test.go:12:3: undefined: foo\nvet: ./x_test.go:1:2: bar\n"
	errs := compilerErrors(out)
	if len(errs) != 2 || errs[0].String() != "sqlite3_test.go:12:3: undefined: foo" || errs[1].file != "x_test.go" {
		t.Errorf("got %v", errs)
	}
}

func TestExcerpt(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:1: boom\n    x_test.go:1: boom\n--- FAIL: TestX (0.00s)\nFAIL\n"
	if got := excerpt(out, 4); got != "x_test.go:1: boom" {
		t.Errorf("got %q", got)
	}
}
