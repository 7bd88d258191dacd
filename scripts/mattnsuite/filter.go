package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A testFile is one of mattn's _test.go files as it stands after filtering.
type testFile struct {
	name string
	src  []byte
}

// A compileError is one error a type check or a compiler reported, at a
// position in one of the package's files (by base name).
type compileError struct {
	file      string
	line, col int
	msg       string
}

func (e compileError) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
}

// A dropped declaration: what the listing prints.
type dropped struct {
	file, decl, why string
}

// mattnTestFiles returns mattn's _test.go files (package sqlite3, internal
// tests) that the build constraints select for tags.
func mattnTestFiles(mattnDir string, tags []string) ([]testFile, error) {
	ctx := build.Default
	ctx.CgoEnabled = true
	ctx.BuildTags = tags
	pkg, err := ctx.ImportDir(mattnDir, 0)
	if err != nil {
		return nil, err
	}
	if len(pkg.XTestGoFiles) > 0 {
		// Not the case in v1.14.53; an external test package would need its
		// own type check, so say so rather than silently skip it.
		fmt.Printf("note: external test files not run: %s\n", strings.Join(pkg.XTestGoFiles, " "))
	}
	var files []testFile
	for _, name := range pkg.TestGoFiles {
		src, err := os.ReadFile(filepath.Join(mattnDir, name))
		if err != nil {
			return nil, err
		}
		files = append(files, testFile{name, src})
	}
	return files, nil
}

// filterTests drops from files every top-level declaration that does not
// compile against each of the package directories in dirs, then every
// declaration that stops compiling because of that, until all compile. It
// type-checks with go/types, cgo faked (test files cannot use cgo, and the
// package's own C-typed code only has to be good enough to give its Go API).
func filterTests(files []testFile, dirs []string, tags []string) ([]testFile, []dropped, error) {
	var all []dropped
	for round := 0; ; round++ {
		if round > 200 {
			return nil, nil, errors.New("filtering does not converge")
		}
		var errs []compileError
		for _, dir := range dirs {
			e, err := typeCheck(dir, tags, files)
			if err != nil {
				return nil, nil, err
			}
			errs = append(errs, e...)
		}
		next, drops, err := dropFor(files, errs)
		if err != nil {
			return nil, nil, err
		}
		if len(drops) == 0 {
			return files, all, nil
		}
		files, all = next, append(all, drops...)
	}
}

// typeCheck type-checks the package in dir (its non-test files, as the build
// constraints select them for tags) together with files, and returns the
// errors found in files, plus those in the package's own files that name a
// declaration of files as redeclared.
func typeCheck(dir string, tags []string, files []testFile) ([]compileError, error) {
	ctx := build.Default
	ctx.CgoEnabled = true
	ctx.BuildTags = tags
	pkg, err := ctx.ImportDir(dir, build.IgnoreVendor)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var asts []*ast.File
	for _, name := range append(append([]string{}, pkg.GoFiles...), pkg.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		asts = append(asts, f)
	}
	isTest := map[string]bool{}
	for _, tf := range files {
		f, err := parser.ParseFile(fset, tf.name, tf.src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		isTest[tf.name] = true
		asts = append(asts, f)
	}
	var errs []compileError
	conf := types.Config{
		FakeImportC: true,
		Importer:    importer.Default(),
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				return
			}
			p := te.Fset.Position(te.Pos)
			base := filepath.Base(p.Filename)
			if isTest[base] || strings.Contains(te.Msg, "redeclared") {
				errs = append(errs, compileError{base, p.Line, p.Column, te.Msg})
			}
		},
	}
	conf.Check("github.com/mattn/go-sqlite3", fset, asts, nil) // errors arrive through conf.Error
	return errs, nil
}

var redeclared = regexp.MustCompile(`^(\w+) redeclared`)

// dropFor removes from files the top-level declarations (a whole func, or one
// spec of a var/const/type/import group) that enclose errs, and returns the
// new files and what went. An error outside the test files that says a name
// is redeclared drops the test files' declaration of that name; any other
// error it cannot place is returned.
func dropFor(files []testFile, errs []compileError) ([]testFile, []dropped, error) {
	byFile := map[string][]compileError{}
	var names []string
	for _, e := range errs {
		byFile[e.file] = append(byFile[e.file], e)
	}
	for _, e := range errs {
		known := false
		for _, tf := range files {
			known = known || tf.name == e.file
		}
		if known {
			continue
		}
		m := redeclared.FindStringSubmatch(e.msg)
		if m == nil {
			return nil, nil, fmt.Errorf("cannot place error in the package's own files: %s", e)
		}
		names = append(names, m[1])
	}
	var out []testFile
	var drops []dropped
	for _, tf := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, tf.name, tf.src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		tok := fset.File(f.Pos())
		type cut struct {
			from, to  int
			decl, why string
		}
		var cuts []cut
		seen := map[int]bool{}
		add := func(n ast.Node, doc *ast.CommentGroup, decl, why string) {
			from := tok.Offset(n.Pos())
			if doc != nil {
				from = tok.Offset(doc.Pos())
			}
			if !seen[from] {
				seen[from] = true
				cuts = append(cuts, cut{from, tok.Offset(n.End()), decl, why})
			}
		}
		place := func(match func(ast.Node) bool, why string) {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if match(d) {
						add(d, d.Doc, funcName(d), why)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if !match(s) {
							continue
						}
						if !d.Lparen.IsValid() || len(d.Specs) == 1 {
							add(d, d.Doc, specName(d.Tok, s), why)
						} else {
							add(s, specDoc(s), specName(d.Tok, s), why)
						}
					}
				}
			}
		}
		for _, e := range byFile[tf.name] {
			off := tok.Offset(tok.LineStart(e.line)) + e.col - 1
			place(func(n ast.Node) bool {
				return tok.Offset(n.Pos()) <= off && off < tok.Offset(n.End())
			}, e.msg)
		}
		for _, name := range names {
			place(func(n ast.Node) bool { return declares(n, name) }, name+" is declared by the driver too")
		}
		if len(cuts) == 0 {
			out = append(out, tf)
			continue
		}
		sort.Slice(cuts, func(i, j int) bool { return cuts[i].from > cuts[j].from })
		src := append([]byte{}, tf.src...)
		for _, c := range cuts {
			src = append(src[:c.from:c.from], src[c.to:]...)
			drops = append(drops, dropped{tf.name, c.decl, c.why})
		}
		out = append(out, testFile{tf.name, src})
	}
	if len(drops) == 0 && len(errs) > 0 {
		return nil, nil, fmt.Errorf("cannot place errors: %v", errs)
	}
	return out, drops, nil
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return "(" + id.Name + ")." + d.Name.Name
	}
	return d.Name.Name
}

func specName(tok token.Token, s ast.Spec) string {
	switch s := s.(type) {
	case *ast.ImportSpec:
		return "import " + s.Path.Value
	case *ast.TypeSpec:
		return "type " + s.Name.Name
	case *ast.ValueSpec:
		var names []string
		for _, n := range s.Names {
			names = append(names, n.Name)
		}
		return tok.String() + " " + strings.Join(names, ", ")
	}
	return tok.String()
}

func specDoc(s ast.Spec) *ast.CommentGroup {
	switch s := s.(type) {
	case *ast.ImportSpec:
		return s.Doc
	case *ast.TypeSpec:
		return s.Doc
	case *ast.ValueSpec:
		return s.Doc
	}
	return nil
}

func declares(n ast.Node, name string) bool {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return n.Recv == nil && n.Name.Name == name
	case *ast.TypeSpec:
		return n.Name.Name == name
	case *ast.ValueSpec:
		for _, id := range n.Names {
			if id.Name == name {
				return true
			}
		}
	}
	return false
}

// compilerErrors reads the "./file.go:line:col: msg" lines of go build's
// output, for what go/types let through.
func compilerErrors(out string) []compileError {
	var errs []compileError
	re := regexp.MustCompile(`(?m)^(?:vet: )?\.?/?([\w.-]+\.go):(\d+):(\d+): (.*)$`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		errs = append(errs, compileError{m[1], line, col, m[4]})
	}
	return errs
}
