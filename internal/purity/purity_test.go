package purity

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// builds are the platforms the core is checked on: natively, and the
// WebAssembly build, whose *_wasm.go and *_js.go files differ.
var builds = [][]string{{}, {"GOOS=js", "GOARCH=wasm"}}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// corePackages lists the module's core packages as a build sees them.
func corePackages(t *testing.T, env []string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", Module+"/...")
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", env, err)
	}
	var core []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, Module), "/")
		if !IsDriver(rel) {
			core = append(core, p)
		}
	}
	if len(core) < 20 {
		t.Fatalf("%v: only %d core packages: the rule or go list is wrong", env, len(core))
	}
	return core
}

func TestCoreImportsNoIOAndNoDriver(t *testing.T) {
	for _, env := range builds {
		for _, p := range corePackages(t, env) {
			for _, imp := range p.Imports {
				if ForbiddenImports[imp] {
					t.Errorf("%v: core package %s imports %s", env, p.ImportPath, imp)
				}
				if rel, ok := strings.CutPrefix(imp, Module+"/"); ok && IsDriver(rel) {
					t.Errorf("%v: core package %s imports the driver %s", env, p.ImportPath, imp)
				}
			}
		}
	}
}

// TestCoreReadsNoClock parses every file each build includes and finds the
// clock's functions named anywhere: called, or passed as a value.
func TestCoreReadsNoClock(t *testing.T) {
	for _, env := range builds {
		for _, p := range corePackages(t, env) {
			for _, name := range p.GoFiles {
				file := filepath.Join(p.Dir, name)
				for _, v := range clockUses(t, file) {
					t.Errorf("%v: %s reads the clock: %s", env, file, v)
				}
			}
		}
	}
}

// clockUses are the places in file that name one of clockReads through
// its import of package time (whatever the import's name).
func clockUses(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	timeName := ""
	for _, im := range f.Imports {
		if path, _ := strconv.Unquote(im.Path.Value); path == "time" {
			timeName = "time"
			if im.Name != nil {
				timeName = im.Name.Name
			}
		}
	}
	if timeName == "" {
		return nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName && ClockReads[sel.Sel.Name] {
			out = append(out, fset.Position(sel.Pos()).String()+": "+timeName+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// TestCoreGoroutines: a go statement in the core is allowed only in a
// package that talks to the Store, where goroutines overlap requests (the
// commit's uploads, manifest reads): waiting on storage, not computing in
// parallel. The formats and planners are plain computation, and in the
// WebAssembly build every goroutine shares one thread anyway.
func TestCoreGoroutines(t *testing.T) {
	for _, env := range builds {
		for _, p := range corePackages(t, env) {
			storeUser := p.ImportPath == Module+"/store"
			for _, imp := range p.Imports {
				storeUser = storeUser || imp == Module+"/store"
			}
			if storeUser {
				continue
			}
			for _, name := range p.GoFiles {
				file := filepath.Join(p.Dir, name)
				for _, at := range goStatements(t, file) {
					t.Errorf("%v: %s starts a goroutine in a package that does no I/O: %s", env, p.ImportPath, at)
				}
			}
		}
	}
}

func goStatements(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			out = append(out, fset.Position(g.Pos()).String())
		}
		return true
	})
	return out
}

// TestRuleCatches: the checks find what they look for (a check that finds
// nothing on the tree must be able to find something).
func TestRuleCatches(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.go")
	src := "package x\n\nimport clock \"time\"\n\nvar now = clock.Now\n\nfunc f() { go g(); _ = clock.Since }\n\nfunc g() {}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := clockUses(t, file); len(got) != 2 {
		t.Errorf("clock uses: got %v, want clock.Now and clock.Since", got)
	}
	if got := goStatements(t, file); len(got) != 1 {
		t.Errorf("go statements: got %v, want 1", got)
	}
	for rel, want := range map[string]bool{
		"table": false, "datafile": false, "store": false, "internal/core/lz4": false, "parquet/internal/thrift": false,
		"store/s3store": true, "cmd/timelake": true, "wasm": true, "internal/testenv": true, "restcatalog/nethttp": true, "bench/native": true,
	} {
		if got := IsDriver(rel); got != want {
			t.Errorf("IsDriver(%q) = %v, want %v", rel, got, want)
		}
	}
}
