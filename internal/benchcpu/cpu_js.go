//go:build js

package benchcpu

import "syscall/js"

// Now is the CPU time (user + system) the process has used, in nanoseconds,
// from Node's process.cpuUsage; 0 outside Node.
func Now() int64 {
	p := js.Global().Get("process")
	if p.Type() != js.TypeObject || p.Get("cpuUsage").Type() != js.TypeFunction {
		return 0
	}
	u := p.Call("cpuUsage")
	return int64(u.Get("user").Int()+u.Get("system").Int()) * 1000
}
