package parquet

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoIO: the package is part of the core, which does no I/O and reads no
// clock (it also builds for js/wasm).
func TestNoIO(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("internal/*/*.go")
	forbidden := []string{"os", "net", "net/http", "time", "syscall", "math/rand", "math/rand/v2", "io/ioutil", "os/exec"}
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if p == bad {
					t.Errorf("%s imports %q", f, p)
				}
			}
		}
	}
}
