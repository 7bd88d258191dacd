// Command apicheck generates apicheck_test.go, a compile-time proof that this
// package exports github.com/mattn/go-sqlite3's API with the exact same types,
// and apicheck_missing.txt, the part of that API not exported (correctly) yet.
//
// Run it from the module root:
//
//	go run ./scripts/apicheck -mattn v1.14.53 [-tags list] [-all] [-src dir] [-vet=false] [-vettags tags]
//
// It fetches mattn's source with `go mod download` and reads it with go/parser
// rather than scraping `go doc` text: the AST gives the types exactly as
// written, build constraints can be honoured file by file (go/build's
// MatchFile: cgo, linux/amd64, -tags), and the values of the constants mattn
// takes from C macros can be looked up in its sqlite3-binding.h.
//
// Every exported identifier becomes an item: one declaration that compiles
// only if ours has the same kind and type (and, for constants, value). Items
// we export go to apicheck_test.go, the rest are listed in
// apicheck_missing.txt. An item we export whose check does not compile (ours
// has another type) is found by type-checking our package with the generated
// file, first with go/types (import "C" faked, so blind to C-derived
// constants), then with go vet (the real compiler; -vettags fastsqlite_dev by
// default when .dev/sqlite3.o exists, so SQLite is not recompiled). Such items
// are left out of the test file and listed under "signature differs". -all
// writes every item into the test file regardless, for the day all exist.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/format"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

const (
	mattnPath = "github.com/mattn/go-sqlite3"

	// The opt-in tags whose files declare API that drop-in users rely on:
	// the pre-update hook's Count/Depth/New/Old, virtual tables, SetTrace
	// and its types, unlock-notify (no API, but part of the usual set) and
	// SQLiteStmt.ColumnTableName. User authentication is left out on purpose
	// (see skipFile).
	defaultTags = "sqlite_preupdate_hook,sqlite_vtable,sqlite_trace,sqlite_unlock_notify,sqlite_column_metadata"

	testFile    = "apicheck_test.go"
	missingFile = "apicheck_missing.txt"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("apicheck: ")
	version := flag.String("mattn", "v1.14.53", "mattn/go-sqlite3 version to compare with")
	tags := flag.String("tags", defaultTags, "comma-separated build tags for mattn's files (cgo, linux/amd64 are implied)")
	all := flag.Bool("all", false, "write a check for every mattn identifier, exported by us or not")
	src := flag.String("src", "", "mattn source directory to read instead of downloading it")
	vet := flag.Bool("vet", true, "also drop the checks that go vet (the real compiler, with cgo) rejects")
	// The dev tag links a prebuilt SQLite object: vet takes seconds, not a
	// minute, when scripts/dev-prebuild.sh has been run.
	devTag := ""
	if _, err := os.Stat(".dev/sqlite3.o"); err == nil {
		devTag = "fastsqlite_dev"
	}
	vetTags := flag.String("vettags", devTag, "build tags for go vet")
	flag.Parse()

	if _, err := os.Stat("go.mod"); err != nil {
		log.Fatal("run from the module root: go run ./scripts/apicheck")
	}
	dir := *src
	if dir == "" {
		dir = download(*version)
	}
	var tagList []string
	for _, t := range strings.Split(*tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tagList = append(tagList, t)
		}
	}
	m, err := loadMattn(dir, tagList)
	if err != nil {
		log.Fatal(err)
	}
	items := m.items()
	o, err := loadOurs(".")
	if err != nil {
		log.Fatal(err)
	}

	cmdline := "go run ./scripts/apicheck -mattn " + *version
	if *tags != defaultTags {
		cmdline += " -tags " + *tags
	}
	if *all {
		cmdline += " -all"
	}
	r := classify(items, o, *all, *vet, *vetTags, cmdline)
	if err := os.WriteFile(testFile, r.test, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(missingFile, missingText(r, *version, tagList, cmdline), 0o644); err != nil {
		log.Fatal(err)
	}
	written := fmt.Sprintf("%d checked", len(r.checked))
	if *all {
		written = fmt.Sprintf("all %d written, %d pass,", len(items), len(r.checked))
	}
	fmt.Printf("mattn %s (tags %s): %d identifiers; %s in %s; %d missing, %d need a missing type, %d with another signature (see %s)\n",
		*version, strings.Join(tagList, ","), len(items), written, testFile,
		len(r.missing), len(r.blocked), len(r.differs), missingFile)
}

// download fetches mattn's module into the module cache and returns its
// directory. It runs in a throw-away module so that ours is not touched.
func download(version string) string {
	tmp, err := os.MkdirTemp("", "apicheck")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module apicheck.tmp\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "download", "-json", mattnPath+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	cmd.Stderr = os.Stderr
	out, runErr := cmd.Output()
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Error != "" || info.Dir == "" {
		log.Fatalf("go mod download %s@%s: %v %s", mattnPath, version, runErr, info.Error)
	}
	return info.Dir
}

// ---------------------------------------------------------------------------
// mattn's package

type mattn struct {
	fset    *token.FileSet
	files   []*ast.File
	imports map[*ast.File]map[string]string // local name -> import path
	names   map[string]bool                 // every package-level identifier

	funcs   []declIn[*ast.FuncDecl] // functions and methods
	types   map[string]declIn[*ast.TypeSpec]
	vars    []*valueDecl
	consts  map[string]*valueDecl
	order   []*valueDecl // consts in source order
	macros  map[string]string
	evaling map[string]bool // cycle guard for constant evaluation
}

type declIn[T any] struct {
	decl T
	file *ast.File
}

// valueDecl is one name of a const or var spec. For constants typ and val are
// the ones that apply after implicit repetition in a const group.
type valueDecl struct {
	name string
	file *ast.File
	typ  ast.Expr
	val  ast.Expr
	iota int
}

// skipFile drops the user-authentication API: SQLite removed the userauth
// extension and mattn only keeps deprecated stubs of it.
func skipFile(name string) bool {
	return strings.HasPrefix(name, "sqlite3_opt_userauth")
}

func loadMattn(dir string, tags []string) (*mattn, error) {
	// mattn's default build is cgo on linux/amd64; the tags add opt-in files.
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", true
	ctx.BuildTags = tags
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	m := &mattn{
		fset:    token.NewFileSet(),
		imports: map[*ast.File]map[string]string{},
		names:   map[string]bool{},
		types:   map[string]declIn[*ast.TypeSpec]{},
		consts:  map[string]*valueDecl{},
		evaling: map[string]bool{},
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || skipFile(name) {
			continue
		}
		if ok, err := ctx.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(m.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		m.addFile(f)
	}
	if len(m.files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	hdr, err := os.ReadFile(filepath.Join(dir, "sqlite3-binding.h"))
	if err != nil {
		return nil, err
	}
	m.macros = parseMacros(string(hdr))
	return m, nil
}

func (m *mattn) addFile(f *ast.File) {
	m.files = append(m.files, f)
	imps := map[string]string{}
	for _, is := range f.Imports {
		path := strings.Trim(is.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if is.Name != nil {
			name = is.Name.Name
		}
		imps[name] = path
	}
	m.imports[f] = imps
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			m.funcs = append(m.funcs, declIn[*ast.FuncDecl]{d, f})
			if d.Recv == nil {
				m.names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			var last *ast.ValueSpec // for implicit repetition in const groups
			for i, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					m.names[s.Name.Name] = true
					m.types[s.Name.Name] = declIn[*ast.TypeSpec]{s, f}
				case *ast.ValueSpec:
					if d.Tok == token.CONST && len(s.Values) > 0 {
						last = s
					}
					for j, n := range s.Names {
						if n.Name == "_" {
							continue
						}
						m.names[n.Name] = true
						v := &valueDecl{name: n.Name, file: f, typ: s.Type, iota: i}
						if d.Tok == token.VAR {
							if j < len(s.Values) {
								v.val = s.Values[j]
							}
							m.vars = append(m.vars, v)
							continue
						}
						if last != nil && j < len(last.Values) {
							v.typ, v.val = last.Type, last.Values[j]
						}
						m.consts[n.Name] = v
						m.order = append(m.order, v)
					}
				}
			}
		}
	}
}

var (
	defineRE  = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+(.+)$`)
	commentRE = regexp.MustCompile(`/\*.*?\*/|//.*$`)
	suffixRE  = regexp.MustCompile(`\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]+\b`)
)

// parseMacros collects object-like #defines (name followed by a space, so not
// function-like macros); the first definition wins.
func parseMacros(hdr string) map[string]string {
	macros := map[string]string{}
	for _, mm := range defineRE.FindAllStringSubmatch(hdr, -1) {
		body := strings.TrimSpace(commentRE.ReplaceAllString(mm[2], ""))
		body = suffixRE.ReplaceAllString(body, "$1") // 1U, 0x7fLL -> Go literals
		body = strings.ReplaceAll(body, "~", "^")    // C's complement is Go's unary ^
		if _, dup := macros[mm[1]]; !dup && body != "" {
			macros[mm[1]] = body
		}
	}
	return macros
}

// ---------------------------------------------------------------------------
// Items: one exported identifier each, with the declarations that check it.

type item struct {
	name    string            // Name, Type.Method or Type.Field
	kind    string            // const, var, func, method, type, field
	decl    string            // mattn's declaration, on one line
	checks  []string          // Go declarations
	refs    map[string]bool   // package identifiers the checks name
	imports map[string]string // import path -> local name the checks use
	recv    string            // for method and field: the type
}

// typeWriter renders type expressions as written in mattn's source and
// records what they name: package identifiers (which ours must have too),
// imports (which the generated file must import) and C types (which a test
// file cannot name: cgo is not allowed in tests).
type typeWriter struct {
	m       *mattn
	file    *ast.File
	refs    map[string]bool
	imports map[string]string
	cgo     bool
}

func (m *mattn) writer(f *ast.File) *typeWriter {
	return &typeWriter{m: m, file: f, refs: map[string]bool{}, imports: map[string]string{}}
}

func (w *typeWriter) expr(e ast.Expr) string {
	w.visit(e)
	return m2s(w.m.fset, e)
}

func (w *typeWriter) visit(e ast.Node) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field: // skip parameter and field names
			w.visit(n.Type)
			return false
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				if id.Name == "C" {
					w.cgo = true
				} else if path, ok := w.m.imports[w.file][id.Name]; ok {
					w.imports[path] = id.Name
				}
				return false
			}
		case *ast.Ident:
			if w.m.names[n.Name] {
				w.refs[n.Name] = true
			}
		}
		return true
	})
}

// funcType renders a signature without parameter names, so that a receiver
// type can be prepended for method expressions.
func (w *typeWriter) funcType(recv string, ft *ast.FuncType) string {
	var params []string
	if recv != "" {
		params = append(params, recv)
	}
	params = append(params, w.fields(ft.Params)...)
	s := "func(" + strings.Join(params, ", ") + ")"
	res := w.fields(ft.Results)
	switch {
	case len(res) == 1:
		s += " " + res[0]
	case len(res) > 1:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

func (w *typeWriter) fields(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return nil
	}
	for _, f := range fl.List {
		t := w.expr(f.Type)
		for i := 0; i < max(1, len(f.Names)); i++ {
			out = append(out, t)
		}
	}
	return out
}

func (w *typeWriter) item(name, kind, decl string, checks ...string) *item {
	return &item{name: name, kind: kind, decl: decl, checks: checks, refs: w.refs, imports: w.imports}
}

func m2s(fset *token.FileSet, n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		log.Fatal(err)
	}
	return b.String()
}

var (
	nlRE    = regexp.MustCompile(`([{,]?)[ \t]*\n\s*`)
	spaceRE = regexp.MustCompile(`[ \t]+`) // printer's alignment padding
)

// oneLine prints a declaration on one line, for comments and
// apicheck_missing.txt: line breaks become "; " (or a space after "{" and
// ","), alignment padding a single space.
func oneLine(fset *token.FileSet, n any) string {
	s := nlRE.ReplaceAllStringFunc(m2s(fset, n), func(br string) string {
		if br[0] == '{' || br[0] == ',' {
			return br[:1] + " "
		}
		return "; "
	})
	s = spaceRE.ReplaceAllString(s, " ")
	return strings.NewReplacer(", }", " }", "; }", " }").Replace(s)
}

func exported(name string) bool { return token.IsExported(name) }

func (m *mattn) items() []*item {
	var consts, vars, funcs, typs []*item
	members := map[string][]*item{} // type name -> its fields and methods

	for _, fd := range m.funcs {
		if it := m.funcItem(fd.decl, fd.file); it != nil {
			if it.recv != "" {
				members[it.recv] = append(members[it.recv], it)
			} else {
				funcs = append(funcs, it)
			}
		}
	}
	for name, ts := range m.types {
		if !exported(name) {
			continue
		}
		it, mem := m.typeItems(ts.decl, ts.file)
		typs = append(typs, it)
		members[name] = append(members[name], mem...)
	}
	for _, v := range m.vars {
		if exported(v.name) {
			vars = append(vars, m.varItem(v))
		}
	}
	for _, c := range m.order {
		if exported(c.name) {
			consts = append(consts, m.constItem(c))
		}
	}

	byName := func(s []*item) {
		sort.SliceStable(s, func(i, j int) bool { return s[i].name < s[j].name })
	}
	byName(funcs)
	byName(typs)
	// Constants and variables stay in source order: mattn groups them.
	out := append(append(consts, vars...), funcs...)
	for _, t := range typs {
		out = append(out, t)
		mem := members[t.name]
		byName(mem)
		out = append(out, mem...)
		delete(members, t.name)
	}
	for recv := range members { // methods of types declared under other tags
		log.Printf("warning: members of %s, whose declaration was not read, are skipped", recv)
	}
	return out
}

func (m *mattn) funcItem(fd *ast.FuncDecl, f *ast.File) *item {
	name := fd.Name.Name
	if !exported(name) || strings.HasPrefix(name, "AuthUser") || name == "Authenticate" || name == "AuthEnabled" {
		return nil
	}
	sig := *fd
	sig.Doc, sig.Body = nil, nil
	decl := oneLine(m.fset, &sig)
	w := m.writer(f)
	if fd.Type.TypeParams != nil {
		log.Printf("warning: generic %s is skipped", name)
		return nil
	}
	if fd.Recv == nil {
		typ := w.funcType("", fd.Type)
		if w.cgo {
			return w.item(name, "func", decl, "var _ = "+name+" // C types in the signature: existence only")
		}
		return w.item(name, "func", decl, fmt.Sprintf("var _ %s = %s", typ, name))
	}
	rt := fd.Recv.List[0].Type
	ptr := false
	if s, ok := rt.(*ast.StarExpr); ok {
		rt, ptr = s.X, true
	}
	id, ok := rt.(*ast.Ident) // generic receivers (T[P]) are not supported
	if !ok || !exported(id.Name) {
		return nil
	}
	recv, expr := id.Name, id.Name
	if ptr {
		recv, expr = "*"+id.Name, "(*"+id.Name+")"
	}
	w.refs[id.Name] = true
	typ := w.funcType(recv, fd.Type)
	var it *item
	if w.cgo {
		it = w.item(id.Name+"."+name, "method", decl, fmt.Sprintf("var _ = %s.%s // C types in the signature: existence only", expr, name))
	} else {
		it = w.item(id.Name+"."+name, "method", decl, fmt.Sprintf("var _ %s = %s.%s", typ, expr, name))
	}
	it.recv = id.Name
	return it
}

// typeItems returns the item for a type and those for its exported fields
// (struct) or methods (interface).
func (m *mattn) typeItems(ts *ast.TypeSpec, f *ast.File) (*item, []*item) {
	name := ts.Name.Name
	decl := "type " + name + " " + m.typeDecl(ts.Type)
	if ts.Assign != token.NoPos {
		decl = "type " + name + " = " + oneLine(m.fset, ts.Type)
	}
	var members []*item
	layout := true // false: a struct with unexported fields, not pinned whole
	switch t := ts.Type.(type) {
	case *ast.StructType:
		members, layout = m.fieldItems(name, t, f)
	case *ast.InterfaceType:
		members = m.interfaceItems(name, t, f)
	}

	w := m.writer(f)
	under := w.expr(ts.Type)
	switch {
	case ts.TypeParams != nil:
		return m.writer(f).item(name, "type", decl+" (generic: not checked)"), members
	case !layout || w.cgo && isStruct(ts.Type):
		// Unexported fields are ours to choose: require a struct type only.
		return m.writer(f).item(name, "type", decl, fmt.Sprintf("var _ = %s{}", name)), members
	case w.cgo:
		// e.g. type SQLiteContext C.sqlite3_context: only cgo code can name
		// the underlying type, so only existence can be checked here.
		return m.writer(f).item(name, "type", decl, fmt.Sprintf("var _ *%s // underlying C type: existence only", name)), members
	case ts.Assign != token.NoPos:
		return w.item(name, "type", decl, fmt.Sprintf("var _ *%s = (*%s)(nil)", under, name)), members
	}
	// Pointer conversion compiles only if the underlying types are identical:
	// same basic type, same fields in the same order, same method set.
	return w.item(name, "type", decl, fmt.Sprintf("var _ = (*%s)((*%s)(nil))", under, name)), members
}

// typeDecl prints a type on one line, as go doc does: unexported struct
// fields are not shown.
func (m *mattn) typeDecl(e ast.Expr) string {
	st, ok := e.(*ast.StructType)
	if !ok {
		return oneLine(m.fset, e)
	}
	var shown []string
	hidden := false
	for _, f := range st.Fields.List {
		var names []string
		for _, n := range f.Names {
			if exported(n.Name) {
				names = append(names, n.Name)
			} else {
				hidden = true
			}
		}
		switch {
		case len(f.Names) == 0: // embedded
			shown = append(shown, oneLine(m.fset, f.Type))
		case len(names) > 0:
			shown = append(shown, strings.Join(names, ", ")+" "+oneLine(m.fset, f.Type))
		}
	}
	if hidden {
		shown = append(shown, "/* unexported fields */")
	}
	if len(shown) == 0 {
		return "struct{}"
	}
	return "struct { " + strings.Join(shown, "; ") + " }"
}

func isStruct(e ast.Expr) bool {
	_, ok := e.(*ast.StructType)
	return ok
}

// fieldItems returns one item per exported field, and whether every field
// is exported.
func (m *mattn) fieldItems(name string, t *ast.StructType, f *ast.File) ([]*item, bool) {
	var members []*item
	allExported := true
	for _, fld := range t.Fields.List {
		names := fld.Names
		if len(names) == 0 { // embedded: the field is named after its type
			e := fld.Type
			if s, ok := e.(*ast.StarExpr); ok {
				e = s.X
			}
			if s, ok := e.(*ast.SelectorExpr); ok {
				e = s.Sel
			}
			if id, ok := e.(*ast.Ident); ok {
				names = []*ast.Ident{id}
			}
		}
		for _, n := range names {
			if !exported(n.Name) {
				allExported = false
				continue
			}
			w := m.writer(f)
			w.refs[name] = true
			ft := w.expr(fld.Type)
			check := fmt.Sprintf("func _(v *%s) { var _ *%s = &v.%s }", name, ft, n.Name)
			if w.cgo {
				check = fmt.Sprintf("func _(v *%s) { _ = v.%s } // C type: existence only", name, n.Name)
			}
			it := w.item(name+"."+n.Name, "field", "field "+n.Name+" "+oneLine(m.fset, fld.Type), check)
			it.recv = name
			members = append(members, it)
		}
	}
	return members, allExported
}

// interfaceItems returns one item per exported method declared in the
// interface; embedded interfaces are covered by the type's own check.
func (m *mattn) interfaceItems(name string, t *ast.InterfaceType, f *ast.File) []*item {
	var members []*item
	for _, meth := range t.Methods.List {
		ft, ok := meth.Type.(*ast.FuncType)
		if !ok || len(meth.Names) == 0 || !exported(meth.Names[0].Name) {
			continue
		}
		mn := meth.Names[0].Name
		w := m.writer(f)
		w.refs[name] = true
		check := fmt.Sprintf("var _ %s = %s.%s", w.funcType(name, ft), name, mn)
		if w.cgo {
			check = fmt.Sprintf("var _ = %s.%s // C types in the signature: existence only", name, mn)
		}
		it := w.item(name+"."+mn, "method", "interface method "+mn+strings.TrimPrefix(oneLine(m.fset, ft), "func"), check)
		it.recv = name
		members = append(members, it)
	}
	return members
}

func (m *mattn) varItem(v *valueDecl) *item {
	decl := "var " + v.name
	if v.typ != nil {
		decl += " " + oneLine(m.fset, v.typ)
	}
	if v.val != nil {
		decl += " = " + oneLine(m.fset, v.val)
	}
	typ, f := m.varType(v.typ, v.val, v.file)
	if typ != nil {
		w := m.writer(f)
		ts := w.expr(typ)
		if !w.cgo {
			// &Name pins a variable (not a constant or function) of exactly ts.
			return w.item(v.name, "var", decl, fmt.Sprintf("var _ *%s = &%s", ts, v.name))
		}
	}
	return m.writer(v.file).item(v.name, "var", decl, fmt.Sprintf("var _ = &%s // type not inferred: existence only", v.name))
}

// varType infers a variable's type from its declaration the way mattn writes
// them: an explicit type, T(x) conversions, composite literals and calls of
// functions or methods with one result (ErrIoErr.Extend(1)).
func (m *mattn) varType(typ, val ast.Expr, f *ast.File) (ast.Expr, *ast.File) {
	if typ != nil {
		return typ, f
	}
	switch e := val.(type) {
	case *ast.CompositeLit:
		if e.Type != nil {
			return e.Type, f
		}
	case *ast.CallExpr:
		switch fn := e.Fun.(type) {
		case *ast.Ident:
			if _, ok := m.types[fn.Name]; ok || isBasic(fn.Name) {
				return fn, f
			}
			for _, fd := range m.funcs {
				if fd.decl.Recv == nil && fd.decl.Name.Name == fn.Name {
					return oneResult(fd.decl), fd.file
				}
			}
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok {
				for _, v := range m.vars {
					if v.name != x.Name {
						continue
					}
					rt, _ := m.varType(v.typ, v.val, v.file)
					if id, ok := rt.(*ast.Ident); ok {
						for _, fd := range m.funcs {
							if fd.decl.Recv != nil && fd.decl.Name.Name == fn.Sel.Name && recvName(fd.decl) == id.Name {
								return oneResult(fd.decl), fd.file
							}
						}
					}
				}
			}
		}
	}
	return nil, f
}

func oneResult(fd *ast.FuncDecl) ast.Expr {
	r := fd.Type.Results
	if r == nil || len(r.List) != 1 || len(r.List[0].Names) > 1 {
		return nil
	}
	return r.List[0].Type
}

func recvName(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func isBasic(name string) bool {
	o := types.Universe.Lookup(name)
	if o == nil {
		return false
	}
	_, ok := o.(*types.TypeName)
	return ok
}

// ---------------------------------------------------------------------------
// Constants: the value is computed from mattn's source and sqlite3-binding.h.

type cval struct {
	v     constant.Value
	typ   ast.Expr // nil: untyped
	tfile *ast.File
	cType bool // a C type: cannot be named in a test file
}

func (m *mattn) constItem(c *valueDecl) *item {
	decl := "const " + c.name
	if c.typ != nil {
		decl += " " + oneLine(m.fset, c.typ)
	}
	if c.val != nil {
		decl += " = " + oneLine(m.fset, c.val)
	}
	if !isLiteral(c.val) {
		decl += " (= %s)" // the computed value, filled in below
	}
	w := m.writer(c.file)
	cv, err := m.evalConst(c.name)
	if err != nil {
		log.Printf("warning: value of %s not computed: %v", c.name, err)
		return w.item(c.name, "const", decl+" (value not computed)", "const _ = "+c.name)
	}
	decl = strings.Replace(decl, "%s", cv.v.ExactString(), 1)

	// One function per constant: const c = Name requires a constant.
	body := []string{"const c = " + c.name}
	// Value: a constant index into [1]T must be exactly 0 (the stringer idiom),
	// so c-value compiles only when the values are equal.
	switch cv.v.Kind() {
	case constant.Int:
		body = append(body, fmt.Sprintf("_ = [1]struct{}{}[c-%s]", paren(cv.v.ExactString())))
	case constant.Unknown:
	default: // duplicate map keys do not compile: a false comparison collides with false
		body = append(body, fmt.Sprintf("_ = map[bool]int{false: 0, c == %s: 1}", cv.v.ExactString()))
	}
	// Type: v := c takes the constant's type, or its default type if untyped.
	comment := ""
	switch {
	case cv.cType:
		comment = " // of a C type: value only"
	case cv.typ != nil:
		tw := m.writer(cv.tfile)
		ts := tw.expr(cv.typ)
		for k, v := range tw.refs {
			w.refs[k] = v
		}
		for k, v := range tw.imports {
			w.imports[k] = v
		}
		body = append(body, "v := c", "var _ "+ts+" = v")
	default:
		def := map[constant.Kind]string{constant.Int: "int", constant.Float: "float64", constant.String: "string", constant.Bool: "bool"}[cv.v.Kind()]
		if def != "" {
			body = append(body, "v := c", "var _ "+def+" = v")
		}
		if def == "int" { // a typed integer would not be assignable to float64
			body = append(body, "var _ float64 = c")
		}
		comment = " // untyped"
	}
	return w.item(c.name, "const", decl, "func _() { "+strings.Join(body, "; ")+" }"+comment)
}

func isLiteral(e ast.Expr) bool {
	_, ok := e.(*ast.BasicLit)
	return ok
}

func paren(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

func (m *mattn) evalConst(name string) (cval, error) {
	c := m.consts[name]
	if c == nil || c.val == nil {
		return cval{}, fmt.Errorf("no value for %s", name)
	}
	if m.evaling[name] {
		return cval{}, fmt.Errorf("cycle at %s", name)
	}
	m.evaling[name] = true
	defer delete(m.evaling, name)
	v, err := m.eval(c.val, c.file, c.iota, m.goIdent)
	if err != nil {
		return v, err
	}
	if c.typ != nil { // a declared type wins over the value's
		w := m.writer(c.file)
		w.expr(c.typ)
		v.typ, v.tfile, v.cType = c.typ, c.file, w.cgo
	}
	return v, nil
}

func (m *mattn) goIdent(name string, iota int) (cval, error) {
	switch name {
	case "iota":
		return cval{v: constant.MakeInt64(int64(iota))}, nil
	case "true", "false":
		return cval{v: constant.MakeBool(name == "true")}, nil
	}
	return m.evalConst(name)
}

func (m *mattn) macroIdent(name string, _ int) (cval, error) {
	body, ok := m.macros[name]
	if !ok {
		return cval{}, fmt.Errorf("macro %s not found in sqlite3-binding.h", name)
	}
	if m.evaling["#"+name] {
		return cval{}, fmt.Errorf("cycle at macro %s", name)
	}
	m.evaling["#"+name] = true
	defer delete(m.evaling, "#"+name)
	e, err := parser.ParseExpr(body)
	if err != nil {
		return cval{}, fmt.Errorf("macro %s = %s: %v", name, body, err)
	}
	v, err := m.eval(e, nil, 0, m.macroIdent)
	v.typ, v.cType = nil, false // cgo turns integer macros into untyped constants
	return v, err
}

func (m *mattn) eval(e ast.Expr, f *ast.File, iota int, ident func(string, int) (cval, error)) (cval, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return cval{}, fmt.Errorf("bad literal %s", e.Value)
		}
		return cval{v: v}, nil
	case *ast.Ident:
		return ident(e.Name, iota)
	case *ast.ParenExpr:
		return m.eval(e.X, f, iota, ident)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "C" {
			return m.macroIdent(e.Sel.Name, 0)
		}
	case *ast.UnaryExpr:
		x, err := m.eval(e.X, f, iota, ident)
		if err != nil {
			return x, err
		}
		x.v = constant.UnaryOp(e.Op, x.v, 0)
		return x, nil
	case *ast.BinaryExpr:
		x, err := m.eval(e.X, f, iota, ident)
		if err != nil {
			return x, err
		}
		y, err := m.eval(e.Y, f, iota, ident)
		if err != nil {
			return y, err
		}
		switch e.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(y.v)
			if !ok {
				return x, fmt.Errorf("bad shift count")
			}
			x.v = constant.Shift(x.v, e.Op, uint(s))
			return x, nil
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return cval{v: constant.MakeBool(constant.Compare(x.v, e.Op, y.v))}, nil
		}
		op := e.Op
		if op == token.QUO && x.v.Kind() == constant.Int && y.v.Kind() == constant.Int {
			op = token.QUO_ASSIGN // integer division, as go/constant spells it
		}
		r := x
		if r.typ == nil && !r.cType {
			r = y
		}
		r.v = constant.BinaryOp(x.v, op, y.v)
		return r, nil
	case *ast.CallExpr: // a conversion T(x): the value stays, the type is T
		if len(e.Args) != 1 {
			break
		}
		x, err := m.eval(e.Args[0], f, iota, ident)
		if err != nil {
			return x, err
		}
		w := m.writer(f)
		w.expr(e.Fun)
		return cval{v: x.v, typ: e.Fun, tfile: f, cType: w.cgo}, nil
	}
	return cval{}, fmt.Errorf("cannot evaluate %T", e)
}

// ---------------------------------------------------------------------------
// Our package, type-checked with go/types.

type ours struct {
	fset  *token.FileSet
	files []*ast.File
	pkg   *types.Package
	imp   types.Importer
}

func loadOurs(dir string) (*ours, error) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", true
	o := &ours{fset: token.NewFileSet()}
	o.imp = importer.ForCompiler(o.fset, "source", nil)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(o.fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		o.files = append(o.files, f)
	}
	o.check(nil)
	return o, nil
}

// check type-checks our files plus extra and returns the errors located in
// extra. import "C" is faked: errors about C names are dropped by go/types.
func (o *ours) check(extra *ast.File) []types.Error {
	files := o.files
	if extra != nil {
		files = append(append([]*ast.File(nil), files...), extra)
	}
	var errs []types.Error
	conf := types.Config{
		FakeImportC: true,
		Importer:    o.imp,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) && extra != nil && o.fset.File(te.Pos) == o.fset.File(extra.Pos()) {
				errs = append(errs, te)
			}
		},
	}
	o.pkg, _ = conf.Check("github.com/fastsqlite/sqlite3", o.fset, files, nil)
	return errs
}

// lookup finds our object for a mattn item, by name.
func (o *ours) lookup(it *item) types.Object {
	sc := o.pkg.Scope()
	if it.recv == "" {
		return sc.Lookup(it.name)
	}
	tn, ok := sc.Lookup(it.recv).(*types.TypeName)
	if !ok {
		return nil
	}
	var t types.Type = tn.Type()
	if !types.IsInterface(t) {
		t = types.NewPointer(t)
	}
	obj, _, _ := types.LookupFieldOrMethod(t, false, o.pkg, strings.TrimPrefix(it.name, it.recv+"."))
	return obj
}

// ---------------------------------------------------------------------------
// Classification and output.

type result struct {
	test    []byte
	checked []*item
	missing []*item
	blocked []*item          // exported, but the check names a type we lack
	differs map[*item]string // exported with another type: why
	order   []*item          // all items in output order
	ourDecl map[*item]string // our declaration, for the report
	needs   map[*item][]string
}

// generated is a rendered test file and the item behind each of its lines.
type generated struct {
	src  []byte
	line map[int]*item
}

// generate renders and gofmts the test file, then maps its lines to items:
// every check is exactly one top-level declaration, in item order.
func generate(items []*item, cmdline string) generated {
	src, err := format.Source(render(items, cmdline))
	if err != nil {
		log.Fatalf("generated file: %v", err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, testFile, src, 0)
	if err != nil {
		log.Fatalf("generated file: %v", err)
	}
	g := generated{src: src, line: map[int]*item{}}
	var decls []ast.Decl
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); !ok || gd.Tok != token.IMPORT {
			decls = append(decls, d)
		}
	}
	for _, it := range items {
		for range it.checks {
			d := decls[0]
			decls = decls[1:]
			for l := fset.Position(d.Pos()).Line; l <= fset.Position(d.End()).Line; l++ {
				g.line[l] = it
			}
		}
	}
	return g
}

// compileError is one error in the generated file: its line and message.
type compileError struct {
	line int
	msg  string
}

// prune drops, round after round, the items whose checks do not compile, as
// reported by compile (nil errors: everything compiles, ok false: cannot tell).
func prune(cands []*item, cmdline string, r *result, compile func(generated) ([]compileError, bool)) []*item {
	for round := 0; round < 50; round++ {
		g := generate(cands, cmdline)
		errs, ok := compile(g)
		if !ok || len(errs) == 0 {
			return cands
		}
		bad := map[*item]bool{}
		for _, e := range errs {
			it := g.line[e.line]
			if it == nil {
				log.Fatalf("%s:%d: error outside any check: %s", testFile, e.line, e.msg)
			}
			if !bad[it] {
				r.differs[it] = e.msg
			}
			bad[it] = true
		}
		var keep []*item
		for _, it := range cands {
			if !bad[it] {
				keep = append(keep, it)
			}
		}
		cands = keep
	}
	log.Fatal("checks still fail after 50 rounds")
	return nil
}

func classify(items []*item, o *ours, all bool, vet bool, vetTags, cmdline string) *result {
	r := &result{differs: map[*item]string{}, ourDecl: map[*item]string{}, needs: map[*item][]string{}, order: items}
	var cands []*item // exported by us, every name in the check too
	for _, it := range items {
		obj := o.lookup(it)
		if obj == nil {
			r.missing = append(r.missing, it)
			continue
		}
		r.ourDecl[it] = types.ObjectString(obj, types.RelativeTo(o.pkg))
		if obj.Type() == types.Typ[types.Invalid] { // go/types fakes import "C"
			r.ourDecl[it] = strings.TrimSuffix(r.ourDecl[it], "invalid type") + "(a C type)"
		}
		var lack []string
		for ref := range it.refs {
			if o.pkg.Scope().Lookup(ref) == nil {
				lack = append(lack, ref)
			}
		}
		sort.Strings(lack)
		if len(lack) > 0 {
			r.needs[it] = lack
			r.blocked = append(r.blocked, it)
			continue
		}
		cands = append(cands, it)
	}

	// First go/types, fast but blind to C: with import "C" faked, a
	// constant of ours that comes from a C macro has no type nor value.
	cands = prune(cands, cmdline, r, func(g generated) ([]compileError, bool) {
		f, err := parser.ParseFile(o.fset, filepath.Join("<generated>", testFile), g.src, 0)
		if err != nil {
			log.Fatal(err)
		}
		var errs []compileError
		for _, e := range o.check(f) {
			errs = append(errs, compileError{o.fset.Position(e.Pos).Line, e.Msg})
		}
		return errs, true
	})
	// Then the real compiler, through go vet, which runs cgo.
	if vet {
		cands = prune(cands, cmdline, r, func(g generated) ([]compileError, bool) {
			return goVet(g.src, vetTags)
		})
	}
	r.checked = cands
	if all {
		cands = items
	}
	r.test = generate(cands, cmdline).src
	return r
}

var vetErrRE = regexp.MustCompile(`(?m)\b` + regexp.QuoteMeta(testFile) + `:(\d+):\d+: (.*)$`)

// goVet vets our package with src as its only test file, in a scratch
// directory of symlinks, so that other test files (possibly mid-edit) do not
// get in the way. ok is false when the failure is not in src.
func goVet(src []byte, tags string) (errs []compileError, ok bool) {
	tmp, err := os.MkdirTemp("", "apicheck-vet")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ents, err := os.ReadDir(".")
	if err != nil {
		log.Fatal(err)
	}
	wd, _ := os.Getwd()
	for _, e := range ents {
		n := e.Name()
		if n == ".git" || strings.HasSuffix(n, "_test.go") || n == missingFile {
			continue
		}
		if err := os.Symlink(filepath.Join(wd, n), filepath.Join(tmp, n)); err != nil {
			log.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, testFile), src, 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "-tags", tags, ".")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil, true
	}
	for _, mm := range vetErrRE.FindAllStringSubmatch(string(out), -1) {
		var line int
		fmt.Sscan(mm[1], &line)
		errs = append(errs, compileError{line, mm[2]})
	}
	if len(errs) == 0 {
		log.Printf("warning: go vet failed outside %s, the checks are verified by go/types only:\n%s", testFile, out)
		return nil, false
	}
	return errs, true
}

const legend = `// Each check compiles only if this package declares the identifier with
// mattn's exact type:
//
//	var _ func(*T, A) R = (*T).M          method M with pointer receiver
//	var _ = (*U)((*T)(nil))               T's underlying type is U: same fields
//	                                      in the same order, same method set
//	func _(v *T) { var _ *F = &v.Field }  exported field of type F
//	var _ *T = &Name                      a variable of type T
//	func _() {
//		const c = Name                    a constant,
//		_ = [1]struct{}{}[c-V]            whose value is V (index must be 0),
//		v := c; var _ T = v               of type T (untyped: default type T,
//		var _ float64 = c                 and not a typed integer)
//	}
//
// A compile error here means our API drifted from mattn's. Identifiers whose
// type Go cannot name outside cgo (C types) are checked for existence only.
`

// render assembles the test file (not yet gofmt-ed).
func render(items []*item, cmdline string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./scripts/apicheck; DO NOT EDIT.\n\n//go:build cgo\n\n")
	fmt.Fprintf(&b, "// The exported API of github.com/mattn/go-sqlite3, as compile-time checks.\n")
	fmt.Fprintf(&b, "// Refresh (also for a new mattn version) with:\n//\n//\t%s\n//\n", cmdline)
	fmt.Fprintf(&b, "// Identifiers we do not export yet are listed in %s.\n\npackage sqlite3\n\n", missingFile)

	imps := map[string]string{}
	for _, it := range items {
		for p, n := range it.imports {
			imps[p] = n
		}
	}
	if len(imps) > 0 {
		var paths []string
		for p := range imps {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		b.WriteString("import (\n")
		for _, p := range paths {
			if def := p[strings.LastIndex(p, "/")+1:]; imps[p] != def {
				fmt.Fprintf(&b, "\t%s %q\n", imps[p], p)
			} else {
				fmt.Fprintf(&b, "\t%q\n", p)
			}
		}
		b.WriteString(")\n\n")
	}
	b.WriteString(legend)

	section := ""
	for _, it := range items {
		sec := map[string]string{"const": "Constants", "var": "Variables", "func": "Functions"}[it.kind]
		if sec == "" {
			sec = "Types, their fields and methods"
		}
		if sec != section {
			section = sec
			fmt.Fprintf(&b, "\n// %s\n", sec)
		}
		fmt.Fprintf(&b, "\n// %s\n", it.decl)
		for _, c := range it.checks {
			b.WriteString(c + "\n")
		}
	}
	return b.Bytes()
}

func missingText(r *result, version string, tags []string, cmdline string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Code generated by go run ./scripts/apicheck; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "# github.com/mattn/go-sqlite3 %s API (cgo, linux/amd64, tags %s; user\n", version, strings.Join(tags, ","))
	fmt.Fprintf(&b, "# authentication excluded) that %s does not check yet. Refresh with:\n#\n#\t%s\n", testFile, cmdline)
	if len(r.missing)+len(r.blocked)+len(r.differs) == 0 {
		fmt.Fprintf(&b, "\nNothing is missing: every mattn identifier is exported with mattn's type.\n")
		return b.Bytes()
	}
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	section := func(title string, list []*item, extra func(*item) string) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(tw, "\n## %s (%d)\n\n", title, len(list))
		for _, it := range list {
			fmt.Fprintf(tw, "%s\t%s%s\n", it.name, it.decl, extra(it))
		}
		tw.Flush()
	}
	none := func(*item) string { return "" }
	section("Missing: mattn exports these, we do not", r.missing, none)
	section("Exported, but the check names identifiers we lack", r.blocked, func(it *item) string {
		return "\n\tneeds: " + strings.Join(r.needs[it], ", ")
	})
	var diff []*item
	for _, it := range r.order {
		if _, ok := r.differs[it]; ok {
			diff = append(diff, it)
		}
	}
	section("Signature differs: exported with another type, check left out", diff, func(it *item) string {
		return "\n\tours: " + r.ourDecl[it] + "\n\terror: " + r.differs[it]
	})
	return b.Bytes()
}
