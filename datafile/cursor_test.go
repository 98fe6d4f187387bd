package datafile

import (
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// checkSorted accepts rows strictly increasing in (series…, time) and names
// the first row out of order, across series columns of both kinds and from
// one window to the next.
func TestCheckSorted(t *testing.T) {
	sch, err := schema.New("ts", []string{"host", "shard"}, []schema.Field{{Name: "shard", Type: schema.Long}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	host, shard := sch.Series[0], sch.Series[1]
	type row struct {
		host  string
		shard int64
		ts    int64
	}
	window := func(rs ...row) *Cursor {
		w := &Cursor{f: &File{Key: "data/f.parquet"}, sch: sch, Cols: make([]rows.Column, len(sch.Fields)), N: len(rs), Rows: int64(len(rs))}
		for _, r := range rs {
			w.Cols[host].Strs = append(w.Cols[host].Strs, strings.Clone(r.host)) // distinct bytes: no pointer equality to lean on
			w.Cols[shard].Ints = append(w.Cols[shard].Ints, r.shard)
			w.Cols[sch.Time].Ints = append(w.Cols[sch.Time].Ints, r.ts)
		}
		return w
	}
	for _, tc := range []struct {
		name    string
		rows    []row
		badRow  int // -1: sorted
		prevRow *row
	}{
		{"sorted", []row{{"a", 1, 5}, {"a", 1, 6}, {"a", 2, 1}, {"b", 0, 0}, {"b", 0, 9}}, -1, nil},
		{"one row", []row{{"a", 1, 5}}, -1, nil},
		{"duplicate key", []row{{"a", 1, 5}, {"a", 1, 5}}, 1, nil},
		{"time goes back", []row{{"a", 1, 5}, {"a", 1, 6}, {"a", 1, 4}}, 2, nil},
		{"second series goes back", []row{{"a", 2, 1}, {"a", 1, 9}}, 1, nil},
		{"first series goes back", []row{{"b", 0, 0}, {"a", 9, 9}}, 1, nil},
		{"first series decides", []row{{"a", 9, 9}, {"b", 0, 0}, {"b", 0, 1}}, -1, nil},
		{"after the previous window", []row{{"b", 0, 0}}, -1, &row{"a", 5, 5}},
		{"before the previous window", []row{{"a", 5, 5}, {"b", 0, 0}}, 0, &row{"a", 5, 5}},
	} {
		w := window(tc.rows...)
		var prev *Cursor
		if tc.prevRow != nil {
			prev = window(*tc.prevRow)
		}
		err := w.checkSorted(prev)
		if tc.badRow < 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		want := "not sorted by (series…, time) at row " + string(rune('0'+tc.badRow))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a corrupt-table error naming row %d", tc.name, err, tc.badRow)
		}
	}
}

// The one-string-series pass of checkSorted gives the same answers, with
// equal strings sharing their bytes (as a dictionary page's do) or not.
func TestCheckSortedOneSeries(t *testing.T) {
	sch, err := schema.New("ts", []string{"host"}, nil, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	host := sch.Series[0]
	type row struct {
		host string
		ts   int64
	}
	window := func(shared bool, rs ...row) *Cursor {
		w := &Cursor{f: &File{Key: "data/f.parquet"}, sch: sch, Cols: make([]rows.Column, len(sch.Fields)), N: len(rs), Rows: int64(len(rs))}
		for _, r := range rs {
			h := r.host
			if !shared {
				h = strings.Clone(h)
			}
			w.Cols[host].Strs = append(w.Cols[host].Strs, h)
			w.Cols[sch.Time].Ints = append(w.Cols[sch.Time].Ints, r.ts)
		}
		return w
	}
	for _, tc := range []struct {
		name   string
		rows   []row
		badRow int // -1: sorted
	}{
		{"sorted", []row{{"a", 5}, {"a", 6}, {"b", 1}, {"b", 2}, {"c", 0}}, -1},
		{"duplicate key", []row{{"a", 5}, {"a", 6}, {"a", 6}}, 2},
		{"time goes back", []row{{"a", 5}, {"a", 4}}, 1},
		{"series goes back", []row{{"b", 0}, {"a", 9}}, 1},
		{"series decides", []row{{"a", 9}, {"b", 0}}, -1},
		{"same length, later bytes", []row{{"ab", 1}, {"aa", 2}}, 1},
	} {
		for _, shared := range []bool{true, false} {
			err := window(shared, tc.rows...).checkSorted(nil)
			if tc.badRow < 0 {
				if err != nil {
					t.Errorf("%s (shared %v): %v", tc.name, shared, err)
				}
				continue
			}
			want := "not sorted by (series…, time) at row " + string(rune('0'+tc.badRow))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s (shared %v): got %v, want a corrupt-table error naming row %d", tc.name, shared, err, tc.badRow)
			}
		}
	}
}
