package lastvalue

import (
	"fmt"
	"testing"

	"github.com/timelake/timelake/rows"
)

func TestCollector(t *testing.T) {
	s := testSchema(t)
	type feed struct {
		rows  []row
		seq   int64
		nulls []int // rows whose _ingest_ts is null
	}
	tests := []struct {
		name  string
		feeds []feed
		want  string
	}{
		{"nothing", nil, ""},
		{"unsorted rows, one file", []feed{{rows: []row{{"b", 1, 9, 1}, {"a", 5, 9, 2}, {"a", 3, 9, 3}, {"b", 2, 9, 4}, {"a", 4, 9, 5}}, seq: 1}},
			"a@5/9=2 b@2/9=4 "},
		{"greater time wins across files", []feed{{rows: []row{{"a", 5, 9, 1}}, seq: 2}, {rows: []row{{"a", 4, 9, 2}}, seq: 3}},
			"a@5/9=1 "},
		{"same time: greater _ingest_ts", []feed{{rows: []row{{"a", 5, 8, 1}}, seq: 3}, {rows: []row{{"a", 5, 7, 2}}, seq: 2}},
			"a@5/8=1 "},
		{"same time, one without _ingest_ts: the greater sequence number", []feed{{rows: []row{{"a", 5, 1, 1}}, seq: 2}, {rows: []row{{"a", 5, 0, 2}}, seq: 3, nulls: []int{0}}},
			"a@5/0=2 "},
		{"same time, one without _ingest_ts, fed first: the greater sequence number", []feed{{rows: []row{{"a", 5, 0, 2}}, seq: 3, nulls: []int{0}}, {rows: []row{{"a", 5, 1, 1}}, seq: 2}},
			"a@5/0=2 "},
		{"same time and sequence number: the row with _ingest_ts", []feed{{rows: []row{{"a", 5, 1, 1}}, seq: 2}, {rows: []row{{"a", 5, 0, 2}}, seq: 2, nulls: []int{0}}},
			"a@5/1=1 "},
		{"both with _ingest_ts: the greater, whatever the sequence numbers", []feed{{rows: []row{{"a", 5, 8, 1}}, seq: 2}, {rows: []row{{"a", 5, 7, 2}}, seq: 9}},
			"a@5/8=1 "},
		{"both null: the later sequence number", []feed{{rows: []row{{"a", 5, 0, 1}}, seq: 3, nulls: []int{0}}, {rows: []row{{"a", 5, 0, 2}}, seq: 2, nulls: []int{0}}},
			"a@5/0=1 "},
		{"full tie: the row fed later", []feed{{rows: []row{{"a", 5, 1, 1}, {"a", 5, 1, 2}}, seq: 2}, {rows: []row{{"b", 1, 1, 3}}, seq: 2}, {rows: []row{{"b", 1, 1, 4}}, seq: 2}},
			"a@5/1=2 b@1/1=4 "},
		{"within a run, null loses", []feed{{rows: []row{{"a", 5, 0, 1}, {"a", 5, 3, 2}, {"a", 5, 0, 3}}, seq: 1, nulls: []int{0, 2}}},
			"a@5/3=2 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(s)
			for _, f := range tc.feeds {
				b := batch(s, f.rows...)
				if f.nulls != nil {
					b.Cols[s.Ingest].Nulls = make([]bool, b.Len)
					for _, i := range f.nulls {
						b.Cols[s.Ingest].Nulls[i] = true
					}
				}
				c.Add(b.Cols, b.Len, f.seq)
			}
			if got := dump(c.Result()); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCollectorAgreesWithMerge: fed one sorted batch, the Collector picks what
// Merge picks.
func TestCollectorAgreesWithMerge(t *testing.T) {
	s := testSchema(t)
	b := batch(s, row{"a", 1, 1, 1}, row{"a", 3, 1, 2}, row{"a", 3, 2, 3}, row{"b", 2, 1, 4}, row{"c", 9, 9, 5}, row{"c", 9, 9, 6})
	c := NewCollector(s)
	c.Add(b.Cols, 3, 1)
	rest := rows.Slice(b, 3, b.Len)
	c.Add(rest.Cols, rest.Len, 1)
	if got, want := dump(c.Result()), dump(Merge(nil, b)); got != want {
		t.Fatalf("collector %q, Merge %q", got, want)
	}
}

func TestCollectorTags(t *testing.T) {
	s := testSchema(t)
	c := NewCollector(s)
	a := batch(s, row{"b", 1, 1, 1}, row{"a", 5, 1, 2}, row{"b", 3, 1, 3})
	c.AddTagged(a.Cols, a.Len, 1, 100)
	b := batch(s, row{"a", 6, 1, 4}, row{"c", 1, 1, 5})
	c.AddTagged(b.Cols, b.Len, 2, 200)
	got, tags := c.ResultTagged()
	if d := dump(got); d != "a@6/1=4 b@3/1=3 c@1/1=5 " || fmt.Sprint(tags) != "[200 102 201]" {
		t.Fatalf("got %q %v", d, tags)
	}
}
