package rows

import (
	"math"
	"testing"

	"github.com/timelake/timelake/schema"
)

// TestJSONTimeRoundTrip: a nested timestamp's text reads back as the value
// written, in each timestamp type, at the ends of the range and around
// the epoch; other texts are refused.
func TestJSONTimeRoundTrip(t *testing.T) {
	for _, typ := range []schema.Type{schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs} {
		vals := []int64{0, 1, -1, 951_782_400_000_000, -62_135_596_800_000_000 + 1, schema.MaxMicros, schema.MinMicros, 1_700_000_000_123_456}
		if typ.Nanos() {
			vals = []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1_700_000_000_123_456_789}
		}
		for _, v := range vals {
			text := AppendJSONTime(nil, v, typ)
			got, ok := ParseJSONTime(string(text[1:len(text)-1]), typ)
			if !ok || got != v {
				t.Errorf("%v %d: %s reads back as %d, %v", typ, v, text, got, ok)
			}
		}
	}
	for _, bad := range []string{"2024-01-01T00:00:00.000000", "2024-02-30T00:00:00.000000Z", "2024-01-01 00:00:00.000000Z",
		"0000-01-01T00:00:00.000000Z", "2024-01-01T24:00:00.000000Z", "2024-01-01T00:00:00.00000aZ", "2024-01-01T00:00:00.000000000Z"} {
		if v, ok := ParseJSONTime(bad, schema.Timestamptz); ok {
			t.Errorf("%q read as %d", bad, v)
		}
	}
	if got := string(AppendJSONFloat(nil, math.Inf(-1), 64)) + string(AppendJSONFloat(nil, 0.1, 32)); got != `"-Inf"0.1` {
		t.Errorf("floats: %s", got)
	}
}
