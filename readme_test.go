package sqlite3

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's compile options table from compile_options.go")

const (
	optionsBegin = "<!-- compile-options:begin (generated: go test -run TestReadmeCompileOptions -update-readme) -->"
	optionsEnd   = "<!-- compile-options:end -->"
)

// compileOptionsTable renders compile_options.go as a Markdown table: every
// "#cgo [tags] CFLAGS: -D..." line with the "// reason:" comment above it.
func compileOptionsTable(t *testing.T) string {
	src, err := os.ReadFile("compile_options.go")
	if err != nil {
		t.Fatal(err)
	}
	flagLine := regexp.MustCompile(`^#cgo ((?:\S+ )*)CFLAGS: (-D\S+)$`)
	var b strings.Builder
	b.WriteString("| option | build tag | why |\n|---|---|---|\n")
	reason := ""
	n := 0
	for _, line := range strings.Split(string(src), "\n") {
		if r, ok := strings.CutPrefix(line, "// reason: "); ok {
			reason = r
			continue
		}
		if m := flagLine.FindStringSubmatch(line); m != nil {
			if reason == "" {
				t.Fatalf("compile_options.go: %s has no \"// reason:\" line above it", m[2])
			}
			tags := "always"
			if m[1] != "" {
				tags = "`" + strings.Join(strings.Fields(m[1]), "` or `") + "`"
			}
			b.WriteString("| `" + strings.TrimPrefix(m[2], "-D") + "` | " + tags + " | " + reason + " |\n")
			reason = ""
			n++
		}
	}
	if n == 0 {
		t.Fatal("compile_options.go lists no options")
	}
	return b.String()
}

// The README's table of compile options must be the one compile_options.go
// defines, so the documentation cannot drift from the build.
func TestReadmeCompileOptions(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i, j := strings.Index(text, optionsBegin), strings.Index(text, optionsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the compile options markers %q ... %q", optionsBegin, optionsEnd)
	}
	want := compileOptionsTable(t)
	got := text[i+len(optionsBegin)+1 : j]
	if got == want {
		return
	}
	if *updateReadme {
		text = text[:i+len(optionsBegin)+1] + want + text[j:]
		if err := os.WriteFile("README.md", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("README.md's compile options table is out of date; run go test -run TestReadmeCompileOptions -update-readme\ngot:\n%s\nwant:\n%s", got, want)
}
