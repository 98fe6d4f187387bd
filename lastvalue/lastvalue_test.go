package lastvalue

import (
	"fmt"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func testSchema(t *testing.T) *schema.Table {
	t.Helper()
	s, err := testSchemaF()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testSchemaF() (*schema.Table, error) {
	return schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Double}}, schema.Day)
}

type row struct {
	host       string
	ts, ingest int64
	v          float64
}

func batch(s *schema.Table, rs ...row) *rows.Batch {
	b := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: len(rs)}
	for _, r := range rs {
		b.Cols[0].Ints = append(b.Cols[0].Ints, r.ts)
		b.Cols[1].Strs = append(b.Cols[1].Strs, r.host)
		b.Cols[2].Floats = append(b.Cols[2].Floats, r.v)
		b.Cols[3].Ints = append(b.Cols[3].Ints, r.ingest)
	}
	return b
}

func dump(b *rows.Batch) string {
	s := ""
	for i := 0; i < b.Len; i++ {
		s += fmt.Sprintf("%s@%d/%d=%g ", b.Cols[1].Strs[i], b.Cols[0].Ints[i], b.Cols[3].Ints[i], b.Cols[2].Floats[i])
	}
	return s
}

func TestMerge(t *testing.T) {
	s := testSchema(t)
	tests := []struct {
		name      string
		prev, app []row
		want      string
	}{
		{"first append keeps the latest per series",
			nil, []row{{"b", 1, 9, 1}, {"a", 5, 9, 2}, {"a", 3, 9, 3}, {"b", 2, 9, 4}},
			"a@5/9=2 b@2/9=4 "},
		{"older appended row does not replace a newer one",
			[]row{{"a", 10, 1, 1}}, []row{{"a", 5, 2, 2}},
			"a@10/1=1 "},
		{"same time, later ingest wins",
			[]row{{"a", 10, 1, 1}}, []row{{"a", 10, 2, 2}},
			"a@10/2=2 "},
		{"full tie: the appended row wins",
			[]row{{"a", 10, 1, 1}}, []row{{"a", 10, 1, 2}},
			"a@10/1=2 "},
		{"a run of one series in the appended batch: its latest row, a full tie going to the later row",
			[]row{{"a", 7, 1, 1}}, []row{{"a", 3, 1, 2}, {"a", 9, 1, 3}, {"a", 9, 1, 4}, {"a", 8, 5, 5}, {"b", 1, 1, 6}, {"b", 1, 1, 7}},
			"a@9/1=4 b@1/1=7 "},
		{"a run in prev: a full tie keeps the earlier row (prev is not the later commit)",
			[]row{{"a", 9, 1, 1}, {"a", 9, 1, 2}, {"a", 2, 1, 3}}, []row{{"b", 1, 1, 4}},
			"a@9/1=1 b@1/1=4 "},
		{"runs split by another series are folded again in the map",
			nil, []row{{"a", 5, 1, 1}, {"b", 1, 1, 2}, {"a", 6, 1, 3}, {"a", 4, 1, 4}, {"b", 1, 1, 5}},
			"a@6/1=3 b@1/1=5 "},
		{"series only in prev are kept, output sorted",
			[]row{{"z", 1, 1, 1}, {"c", 1, 1, 1}}, []row{{"m", 2, 2, 2}},
			"c@1/1=1 m@2/2=2 z@1/1=1 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var prev *rows.Batch
			if tc.prev != nil {
				prev = batch(s, tc.prev...)
			}
			got := dump(Merge(prev, batch(s, tc.app...)))
			if got != tc.want {
				t.Errorf("Merge = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDrop(t *testing.T) {
	s := testSchema(t)
	got := dump(Drop(batch(s, row{"a", 5, 1, 1}, row{"b", 10, 1, 2}, row{"c", 9, 1, 3}), 9))
	if want := "b@10/1=2 c@9/1=3 "; got != want {
		t.Errorf("Drop = %q, want %q", got, want)
	}
}

func TestNullsPreserved(t *testing.T) {
	s := testSchema(t)
	b := batch(s, row{"a", 1, 1, 0}, row{"b", 1, 1, 2})
	b.Cols[2].Nulls = []bool{true, false}
	got := Merge(nil, b)
	if !got.Cols[2].IsNull(0) || got.Cols[2].IsNull(1) {
		t.Errorf("nulls = %v, want [true false]", got.Cols[2].Nulls)
	}
}

// TestMergeNullIngest: rows.Rank across batches — a row without
// _ingest_ts (another writer's) against one with it: the appended, later
// commit wins; within a batch the row with _ingest_ts wins.
func TestMergeNullIngest(t *testing.T) {
	s := testSchema(t)
	withNulls := func(b *rows.Batch, idx ...int) *rows.Batch {
		b.Cols[s.Ingest].Nulls = make([]bool, b.Len)
		for _, i := range idx {
			b.Cols[s.Ingest].Nulls[i] = true
		}
		return b
	}
	tests := []struct {
		name      string
		prev, app *rows.Batch
		want      string
	}{
		{"a null appended row wins: the later commit", batch(s, row{"a", 5, 3, 1}), withNulls(batch(s, row{"a", 5, 9, 2}), 0), "a@5/9=2 "},
		{"a value appended beats a null", withNulls(batch(s, row{"a", 5, 9, 1}), 0), batch(s, row{"a", 5, 1, 2}), "a@5/1=2 "},
		{"two nulls: the appended row", withNulls(batch(s, row{"a", 5, 9, 1}), 0), withNulls(batch(s, row{"a", 5, 0, 2}), 0), "a@5/0=2 "},
		{"within a batch, the null loses", nil, withNulls(batch(s, row{"a", 5, 1, 1}, row{"a", 5, 7, 2}), 1), "a@5/1=1 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dump(Merge(tc.prev, tc.app)); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
