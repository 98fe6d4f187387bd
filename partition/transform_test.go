package partition

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

func micros(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMicro()
}

func mustParse(t testing.TB, s string) Transform {
	t.Helper()
	tr, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return tr
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Transform
		str  string
	}{
		{"identity", Transform{Kind: Identity}, "identity"},
		{"bucket[16]", Transform{Kind: Bucket, N: 16}, "bucket[16]"},
		{"truncate[4]", Transform{Kind: Truncate, N: 4}, "truncate[4]"},
		{"year", Transform{Kind: Year}, "year"},
		{"month", Transform{Kind: Month}, "month"},
		{"day", Transform{Kind: Day}, "day"},
		{"hour", Transform{Kind: Hour}, "hour"},
		{"void", Transform{Kind: Void}, "void"},
		{"bucket[2147483647]", Transform{Kind: Bucket, N: math.MaxInt32}, "bucket[2147483647]"},
		{"Day", Transform{Kind: Day}, "day"},                      // Java reads names in any case
		{"BUCKET[8]", Transform{Kind: Bucket, N: 8}, "bucket[8]"}, // and writes them lower-case
		{"truncate[010]", Transform{Kind: Truncate, N: 10}, "truncate[10]"},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want || got.String() != c.str {
			t.Errorf("Parse(%q) = %+v %q, %v; want %+v %q", c.in, got, got.String(), err, c.want, c.str)
		}
	}
	// Names Java's reader takes for unknown transforms wrap ErrUnknown (a
	// reader ignores such a field); a known transform with a bad width does
	// not (Java refuses it).
	for _, c := range []struct {
		in, why string
		unknown bool
	}{
		{"", "want identity", true}, {"days", "want identity", true}, {"zorder", "want identity", true},
		{" day", "want identity", true}, {"bucket[4", "want identity", true},
		{"bucket", "needs a width", true}, {"truncate", "needs a width", true},
		{"bucket[-1]", "not a decimal", true}, {"bucket[]", "not a decimal", true},
		{"bucket[ 4]", "not a decimal", true}, {"bucket[x]", "not a decimal", true},
		{"day[3]", "only bucket and truncate take a width", true},
		{"bucket[0]", "at least 1", false}, {"truncate[00]", "at least 1", false},
		{"bucket[2147483648]", "more than", false}, {"bucket[99999999999999999999]", "more than", false},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), `"`+c.in+`"`) {
			t.Errorf("Parse(%q) = %v, want an error naming the string and saying %q", c.in, err, c.why)
		}
		if unknown := errors.Is(err, ErrUnknown); unknown != c.unknown {
			t.Errorf("Parse(%q): errors.Is(err, ErrUnknown) = %v, want %v", c.in, unknown, c.unknown)
		}
	}
}

func TestResultType(t *testing.T) {
	all := []schema.Type{schema.Long, schema.Int, schema.Double, schema.Float, schema.Boolean, schema.String, schema.Timestamptz}
	// ok lists the source types each transform applies to (spec table).
	ok := map[string][]schema.Type{
		"identity":    all,
		"void":        all,
		"bucket[4]":   {schema.Long, schema.Int, schema.String, schema.Timestamptz},
		"truncate[4]": {schema.Long, schema.Int, schema.String},
		"year":        {schema.Timestamptz},
		"month":       {schema.Timestamptz},
		"day":         {schema.Timestamptz},
		"hour":        {schema.Timestamptz},
	}
	for name, srcs := range ok {
		tr := mustParse(t, name)
		for _, src := range all {
			allowed := false
			for _, s := range srcs {
				allowed = allowed || s == src
			}
			got, err := tr.ResultType(src)
			if !allowed {
				if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), src.String()) {
					t.Errorf("%s.ResultType(%s) = %v, %v; want an error naming both", name, src, got, err)
				}
				continue
			}
			want := schema.Int
			if tr.Kind == Identity || tr.Kind == Truncate || tr.Kind == Void {
				want = src
			}
			if err != nil || got != want {
				t.Errorf("%s.ResultType(%s) = %v, %v; want %v", name, src, got, err, want)
			}
		}
	}
	for _, bad := range []Transform{{}, {Kind: Bucket}, {Kind: Truncate, N: -3}, {Kind: 99}} {
		if _, err := bad.ResultType(schema.Long); err == nil {
			t.Errorf("%+v.ResultType(long): no error", bad)
		}
	}
}

func TestApply(t *testing.T) {
	ts := micros("2024-01-02T03:04:05.000006Z")
	for _, c := range []struct {
		tr   string
		src  schema.Type
		in   any
		want any
	}{
		{"identity", schema.Long, int64(-7), int64(-7)},
		{"identity", schema.String, "a", "a"},
		{"identity", schema.Double, 1.5, 1.5},
		{"identity", schema.Boolean, true, true},
		{"identity", schema.Long, nil, nil},
		{"void", schema.Long, int64(3), nil},
		{"void", schema.String, "x", nil},
		{"bucket[16]", schema.Long, nil, nil},
		{"bucket[2147483647]", schema.Int, int64(34), int64(2017239379)},
		{"bucket[2147483647]", schema.String, "iceberg", int64(1210000089)},
		{"bucket[1]", schema.String, "anything", int64(0)},
		{"truncate[10]", schema.Long, int64(1), int64(0)},
		{"truncate[10]", schema.Long, int64(-1), int64(-10)},
		{"truncate[10]", schema.Int, int64(-10), int64(-10)},
		{"truncate[10]", schema.Long, int64(math.MinInt64), int64(math.MaxInt64 - 1)}, // wraps as Java's long does
		{"truncate[10]", schema.Int, int64(math.MinInt32), int64(math.MaxInt32 - 1)},  // and Java's int
		{"truncate[3]", schema.String, "iceberg", "ice"},
		{"truncate[3]", schema.String, "ic", "ic"},
		{"truncate[2]", schema.String, "ñü€", "ñü"},
		{"truncate[1]", schema.String, "😀x", "😀"},
		{"year", schema.Timestamptz, ts, int64(54)},
		{"month", schema.Timestamptz, ts, int64(648)},
		{"day", schema.Timestamptz, ts, int64(19724)},
		{"hour", schema.Timestamptz, ts, int64(19724*24 + 3)},
		{"day", schema.Timestamptz, int64(-1), int64(-1)},
		{"hour", schema.Timestamptz, int64(-1), int64(-1)},
		{"month", schema.Timestamptz, int64(-1), int64(-1)},
		{"year", schema.Timestamptz, int64(-1), int64(-1)},
		{"month", schema.Timestamptz, micros("1969-01-01T00:00:00Z"), int64(-12)},
		{"year", schema.Timestamptz, micros("1968-12-31T23:59:59.999999Z"), int64(-2)},
		// Pairs the spec refuses give nil, as do values of the wrong Go type.
		{"day", schema.String, "2024", nil},
		{"bucket[4]", schema.Double, 1.0, nil},
		{"truncate[4]", schema.Boolean, true, nil},
		{"truncate[4]", schema.Timestamptz, ts, nil},
		{"day", schema.Timestamptz, "x", nil},
		{"identity", schema.Long, 3, nil},
	} {
		tr := mustParse(t, c.tr)
		if got := tr.Apply(c.src, c.in); got != c.want {
			t.Errorf("%s.Apply(%s, %#v) = %#v, want %#v", c.tr, c.src, c.in, got, c.want)
		}
		// The per-row fast paths agree with Apply.
		if v, ok := c.in.(int64); ok && c.want != nil {
			if got := tr.ApplyInt(c.src, v); got != c.want {
				t.Errorf("%s.ApplyInt(%s, %d) = %d, want %v", c.tr, c.src, v, got, c.want)
			}
		}
		if s, ok := c.in.(string); ok && c.want != nil {
			b, str := tr.ApplyString(s)
			if (tr.Kind == Bucket && b != c.want) || (tr.Kind != Bucket && str != c.want) {
				t.Errorf("%s.ApplyString(%q) = %d, %q; want %v", c.tr, s, b, str, c.want)
			}
		}
	}
}

// TestCivil checks the calendar arithmetic against Go's time package for
// every day across ±3000 years, and its inverse for every first of a month.
func TestCivil(t *testing.T) {
	for d := int64(-1_500_000); d <= 1_500_000; d++ {
		y, m, day := civil(d)
		gy, gm, gd := time.Unix(d*86400, 0).UTC().Date()
		if y != int64(gy) || m != int(gm) || day != gd {
			t.Fatalf("civil(%d) = %d-%d-%d, want %d-%d-%d", d, y, m, day, gy, gm, gd)
		}
		if day == 1 {
			if got := daysFromCivil(y, m); got != d {
				t.Fatalf("daysFromCivil(%d, %d) = %d, want %d", y, m, got, d)
			}
		}
	}
}

func TestTimeRange(t *testing.T) {
	for _, c := range []struct {
		tr     string
		v      int64
		lo, hi string
	}{
		{"hour", 0, "1970-01-01T00:00:00Z", "1970-01-01T01:00:00Z"},
		{"hour", -1, "1969-12-31T23:00:00Z", "1970-01-01T00:00:00Z"},
		{"day", 19724, "2024-01-02T00:00:00Z", "2024-01-03T00:00:00Z"},
		{"day", -1, "1969-12-31T00:00:00Z", "1970-01-01T00:00:00Z"},
		{"month", 649, "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"},
		{"month", -1, "1969-12-01T00:00:00Z", "1970-01-01T00:00:00Z"},
		{"month", 11, "1970-12-01T00:00:00Z", "1971-01-01T00:00:00Z"},
		{"year", 54, "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		{"year", -1, "1969-01-01T00:00:00Z", "1970-01-01T00:00:00Z"},
	} {
		lo, hi, ok := mustParse(t, c.tr).TimeRange(schema.Timestamptz, c.v)
		if !ok || lo != micros(c.lo) || hi != micros(c.hi) {
			t.Errorf("%s.TimeRange(%d) = %d, %d, %v; want [%s, %s)", c.tr, c.v, lo, hi, ok, c.lo, c.hi)
		}
	}
	// Every time in the range maps back to the ordinal, the ends just outside do not.
	for _, name := range []string{"hour", "day", "month", "year"} {
		tr := mustParse(t, name)
		for _, ts := range []int64{0, -1, 1, micros("2024-02-29T23:59:59.999999Z"), micros("1900-03-01T00:00:00Z")} {
			v := tr.ApplyInt(schema.Timestamptz, ts)
			lo, hi, _ := tr.TimeRange(schema.Timestamptz, v)
			if !(lo <= ts && ts < hi) || tr.ApplyInt(schema.Timestamptz, lo) != v || tr.ApplyInt(schema.Timestamptz, hi-1) != v ||
				tr.ApplyInt(schema.Timestamptz, lo-1) != v-1 || tr.ApplyInt(schema.Timestamptz, hi) != v+1 {
				t.Errorf("%s of %d is %d, range [%d, %d) does not cover exactly it", name, ts, v, lo, hi)
			}
		}
	}
	if lo, hi, ok := mustParse(t, "identity").TimeRange(schema.Timestamptz, 5); !ok || lo != 5 || hi != 6 {
		t.Errorf("identity.TimeRange(5) = %d, %d, %v", lo, hi, ok)
	}
	for _, c := range []struct {
		tr  string
		src schema.Type
	}{{"bucket[4]", schema.Timestamptz}, {"truncate[4]", schema.Long}, {"void", schema.Timestamptz}, {"identity", schema.Long}, {"day", schema.String}} {
		if _, _, ok := mustParse(t, c.tr).TimeRange(c.src, 1); ok {
			t.Errorf("%s.TimeRange(%s) ok, want not", c.tr, c.src)
		}
	}
	// Ordinals beyond any time saturate rather than wrap.
	for _, name := range []string{"hour", "day", "month", "year"} {
		tr := mustParse(t, name)
		if lo, hi, _ := tr.TimeRange(schema.Timestamptz, math.MaxInt64); lo != math.MaxInt64 || hi != math.MaxInt64 {
			t.Errorf("%s.TimeRange(MaxInt64) = %d, %d; want saturated", name, lo, hi)
		}
		if lo, _, _ := tr.TimeRange(schema.Timestamptz, math.MinInt64); lo != math.MinInt64 {
			t.Errorf("%s.TimeRange(MinInt64) lo = %d; want saturated", name, lo)
		}
	}
}

func TestPreservesOrderAndSatisfies(t *testing.T) {
	for name, want := range map[string]bool{
		"identity": true, "truncate[3]": true, "year": true, "month": true, "day": true, "hour": true,
		"bucket[3]": false, "void": false,
	} {
		if got := mustParse(t, name).PreservesOrder(); got != want {
			t.Errorf("%s.PreservesOrder() = %v", name, got)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"hour", "day", true}, {"hour", "year", true}, {"day", "hour", false}, {"month", "year", true},
		{"identity", "day", true}, {"identity", "truncate[4]", true}, {"identity", "bucket[4]", false},
		{"bucket[4]", "bucket[4]", true}, {"bucket[4]", "bucket[8]", false}, {"truncate[4]", "truncate[2]", false},
		{"day", "identity", false}, {"bucket[4]", "void", true}, {"void", "day", false},
	} {
		if got := mustParse(t, c.a).Satisfies(mustParse(t, c.b)); got != c.want {
			t.Errorf("%s.Satisfies(%s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestSpecUnpartitioned(t *testing.T) {
	day := Field{SourceID: 1, FieldID: 1000, Name: "ts_day", Transform: Transform{Kind: Day}}
	void := Field{SourceID: 1, FieldID: 1001, Name: "ts_hour", Transform: Transform{Kind: Void}}
	for _, c := range []struct {
		s    Spec
		want bool
	}{{Spec{}, true}, {Spec{Fields: []Field{void}}, true}, {Spec{Fields: []Field{day}}, false}, {Spec{Fields: []Field{void, day}}, false}} {
		if got := c.s.Unpartitioned(); got != c.want {
			t.Errorf("%+v.Unpartitioned() = %v", c.s, got)
		}
	}
}

func TestHuman(t *testing.T) {
	ts := micros("2024-01-02T03:04:05.000006Z")
	for _, c := range []struct {
		tr   string
		src  schema.Type
		v    any
		want string
	}{
		{"year", schema.Timestamptz, int64(54), "2024"},
		{"year", schema.Timestamptz, int64(-1), "1969"},
		{"month", schema.Timestamptz, int64(648), "2024-01"},
		{"month", schema.Timestamptz, int64(-1), "1969-12"},
		{"day", schema.Timestamptz, int64(19724), "2024-01-02"},
		{"day", schema.Timestamptz, int64(-1), "1969-12-31"},
		{"hour", schema.Timestamptz, int64(19724*24 + 3), "2024-01-02-03"},
		{"hour", schema.Timestamptz, int64(-1), "1969-12-31-23"},
		{"bucket[16]", schema.String, int64(3), "3"},
		{"truncate[10]", schema.Long, int64(-10), "-10"},
		{"truncate[3]", schema.String, "ice", "ice"},
		{"identity", schema.Timestamptz, ts, "2024-01-02T03:04:05.000006+00:00"},
		{"identity", schema.Timestamptz, micros("2024-01-02T03:04:00Z"), "2024-01-02T03:04:00+00:00"},
		{"identity", schema.Timestamptz, micros("2024-01-02T03:04:05.5Z"), "2024-01-02T03:04:05.5+00:00"},
		{"identity", schema.Timestamptz, int64(-1), "1969-12-31T23:59:59.999999+00:00"},
		{"identity", schema.String, "a b/c", "a b/c"},
		{"identity", schema.Boolean, true, "true"},
		{"identity", schema.Double, 1e10, "1.0E10"},
		{"identity", schema.Double, 0.5, "0.5"},
		{"identity", schema.Float, float64(float32(0.1)), "0.1"},
		{"identity", schema.Long, nil, "null"},
		{"void", schema.Long, nil, "null"},
		{"day", schema.Timestamptz, int32(19724), "2024-01-02"}, // as read from a manifest
		{"month", schema.Timestamptz, 648, "2024-01"},
	} {
		if got := mustParse(t, c.tr).Human(c.src, c.v); got != c.want {
			t.Errorf("%s.Human(%s, %#v) = %q, want %q", c.tr, c.src, c.v, got, c.want)
		}
	}
}

// BenchmarkApplyInt is the per-row cost of a writer partitioning a column.
func BenchmarkApplyInt(b *testing.B) {
	for _, name := range []string{"identity", "day", "hour", "month", "year", "bucket[16]", "truncate[10]"} {
		tr := mustParse(b, name)
		src := schema.Timestamptz
		if tr.Kind == Truncate {
			src = schema.Long
		}
		b.Run(name, func(b *testing.B) {
			var sink int64
			for i := 0; i < b.N; i++ {
				sink += tr.ApplyInt(src, 1704164645000006+int64(i)*1_000_003)
			}
			_ = sink
		})
	}
}

func BenchmarkApplyString(b *testing.B) {
	for _, name := range []string{"bucket[16]", "truncate[4]"} {
		tr := mustParse(b, name)
		b.Run(name, func(b *testing.B) {
			var sink int64
			for i := 0; i < b.N; i++ {
				n, s := tr.ApplyString("host-0042.example.com")
				sink += n + int64(len(s))
			}
			_ = sink
		})
	}
}
