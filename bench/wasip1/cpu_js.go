//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"

	"github.com/timelake/timelake/internal/benchcpu"
)

// cpuNow is Node's process.cpuUsage in ns (one call out to JavaScript).
func cpuNow() int64 { return benchcpu.Now() }

// mainNow is the CPU time of Node's main thread in ns (the first field of
// /proc/self/task/<pid>/schedstat), read through the fs module that
// wasm_exec_node.js makes global; -1 when unreadable.
func mainNow() int64 {
	g := js.Global()
	fs := g.Get("fs")
	if fs.Type() != js.TypeObject {
		return -1
	}
	path := "/proc/self/task/" + strconv.Itoa(g.Get("process").Get("pid").Int()) + "/schedstat"
	s := fs.Call("readFileSync", path, "utf8").String()
	var ns int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		ns = ns*10 + int64(c-'0')
	}
	return ns
}

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
