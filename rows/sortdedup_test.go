package rows

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/timelake/timelake/schema"
)

// refSortDedup is the obvious implementation SortDedup must agree with: a
// stable sort of row indexes by (partition, series…, time), then the last
// row of each run of equal keys.
func refSortDedup(b *Batch) *Batch {
	t := b.Schema
	ts := b.Cols[t.Time].Ints
	key := func(i int32) []any {
		k := []any{t.Partition.Apply(ts[i])}
		for _, c := range t.Series {
			if t.Fields[c].Type == schema.String {
				k = append(k, b.Cols[c].Strs[i])
			} else {
				k = append(k, b.Cols[c].Ints[i])
			}
		}
		return append(k, ts[i])
	}
	compare := func(x, y int32) int {
		kx, ky := key(x), key(y)
		for j := range kx {
			var c int
			switch a := kx[j].(type) {
			case string:
				c = cmp.Compare(a, ky[j].(string))
			case int64:
				c = cmp.Compare(a, ky[j].(int64))
			case int32:
				c = cmp.Compare(a, ky[j].(int32))
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	idx := seq(b.Len)
	slices.SortStableFunc(idx, compare)
	var keep []int32
	for j, i := range idx {
		if j+1 < len(idx) && compare(idx[j+1], i) == 0 {
			continue
		}
		keep = append(keep, i)
	}
	return Take(b, keep)
}

type genSpec struct {
	partition schema.Transform
	series    []schema.Field // series columns and their types
	n         int
	hosts     int   // distinct values per series column
	intSpread int64 // spread of integer series values (sparse when large)
	span      int64 // time span in microseconds
	step      int64 // time granularity: small spans with a coarse step make duplicates
}

// gen makes a random batch: series values, times across partitions, a
// value column whose entries tell which input row they came from.
func gen(tb testing.TB, r *rand.Rand, g genSpec) *Batch {
	var names []string
	for _, f := range g.series {
		names = append(names, f.Name)
	}
	t, err := schema.New("ts", names, append(slices.Clone(g.series), schema.Field{Name: "v", Type: schema.Long}, schema.Field{Name: "s", Type: schema.String}), g.partition)
	if err != nil {
		tb.Fatal(err)
	}
	bl := NewBuilder(t, Options{TimeUnit: Microseconds})
	base := int64(1795946400000000) // 2026-11-29T10:00:00Z
	for i := range g.n {
		for c, f := range t.Fields {
			switch {
			case c == t.Time:
				bl.putInt(c, base+r.Int64N(g.span/g.step)*g.step-g.span/2)
			case f.Name == "v":
				bl.putInt(c, int64(i))
			case f.Name == "s":
				if r.IntN(4) == 0 {
					bl.AppendNull(c)
				} else {
					bl.putStr(c, fmt.Sprint("s", i))
				}
			case c == t.Ingest:
			case f.Type == schema.String:
				bl.putStr(c, fmt.Sprintf("host-%d", r.IntN(g.hosts)))
			default:
				bl.putInt(c, (r.Int64N(int64(g.hosts))-int64(g.hosts)/2)*g.intSpread)
			}
		}
		if err := bl.EndRow(); err != nil {
			tb.Fatal(err)
		}
	}
	return bl.Batch()
}

func sameBatch(a, b *Batch) error {
	if a.Len != b.Len {
		return fmt.Errorf("got %d rows, want %d", a.Len, b.Len)
	}
	for c, f := range a.Schema.Fields {
		for r := 0; r < a.Len; r++ {
			if x, y := valueAt(a, c, r), valueAt(b, c, r); x != y {
				return fmt.Errorf("row %d column %q: got %v, want %v", r, f.Name, x, y)
			}
		}
	}
	return nil
}

func TestSortDedupMatchesReference(t *testing.T) {
	str := func(n string) schema.Field { return schema.Field{Name: n, Type: schema.String} }
	long := func(n string) schema.Field { return schema.Field{Name: n, Type: schema.Long} }
	i32 := func(n string) schema.Field { return schema.Field{Name: n, Type: schema.Int} }
	const day = 86_400_000_000
	specs := map[string]genSpec{
		"one string, dups":       {schema.Day, []schema.Field{str("host")}, 3000, 20, 1, 3 * day, 3600e6},
		"two strings":            {schema.Day, []schema.Field{str("host"), str("region")}, 3000, 7, 1, 2 * day, 1e6},
		"hour partitions":        {schema.Hour, []schema.Field{str("host")}, 3000, 5, 1, day, 60e6},
		"month partitions":       {schema.Month, []schema.Field{str("host")}, 3000, 5, 1, 400 * day, day},
		"dense ints":             {schema.Day, []schema.Field{long("id")}, 3000, 50, 1, 3 * day, 3600e6},
		"sparse ints":            {schema.Day, []schema.Field{long("id"), i32("k")}, 3000, 50, 1 << 40, 3 * day, 3600e6},
		"wide span, packed sort": {schema.Hour, []schema.Field{str("host"), long("id")}, 3000, 300, 1 << 20, 3000 * day, 1},
		"all duplicates":         {schema.Day, []schema.Field{str("host")}, 500, 1, 1, 2, 1},
		"single row":             {schema.Day, []schema.Field{str("host")}, 1, 1, 1, 2, 1},
		"six sparse int series":  {schema.Hour, []schema.Field{long("a"), long("b"), long("c"), long("d"), long("e"), i32("f")}, 3000, 3000, 1 << 20, 3000 * day, 1},
	}
	for name, g := range specs {
		r := rand.New(rand.NewPCG(1, 2))
		for round := range 3 {
			b := gen(t, r, g)
			got, want := SortDedup(b), refSortDedup(b)
			checkBatch(t, got)
			if err := sameBatch(got, want); err != nil {
				t.Errorf("%s round %d: %v", name, round, err)
			}
			// Every partition is one contiguous run.
			parts := SplitByPartition(got)
			for k := 1; k < len(parts); k++ {
				if parts[k].Value <= parts[k-1].Value || parts[k].Start != parts[k-1].End {
					t.Errorf("%s: partitions %v then %v", name, parts[k-1], parts[k])
				}
			}
			if len(parts) > 0 && (parts[0].Start != 0 || parts[len(parts)-1].End != got.Len) {
				t.Errorf("%s: partitions %v do not cover %d rows", name, parts, got.Len)
			}
		}
	}
}

// TestSortDedupStrategies runs the three orderings on the same ranks: the
// counting and packed sorts are chosen by key range, the general one only
// when keys overflow 64 bits, so each is checked here directly.
func TestSortDedupStrategies(t *testing.T) {
	// countingSortDedup itself has three paths, chosen by the times: in
	// order (a counting sort by key), a small range of time ranks (one
	// counting sort by key and time: times whole seconds or milliseconds
	// apart, or a few µs), else a radix sort by time first. "sparse keys"
	// fits only once the keys present are numbered densely.
	times := map[string]func(r *rand.Rand, i int) int64{
		"small range":   func(r *rand.Rand, _ int) int64 { return r.Int64N(50) },
		"whole seconds": func(r *rand.Rand, _ int) int64 { return 1795946400_000000 + r.Int64N(50)*1_000_000 },
		"whole ms":      func(r *rand.Rand, _ int) int64 { return -5_000 + r.Int64N(50)*1_000 },
		"wide":          func(r *rand.Rand, _ int) int64 { return r.Int64N(50)*123_456_789 - 1<<40 },
		"in order":      func(r *rand.Rand, i int) int64 { return int64(i/7) * 1000 },
		"sparse keys":   func(r *rand.Rand, _ int) int64 { return r.Int64N(1000) * 1000 },
	}
	for name, at := range times {
		r := rand.New(rand.NewPCG(3, 4))
		n := 2000
		ts := make([]int64, n)
		ranks := [][]uint32{make([]uint32, n), make([]uint32, n)}
		cards := []uint64{3, 40}
		for i := range n {
			ts[i] = at(r, i)
			ranks[0][i] = uint32(r.IntN(3))
			ranks[1][i] = uint32(r.IntN(40))
			if name == "sparse keys" {
				ranks[1][i] = uint32(r.IntN(4)) * 10
			}
		}
		a := countingSortDedup(ranks, cards, ts, 120)
		b := packedSortDedup(ranks, cards, ts)
		c := generalSortDedup(ranks, ts)
		if !slices.Equal(a, b) || !slices.Equal(a, c) {
			t.Errorf("%s: strategies disagree: %d, %d, %d rows kept", name, len(a), len(b), len(c))
		}
		if len(a) == n || len(a) == 0 {
			t.Errorf("%s: kept %d of %d rows; the test wants some duplicates", name, len(a), n)
		}
	}
}

func TestSortDedupLastWins(t *testing.T) {
	tb := testTable(t)
	b, err := readNDJSON(tb, `{"ts":2000,"host":"b","mem":1}
{"ts":1000,"host":"a","mem":2}
{"ts":2000,"host":"b","mem":3}
{"ts":86400000,"host":"a","mem":4}
{"ts":1000,"host":"a","mem":5}
{"ts":1000,"host":"b","mem":6}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := SortDedup(b)
	var rows []string
	for r := 0; r < got.Len; r++ {
		rows = append(rows, fmt.Sprintf("%s@%d=%d", got.Cols[cHost].Strs[r], got.Cols[cTS].Ints[r]/1000, got.Cols[cMem].Ints[r]))
	}
	if want := "[a@1000=5 b@1000=6 b@2000=3 a@86400000=4]"; fmt.Sprint(rows) != want {
		t.Errorf("got %v, want %s", rows, want)
	}
	parts := SplitByPartition(got)
	if want := "[{0 0 3} {1 3 4}]"; fmt.Sprint(parts) != want {
		t.Errorf("partitions %v, want %s", parts, want)
	}
	s := Slice(got, 1, 3)
	if s.Len != 2 || s.Cols[cHost].Strs[0] != "b" || &s.Cols[cTS].Ints[0] != &got.Cols[cTS].Ints[1] {
		t.Errorf("Slice(1, 3) = %+v, want rows 1 and 2 sharing memory", s)
	}
	SetIngest(got, 42)
	if c := got.Cols[cIngest]; len(c.Ints) != got.Len || c.Ints[0] != 42 || c.Ints[got.Len-1] != 42 || c.Nulls != nil {
		t.Errorf("after SetIngest: %+v", c)
	}
}

func TestTakeNulls(t *testing.T) {
	tb := testTable(t)
	b, err := readCSV(tb, "ts,host,cpu\n1,a,\n2,b,1.5\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x := Take(b, []int32{1}); x.Cols[cCPU].Nulls != nil || x.Cols[cCPU].Floats[0] != 1.5 {
		t.Errorf("Take of a non-null row kept Nulls %v", x.Cols[cCPU].Nulls)
	}
	if x := Take(b, []int32{1, 0}); !x.Cols[cCPU].IsNull(1) || x.Cols[cCPU].IsNull(0) {
		t.Errorf("Take(1, 0): nulls %v, want [false true]", x.Cols[cCPU].Nulls)
	}
	if x := SortDedup(Take(b, nil)); x.Len != 0 || SplitByPartition(x) != nil {
		t.Errorf("empty batch: %+v", x)
	}
}
