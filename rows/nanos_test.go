package rows

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

func nsTable(t *testing.T) *schema.Table {
	t.Helper()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "ts", Type: schema.TimestamptzNs},
		{Name: "at", Type: schema.TimestampNs},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// Nanosecond columns keep every digit of every input form; microsecond
// columns beside them are unchanged.
func TestNanosInputs(t *testing.T) {
	sch := nsTable(t)
	cases := []struct {
		name string
		unit TimeUnit
		set  func(b *Builder) error
		want int64
	}{
		{"rfc3339 9 digits", 0, func(b *Builder) error { return b.AppendString(0, "2026-11-29T10:00:00.123456789Z") }, 1795946400123456789},
		{"rfc3339 7 digits", 0, func(b *Builder) error { return b.AppendString(0, "2026-11-29T10:00:00.1234567Z") }, 1795946400123456700},
		{"rfc3339 offset", 0, func(b *Builder) error { return b.AppendString(0, "2026-11-29T11:00:00.000000001+01:00") }, 1795946400000000001},
		{"before epoch", 0, func(b *Builder) error { return b.AppendString(0, "1969-12-31T23:59:59.999999999Z") }, -1},
		{"least", 0, func(b *Builder) error { return b.AppendString(0, "1677-09-21T00:12:43.145224192Z") }, math.MinInt64},
		{"greatest", 0, func(b *Builder) error { return b.AppendString(0, "2262-04-11T23:47:16.854775807Z") }, math.MaxInt64},
		{"ns text", Nanoseconds, func(b *Builder) error { return b.AppendString(0, "1795946400123456789") }, 1795946400123456789},
		{"s decimal text", Seconds, func(b *Builder) error { return b.AppendString(0, "1795946400.123456789") }, 1795946400123456789},
		{"negative s decimal", Seconds, func(b *Builder) error { return b.AppendString(0, "-0.000000001") }, -1},
		{"ms decimal rounds below ns", Milliseconds, func(b *Builder) error { return b.AppendString(0, "1.0000006") }, 1000001},
		{"int64 ns", Nanoseconds, func(b *Builder) error { return b.AppendInt64(0, 1795946400123456789) }, 1795946400123456789},
		{"int64 us", Microseconds, func(b *Builder) error { return b.AppendInt64(0, 1795946400123456) }, 1795946400123456000},
		{"float s", Seconds, func(b *Builder) error { return b.AppendFloat64(0, 1.5) }, 1500000000},
		{"time.Time", 0, func(b *Builder) error { return b.AppendTime(0, time.Unix(1795946400, 123456789)) }, 1795946400123456789},
		{"time.Time before epoch", 0, func(b *Builder) error { return b.AppendTime(0, time.Unix(-1, 999999999)) }, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(sch, Options{TimeUnit: c.unit})
			if err := c.set(b); err != nil {
				t.Fatal(err)
			}
			if got := b.batch.Cols[0].Ints[len(b.batch.Cols[0].Ints)-1]; got != c.want {
				t.Fatalf("got %d, want %d", got, c.want)
			}
		})
	}
}

func TestNanosOutOfRange(t *testing.T) {
	sch := nsTable(t)
	for _, c := range []struct {
		unit TimeUnit
		set  func(b *Builder) error
	}{
		{0, func(b *Builder) error { return b.AppendString(0, "2262-04-11T23:47:16.854775808Z") }},
		{0, func(b *Builder) error { return b.AppendString(0, "1677-09-21T00:12:43.145224191Z") }},
		{0, func(b *Builder) error { return b.AppendString(2, "9999-01-01T00:00:00Z") }},
		{Seconds, func(b *Builder) error { return b.AppendInt64(0, 9223372037) }},
		{Seconds, func(b *Builder) error { return b.AppendString(0, "9223372036.854775808") }},
		{Seconds, func(b *Builder) error { return b.AppendFloat64(0, 1e10) }},
		{0, func(b *Builder) error { return b.AppendTime(0, time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)) }},
	} {
		b := NewBuilder(sch, Options{TimeUnit: c.unit})
		err := c.set(b)
		if e, ok := err.(*Error); !ok || e.Code != CodeTimeOutOfRange {
			t.Errorf("got %v, want %s", err, CodeTimeOutOfRange)
		}
	}
}

// The time column's partitions are computed from nanoseconds: floor for
// times before the epoch, and a day's last nanosecond stays in it.
func TestNanosPartitions(t *testing.T) {
	sch := nsTable(t)
	for _, c := range []struct {
		ns   int64
		tr   schema.Transform
		want int32
	}{
		{-1, schema.Day, -1},
		{0, schema.Day, 0},
		{86_400_000_000_000 - 1, schema.Day, 0},
		{86_400_000_000_000, schema.Day, 1},
		{-1, schema.Hour, -1},
		{3_600_000_000_000, schema.Hour, 1},
		{-1, schema.Month, -1},
		{1795946400123456789, schema.Month, (2026-1970)*12 + 10},
		{math.MaxInt64, schema.Day, 106751},
		{math.MinInt64, schema.Day, -106752},
	} {
		sch.Partition = c.tr
		if got := sch.PartitionOf(c.ns); got != c.want {
			t.Errorf("%v(%d) = %d, want %d", c.tr, c.ns, got, c.want)
		}
		start, end := sch.PartitionRange(c.want)
		if c.ns < start || (c.ns >= end && end != math.MaxInt64) {
			t.Errorf("%v(%d): range [%d, %d) does not hold it", c.tr, c.ns, start, end)
		}
	}
}

// TestNanosReaders: NDJSON integers and strings, CSV text and Go maps
// (time.Time, int64, json.Number) keep every nanosecond of an ns column.
func TestNanosReaders(t *testing.T) {
	sch := nsTable(t)
	want := []int64{1795946400123456789, -1}
	check := func(what string, b *Batch, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if b.Len != 2 || b.Cols[0].Ints[0] != want[0] || b.Cols[0].Ints[1] != want[1] || b.Cols[2].Ints[0] != want[0] {
			t.Errorf("%s: ts %v at %v", what, b.Cols[0].Ints[:b.Len], b.Cols[2].Ints[:b.Len])
		}
	}
	nd := NewNDJSONReader(strings.NewReader(`{"ts":1795946400123456789,"host":"a","at":"2026-11-29T10:00:00.123456789"}`+"\n"+
		`{"ts":"1969-12-31T23:59:59.999999999Z","host":"a","at":null}`+"\n"), sch, Options{TimeUnit: Nanoseconds})
	b, err := nd.Next(10)
	check("ndjson", b, err)
	cr := NewCSVReader(strings.NewReader("ts,host,at\n1795946400.123456789,a,1795946400.123456789\n-0.000000001,a,\n"), sch, Options{TimeUnit: Seconds})
	b, err = cr.Next(10)
	check("csv", b, err)
	b, err = FromMaps(sch, []map[string]any{
		{"ts": time.Unix(1795946400, 123456789), "host": "a", "at": json.Number("1795946400123456789")},
		{"ts": int64(-1), "host": "a"},
	}, Options{TimeUnit: Nanoseconds})
	check("maps", b, err)
}

// TestNanosConvertFloat64s: the column-at-a-time conversion (JS numbers)
// agrees with AppendFloat64 for an ns column and stops at a value past
// int64 nanoseconds.
func TestNanosConvertFloat64s(t *testing.T) {
	vs := []float64{1.5, -0.000001, 1795946400123.456, 1e13}
	ints := make([]int64, len(vs))
	if i := ConvertFloat64s(schema.TimestamptzNs, Milliseconds, vs, ints, nil); i != 3 {
		t.Fatalf("ConvertFloat64s stopped at %d, want 3 (1e13 ms is past 2262)", i)
	}
	sch := nsTable(t)
	for k, v := range vs[:3] {
		b := NewBuilder(sch, Options{})
		if err := b.AppendFloat64(0, v); err != nil {
			t.Fatal(err)
		}
		if got := b.batch.Cols[0].Ints[0]; got != ints[k] {
			t.Errorf("%v ms: ConvertFloat64s %d, AppendFloat64 %d", v, ints[k], got)
		}
	}
	if ints[0] != 1_500_000 || ints[1] != -1 {
		t.Errorf("1.5 ms, -1 ns: %v", ints[:2])
	}
}
