package rows

import (
	"strings"
	"testing"
)

// BenchmarkAppendJSONString prints the strings of nested values and string
// maps: short ASCII labels (the common case), strings with escapes, and
// non-ASCII text.
func BenchmarkAppendJSONString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"labels", "instance-10.0.0.17:9090"},
		{"escaped", `a "quoted" path C:\tmp` + "\n\tnext line"},
		{"utf8", strings.Repeat("Zürich 東京 ", 4)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				buf = AppendJSONString(buf[:0], c.s)
			}
		})
	}
}
