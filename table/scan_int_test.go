package table_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestScanIntegerSeries: two integer series columns (an int, whose
// statistics are 4 bytes, and a long) filter and prune like strings.
func TestScanIntegerSeries(t *testing.T) {
	ctx := context.Background()
	sch, err := schema.New("ts", []string{"site", "sensor"}, []schema.Field{
		{Name: "site", Type: schema.Int, Required: true}, {Name: "sensor", Type: schema.Long, Required: true}, {Name: "v", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, memstore.New(), testenv.New(5), loc, sch, smallPages)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		site, sensor, ts int64
	}
	latest := map[key]float64{}
	rng := rand.New(rand.NewPCG(5, 5))
	for a := range 5 {
		var ms []map[string]any
		for i := range 300 {
			k := key{int64(rng.IntN(3) - 1), int64(rng.IntN(4)) * 1_000_000_000_000, day1.Add(time.Duration(rng.IntN(2*24*60)) * time.Minute).UnixMicro()}
			v := float64(a*1000 + i)
			ms = append(ms, map[string]any{"ts": time.UnixMicro(k.ts).UTC(), "site": k.site, "sensor": k.sensor, "v": v})
			latest[k] = v
		}
		b, err := rows.FromMaps(sch, ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	var all []key
	for k := range latest {
		all = append(all, k)
	}
	slices.SortFunc(all, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.site, b.site), cmp.Compare(a.sensor, b.sensor), cmp.Compare(a.ts, b.ts))
	})
	cases := []table.ScanOptions{
		{},
		{Series: map[string][]any{"site": {int64(-1)}}},
		{Series: map[string][]any{"site": {int64(0)}, "sensor": {int64(2_000_000_000_000)}}, FromUS: us(day1.Add(20 * time.Hour)), ToUS: us(day1.Add(21 * time.Hour))},
		{Series: map[string][]any{"sensor": {int64(0), int64(3_000_000_000_000)}}, FromUS: us(day1.Add(30 * time.Hour))},
		{Series: map[string][]any{"site": {int64(7)}}},
	}
	for _, opt := range cases {
		var want []string
		for _, k := range all {
			if opt.FromUS != nil && k.ts < *opt.FromUS || opt.ToUS != nil && k.ts >= *opt.ToUS {
				continue
			}
			if vs, ok := opt.Series["site"]; ok && !slices.Contains(vs, any(k.site)) {
				continue
			}
			if vs, ok := opt.Series["sensor"]; ok && !slices.Contains(vs, any(k.sensor)) {
				continue
			}
			want = append(want, fmt.Sprintf("ts=%d site=%d sensor=%d v=%g", k.ts, k.site, k.sensor, latest[k]))
		}
		got, _, err := scanRows(ctx, tb, opt)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%v: %d rows, %v; want %d: %s", opt.Series, len(got), err, len(want), firstDiff(got, want))
		}
	}
	if _, _, err := scanRows(ctx, tb, table.ScanOptions{Series: map[string][]any{"site": {int64(1) << 40}}}); table.Code(err) != "BAD_FILTER" {
		t.Fatalf("an int filter out of range: %v, want BAD_FILTER", err)
	}
}
