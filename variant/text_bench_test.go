package variant

import "testing"

// BenchmarkAppendJSON prints an object of string labels, the shape a
// variant column of attributes holds, as JSON text.
func BenchmarkAppendJSON(b *testing.B) {
	meta, value, err := Encode(`{"job":"api","instance":"10.0.3.17:9090","env":"prod","region":"eu-west-1","zone":"z3","pod":"pod-417","team":"core \"x\"","city":"Zürich"}`)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for b.Loop() {
		if buf, err = AppendJSON(buf[:0], meta, value); err != nil {
			b.Fatal(err)
		}
	}
}
