//go:build cgo

package sqlite3

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// The rule of lifetime.go, checked on the source: every function that calls
// a cgo wrapper of the connection (a function of a cgo file, bridge*.go or
// bind.go, that calls into C) takes the connection's lock itself, or is called only from
// functions that hold it. Functions are matched by name (methods by their
// name alone), which over-approximates the callers: a name shared by a
// function that does not hold the lock makes the check ask for it.
func TestEveryCCallHoldsTheLock(t *testing.T) {
	fset := token.NewFileSet()
	names, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		file  string
		decl  *ast.FuncDecl
		calls map[string]bool // names called: f(...) and x.f(...)
		locks bool
	}
	funcs := map[string][]*fn{}
	wrappers := map[string]bool{}
	for _, e := range names {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Comments) > 0 && strings.Contains(f.Comments[0].Text(), "!cgo") {
			continue // CGO_ENABLED=0 stand-ins
		}
		cgo := false
		for _, imp := range f.Imports {
			cgo = cgo || imp.Path.Value == `"C"`
		}
		for _, d := range f.Decls {
			decl, ok := d.(*ast.FuncDecl)
			if !ok || decl.Body == nil {
				continue
			}
			x := &fn{file: name, decl: decl, calls: map[string]bool{}}
			if decl.Doc != nil && strings.Contains(decl.Doc.Text(), "export ") || strings.HasPrefix(decl.Name.Name, "go") && cgo {
				// A Go function C calls: it runs inside a step (or a
				// prepare, a close) of its connection, under the lock of
				// the call that entered C.
				x.locks = true
			}
			callsC := false
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch f := call.Fun.(type) {
				case *ast.Ident:
					x.calls[f.Name] = true
					x.locks = x.locks || f.Name == "lockBoth"
				case *ast.SelectorExpr:
					if id, ok := f.X.(*ast.Ident); ok && id.Name == "C" {
						callsC = true
					}
					x.calls[f.Sel.Name] = true
					x.locks = x.locks || f.Sel.Name == "lock" || f.Sel.Name == "TryLock" && strings.HasSuffix(exprString(f.X), ".mu")
				}
				return true
			})
			if cgo && callsC && decl.Recv == nil && !lockFree[decl.Name.Name] {
				wrappers[decl.Name.Name] = true
			}
			funcs[decl.Name.Name] = append(funcs[decl.Name.Name], x)
		}
	}
	// held reports whether every call of name happens with the lock held.
	memo := map[string]bool{}
	var held func(name string, seen map[string]bool) bool
	held = func(name string, seen map[string]bool) bool {
		if v, ok := memo[name]; ok {
			return v
		}
		if seen[name] {
			return true // a cycle adds no caller of its own
		}
		seen[name] = true
		callers := 0
		ok := true
		for caller, xs := range funcs {
			for _, x := range xs {
				if !x.calls[name] || caller == name && x.decl.Name.Name == name {
					continue
				}
				callers++
				if !x.locks && !lockedByContract[caller] && !held(caller, seen) {
					ok = false
				}
			}
		}
		if callers == 0 {
			ok = false // an entry point (exported, or a callback from C): it must lock itself
		}
		memo[name] = ok
		return ok
	}
	var bad []string
	for name, xs := range funcs {
		for _, x := range xs {
			if x.locks || lockedByContract[name] || wrappers[name] {
				continue
			}
			for w := range x.calls {
				if !wrappers[w] {
					continue
				}
				if !held(name, map[string]bool{}) {
					bad = append(bad, x.file+": "+name+" calls "+w)
				}
				break
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s without the connection's lock (lifetime.go), and not only from functions that hold it", b)
	}
}

// exprString renders a selector's receiver for the TryLock test.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return ""
}

// lockFree are the wrappers that touch no connection: process-wide calls,
// C memory of Go's own, and a statement's own parameter buffers.
var lockFree = map[string]bool{
	"cStrings": true, "cMalloc": true, "cMallocString": true, "cFree": true,
	"cAllocWord": true, "cFreeWord": true, "nestedHere": true, // nestedHere is how lock asks
	"cErrstr": true, "cVersion": true, "enableMemStats": true, "memoryUsed": true,
	"hardHeapLimit": true, "stepsAheadBuilt": true,
	"cDirectNew": true, "cDirectFree": true, "cDirectReserve": true, // a DirectStmt's own buffers
	"cChangesetInvert": true, "cChangesetConcat": true, // changesets are bytes, not a connection
	"cChangesStart": true, "cChangesNext": true, "cChangesFinish": true,
	"takeBytes": true, "cStringReuse": true, // copies of C bytes
}

// lockedByContract are functions that run with the lock held although no
// caller in this package shows it: callbacks from C, which run inside a step
// of the connection (the hook's, function's or virtual table's own
// connection), and the opening of a connection, which no other goroutine can
// reach yet.
var lockedByContract = map[string]bool{
	"open": true, // SQLiteDriver.open: before the connection is handed out
	// connHooks.release runs from connCore.closeLocked (SQLiteConn.onClose),
	// under the lock; the name is shared with other release methods.
	"release": true,
	// SQLitePreUpdateData's methods are valid only inside the pre-update
	// hook, which runs inside a step of its connection.
	"Count": true, "Depth": true, "Old": true, "New": true,
}
