//go:build !js && !wasip1

package main

import "github.com/timelake/timelake/internal/benchcpu"

// cpuNow is the process's CPU time in ns (getrusage: every thread).
func cpuNow() int64 { return benchcpu.Now() }

// mainNow: natively the work is on several threads; not measured (-1).
func mainNow() int64 { return -1 }

func serveJS() { panic("-serve is for GOOS=js") }
