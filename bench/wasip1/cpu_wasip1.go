//go:build wasip1

package main

// hostCPU is the host's process CPU time in ns; the Node runner
// (runwasi.mjs) provides it from process.cpuUsage. WASI preview1's
// CLOCK_PROCESS_CPUTIME_ID is not what Go's time package reads, and Node's
// WASI answers it with its own process time anyway; an import says so plainly.
//
//go:wasmimport timelake cpu_ns
func hostCPU() int64

func cpuNow() int64 { return hostCPU() }

// hostMain is the CPU time of Node's main thread in ns, or -1.
//
//go:wasmimport timelake main_ns
func hostMain() int64

func mainNow() int64 { return hostMain() }

func serveJS() { panic("-serve is for GOOS=js") }

// The reactor (-buildmode=c-shared): the runner calls _initialize, then these
// exports, timing each call from JavaScript. Package main's main is not run.
var reactor *appender

//go:wasmexport bench_setup
func benchSetup() { reactor = newAppender() }

//go:wasmexport bench_prepare
func benchPrepare() { reactor.prepare() }

//go:wasmexport bench_append
func benchAppend() { reactor.once() }

//go:wasmexport bench_noop
func benchNoop() {}
