// Package purity keeps the core free of I/O, by a rule rather than a list.
//
// The module splits in two. Drivers do the I/O, read the clock, or exist to
// test and measure: the CLI (cmd/), the WebAssembly bridge (wasm/), the
// stores (store/*; the Store interface itself is core), transports over
// net/http (*/nethttp), the harnesses of internal/ (all but internal/core/),
// bench/, examples/ and interop/. Everything else is core. IsDriver is that
// rule; a package added to the module is core unless the rule makes it a
// driver, so nothing has to be remembered to keep it checked.
//
// The tests hold the core, in the native build and in the WebAssembly build
// (GOOS=js GOARCH=wasm, whose *_wasm.go files differ), to this:
//   - it imports neither the operating system, the network nor global
//     randomness (ForbiddenImports), nor a driver;
//   - it names none of the clock's functions (ClockReads), called or as a
//     value: time comes from the caller's table.Env;
//   - it starts goroutines only in packages that talk to the Store, to
//     overlap requests (the commit's uploads, manifest reads), each joined
//     before the function returns; formats and planners compute on one
//     goroutine. In the WebAssembly build all goroutines share one thread,
//     so they buy waiting in parallel, never computing in parallel.
//
// The command corepkgs prints the core packages, for scripts that build
// them for WebAssembly:
//
//	GOOS=js GOARCH=wasm go build $(go run ./internal/purity/corepkgs)
package purity

import "strings"

// Module is the module's import path.
const Module = "github.com/timelake/timelake"

// isDriver is the rule that splits the module: a driver does I/O, reads the
// clock or exists only to test and measure the core; everything else is
// core and must stay pure.
func IsDriver(rel string) bool {
	switch {
	case rel == "wasm" || strings.HasPrefix(rel, "wasm/"):
		return true // the WebAssembly bridge to the TypeScript store (syscall/js)
	case strings.HasPrefix(rel, "cmd/"):
		return true // the CLI: files, the network, the wall clock
	case strings.HasPrefix(rel, "store/"):
		return true // stores: the filesystem, S3 over HTTP, memory, faults, their test suite (store itself, the interface, is core)
	case strings.HasSuffix(rel, "/nethttp"):
		return true // a protocol's transport over net/http, a driver like a store
	case strings.HasPrefix(rel, "internal/") && !strings.HasPrefix(rel, "internal/core/"):
		return true // harnesses: tests and benchmarks of the core, outside engines
	case strings.HasPrefix(rel, "bench/"), strings.HasPrefix(rel, "examples/"), strings.HasPrefix(rel, "interop/"):
		return true // measurement, examples, the outside engines' module
	}
	return false
}

// ForbiddenImports are the standard packages that reach the operating
// system, the network or global randomness.
var ForbiddenImports = map[string]bool{
	"os": true, "os/exec": true, "os/signal": true, "net": true, "net/http": true, "syscall": true,
	"io/ioutil": true, "io/fs": true, "path/filepath": true, "crypto/rand": true, "math/rand": true,
	"math/rand/v2": true, "syscall/js": true, "runtime/debug": true,
}

// ClockReads are the functions of package time that read the wall clock
// or wait on it; the core takes its clock from table.Env instead. Named as
// a value (now := time.Now) they are as impure as called.
var ClockReads = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true,
}
