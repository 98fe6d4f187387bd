package arrowipc

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// FuzzWrite writes random batches of a random schema — the value columns
// of every type picked by mask, each required or nullable, rows and
// values from seed — and reads the stream back through the reader: the
// rows must come back equal, whatever the shape.
func FuzzWrite(f *testing.F) {
	f.Add(uint64(1), uint16(0xFFFF), uint16(100), uint8(3))
	f.Add(uint64(2), uint16(0), uint16(0), uint8(1))
	f.Add(uint64(3), uint16(0x5555), uint16(8), uint8(0))
	f.Add(uint64(4), uint16(0xAAAA), uint16(1000), uint8(7))
	types := []schema.Type{schema.Long, schema.Int, schema.Double, schema.Float, schema.Boolean, schema.String, schema.Timestamptz}
	f.Fuzz(func(t *testing.T, seed uint64, mask uint16, maxRows uint16, nbatches uint8) {
		var values []schema.Field
		for i, typ := range types {
			if mask&(1<<(2*i)) != 0 {
				values = append(values, schema.Field{Name: fmt.Sprint("c", i), Type: typ, Required: mask&(1<<(2*i+1)) != 0})
			}
		}
		series := schema.Field{Name: "s", Type: schema.String}
		if seed%3 == 0 {
			series.Type = schema.Long
		}
		tb, err := schema.NewWithoutIngest("ts", []string{"s"}, append(values, series), schema.Hour)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, uint64(mask)))
		var batches []*rows.Batch
		var want []string
		for range nbatches % 8 {
			b := randomBatch(tb, r.IntN(int(maxRows%2000)+1), r)
			batches = append(batches, b)
			for i := range b.Len {
				want = append(want, renderRow(b, i))
			}
		}
		data := encode(t, tb, batches)
		rd, err := NewReader(data, tb, rows.Options{})
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		var got []string
		for {
			b, err := rd.Next(1 + r.IntN(500))
			if err == io.EOF {
				break
			}
			var re *rows.Error
			if err != nil && len(want) == 0 && asRowsError(err, &re) && re.Code == rows.CodeEmptyInput {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			for i := range b.Len {
				got = append(got, renderRow(b, i))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("got %d rows, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("row %d:\ngot  %s\nwant %s", i+1, got[i], want[i])
			}
		}
	})
}
