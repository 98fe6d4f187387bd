package rows

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

// TestLineLimits: a CSV field, a CSV header or an NDJSON line past its
// limit fails with INPUT_TOO_LARGE naming the line, the lines before it
// read as ever.
func TestLineLimits(t *testing.T) {
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "note", Type: schema.String}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 5000)
	opt := Options{MaxLineBytes: 4096, MaxHeaderBytes: 100}
	for _, c := range []struct {
		name, format, in string
		line             int
	}{
		{"csv field", "csv", "ts,host,note\n2026-11-20T00:00:00Z,a,ok\n2026-11-20T00:01:00Z,a," + big + "\n", 3},
		{"csv quoted field", "csv", "ts,host,note\n2026-11-20T00:01:00Z,a,\"" + big + "\"\n", 2},
		{"csv header", "csv", "ts,host,note," + strings.Repeat("y", 200) + "\n", 1},
		{"ndjson line", "ndjson", `{"ts":"2026-11-20T00:00:00Z","host":"a"}` + "\n" + `{"ts":"2026-11-20T00:01:00Z","host":"a","note":"` + big + `"}` + "\n", 2},
		{"no newline at all", "ndjson", strings.Repeat("z", 10000), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var next func(int) (*Batch, error)
			if c.format == "csv" {
				next = NewCSVReader(strings.NewReader(c.in), sch, opt).Next
			} else {
				next = NewNDJSONReader(strings.NewReader(c.in), sch, opt).Next
			}
			var err error
			for err == nil {
				_, err = next(0)
			}
			var re *Error
			if errors.Is(err, io.EOF) || !errors.As(err, &re) || re.Code != CodeInputTooLarge || re.Line != c.line {
				t.Errorf("got %v, want INPUT_TOO_LARGE at line %d", err, c.line)
			}
		})
	}
}
