package main

import (
	"fmt"

	"github.com/timelake/timelake/rows"
)

// unitWords spell --time-unit's units out for the warning.
var unitWords = map[rows.TimeUnit]string{rows.Seconds: "seconds", rows.Milliseconds: "milliseconds",
	rows.Microseconds: "microseconds", rows.Nanoseconds: "nanoseconds"}

// warnNumericTimes warns, once per column and append, of a time column
// whose input values are numbers (a CSV or NDJSON number, a Parquet or
// Arrow integer or float column): they are read as a count of unit since
// 1970, and a count of another unit makes plausible but wrong times (a
// seconds timestamp read as milliseconds lands in January 1970).
func (ap *appendProgress) warnNumericTimes(r batchReader, unit rows.TimeUnit) {
	nt, ok := r.(interface{ NumericTimes() []string })
	if !ok {
		return
	}
	for _, col := range nt.NumericTimes() {
		if ap.warned[col] {
			continue
		}
		if ap.warned == nil {
			ap.warned = map[string]bool{}
		}
		ap.warned[col] = true
		fmt.Fprintf(ap.io.stderr, "timelake append: warning: column %s holds numbers, read as %s since 1970-01-01 UTC (--time-unit %s); give --time-unit s, ms, us or ns if that is not their unit\n",
			col, unitWords[unit], unit)
	}
}
