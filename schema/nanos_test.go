package schema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestNanosTypes(t *testing.T) {
	for _, c := range []struct {
		name         string
		typ          Type
		nanos, zoned bool
	}{
		{"timestamptz_ns", TimestamptzNs, true, true},
		{"timestamp_ns", TimestampNs, true, false},
		{"timestamptz", Timestamptz, false, true},
		{"timestamp", Timestamp, false, false},
	} {
		got, err := ParseType(c.name)
		if err != nil || got != c.typ || got.String() != c.name {
			t.Errorf("ParseType(%q) = %v, %v", c.name, got, err)
		}
		if !got.IsTime() || !got.IsInteger() || got.Nanos() != c.nanos || got.Zoned() != c.zoned {
			t.Errorf("%s: IsTime %v Nanos %v Zoned %v", c.name, got.IsTime(), got.Nanos(), got.Zoned())
		}
		if per := got.PerMicro(); per != map[bool]int64{true: 1000, false: 1}[c.nanos] {
			t.Errorf("%s: PerMicro %d", c.name, per)
		}
		if got.InNanos().Zoned() != c.zoned || !got.InNanos().Nanos() || got.InMicros().Nanos() || got.InMicros().Zoned() != c.zoned {
			t.Errorf("%s: InNanos %v InMicros %v", c.name, got.InNanos(), got.InMicros())
		}
	}
	tb, err := New("ts", []string{"host"}, []Field{{Name: "ts", Type: TimestamptzNs}, {Name: "v", Type: TimestampNs}, {Name: "w", Type: Double}}, Hour)
	if err != nil {
		t.Fatal(err)
	}
	if tb.TimeField().Type != TimestamptzNs || strings.Join(RequiresV3(tb), ",") != "ts,v" {
		t.Errorf("time %v, RequiresV3 %v", tb.TimeField().Type, RequiresV3(tb))
	}
	plain, _ := New("ts", nil, []Field{{Name: "v", Type: Timestamp}}, Day)
	if got := RequiresV3(plain); len(got) != 0 {
		t.Errorf("RequiresV3 of a µs schema: %v", got)
	}
	// the hour of 1 ns before the epoch is -1; the last hour's end saturates
	if tb.PartitionOf(-1) != -1 || tb.PartitionOf(3_600_000_000_000) != 1 {
		t.Errorf("PartitionOf: %d %d", tb.PartitionOf(-1), tb.PartitionOf(3_600_000_000_000))
	}
	if s, e := tb.PartitionRange(tb.PartitionOf(math.MaxInt64)); s <= math.MaxInt64-3_600_000_000_000 || e != math.MaxInt64 {
		t.Errorf("last partition's range [%d, %d)", s, e)
	}
}

func TestNanosDefaults(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		json string
		want int64
	}{
		{TimestamptzNs, `"2017-11-16T22:31:08.123456789+00:00"`, 1510871468123456789},
		{TimestampNs, `"1969-12-31T23:59:59.999999999"`, -1},
	} {
		v, err := ParseDefault(c.typ, json.RawMessage(c.json))
		if err != nil || v.Int != c.want {
			t.Errorf("ParseDefault(%v, %s) = %+v, %v; want %d", c.typ, c.json, v, err, c.want)
			continue
		}
		if got := string(DefaultJSON(c.typ, v)); got != c.json {
			t.Errorf("DefaultJSON(%v) = %s, want %s", c.typ, got, c.json)
		}
	}
	if _, err := ParseDefault(TimestampNs, json.RawMessage(`"2300-01-01T00:00:00"`)); err == nil {
		t.Error("a default past int64 nanoseconds was taken")
	}
}
