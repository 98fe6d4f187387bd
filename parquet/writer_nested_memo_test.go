package parquet

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestShredMemo: a column whose rows repeat a few texts (labels) is
// written byte for byte as without the memo, whether the memo holds every
// text or fills up, in every page layout, and reads back as written.
func TestShredMemo(t *testing.T) {
	defer func(n int) { memoMaxEntries = n }(memoMaxEntries)
	write := func(nt *schema.NestedType, required bool, vals []*string, opt Options) []byte {
		w, err := NewWriter([]ColumnSpec{{Name: "v", FieldID: 1, Type: schema.Nested, Nested: nt, Required: required}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write([]rows.Column{mapColumn(vals)}, len(vals)); err != nil {
			t.Fatal(err)
		}
		data, _, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for seed := range uint64(60) {
		g := &nestedGen{r: rand.New(rand.NewPCG(seed, seed>>3))}
		nt := g.typ(3)
		for nt.Kind == schema.KindPrimitive {
			nt = g.typ(3)
		}
		required := g.r.IntN(3) == 0
		var distinct []string
		var tr rows.NestedTree
		for range 1 + g.r.IntN(6) {
			var b strings.Builder
			g.value(&b, nt, true)
			text, _, err := rows.CanonicalNested(&tr, nt, b.String(), nil)
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, nt, err)
			}
			distinct = append(distinct, text)
		}
		vals := make([]*string, 40+g.r.IntN(80))
		for i := range vals {
			if !required && g.r.IntN(6) == 0 {
				continue
			}
			s := distinct[g.r.IntN(len(distinct))]
			vals[i] = &s
		}
		opt := nestedOpts[seed%uint64(len(nestedOpts))]
		memoMaxEntries = 0
		want := write(nt, required, vals, opt)
		for _, entries := range []int{1024, 2} {
			memoMaxEntries = entries
			if got := write(nt, required, vals, opt); !bytes.Equal(got, want) {
				t.Fatalf("seed %d: %s (%d texts, memo of %d): the file differs from one written without the memo", seed, nt, len(distinct), entries)
			}
		}
		memoMaxEntries = 1024
		got := roundTrip(t, nt, required, vals, opt)
		for i := range vals {
			if show(got[i]) != show(vals[i]) {
				t.Fatalf("seed %d: %s: row %d: %s, want %s", seed, nt, i, show(got[i]), show(vals[i]))
			}
		}
	}
}
