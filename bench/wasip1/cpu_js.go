//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/timelake/timelake/internal/benchcpu"
)

// cpuNow is Node's process.cpuUsage in ns (one call out to JavaScript).
func cpuNow() int64 { return benchcpu.Now() }

// serveJS exports the append to JavaScript as a synchronous function, the
// shape of the product's bridge minus its Promise: the memory store never
// waits on JavaScript, so the call returns when the append is done.
// runcallback.mjs times each call.
func serveJS() {
	a := newAppender()
	g := js.Global()
	g.Set("benchPrepare", js.FuncOf(func(js.Value, []js.Value) any { a.prepare(); return nil }))
	g.Set("benchAppend", js.FuncOf(func(js.Value, []js.Value) any { a.once(); return nil }))
	g.Set("benchNoop", js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	select {}
}
