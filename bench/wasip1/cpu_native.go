//go:build !js && !wasip1

package main

import "github.com/timelake/timelake/internal/benchcpu"

// cpuNow is the process's CPU time in ns (getrusage: every thread).
func cpuNow() int64 { return benchcpu.Now() }

func serveJS() { panic("-serve is for GOOS=js") }
