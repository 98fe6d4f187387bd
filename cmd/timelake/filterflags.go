package main

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// timeRangeFlags reads --from and --to (scan and delete).
func timeRangeFlags(a *args) (from, to *int64, err error) {
	for _, name := range []string{"from", "to"} {
		v := a.one(name, "")
		if v == "" {
			continue
		}
		us, err := scan.ParseTime(v)
		if err != nil {
			return nil, nil, fmt.Errorf("--%s: %w", name, err)
		}
		if name == "from" {
			from = &us
		} else {
			to = &us
		}
	}
	return from, to, nil
}

// timeRangeNanos is --from and --to in nanoseconds, every digit kept, where
// they parse so (timeRangeFlags reports those that do not parse): the bounds
// of a nanosecond time column.
func timeRangeNanos(a *args) (from, to *int64) {
	for _, name := range []string{"from", "to"} {
		v := a.one(name, "")
		if v == "" {
			continue
		}
		if ns, ok := scan.ParseTimeNanos(v); ok {
			if name == "from" {
				from = &ns
			} else {
				to = &ns
			}
		}
	}
	return from, to
}

// seriesFlags reads --series COL=V[,V…] (repeated) against the table's
// schema (scan and delete); nil when none is given.
func seriesFlags(a *args, sch *schema.Table) (map[string][]any, error) {
	var out map[string][]any
	for _, s := range a.flags["series"] {
		col, vals, ok := strings.Cut(s, "=")
		if !ok || col == "" {
			return nil, usageErr("--series %q: want COL=V[,V…]", s)
		}
		if out == nil {
			out = map[string][]any{}
		}
		if _, seen := out[col]; !seen {
			out[col] = []any{} // COL= alone: no values, which the filter refuses by name
		}
		for _, v := range strings.Split(vals, ",") {
			if v == "" {
				continue
			}
			x, err := scan.ParseSeriesValue(sch, col, v)
			if err != nil {
				return nil, fmt.Errorf("--series: %w", err)
			}
			out[col] = append(out[col], x)
		}
	}
	return out, nil
}
