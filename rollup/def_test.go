package rollup

import (
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

func TestParse(t *testing.T) {
	props := map[string]string{
		"timelake.rollup.hourly.every":      "1h",
		"timelake.rollup.hourly.aggregates": "cpu:last,avg,min;mem:max",
		"timelake.rollup.hourly.retention":  "365d",
		"timelake.rollup.daily.every":       "1d",
		"timelake.rollup.daily.aggregates":  "cpu:count",
		"timelake.rollup.inline":            "true",
		"timelake.retention":                "30d",
	}
	defs, err := Parse(props)
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 2 || defs[0].Name != "daily" || defs[1].Name != "hourly" {
		t.Fatalf("got %+v, want daily and hourly", defs)
	}
	h := defs[1]
	if got, want := h.AggString(), "cpu:count,sum,min,last;mem:max"; got != want {
		t.Errorf("aggregates: got %q, want %q", got, want)
	}
	if h.Width != 3600e6 || h.RetainFor.Hours() != 365*24 {
		t.Errorf("width %d retention %v", h.Width, h.RetainFor)
	}
	// Properties round-trip.
	again, err := Parse(h.Properties())
	if err != nil || len(again) != 1 || again[0].AggString() != h.AggString() || again[0].Every != "1h" {
		t.Errorf("round trip: %+v, %v", again, err)
	}
	// Without field ids (a definition written before they were recorded)
	// and with them: stored as written, round-tripping.
	if h.HasFieldIDs() || h.Properties()[Key("hourly", SuffixFieldIDs)] != "" {
		t.Errorf("hourly has field ids: %+v", h.Aggs)
	}
	props["timelake.rollup.hourly.field-ids"] = "mem:4; cpu:3"
	if defs, err = Parse(props); err != nil {
		t.Fatal(err)
	}
	h = defs[1]
	if got, want := h.Properties()[Key("hourly", SuffixFieldIDs)], "cpu:3;mem:4"; got != want || h.Aggs[0].FieldID != 3 || h.Aggs[1].FieldID != 4 {
		t.Errorf("field ids: %q %+v, want %q", got, h.Aggs, want)
	}
	if again, err := Parse(h.Properties()); err != nil || again[0].fieldIDString() != "cpu:3;mem:4" {
		t.Errorf("field ids round trip: %+v, %v", again, err)
	}
	if in, err := ParseInline(props); !in || err != nil {
		t.Errorf("inline: %v %v", in, err)
	}
}

func TestParseErrors(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"timelake.rollup.h.every": "1h", "timelake.rollup.h.aggregates": "cpu:max"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "<del>" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	cases := []struct {
		props   map[string]string
		key, in string
	}{
		{base("timelake.rollup.h.every", "2h"), "timelake.rollup.h.every", `"2h": want 1m`},
		{base("timelake.rollup.h.every", "<del>"), "timelake.rollup.h.every", "missing"},
		{base("timelake.rollup.h.aggregates", "<del>"), "timelake.rollup.h.aggregates", "missing"},
		{base("timelake.rollup.h.aggregates", "cpu:median"), "timelake.rollup.h.aggregates", `unknown aggregate "median"`},
		{base("timelake.rollup.h.aggregates", "cpu"), "timelake.rollup.h.aggregates", "want COLUMN:FUNC"},
		{base("timelake.rollup.h.aggregates", "cpu:max;cpu:min"), "timelake.rollup.h.aggregates", "named twice"},
		{base("timelake.rollup.h.retention", "forever"), "timelake.rollup.h.retention", "want a duration"},
		{base("timelake.rollup.h.colour", "red"), "timelake.rollup.h.colour", "unknown rollup property"},
		{base("timelake.rollup.Bad.every", "1h"), "timelake.rollup.Bad.every", "a rollup name"},
		{base("timelake.rollup.h", "x"), "timelake.rollup.h", "want timelake.rollup.<name>"},
		{base("timelake.rollup.h.field-ids", "cpu:x"), "timelake.rollup.h.field-ids", "want COLUMN:FIELD_ID"},
		{base("timelake.rollup.h.field-ids", "cpu:0"), "timelake.rollup.h.field-ids", "want COLUMN:FIELD_ID"},
		{base("timelake.rollup.h.field-ids", ""), "timelake.rollup.h.field-ids", "want COLUMN:FIELD_ID"},
		{base("timelake.rollup.h.field-ids", "mem:3"), "timelake.rollup.h.field-ids", `no field id for column "cpu"`},
		{base("timelake.rollup.h.field-ids", "cpu:3;mem:4"), "timelake.rollup.h.field-ids", `column "mem" is not aggregated`},
		{base("timelake.rollup.h.field-ids", "cpu:3;cpu:4"), "timelake.rollup.h.field-ids", "named twice"},
		{base("timelake.rollup.h.aggregates", "cpu:max;mem:min", "timelake.rollup.h.field-ids", "cpu:3;mem:3"), "timelake.rollup.h.field-ids", "field id 3 given to"},
		{base("timelake.rollup.inline", "yes"), "", ""},
	}
	for _, c := range cases {
		_, err := Parse(c.props)
		if c.key == "" {
			if _, err := ParseInline(c.props); err == nil || !strings.Contains(err.Error(), PropInline) {
				t.Errorf("inline: got %v, want an error naming %s", err, PropInline)
			}
			continue
		}
		var re *Error
		if !errors.As(err, &re) || re.Code != CodeBadRollup || re.Key != c.key || !strings.Contains(re.Msg, c.in) {
			t.Errorf("%v: got %v, want BAD_ROLLUP naming %s with %q", c.props, err, c.key, c.in)
		}
	}
}

func TestColumns(t *testing.T) {
	_, tags, err := schema.ParseTypeText("map<string, string>")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double}, {Name: "mem", Type: schema.Long}, {Name: "up", Type: schema.Boolean}, {Name: "msg", Type: schema.String},
		{Name: "tags", Type: schema.Nested, Nested: tags}, // left out of the rollup; no aggregate of it
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New("h", "1h", []string{"cpu:avg,first", "mem:sum,max", "up:min,last", "msg:count"}, "")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := Schema(raw, d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range sch.Fields {
		got = append(got, f.Name+":"+f.Type.String())
	}
	want := "bucket:timestamptz host:string row_count:long cpu_count:long cpu_sum:double cpu_first:double mem_sum:long mem_max:long up_min:boolean up_last:boolean msg_count:long"
	if strings.Join(got, " ") != want {
		t.Errorf("columns:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if sch.HasIngest() || sch.Partition != schema.Day {
		t.Errorf("ingest %v partition %v", sch.HasIngest(), sch.Partition)
	}
	for _, spec := range []string{"msg:sum", "up:avg", "ts:max", "host:max", "_ingest_ts:max", "nope:max", "tags:max", "tags:count"} {
		d, err := New("h", "1h", []string{spec}, "")
		if err != nil {
			t.Fatal(err)
		}
		var re *Error
		if _, err := Schema(raw, d); !errors.As(err, &re) || re.Key != "timelake.rollup.h.aggregates" {
			t.Errorf("%s: got %v, want BAD_ROLLUP naming the aggregates key", spec, err)
		}
	}
}

func TestBucket(t *testing.T) {
	for _, c := range []struct{ t, w, want int64 }{{0, 10, 0}, {9, 10, 0}, {10, 10, 10}, {-1, 10, -10}, {-10, 10, -10}, {-11, 10, -20}} {
		if got := Bucket(c.t, c.w); got != c.want {
			t.Errorf("Bucket(%d, %d) = %d, want %d", c.t, c.w, got, c.want)
		}
	}
}

// FuzzParse: any property map either parses into definitions whose
// properties parse back the same, or is refused with a BAD_ROLLUP naming a
// rollup key (one of the map, or one missing from it).
func FuzzParse(f *testing.F) {
	f.Add("hourly", "every", "1h", "aggregates", "cpu:min,max,avg,last;mem:max")
	f.Add("d", "every", "1d", "retention", "3x")
	f.Add("x.y", "aggregates", ":,;", "every", "")
	f.Add("h", "aggregates", "cpu:max;mem:min", "field-ids", "cpu:3;mem:4")
	f.Fuzz(func(t *testing.T, name, k1, v1, k2, v2 string) {
		props := map[string]string{PropPrefix + name + "." + k1: v1, PropPrefix + name + "." + k2: v2}
		defs, err := Parse(props)
		if err != nil {
			var re *Error
			if !errors.As(err, &re) || re.Code != CodeBadRollup {
				t.Fatalf("got %v, want a BAD_ROLLUP", err)
			}
			// A present key, or the missing one of a named rollup.
			if _, ok := props[re.Key]; !ok && !strings.HasPrefix(re.Key, PropPrefix) {
				t.Fatalf("error names %q, not a rollup key of %v", re.Key, props)
			}
			return
		}
		for _, d := range defs {
			again, err := Parse(d.Properties())
			if err != nil || len(again) != 1 || again[0].AggString() != d.AggString() || again[0].Width != d.Width || again[0].RetainFor != d.RetainFor || again[0].fieldIDString() != d.fieldIDString() {
				t.Fatalf("%+v does not round-trip: %+v, %v", d, again, err)
			}
		}
	})
}
