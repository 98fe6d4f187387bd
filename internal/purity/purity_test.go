// Package purity holds the test that keeps the core free of I/O: the core
// packages may not import the operating system, the network or global
// randomness, nor read the wall clock. Drivers (store drivers, the CLI, the
// WASM bridge) are where those belong.
package purity

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// core lists the packages that must stay pure (relative to the module root).
var core = []string{
	"schema", "schema/evolve", "rows", "parquet", "parquet/internal/thrift", "avro", "iceberg",
	"lastvalue", "puffin", "scan", "commit", "table", "store", "maintenance", "arrowipc", "location", "restcatalog", "rollup",
	"snapshot", // the builder of a table's next version
}

var forbiddenImports = map[string]bool{
	"os": true, "os/exec": true, "os/signal": true, "net": true, "net/http": true, "syscall": true,
	"io/ioutil": true, "io/fs": true, "path/filepath": true, "crypto/rand": true, "math/rand": true,
	"math/rand/v2": true, "syscall/js": true, "runtime/debug": true,
}

// clockCall finds reads of the wall clock and timers.
var clockCall = regexp.MustCompile(`\btime\.(Now|Since|Until|Sleep|After|AfterFunc|NewTimer|NewTicker|Tick)\(`)

func TestCoreImportsNoIO(t *testing.T) {
	for _, pkg := range core {
		out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", "github.com/timelake/timelake/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, imp := range strings.Fields(string(out)) {
			if forbiddenImports[imp] {
				t.Errorf("core package %s imports %s", pkg, imp)
			}
		}
	}
}

func TestCoreReadsNoClock(t *testing.T) {
	root := "../.."
	for _, pkg := range core {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if clockCall.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d reads the clock: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
