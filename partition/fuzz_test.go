package partition

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// FuzzParse: any string either parses to a transform whose String reads
// back to it (the lower-case name, as metadata stores it), or fails with an
// error that quotes the string, never panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void", "BUCKET[016]",
		"bucket[0]", "bucket[2147483648]", "bucket[-1]", "day[3]", "[]", "bucket[", "truncate[1]]", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Fatalf("Parse(%q): error %q does not quote the string", s, err)
			}
			if tr != (Transform{}) {
				t.Fatalf("Parse(%q) failed but returned %+v", s, tr)
			}
			return
		}
		name := tr.String()
		if name != strings.ToLower(name) {
			t.Fatalf("Parse(%q) = %q: not the lower-case form", s, name)
		}
		back, err := Parse(name)
		if err != nil || back != tr {
			t.Fatalf("Parse(%q) = %+v, String %q reads back as %+v, %v", s, tr, name, back, err)
		}
		if (tr.Kind == Bucket || tr.Kind == Truncate) != (tr.N > 0) || tr.N > math.MaxInt32 {
			t.Fatalf("Parse(%q) = %+v: N out of range for its kind", s, tr)
		}
		for _, src := range []schema.Type{schema.Long, schema.Int, schema.String, schema.Timestamptz, schema.Double, schema.Boolean} {
			if _, err := tr.ResultType(src); err != nil && errors.Is(err, ErrUnknown) {
				t.Fatalf("%s.ResultType(%s): %v", tr, src, err)
			}
		}
	})
}

// FuzzApply holds the transforms to their definitions on any values: time
// ordinals are ranges that hold the time and never decrease; truncated ints
// are the multiple of W at or below the value; truncated strings are
// prefixes of W code points; buckets are in [0, N); the per-row paths agree
// with Apply.
func FuzzApply(f *testing.F) {
	f.Add(int64(0), int64(1), "iceberg", 16)
	f.Add(int64(-1), int64(1), "😀a", 1)
	f.Add(int64(1510871468000000), int64(-86400000000), "ñü€", 3)
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), "", 2147483647)
	f.Fuzz(func(t *testing.T, a, b int64, s string, n int) {
		if n < 1 || n > math.MaxInt32 {
			n = int(uint(n)%1000) + 1
		}
		if a > b {
			a, b = b, a
		}
		for _, k := range []Kind{Year, Month, Day, Hour} {
			tr := Transform{Kind: k}
			va, vb := tr.ApplyInt(schema.Timestamptz, a), tr.ApplyInt(schema.Timestamptz, b)
			if va != tr.Apply(schema.Timestamptz, a) {
				t.Fatalf("%s: ApplyInt and Apply differ on %d", tr, a)
			}
			if a < -1<<62 || b > 1<<62 { // past ±146,000 years hours wrap as Java's do
				continue
			}
			if va > vb {
				t.Fatalf("%s(%d) = %d > %s(%d) = %d: not monotonic", tr, a, va, tr, b, vb)
			}
			lo, hi, ok := tr.TimeRange(schema.Timestamptz, va)
			if !ok || a < lo || a >= hi {
				t.Fatalf("%s(%d) = %d, whose range [%d, %d) does not hold it", tr, a, va, lo, hi)
			}
		}
		tr := Transform{Kind: Truncate, N: n}
		if r := tr.ApplyInt(schema.Long, a); a > math.MinInt64+int64(n) && (r > a || a-r >= int64(n) || r%int64(n) != 0) {
			t.Fatalf("truncate[%d](%d) = %d", n, a, r)
		}
		if r := tr.ApplyInt(schema.Int, int64(int32(a))); int32(a) > math.MinInt32+int32(n) && n < 1<<30 &&
			(r > int64(int32(a)) || int64(int32(a))-r >= int64(n) || r%int64(n) != 0) {
			t.Fatalf("truncate[%d](int %d) = %d", n, int32(a), r)
		}
		_, ts := tr.ApplyString(s)
		if !strings.HasPrefix(s, ts) || tr.Apply(schema.String, s) != ts {
			t.Fatalf("truncate[%d](%q) = %q: not a prefix, or Apply differs", n, s, ts)
		}
		if cut := utf8.RuneCountInString(ts); cut != min(n, utf8.RuneCountInString(s)) {
			t.Fatalf("truncate[%d](%q) = %q: %d code points", n, s, ts, cut)
		}
		bk := Transform{Kind: Bucket, N: n}
		bs, _ := bk.ApplyString(s)
		if bl := bk.ApplyInt(schema.Long, a); bl < 0 || bl >= int64(n) || bs < 0 || bs >= int64(n) {
			t.Fatalf("bucket[%d]: %d, %d out of range", n, bl, bs)
		}
		if bs != bk.Apply(schema.String, s) || bk.ApplyInt(schema.Long, a) != bk.Apply(schema.Long, a) {
			t.Fatalf("bucket[%d]: the per-row paths and Apply differ", n)
		}
		if hashString(s) != hashBytes([]byte(s)) {
			t.Fatalf("hashString(%q) != hashBytes", s)
		}
	})
}
