package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserModuleTidy is the README's switching recipe end to end: a user
// module that imports github.com/mattn/go-sqlite3 and replaces it with this
// driver must survive `go mod tidy`. tidy also loads the tests of the
// replaced package; a test file in the driver's root that imports
// "github.com/fastsqlite/sqlite3" (an external sqlite3_test package) makes
// tidy need this module under its own path as well, and Go refuses one module
// under two paths ("used for two different module paths").
// So every test and example of the root package is an internal test
// (package sqlite3), and this test keeps it that way.
func TestUserModuleTidy(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/user\n\ngo 1.26\n\nrequire github.com/mattn/go-sqlite3 v1.14.53\n\n"+
		"replace github.com/mattn/go-sqlite3 => "+filepath.ToSlash(root)+"\n")
	write("main.go", "package main\n\nimport (\n\t\"database/sql\"\n\n\t_ \"github.com/mattn/go-sqlite3\"\n)\n\n"+
		"func main() { sql.Open(\"sqlite3\", \":memory:\") }\n")

	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	// Offline: the driver imports only the standard library, so a tidy that
	// needs the network is already the failure.
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var offenders []string
		files, _ := filepath.Glob(filepath.Join(root, "*_test.go"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if strings.Contains(string(b), `"github.com/fastsqlite/sqlite3"`) {
				offenders = append(offenders, filepath.Base(f))
			}
		}
		t.Fatalf("go mod tidy in a module that replaces mattn with this driver: %v\n%s\nroot test files importing the module's own path: %v",
			err, out, offenders)
	}
}
