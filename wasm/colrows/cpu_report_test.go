package colrows

import "testing"

// reportCPU reports the process CPU time per op since cpu0: on a loaded
// machine it varies less than the wall time.
func reportCPU(b *testing.B, cpu0 int64) {
	if cpu0 > 0 {
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
