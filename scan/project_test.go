package scan

import (
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

func TestProjection(t *testing.T) {
	tb, err := schema.New("ts", []string{"host", "shard"}, []schema.Field{
		{Name: "cpu", Type: schema.Double}, {Name: "shard", Type: schema.Long}, {Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	// table order: ts, host, shard, cpu, mem, _ingest_ts
	for _, c := range []struct {
		cols             []string
		want             string
		time, ingest     int
		series0, series1 int
	}{
		{nil, "ts host shard cpu mem", 0, -1, 1, 2},
		{[]string{"mem"}, "ts host shard mem", 0, -1, 1, 2},
		{[]string{"mem", "cpu", "mem"}, "ts host shard cpu mem", 0, -1, 1, 2},
		{[]string{"_ingest_ts"}, "ts host shard _ingest_ts", 0, 3, 1, 2},
		{[]string{"nope"}, "ts host shard", 0, -1, 1, 2},
	} {
		p := Projection(tb, c.cols)
		var names []string
		for _, f := range p.Fields {
			names = append(names, f.Name)
			if f != tb.Fields[tb.Index(f.Name)] {
				t.Errorf("%v: field %q is %+v, the table's %+v", c.cols, f.Name, f, tb.Fields[tb.Index(f.Name)])
			}
		}
		if got := strings.Join(names, " "); got != c.want || p.Time != c.time || p.Ingest != c.ingest ||
			len(p.Series) != 2 || p.Series[0] != c.series0 || p.Series[1] != c.series1 {
			t.Errorf("%v: got %s time %d ingest %d series %v; want %s time %d ingest %d series [%d %d]",
				c.cols, got, p.Time, p.Ingest, p.Series, c.want, c.time, c.ingest, c.series0, c.series1)
		}
	}
}
