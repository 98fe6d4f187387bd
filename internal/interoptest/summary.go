package interoptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Sum is a column sum as a reader printed it: an integer literal for an
// integer column (exact, any size), a float literal for a float column (with
// a '.' or an exponent), or "NaN", "Infinity", "-Infinity".
type Sum string

// IsInt reports whether s is an integer sum.
func (s Sum) IsInt() bool {
	_, ok := new(big.Int).SetString(string(s), 10)
	return ok
}

// Int returns an integer sum; nil for a float sum.
func (s Sum) Int() *big.Int {
	v, ok := new(big.Int).SetString(string(s), 10)
	if !ok {
		return nil
	}
	return v
}

// Float returns the sum as a float64 (NaN if it is not a number).
func (s Sum) Float() float64 {
	switch s {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// UnmarshalJSON accepts a JSON number (kept verbatim) or one of the strings
// "NaN", "Infinity", "-Infinity".
func (s *Sum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		if str != "NaN" && str != "Infinity" && str != "-Infinity" {
			return fmt.Errorf("sum: string %q is not NaN, Infinity or -Infinity", str)
		}
		*s = Sum(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("sum: %s is not a number: %w", b, err)
	}
	*s = Sum(n)
	return nil
}

// MarshalJSON writes s as it was read.
func (s Sum) MarshalJSON() ([]byte, error) {
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return json.Marshal(string(s))
	}
	return []byte(s), nil
}

// FloatTolerance is the relative difference allowed between two float sums:
// readers add in different orders.
const FloatTolerance = 1e-9

// Diff lists how got differs from want, one line per field; nil when they
// agree. Integer sums must be equal, float sums within FloatTolerance, and an
// integer sum never matches a float one. PlannedFiles is compared only when
// both know it (neither is -1). Reader and Error are not compared.
func Diff(want, got Summary) []string {
	var d []string
	add := func(format string, a ...any) { d = append(d, fmt.Sprintf(format, a...)) }
	if got.Rows != want.Rows {
		add("rows: got %d, want %d", got.Rows, want.Rows)
	}
	if got.DistinctSeries != want.DistinctSeries {
		add("distinct_series: got %d, want %d", got.DistinctSeries, want.DistinctSeries)
	}
	if s, w := optInt(got.MinTimeUS), optInt(want.MinTimeUS); s != w {
		add("min_time_us: got %s, want %s", s, w)
	}
	if s, w := optInt(got.MaxTimeUS), optInt(want.MaxTimeUS); s != w {
		add("max_time_us: got %s, want %s", s, w)
	}
	if got.PlannedFiles >= 0 && want.PlannedFiles >= 0 && got.PlannedFiles != want.PlannedFiles {
		add("planned_files: got %d, want %d", got.PlannedFiles, want.PlannedFiles)
	}
	for _, c := range keys(want.Sums, got.Sums) {
		g, gok := got.Sums[c]
		w, wok := want.Sums[c]
		switch {
		case !gok || !wok:
			add("sums[%s]: got %q (present %v), want %q (present %v)", c, g, gok, w, wok)
		case g.IsInt() != w.IsInt():
			add("sums[%s]: got %s, want %s (one is an integer sum, the other a float)", c, g, w)
		case g.IsInt() && g.Int().Cmp(w.Int()) != 0:
			add("sums[%s]: got %s, want %s", c, g, w)
		case !g.IsInt() && !floatsClose(g.Float(), w.Float()):
			add("sums[%s]: got %s, want %s", c, g, w)
		}
	}
	for _, c := range keys(want.NonNull, got.NonNull) {
		if g, w := got.NonNull[c], want.NonNull[c]; g != w {
			add("non_null[%s]: got %d, want %d", c, g, w)
		}
	}
	return d
}

// ExpectSame reports every difference of got from want as a test error,
// prefixed by what (e.g. the reader and the metadata file).
func ExpectSame(t testing.TB, what string, want, got Summary) {
	t.Helper()
	for _, line := range Diff(want, got) {
		t.Errorf("%s: %s", what, line)
	}
}

func floatsClose(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if a == b {
		return true // also equal infinities
	}
	return math.Abs(a-b) <= FloatTolerance*math.Max(math.Abs(a), math.Abs(b))
}

func optInt(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

func keys[V any](a, b map[string]V) []string {
	var k []string
	for c := range a {
		k = append(k, c)
	}
	for c := range b {
		if _, ok := a[c]; !ok {
			k = append(k, c)
		}
	}
	slices.Sort(k)
	return k
}

// String is the summary as one JSON line, for messages.
func (s Summary) String() string {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%#v", s)
	}
	return strings.TrimSpace(string(b))
}
