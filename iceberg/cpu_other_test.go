//go:build !js && !wasip1 && !windows && !plan9

package iceberg

import "syscall"

// processCPU is the CPU time (user + system) the process has used, in
// nanoseconds. Benchmarks report it per op as well as the wall time, since
// the machines they run on are shared.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
