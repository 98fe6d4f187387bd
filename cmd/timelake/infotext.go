package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/timelake/timelake/table"
)

// rowsText is info's rows line. The stored rows are counted from the
// manifests, before the scan's deduplication: the table knows no count of
// distinct keys without reading every file. Rows of one key can be stored
// twice while a partition holds more than one file (two appends of the
// same row; compaction merges them, and a cold partition becomes one
// file), so then the line says the count may include them.
func rowsText(info *table.Info) string {
	dup := mayHoldDuplicates(info)
	var s string
	switch {
	case info.RowsBeforeEqualityDeletes:
		s = fmt.Sprintf("%s (%s stored; before equality deletes", grouped(info.Rows), grouped(info.RowsStored))
	case info.DeleteFiles > 0:
		s = fmt.Sprintf("%s (%s stored, less deletes", grouped(info.Rows), grouped(info.RowsStored))
	case dup:
		return grouped(info.Rows) + " stored (may include duplicates until compaction)"
	default:
		return grouped(info.Rows)
	}
	if dup {
		s += "; may include duplicates until compaction"
	}
	return s + ")"
}

// mayHoldDuplicates: a table with a key (scans deduplicate by it) and a
// partition of more than one data file.
func mayHoldDuplicates(info *table.Info) bool {
	if info.Key == "" {
		return false // read as stored: no key, no duplicates to speak of
	}
	for _, p := range info.Partitions {
		if p.Files > 1 {
			return true
		}
	}
	return false
}

// grouped writes n with thousands separators: 2,992,110.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// keyProperties are shown by info's key and partition lines already.
var keyProperties = map[string]bool{table.PropTimeColumn: true, table.PropSeriesColumns: true, table.PropPartition: true}

// printProperties lists the table's properties: by default those a new
// table would not have as they are (set by the user, another engine, a
// rollup), all of them when verbose.
func printProperties(w io.Writer, props map[string]string, verbose bool) {
	defaults := table.DefaultProperties()
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if d, ok := defaults[k]; verbose || !keyProperties[k] && (!ok || d != props[k]) {
			keys = append(keys, k)
		}
	}
	switch {
	case verbose:
		fmt.Fprintln(w, "\nproperties:")
	case len(keys) == 0:
		fmt.Fprintf(w, "\nproperties: %d, all of them Timelake's defaults or the key's (--verbose lists them)\n", len(props))
	default:
		fmt.Fprintf(w, "\nproperties: %d of %d; the others are Timelake's defaults or the key's (--verbose lists all):\n", len(keys), len(props))
	}
	for _, k := range keys {
		fmt.Fprintf(w, "  %s=%s\n", k, props[k])
	}
}
