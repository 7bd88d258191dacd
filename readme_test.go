package sqlite3

import (
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the compile options table of "+compileOptionsDoc+" from compile_options.go")

// compileOptionsDoc is the page that holds the generated compile options table.
const compileOptionsDoc = "docs/compile-options.md"

// docFiles returns README.md and the pages under docs/, the documentation the
// tests below keep true.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("docs/ has no pages")
	}
	sort.Strings(pages)
	return append([]string{"README.md"}, pages...)
}

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

// The documented table of compile options (docs/compile-options.md, linked
// from the README) must be the one compile_options.go defines, so the
// documentation cannot drift from the build.
func TestReadmeCompileOptions(t *testing.T) {
	page, err := os.ReadFile(filepath.FromSlash(compileOptionsDoc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	i, j := strings.Index(text, optionsBegin), strings.Index(text, optionsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the compile options markers %q ... %q", compileOptionsDoc, optionsBegin, optionsEnd)
	}
	want := compileOptionsTable(t)
	got := text[i+len(optionsBegin)+1 : j]
	if got == want {
		return
	}
	if *updateReadme {
		text = text[:i+len(optionsBegin)+1] + want + text[j:]
		if err := os.WriteFile(filepath.FromSlash(compileOptionsDoc), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s's compile options table is out of date; run go test -run TestReadmeCompileOptions -update-readme\ngot:\n%s\nwant:\n%s", compileOptionsDoc, got, want)
}

// readmeSection returns the README's text from the heading to the next
// heading of the same level.
func readmeSection(t *testing.T, readme, heading string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	rest := readme[i+len(heading)+2:]
	level := heading[:strings.IndexByte(heading, ' ')+1]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var sqlOpenDSN = regexp.MustCompile(`sql\.Open\("sqlite3", "([^"]*)"\)`)

// The DSN a user copies first is the one that works under load: the README's
// Usage, the package doc and the examples open a file database with the DSN
// of "Recommended settings for servers", and that DSN has WAL,
// _txlock=immediate and a busy timeout. So does every file database the
// pages under docs/ open.
func TestReadmeServerDSN(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	m := sqlOpenDSN.FindStringSubmatch(readmeSection(t, readme, "## Recommended settings for servers"))
	if m == nil {
		t.Fatal(`"Recommended settings for servers" opens no database`)
	}
	recommended := m[1]
	for _, p := range []string{"_journal_mode=WAL", "_txlock=immediate", "_busy_timeout="} {
		if !strings.Contains(recommended, p) {
			t.Errorf("the recommended DSN %q lacks %s", recommended, p)
		}
	}
	checkRecommendedDSN(t, recommended)
	_, query, _ := strings.Cut(recommended, "?")

	if m := sqlOpenDSN.FindStringSubmatch(readmeSection(t, readme, "## Usage")); m == nil || m[1] != recommended {
		t.Errorf("README Usage opens %q, want the recommended %q", m, recommended)
	}
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sqlOpenDSN.FindAllStringSubmatch(string(text), -1) {
			// A page about one parameter (group commit) may add it to the
			// recommended DSN.
			if strings.HasPrefix(m[1], "file:") && m[1] != recommended && !strings.HasPrefix(m[1], recommended+"&") {
				t.Errorf("%s opens a file database with %q, want the recommended %q", f, m[1], recommended)
			}
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if m := sqlOpenDSN.FindSubmatch(doc); m == nil || string(m[1]) != recommended {
		t.Errorf("doc.go opens %q, want the recommended %q", m, recommended)
	}
	if !strings.Contains(string(doc), "at most one cgo call") {
		t.Error(`doc.go does not say "at most one cgo call" per row, as the README does`)
	}

	// Every example that sets up a database file of its own opens it with the
	// recommended parameters; httpservice with one pool.
	files, err := filepath.Glob("examples/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`"\?([^"]*_journal_mode[^"]*)"`)
	found := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllSubmatch(src, -1) {
			found[filepath.Dir(f)]++
			if string(m[1]) != query {
				t.Errorf("%s opens a database with %q, want the recommended %q", f, m[1], query)
			}
		}
		if filepath.Base(filepath.Dir(f)) == "httpservice" && strings.Count(string(src), "sql.Open(") > 1 {
			t.Errorf("%s opens more than one pool", f)
		}
	}
	for _, dir := range []string{"examples/httpservice", "examples/csvimport", "examples/backup"} {
		if found[filepath.FromSlash(dir)] == 0 {
			t.Errorf("%s sets up no database with the recommended parameters", dir)
		}
	}
	if _, err := url.ParseQuery(query); err != nil {
		t.Error(err)
	}
}

// The Go snippets of the README and of the pages under docs/ compile against
// the package: each becomes the body of a function in a scratch module (with
// declarations of the names the snippets take from their surroundings) that
// go vet type-checks.
func TestReadmeGoSnippets(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to type-check with")
	}
	goBlock := regexp.MustCompile("(?s)\n```go\n(.*?)\n```")
	var blocks [][]string
	inReadme := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := goBlock.FindAllStringSubmatch(string(b), -1)
		if f == "README.md" {
			inReadme = len(found)
		}
		blocks = append(blocks, found...)
	}
	if inReadme < 2 || len(blocks) < 5 {
		t.Fatalf("README.md has %d Go snippets (want at least 2: Usage and the server settings) and the docs %d in all, want at least 5", inReadme, len(blocks))
	}
	importBlock := regexp.MustCompile(`(?s)^import \((.*?)\)\n`)
	defined := regexp.MustCompile(`(?m)^(\w+(?:, \w+)*) :=`)
	var body strings.Builder
	for i, m := range blocks {
		code := m[1]
		code = importBlock.ReplaceAllString(code, "") // the file imports what the snippets need
		if regexp.MustCompile(`^[\w.]+\{`).MatchString(code) {
			code = "_ = " + code // a value, such as a driver to register
		}
		body.WriteString("func snippet" + itoa(i) + "() error {\n" + readmeSnippetPrelude + code + "\n")
		for _, d := range defined.FindAllStringSubmatch(code, -1) {
			for _, name := range strings.Split(d[1], ", ") {
				body.WriteString("_ = " + name + "\n")
			}
		}
		body.WriteString("return nil\n}\n\n")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module readmesnippets\n\ngo 1.26\n\nrequire github.com/fastsqlite/sqlite3 v0.0.0\n\nreplace github.com/fastsqlite/sqlite3 => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	src := readmeSnippetFile + body.String()
	if err := os.WriteFile(filepath.Join(dir, "snippets.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "vet", ".")
	cmd.Dir = dir
	// The snippets use the cgo build's API (PrepareDirect, ...), which is
	// what the docs describe, also when this test runs with CGO_ENABLED=0;
	// vetted for this machine, with its own C compiler (not a cross
	// compiler the test binary was built with: CC is left to go's default).
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=1", "CC=", "GOOS=", "GOARCH=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Go snippets of README.md and docs/ do not compile: %v\n%s\n%s", err, out, src)
	}
}

// What the snippets of README.md and docs/ take from their surroundings.
const readmeSnippetFile = `package readmesnippets

import (
	"database/sql"
	"errors"
	"log"

	"github.com/fastsqlite/sqlite3"
)

var _, _ = errors.As, log.Printf

func reverse(s string) string { return s }

func cmp(a, b string) int { return len(a) - len(b) }

type stddev struct{ n int }

func (s *stddev) Step(x float64)        { s.n++ }
func (s *stddev) Done() (float64, error) { return 0, nil }

`

const readmeSnippetPrelude = `var (
	conn    *sql.Conn
	c       *sqlite3.SQLiteConn
	replica *sqlite3.SQLiteConn
	sum     float64
	err     error
)
_, _, _, _, _ = conn, c, replica, sum, err
`

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6} +(.*?)\s*#*$`)
	mdCode    = regexp.MustCompile("`+[^`]*`+")
)

// mdProse returns the lines of a Markdown file with those of fenced code
// blocks emptied, so that line i of the result is line i+1 of the file.
func mdProse(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			line = ""
		} else if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			line = ""
		}
		out = append(out, line)
	}
	return out
}

// mdAnchor is GitHub's anchor for a heading: lower case, spaces to '-',
// punctuation other than '-' and '_' dropped.
func mdAnchor(heading string) string {
	heading = mdCode.ReplaceAllStringFunc(heading, func(s string) string { return strings.Trim(s, "`") })
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdAnchors returns the anchors GitHub gives the headings of a Markdown file
// (a repeated heading's later anchors get -1, -2, ...).
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range mdProse(text) {
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := mdAnchor(m[1])
		if n := seen[a]; n > 0 {
			anchors[a+"-"+itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// Every relative link of README.md and of the pages under docs/ leads to a
// file of the repository, and every #anchor into a Markdown file to one of
// its headings, so that moving a section cannot leave a link behind.
func TestDocLinks(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(file string) (map[string]bool, error) {
		if a, ok := anchorsOf[file]; ok {
			return a, nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		anchorsOf[file] = mdAnchors(string(b))
		return anchorsOf[file], nil
	}
	scheme := regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	checked := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range mdProse(string(b)) {
			line = mdCode.ReplaceAllString(line, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if scheme.MatchString(target) {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s (line %d): link %q: %v", f, n+1, target, err)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				a, err := anchors(file)
				if err != nil {
					t.Errorf("%s: link %q: %v", f, target, err)
				} else if !a[anchor] {
					t.Errorf("%s (line %d): link %q: %s has no heading with anchor #%s", f, n+1, target, file, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d relative links, want the README's and docs' (at least 20)", checked)
	}

	// The package's doc comments and error messages name docs/ pages too.
	goFiles, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`docs/[\w.-]+\.md`)
	for _, f := range goFiles {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range named.FindAllString(string(src), -1) {
			if _, err := os.Stat(filepath.FromSlash(page)); err != nil {
				t.Errorf("%s names %s: %v", f, page, err)
			}
		}
	}
}
