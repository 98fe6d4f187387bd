//go:build js

package iceberg

import "syscall/js"

// processCPU is the CPU time (user + system) the process has used, in
// nanoseconds, from Node's process.cpuUsage. Benchmarks report it per op as
// well as the wall time, since the machines they run on are shared.
func processCPU() int64 {
	u := js.Global().Get("process").Call("cpuUsage")
	return int64(u.Get("user").Int()+u.Get("system").Int()) * 1000
}
