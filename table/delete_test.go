package table_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestDelete: deletes by series, by time range and by both remove exactly
// the matching rows (a scan equals the rows before less those), drop whole
// files without reading them where every row matches, rewrite the others,
// and latest follows (a series whose latest row went shows its previous
// one; a series wholly deleted leaves). A bare delete is refused.
func TestDelete(t *testing.T) {
	ctx := context.Background()
	hour := func(h int) *int64 { v := day1.Add(time.Duration(h) * time.Hour).UnixMicro(); return &v }
	cases := []struct {
		name         string
		opt          table.DeleteOptions
		gone         func(row string) bool // the rows the delete removes, as renderBatch prints them
		dropsAFile   bool
		rewritesFile bool
	}{
		{"one series", table.DeleteOptions{Series: map[string][]any{"host": {"h001"}}},
			func(r string) bool { return strings.Contains(r, "host=h001 ") }, false, true},
		{"a time range", table.DeleteOptions{FromUS: hour(1), ToUS: hour(2)},
			func(r string) bool { return inHours(r, 1, 2) }, false, true},
		{"a series over a range", table.DeleteOptions{Series: map[string][]any{"host": {"h000", "h002"}}, FromUS: hour(2)},
			func(r string) bool {
				return (strings.Contains(r, "host=h000 ") || strings.Contains(r, "host=h002 ")) && inHours(r, 2, 99)
			}, false, true},
		{"a whole day", table.DeleteOptions{FromUS: hour(24), ToUS: hour(48)},
			func(r string) bool { return inHours(r, 24, 48) }, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := memstore.New()
			tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{maintenance.PropCompactMinFiles: "100"})
			if err != nil {
				t.Fatal(err)
			}
			for _, start := range []time.Time{day1, day1.Add(90 * time.Minute), day1.Add(24 * time.Hour)} {
				if _, err := tb.Append(ctx, batch(t, tb.Schema(), start, 180, 3)); err != nil {
					t.Fatal(err)
				}
			}
			before, _, err := scanRows(ctx, tb, table.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.DeleteFunc(slices.Clone(before), c.gone)
			if len(want) == len(before) || len(want) == 0 {
				t.Fatalf("the case deletes %d of %d rows", len(before)-len(want), len(before))
			}
			dry, err := tb.Delete(ctx, table.DeleteOptions{FromUS: c.opt.FromUS, ToUS: c.opt.ToUS, Series: c.opt.Series, DryRun: true})
			if err != nil || dry.Changed || len(dry.Plan) == 0 {
				t.Fatalf("dry run: %+v, %v", dry, err)
			}
			res, err := tb.Delete(ctx, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := scanRows(ctx, tb, table.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("after the delete: %d rows, want %d", len(got), len(want))
			}
			if res.RowsDeleted != int64(len(before)-len(want)) {
				t.Errorf("rows-deleted %d, want %d", res.RowsDeleted, len(before)-len(want))
			}
			if c.dropsAFile != (res.FilesDropped > 0) || c.rewritesFile != (res.FilesRewritten > 0) {
				t.Errorf("dropped %d files, rewrote %d; want drops %v, rewrites %v", res.FilesDropped, res.FilesRewritten, c.dropsAFile, c.rewritesFile)
			}
			// latest follows: the newest remaining row of each series
			reopened, err := table.Open(ctx, st, testenv.New(3))
			if err != nil {
				t.Fatal(err)
			}
			latest, err := reopened.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if gotL, wantL := noIngest(latest), latestOf(want); gotL != wantL {
				t.Errorf("latest:\n%s\nwant\n%s", gotL, wantL)
			}
			// an append after the delete keeps working from the caught-up index
			if _, err := reopened.Append(ctx, batch(t, tb.Schema(), day1.Add(72*time.Hour), 3, 3)); err != nil {
				t.Fatal(err)
			}
		})
	}
	st := memstore.New()
	tb := create(t, st, 1)
	if _, err := tb.Delete(ctx, table.DeleteOptions{}); table.Code(err) != "BAD_FILTER" {
		t.Errorf("bare delete: err = %v (%s), want BAD_FILTER", err, table.Code(err))
	}
}

// tsOf is the ts= field of a rendered row.
func tsOf(r string) int64 {
	_, v, _ := strings.Cut(r, "ts=")
	v, _, _ = strings.Cut(v, " ")
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// inHours reports whether a rendered row's time is in [day1+a h, day1+b h).
func inHours(r string, a, b int) bool {
	ts := tsOf(r)
	return ts >= day1.Add(time.Duration(a)*time.Hour).UnixMicro() && ts < day1.Add(time.Duration(b)*time.Hour).UnixMicro()
}

// latestOf renders the newest row of each host, as noIngest renders an
// index (sorted by host).
func latestOf(rs []string) string {
	last := map[string]string{}
	for _, r := range rs {
		_, h, _ := strings.Cut(r, "host=")
		h, _, _ = strings.Cut(h, " ")
		if old, ok := last[h]; !ok || tsOf(r) > tsOf(old) {
			last[h] = r
		}
	}
	var out []string
	hosts := make([]string, 0, len(last))
	for h := range last {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		r := last[h]
		if i := strings.Index(r, " _ingest_ts="); i >= 0 {
			r = r[:i]
		}
		out = append(out, r)
	}
	return strings.Join(out, "\n")
}
