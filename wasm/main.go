//go:build js && wasm

// Command wasm is the js/wasm bridge between the Go core and the TypeScript
// client (@timelake/client): the same packages as the native CLI, built with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o timelake.wasm ./wasm
//
// On start it hands an object of exported calls to the function the loader
// put at globalThis.__timelakeRegister (with the client's loader, a sandbox
// object standing in for globalThis), then waits for calls. Every call returns
// a Promise; the work runs in a goroutine, store calls await the JavaScript
// store's Promises (several at once during parallel uploads), and a panic
// becomes a rejected Promise with code INTERNAL while the instance stays
// usable.
//
// Exported calls (handles are numbers naming an open table or catalog;
// transport is (method, url, headers, body) → Promise<{status, headers, body}>
// over fetch, storeFor is (location, vended) → Store, see catalog.go):
//
//	createTable(store, schemaJSON, propsJSON, location) → {handle, info}
//	openTable(store)                                    → {handle, info}
//	openCatalog(specJSON, transport)                    → catalog handle
//	createCatalogTable(catalog, name, storeFor, schemaJSON, propsJSON, location) → {handle, info}
//	openCatalogTable(catalog, name, storeFor)           → {handle, info}
//	append(handle, columns or Arrow IPC bytes (Uint8Array), optionsJSON, rollupStoreFor, rollupHandles) → result object
//	  (for timelake.rollup.inline: the store of each rollup table, the rollup tables held open: rollupinline.go)
//	findCommit(handle, commitId)                        → JSON string of the snapshot holding it, or null
//	info(handle)                                        → info JSON string
//	latest(handle)                                      → array of row objects
//	scan(handle, optionsJSON, each)                     → stats JSON string; each({length, columns}) (or, with arrow, each(Uint8Array): Arrow IPC stream chunks) → Promise<boolean> per batch
//	maintain(handle, optionsJSON)                       → result JSON string
//	alter(handle, changesJSON)                          → result JSON string
//	adopt(handle, optionsJSON)                          → result JSON string (another engine's table: its key)
//	suggestKey(handle)                                  → suggestion JSON string
//	addRollup(handle, store, specJSON)                  → {handle, info} of the rollup table (rollup.go; a catalog table: storeFor for store, and {table} too)
//	rollups(handle)                                     → definitions JSON string
//	refreshRollup(handle, rollupHandle, name, optionsJSON) → result JSON string
//	close(handle)                                       → undefined
//	memStats()                                          → Go heap figures (synchronous)
//	debugPanic(message)                                 → always rejects (tests)
package main

import (
	"os"
	"runtime/debug"
	"syscall/js"
)

// memoryLimit is the Go runtime's soft memory limit: with the proportional
// collector off, it collects only when its memory nears the limit (and after
// a call that allocated a few MiB, see collectAfterCall). A 100k-row append peaks at about 25 MiB of Go
// memory, below it; 40 MiB leaves room in the isolate's 128 MiB for V8's own
// heap (the row objects) when a larger batch comes.
const memoryLimit = 40 << 20

func main() {
	// One thread: a collection during a call stops the call, and the write
	// barriers it switches on slow the rest. The bridge already collects
	// after calls that allocated, before memory is reused, so a collection mid-call only
	// lowers a high-water mark the limit bounds anyway. GOGC and GOMEMLIMIT,
	// when given (wasm_exec.js's go.env), win: the benchmarks' experiments.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	api := js.Global().Get("Object").New()
	for name, f := range map[string]op{
		"createTable":        createTable,
		"openCatalog":        openCatalog,
		"createCatalogTable": createCatalogTable,
		"openCatalogTable":   openCatalogTable,
		"openTable":          openTable,
		"append":             appendRows,
		"findCommit":         findCommit,
		"info":               info,
		"latest":             latest,
		"history":            history,
		"files":              files,
		"scan":               scanTable,
		"maintain":           maintain,
		"deleteRows":         deleteRows,
		"alter":              alterTable,
		"adopt":              adoptTable,
		"suggestKey":         suggestKey,
		"addRollup":          addRollup,
		"rollups":            rollups,
		"refreshRollup":      refreshRollup,
		"close":              closeTable,
		"debugPanic":         debugPanic,
	} {
		api.Set(name, async(name, f))
	}
	api.Set("memStats", js.FuncOf(memStats))
	reg := js.Global().Get("__timelakeRegister")
	if reg.Type() != js.TypeFunction {
		panic("timelake: globalThis.__timelakeRegister is not a function; load timelake.wasm through @timelake/client")
	}
	reg.Invoke(api)
	select {} // serve calls until the instance is dropped
}
