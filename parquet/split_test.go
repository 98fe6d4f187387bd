package parquet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestWriteSplitInvariant writes the same rows in one Write and in many
// small ones (segments with and without nulls alternating within a page),
// and with equal strings sharing their bytes or not: the files must be
// identical, since the writer's run and level shortcuts must not show.
func TestWriteSplitInvariant(t *testing.T) {
	const n = 30000
	r := rand.New(rand.NewPCG(1, 2))
	specs := []ColumnSpec{
		{Name: "host", Type: schema.String, Required: true},
		{Name: "s", Type: schema.String},
		{Name: "unique", Type: schema.String}, // falls back to PLAIN
		{Name: "l", Type: schema.Long},
		{Name: "b", Type: schema.Boolean},
		{Name: "f", Type: schema.Float},
	}
	shared := make([]rows.Column, len(specs))
	for c := 1; c < len(specs); c++ {
		shared[c].Nulls = make([]bool, n)
	}
	cur := ""
	for i := range n {
		if r.IntN(50) == 0 {
			cur = fmt.Sprint("k", r.IntN(40))
		}
		shared[0].Strs = append(shared[0].Strs, cur)
		shared[1].Nulls[i] = i > n/2 && r.IntN(3) == 0
		shared[1].Strs = append(shared[1].Strs, cur)
		shared[2].Nulls[i] = r.IntN(100) == 0
		shared[2].Strs = append(shared[2].Strs, fmt.Sprintf("%d-%s", r.IntN(1<<30), strings.Repeat("x", 20+r.IntN(40))))
		shared[3].Nulls[i] = i%5000 < 10
		shared[3].Ints = append(shared[3].Ints, int64(i))
		shared[4].Nulls[i] = i%3 == 0
		shared[4].Bools = append(shared[4].Bools, i%7 == 0)
		shared[5].Nulls[i] = i%4000 == 17
		shared[5].Floats = append(shared[5].Floats, float64(float32(float64(i)/3)))
	}
	// the same values, each string its own copy
	distinct := sliceRows(shared, 0, n)
	for _, c := range []int{0, 1} {
		distinct[c].Strs = make([]string, n)
		for i, s := range shared[c].Strs {
			distinct[c].Strs[i] = strings.Clone(s)
		}
	}
	for _, opt := range []Options{{}, {Compat: true}, {Codec: Uncompressed, PageRowLimit: 7, RowGroupBytes: 5000}, {Codec: Uncompressed, RowGroupBytes: 300_000}} {
		var want []byte
		for _, tc := range []struct {
			cols     []rows.Column
			maxWrite int
		}{{shared, n}, {shared, 600}, {shared, 3}, {distinct, n}, {distinct, 50}} {
			w, err := NewWriter(specs, opt)
			if err != nil {
				t.Fatal(err)
			}
			for a := 0; a < n; {
				b := min(n, a+1+r.IntN(tc.maxWrite))
				if err := w.Write(sliceRows(tc.cols, a, b), b-a); err != nil {
					t.Fatal(err)
				}
				a = b
			}
			data, _, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = data
				_, got := readAll(t, data)
				for c, spec := range specs {
					if spec.Name == "unique" {
						if len(got[c].Strs) != n || !slices.Equal(got[c].Nulls, shared[c].Nulls) {
							t.Fatalf("column unique: %d rows, nulls differ: %v", len(got[c].Strs), !slices.Equal(got[c].Nulls, shared[c].Nulls))
						}
						for i, v := range shared[c].Strs {
							if !shared[c].Nulls[i] && got[c].Strs[i] != v {
								t.Fatalf("column unique row %d: got %q, want %q", i, got[c].Strs[i], v)
							}
						}
						continue
					}
					sameColumn(t, spec.Name, got[c], shared[c], n)
				}
				continue
			}
			if !bytes.Equal(data, want) {
				t.Errorf("options %+v, writes of up to %d rows: the file differs from one Write's", opt, tc.maxWrite)
			}
		}
	}
}
