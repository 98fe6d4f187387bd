//go:build !js && !wasip1 && !windows && !plan9

package benchcpu

import "syscall"

// Now is the CPU time (user + system) the process has used, in nanoseconds;
// 0 when unknown.
func Now() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
