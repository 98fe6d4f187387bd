// Package benchcpu gives benchmarks the process's CPU time, so that runs on
// a shared, loaded machine (and WebAssembly runs under Node) compare by the
// work done rather than by wall time.
//
//	cpu0 := benchcpu.Now()
//	for b.Loop() { … }
//	benchcpu.ReportPerOp(b, cpu0) // a cpu-ns/op metric
//
// Only tests import it: the core packages stay free of syscall.
package benchcpu

import "testing"

// ReportPerOp reports the process CPU time used since cpu0, per op, as
// cpu-ns/op. Nothing is reported where the CPU time is unknown.
func ReportPerOp(b *testing.B, cpu0 int64) {
	if cpu0 > 0 {
		b.ReportMetric(float64(Now()-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
