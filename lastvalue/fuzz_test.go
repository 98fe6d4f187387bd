package lastvalue

import (
	"testing"
)

func FuzzDecode(f *testing.F) {
	s, _ := testSchemaF()
	b := batch(s, row{"a", 1, 2, 3}, row{"b", 4, 5, 6})
	data, err := Encode(Merge(nil, b))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := Decode(data, s)
		if err != nil {
			return
		}
		for i, c := range idx.Cols {
			n := len(c.Ints) + len(c.Floats) + len(c.Bools) + len(c.Strs)
			if n != idx.Len {
				t.Fatalf("column %d has %d values, the index %d rows", i, n, idx.Len)
			}
		}
	})
}
