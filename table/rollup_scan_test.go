package table

import (
	"fmt"
	"math"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/schema"
)

// TestRollupPieces: a recompute's time range is cut where no file's
// buckets cross, each piece with its files in the order given.
func TestRollupPieces(t *testing.T) {
	const id = 1
	file := func(name string, lo, hi int64) iceberg.ManifestEntry {
		df := iceberg.DataFile{Path: name, Lower: map[int32][]byte{}, Upper: map[int32][]byte{}}
		if lo <= hi {
			l, _ := iceberg.EncodeValue(schema.Timestamptz, lo)
			u, _ := iceberg.EncodeValue(schema.Timestamptz, hi)
			df.Lower[id], df.Upper[id] = l, u
		}
		return iceberg.ManifestEntry{DataFile: df}
	}
	const inf = math.MaxInt64
	show := func(ps []piece) string {
		s := ""
		for _, p := range ps {
			from, to := fmt.Sprint(p.from), fmt.Sprint(p.to)
			if p.from == math.MinInt64 {
				from = "-inf"
			}
			if p.to == inf {
				to = "inf"
			}
			s += "[" + from + "," + to + ")"
			for _, f := range p.files {
				s += " " + f.DataFile.Path
			}
			s += "; "
		}
		return s
	}
	cases := []struct {
		name   string
		files  []iceberg.ManifestEntry
		lo, hi int64
		want   string
	}{
		{"disjoint buckets", []iceberg.ManifestEntry{file("a", 0, 9), file("b", 10, 19), file("c", 25, 29)}, math.MinInt64, inf,
			"[0,10) a; [10,20) b; [20,30) c; "},
		{"a shared bucket", []iceberg.ManifestEntry{file("a", 0, 12), file("b", 15, 19)}, math.MinInt64, inf,
			"[0,20) a b; "},
		{"overlap keeps the order given", []iceberg.ManifestEntry{file("a", 20, 29), file("b", 0, 25), file("c", 40, 41)}, math.MinInt64, inf,
			"[0,30) a b; [40,50) c; "},
		{"a file without bounds crosses every boundary", []iceberg.ManifestEntry{file("a", 0, 9), file("x", 1, 0), file("b", 30, 39)}, math.MinInt64, inf,
			"[-inf,inf) a x b; "},
		{"clipped to the range", []iceberg.ManifestEntry{file("a", 0, 35), file("b", 36, 38), file("c", 40, 45)}, 10, 40,
			"[10,40) a b; "},
		{"negative times", []iceberg.ManifestEntry{file("a", -15, -11), file("b", -5, -1)}, math.MinInt64, inf,
			"[-20,-10) a; [-10,0) b; "},
	}
	for _, tc := range cases {
		if got := show(pieces(tc.files, 10, id, tc.lo, tc.hi)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
