// Command corepkgs prints the module's core packages (package purity's
// rule), one import path a line, as the build of GOOS and GOARCH sees them:
//
//	GOOS=js GOARCH=wasm go build $(go run ./internal/purity/corepkgs)
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/timelake/timelake/internal/purity"
)

func main() {
	out, err := exec.Command("go", "list", purity.Module+"/...").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "corepkgs: go list:", err)
		os.Exit(1)
	}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, purity.Module), "/")
		if !purity.IsDriver(rel) {
			fmt.Println(p)
		}
	}
}
