package interoptest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func ptr(v int64) *int64 { return &v }

func TestDiff(t *testing.T) {
	base := Summary{Rows: 3, DistinctSeries: 2, MinTimeUS: ptr(10), MaxTimeUS: ptr(20), PlannedFiles: 2,
		Sums: map[string]Sum{"cpu": "1.5", "mem": "9007199254740993"}, NonNull: map[string]int64{"cpu": 3, "mem": 2}}
	tests := []struct {
		name   string
		change func(*Summary)
		want   []string // substrings of the diff lines, in order; none: no diff
	}{
		{"same", func(s *Summary) {}, nil},
		{"float within tolerance", func(s *Summary) { s.Sums["cpu"] = "1.5000000000001" }, nil},
		{"float as exponent", func(s *Summary) { s.Sums["cpu"] = "15e-1" }, nil},
		{"float off", func(s *Summary) { s.Sums["cpu"] = "1.6" }, []string{"sums[cpu]: got 1.6, want 1.5"}},
		// 2^53+1 and 2^53 are the same float64: integer sums must be exact
		{"int off by one past 2^53", func(s *Summary) { s.Sums["mem"] = "9007199254740992" }, []string{"sums[mem]"}},
		{"int printed as float", func(s *Summary) { s.Sums["mem"] = "9007199254740993.0" }, []string{"one is an integer sum"}},
		{"missing sum", func(s *Summary) { delete(s.Sums, "cpu") }, []string{"sums[cpu]"}},
		{"rows", func(s *Summary) { s.Rows = 4 }, []string{"rows: got 4, want 3"}},
		{"series", func(s *Summary) { s.DistinctSeries = 1 }, []string{"distinct_series"}},
		{"min null", func(s *Summary) { s.MinTimeUS = nil }, []string{"min_time_us: got null, want 10"}},
		{"max", func(s *Summary) { s.MaxTimeUS = ptr(21) }, []string{"max_time_us: got 21, want 20"}},
		{"planned files", func(s *Summary) { s.PlannedFiles = 3 }, []string{"planned_files: got 3, want 2"}},
		{"planned files unknown", func(s *Summary) { s.PlannedFiles = -1 }, nil},
		{"non-null", func(s *Summary) { s.NonNull["mem"] = 3 }, []string{"non_null[mem]: got 3, want 2"}},
		{"two fields", func(s *Summary) { s.Rows = 0; s.NonNull["cpu"] = 0 }, []string{"rows", "non_null[cpu]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := base
			got.Sums = maps(base.Sums)
			got.NonNull = maps(base.NonNull)
			tt.change(&got)
			d := Diff(base, got)
			if len(d) != len(tt.want) {
				t.Fatalf("Diff: got %q, want %d lines like %q", d, len(tt.want), tt.want)
			}
			for i := range d {
				if !strings.Contains(d[i], tt.want[i]) {
					t.Errorf("Diff line %d: got %q, want it to contain %q", i, d[i], tt.want[i])
				}
			}
		})
	}
	nan := Summary{Sums: map[string]Sum{"x": "NaN", "y": "-Infinity"}}
	if d := Diff(nan, nan); d != nil {
		t.Errorf("Diff of NaN and -Infinity sums with themselves: got %q, want none", d)
	}
}

func maps[V any](m map[string]V) map[string]V {
	out := map[string]V{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestSummaryJSON(t *testing.T) {
	line := `{"reader":"duckdb","rows":2,"sums":{"a":123456789012345678901234567890,"b":2.5,"c":"NaN","d":"-Infinity"},` +
		`"non_null":{"a":2},"distinct_series":1,"min_time_us":null,"max_time_us":7,"planned_files":-1,"error":""}`
	var s Summary
	if err := json.Unmarshal([]byte(line), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Sums["a"].Int(); got == nil || got.String() != "123456789012345678901234567890" {
		t.Errorf("big integer sum: got %v", got)
	}
	if s.Sums["b"].IsInt() || s.Sums["b"].Float() != 2.5 {
		t.Errorf("float sum: got %q", s.Sums["b"])
	}
	if s.Sums["c"].Float() == s.Sums["c"].Float() {
		t.Errorf("NaN sum: got %v", s.Sums["c"].Float())
	}
	if s.MinTimeUS != nil || s.MaxTimeUS == nil || *s.MaxTimeUS != 7 {
		t.Errorf("times: got %v, %v", s.MinTimeUS, s.MaxTimeUS)
	}
	back, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var again Summary
	if err := json.Unmarshal(back, &again); err != nil {
		t.Fatalf("round trip of %s: %v", back, err)
	}
	if d := Diff(s, again); d != nil {
		t.Errorf("round trip: %q", d)
	}
	for _, bad := range []string{`{"sums":{"a":"12"}}`, `{"sums":{"a":true}}`} {
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("Unmarshal(%s): got no error, want one", bad)
		}
	}
}

func TestParseSkip(t *testing.T) {
	tests := []struct {
		env     string
		want    []Reader
		wantErr string
	}{
		{"", nil, ""},
		{"duckdb", []Reader{DuckDB}, ""},
		{" duckdb , pyiceberg,", []Reader{DuckDB, PyIceberg}, ""},
		{"iceberg-go", []Reader{IcebergGo}, ""},
		{"duckdb,spark", nil, `unknown reader "spark"`},
	}
	for _, tt := range tests {
		skip, err := parseSkip(tt.env)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseSkip(%q): error %v, want %q", tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseSkip(%q): %v", tt.env, err)
			continue
		}
		var got []Reader
		for _, r := range AllReaders {
			if skip[r] {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("parseSkip(%q): got %v, want %v", tt.env, got, tt.want)
		}
	}
}

// FuzzSum checks that a sum read from a reader's output either fails to
// parse or survives a round trip unchanged.
func FuzzSum(f *testing.F) {
	for _, s := range []string{`0`, `-12`, `1.5`, `1e+21`, `"NaN"`, `"Infinity"`, `"-Infinity"`, `"x"`, `true`, `123456789012345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Sum
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", s, err)
		}
		var again Sum
		if err := json.Unmarshal(out, &again); err != nil || again != s {
			t.Fatalf("round trip of %s: got %q (%v), want %q", b, again, err, s)
		}
		if s.IsInt() != (s.Int() != nil) {
			t.Fatalf("%q: IsInt %v but Int %v", s, s.IsInt(), s.Int())
		}
	})
}
