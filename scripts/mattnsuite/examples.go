package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// buildFailed: the example does not compile against that side.
const buildFailed = "BUILD FAILED"

// An example is one program of mattn's _example directory.
type example struct {
	name    string
	files   []string // its .go files
	ldflags string   // from its Makefile, if it builds with -ldflags
	skip    string   // why it is not run, if it is not
}

// findExamples reads mattn's _example directory and decides, from the files
// alone, which programs can run here without setup.
func findExamples(dir string) ([]example, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var exs []example
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		ex := example{name: e.Name()}
		sub := filepath.Join(dir, e.Name())
		files, _ := os.ReadDir(sub)
		for _, f := range files {
			n := f.Name()
			switch ext := filepath.Ext(n); ext {
			case ".go":
				if !strings.HasSuffix(n, "_test.go") {
					ex.files = append(ex.files, n)
				}
			case ".c", ".cc", ".cpp", ".h":
				ex.skip = "needs a loadable extension built from its C sources (make)"
			}
			if n == "Makefile" {
				b, _ := os.ReadFile(filepath.Join(sub, n))
				if m := regexp.MustCompile(`-ldflags=(".*"|'.*'|\S+)`).FindSubmatch(b); m != nil {
					ex.ldflags = string(m[1])
					if s, err := strconv.Unquote(ex.ldflags); err == nil {
						ex.ldflags = s
					}
				}
			}
		}
		for _, n := range ex.files {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(sub, n), nil, parser.ImportsOnly)
			if err != nil {
				return nil, err
			}
			if f.Name.Name != "main" && ex.skip == "" {
				ex.skip = "not a program (package " + f.Name.Name + ")"
			}
			for _, im := range f.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); (p == "net" || strings.HasPrefix(p, "net/")) && ex.skip == "" {
					ex.skip = "needs the network (imports " + p + ")"
				}
			}
		}
		if len(ex.files) == 0 && ex.skip == "" {
			ex.skip = "no Go files"
		}
		exs = append(exs, ex)
	}
	sort.Slice(exs, func(i, j int) bool { return exs[i].name < exs[j].name })
	return exs, nil
}

// exampleTags builds the examples: mattn's five tags, which some need, and
// sqlite_trace, which _example/trace needs on mattn. One tag set for all, so
// that each side's package is compiled once.
var exampleTags = append(append([]string{}, mattnTags...), "sqlite_trace")

// examples builds each runnable example against both packages (through a
// replace directive) and runs it. An example passes when it exits with
// status 0; one that does not build on mattn is skipped.
func examples(o options, sum *summary) error {
	fmt.Printf("\n== mattn's _example programs (tags: %s)\n", tagList(exampleTags))
	exs, err := findExamples(filepath.Join(o.mattn, "_example"))
	if err != nil {
		return err
	}
	goLine, err := goVersion(filepath.Join(o.ours, "go.mod"))
	if err != nil {
		return err
	}
	res := map[string][2]result{}
	var names []string
	start := time.Now()
	for _, ex := range exs {
		if ex.skip != "" {
			fmt.Printf("  %s: skipped: %s\n", ex.name, ex.skip)
			continue
		}
		var r [2]result
		for i, side := range []string{"mattn", "ours"} {
			tags := exampleTags
			if side == "ours" && o.dev {
				tags = append(append([]string{}, tags...), "fastsqlite_dev")
			}
			r[i] = runExample(o, side, goLine, ex, tags)
			if i == 0 && r[i].status == buildFailed {
				break
			}
		}
		if r[0].status == buildFailed {
			fmt.Printf("  %s: skipped: does not build on mattn: %s\n", ex.name, excerpt(r[0].out, 1))
			continue
		}
		names = append(names, ex.name)
		res[ex.name] = r
		fmt.Printf("  %s: mattn %s, here %s\n", ex.name, r[0].status, r[1].status)
	}
	fmt.Printf("examples built and run in %s\n", time.Since(start).Round(time.Second))
	sum.add(o, "examples", names, res)
	return nil
}

// runExample builds ex in a module of its own under o.work whose replace
// directive points at side's package, then runs it.
func runExample(o options, side, goLine string, ex example, tags []string) result {
	mod := filepath.Join(o.work, "examples-"+side)
	dir := filepath.Join(mod, ex.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{status: fail, out: err.Error()}
	}
	gomod := fmt.Sprintf("module mattnsuite.example\n\n%s\n\nrequire github.com/mattn/go-sqlite3 v1.14.53\n\nreplace github.com/mattn/go-sqlite3 => ../%s\n", goLine, side)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		return result{status: fail, out: err.Error()}
	}
	for _, n := range ex.files {
		if err := copyFile(filepath.Join(o.mattn, "_example", ex.name, n), filepath.Join(dir, n)); err != nil {
			return result{status: fail, out: err.Error()}
		}
	}
	bin := filepath.Join(o.work, "bin", "example-"+side+"-"+ex.name)
	args := []string{"build", "-tags", strings.Join(tags, ","), "-o", bin}
	if ex.ldflags != "" {
		args = append(args, "-ldflags", ex.ldflags)
	}
	out, err := goCmd(mod, append(args, "./"+ex.name)...).CombinedOutput()
	if err != nil {
		return result{status: buildFailed, out: string(out)}
	}
	text, hung, err := runProcess(bin, o.limit)
	switch {
	case hung:
		return result{status: timeout, out: text}
	case err != nil:
		return result{status: fail, out: text + "\n" + err.Error()}
	}
	return result{status: pass, out: text}
}
