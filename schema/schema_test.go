package schema

import (
	"strings"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	tb, err := New("ts", []string{"host", "shard"}, []Field{
		{Name: "shard", Type: Long},
		{Name: "cpu", Type: Double},
		{Name: "ok", Type: Boolean, Required: true},
	}, Hour)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range tb.Fields {
		got = append(got, f.Name+":"+f.Type.String())
	}
	if want := "ts:timestamptz host:string shard:long cpu:double ok:boolean _ingest_ts:timestamptz"; strings.Join(got, " ") != want {
		t.Errorf("fields = %q, want %q", strings.Join(got, " "), want)
	}
	for i, f := range tb.Fields {
		if f.ID != i+1 {
			t.Errorf("field %s id = %d, want %d", f.Name, f.ID, i+1)
		}
	}
	if !tb.Fields[2].Required || tb.Fields[3].Required {
		t.Errorf("series columns must be required, values keep their own: %+v", tb.Fields)
	}
	if tb.Time != 0 || tb.Ingest != 5 || len(tb.Series) != 2 || tb.Series[1] != 2 {
		t.Errorf("indexes: time %d, ingest %d, series %v", tb.Time, tb.Ingest, tb.Series)
	}
	if got := tb.PartitionName(); got != "ts_hour" {
		t.Errorf("PartitionName = %q, want ts_hour", got)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		time   string
		series []string
		values []Field
		want   string
	}{
		{"", []string{"h"}, nil, "time column is required"},
		{"ts", []string{"h"}, []Field{{Name: "ts", Type: Long}}, `time column "ts" must be timestamptz`},
		{"ts", []string{"h"}, []Field{{Name: "h", Type: Double}}, `series column "h" must be string, long or int`},
		{"ts", []string{"h", "h"}, nil, `column "h" used twice`},
		{"ts", []string{"ts"}, nil, `column "ts" used twice`},
		{"ts", []string{"h"}, []Field{{Name: "v", Type: Long}, {Name: "v", Type: Long}}, `column "v" declared twice`},
		{"ts", []string{"h"}, []Field{{Name: "_ingest_ts", Type: Long}}, "reserved"},
		{"ts", []string{"h"}, []Field{{Name: "a/b", Type: Long}}, "not allowed"},
		{"ts", []string{"h"}, []Field{{Name: "v"}}, `column "v" has no type`},
	}
	for _, tc := range tests {
		_, err := New(tc.time, tc.series, tc.values, Day)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q, %v) error = %v, want %q", tc.time, tc.series, tc.values, err, tc.want)
		}
	}
}

func TestTransforms(t *testing.T) {
	us := func(s string) int64 {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixMicro()
	}
	tests := []struct {
		tr     Transform
		at     string
		value  int32
		format string
	}{
		{Day, "1970-01-01T00:00:00Z", 0, "1970-01-01"},
		{Day, "2026-11-29T23:59:59.999999Z", 20786, "2026-11-29"},
		{Day, "1969-12-31T23:59:59.999999Z", -1, "1969-12-31"},
		{Hour, "2026-11-29T10:30:00Z", 20786*24 + 10, "2026-11-29-10"},
		{Hour, "1969-12-31T23:00:00Z", -1, "1969-12-31-23"},
		{Month, "2026-11-29T10:30:00Z", 56*12 + 10, "2026-11"},
		{Month, "1969-12-15T00:00:00Z", -1, "1969-12"},
		{Day, "0001-01-01T00:00:00Z", -719162, "0001-01-01"},
	}
	for _, tc := range tests {
		v := tc.tr.Apply(us(tc.at))
		if v != tc.value {
			t.Errorf("%v(%s) = %d, want %d", tc.tr, tc.at, v, tc.value)
		}
		if got := tc.tr.Format(v); got != tc.format {
			t.Errorf("%v.Format(%d) = %q, want %q", tc.tr, v, got, tc.format)
		}
		start, end := tc.tr.Range(v)
		if at := us(tc.at); at < start || at >= end {
			t.Errorf("%v.Range(%d) = [%d, %d) does not hold %s", tc.tr, v, start, end, tc.at)
		}
		if tc.tr.Apply(start) != v || tc.tr.Apply(end) != v+1 {
			t.Errorf("%v.Range(%d) edges map to %d and %d", tc.tr, v, tc.tr.Apply(start), tc.tr.Apply(end))
		}
	}
}

func TestParseNames(t *testing.T) {
	for _, n := range []string{"long", "int", "double", "float", "boolean", "string", "timestamptz"} {
		ty, err := ParseType(n)
		if err != nil || ty.String() != n {
			t.Errorf("ParseType(%q) = %v, %v", n, ty, err)
		}
	}
	if _, err := ParseType("decimal"); err == nil {
		t.Error("ParseType(decimal) accepted")
	}
	for _, n := range []string{"day", "hour", "month"} {
		tr, err := ParseTransform(n)
		if err != nil || tr.String() != n {
			t.Errorf("ParseTransform(%q) = %v, %v", n, tr, err)
		}
	}
	if _, err := ParseTransform("week"); err == nil {
		t.Error("ParseTransform(week) accepted")
	}
}

// TestNewOneSeries: a table without series columns is one series, keyed by
// time alone.
func TestNewOneSeries(t *testing.T) {
	tbl, err := New("ts", nil, []Field{{Name: "v", Type: Double}}, Day)
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Series) != 0 || tbl.Time != 0 || tbl.Index("v") != 1 || !tbl.HasKey() {
		t.Errorf("got %+v, want time then v, no series", tbl)
	}
}
