package scan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/timelake/timelake/rows"
)

// FuzzMerge: inputs of random sorted keys (repeats within and across
// inputs and batches, rows with and without _ingest_ts) merge to what
// rows.Winner picks over each key's rows in input order, and raw merges
// keep every row.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{2, 0, 0, 0, 0, 255, 255, 1, 1})
	f.Fuzz(mergeCase)
}

func mergeCase(t *testing.T, data []byte) {
	{
		sch := testSchema(t)
		if len(data) < 2 {
			return
		}
		k := int(data[0]%4) + 1
		data = data[1:]
		type rowSpec struct {
			host        string
			ts, ing, v  int64
			hasIng      bool
			input, iRow int
		}
		specs := make([][]rowSpec, k)
		for i, c := range data {
			in := i % k
			specs[in] = append(specs[in], rowSpec{host: string(rune('a' + c%3)), ts: int64(c/3) % 4, ing: int64(c % 5), hasIng: c%7 != 0, v: int64(i), input: in})
		}
		var inputs []Input
		var all []rowSpec
		for in := range specs {
			s := specs[in]
			slices.SortStableFunc(s, func(a, b rowSpec) int {
				if a.host != b.host {
					if a.host < b.host {
						return -1
					}
					return 1
				}
				return int(a.ts - b.ts)
			})
			for r := range s {
				s[r].iRow = r
			}
			all = append(all, s...)
			// batches of 1..3 rows
			var bs []*rows.Batch
			for start := 0; start < len(s); {
				n := min(len(s)-start, 1+(start+in)%3)
				b := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields)), Len: n}
				ic := &b.Cols[sch.Ingest]
				for _, r := range s[start : start+n] {
					b.Cols[sch.Time].Ints = append(b.Cols[sch.Time].Ints, r.ts)
					b.Cols[sch.Series[0]].Strs = append(b.Cols[sch.Series[0]].Strs, r.host)
					b.Cols[sch.Index("v")].Ints = append(b.Cols[sch.Index("v")].Ints, r.v)
					ic.Ints = append(ic.Ints, r.ing)
					ic.Nulls = append(ic.Nulls, !r.hasIng)
				}
				bs = append(bs, b)
				start += n
			}
			seq := int64(in % 3) // equal sequence numbers happen too
			inputs = append(inputs, Input{Name: fmt.Sprint(in), Seq: seq, Next: func() (*rows.Batch, error) {
				if len(bs) == 0 {
					return nil, nil
				}
				b := bs[0]
				bs = bs[1:]
				return b, nil
			}})
		}
		// brute force: each key's rows in (input, row) order
		slices.SortStableFunc(all, func(a, b rowSpec) int {
			if a.host != b.host {
				if a.host < b.host {
					return -1
				}
				return 1
			}
			if a.ts != b.ts {
				return int(a.ts - b.ts)
			}
			if a.input != b.input {
				return a.input - b.input
			}
			return a.iRow - b.iRow
		})
		var want []int64
		for i := 0; i < len(all); {
			j := i
			var ranks []rows.Rank
			for ; j < len(all) && all[j].host == all[i].host && all[j].ts == all[i].ts; j++ {
				ranks = append(ranks, rows.Rank{Ingest: all[j].ing, HasIngest: all[j].hasIng, Seq: int64(all[j].input % 3)})
			}
			want = append(want, all[i+rows.Winner(ranks)].v)
			i = j
		}
		var got []int64
		err := Merge(sch, inputs, false, func(b *rows.Batch, i, j int) error {
			got = append(got, b.Cols[sch.Index("v")].Ints[i:j]...)
			return nil
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("merge = %v, %v; want %v", got, err, want)
		}
	}
}
