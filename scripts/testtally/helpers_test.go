package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestDriverHelpersDoNotLog keeps the driver's tests within what the tally
// can read: a t.Log inside a t.Helper function prints the caller's line,
// which is no Log call, so under Wine (where every test with a t.TempDir
// fails its cleanup, an artifact) the log line would count as a real
// failure. Helpers report through Error and Fatal; logs belong in the
// function that is not a helper.
func TestDriverHelpersDoNotLog(t *testing.T) {
	files, err := filepath.Glob("../../*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the driver's test files: %v (%d found)", err, len(files))
	}
	fset := token.NewFileSet()
	helpers := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body = fn.Body
			case *ast.FuncLit:
				body = fn.Body
			}
			if body == nil {
				return true
			}
			calls := ownCalls(body)
			if !calls["Helper"].IsValid() {
				return true
			}
			helpers++
			for _, m := range []string{"Log", "Logf"} {
				if pos := calls[m]; pos.IsValid() {
					t.Errorf("%s: t.%s in a t.Helper function: the tally would take its line for a failure", fset.Position(pos), m)
				}
			}
			return true
		})
	}
	if helpers == 0 {
		t.Fatal("no t.Helper function found: the scan reads nothing")
	}
}

// ownCalls returns the position of the first call of each method name made
// in body itself, not in the function literals it holds.
func ownCalls(body *ast.BlockStmt) map[string]token.Pos {
	calls := map[string]token.Pos{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if _, seen := calls[sel.Sel.Name]; !seen {
					calls[sel.Sel.Name] = n.Pos()
				}
			}
		}
		return true
	})
	return calls
}
