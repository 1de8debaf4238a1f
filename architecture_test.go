package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/noora-hooks/noora-hooks"

// imports maps each package directory (relative, "." for the root) to what
// its non-test files import.
func imports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[dir][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOnlyTheExecutorStartsProcesses(t *testing.T) {
	// bench and e2e time raw spawns and drive real agents: dev tools, not
	// part of noora-hooks.
	allowed := map[string]bool{"internal/runner": true, "bench": true, "e2e": true}
	for dir, imps := range imports(t) {
		if imps["os/exec"] && !allowed[dir] {
			t.Errorf("%s imports os/exec: every child process goes through internal/runner", dir)
		}
	}
}

func TestTheInnermostPackagesImportNothingOfOurs(t *testing.T) {
	all := imports(t)
	for _, dir := range []string{"internal/runner", "protocol"} {
		for p := range all[dir] {
			if strings.HasPrefix(p, module+"/") {
				t.Errorf("%s imports %s; it must import nothing of ours", dir, p)
			}
		}
	}
}

func TestThePublicPackagesExposeNoInternalOnesButTheEngine(t *testing.T) {
	all := imports(t)
	public := map[string]string{ // what each public package may import of ours
		"protocol":     "",
		"plugins/wire": module + "/protocol",
		"client":       module + "/protocol " + module + "/internal/paths",
		"noorahooks":   module + "/internal/engine " + module + "/protocol",
	}
	for dir, may := range public {
		for p := range all[dir] {
			if strings.HasPrefix(p, module+"/") && !strings.Contains(" "+may+" ", " "+p+" ") {
				t.Errorf("public package %s imports %s", dir, p)
			}
		}
	}
}

// Every exec runs the init of every package linked into the binary: a
// regular expression compiled at package level is paid for by each one,
// whether it is used or not. They compile on first use (internal/lazy).
func TestNoRegexpCompiledAtStart(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || path == "bench" || path == "e2e") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			ast.Inspect(gen, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at init
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
						t.Errorf("%s: a package-level regexp.%s runs at every start; use lazy.Regexp", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
