package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/table"
)

// TestInfoText: the rows line says when stored rows may hold duplicate
// keys (a partition of more than one file), and the properties are those
// that are not a new table's defaults unless --verbose; --json keeps them
// all.
func TestInfoText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "metrics")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--prop", "timelake.retention=3650d")
	csv := "ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n2026-11-28T10:01:00Z,b,2\n"
	mustCLI(t, csv, "append", dir, "-")
	out := mustCLI(t, "", "info", dir)
	if !strings.Contains(out, "\nrows            2\n") {
		t.Errorf("one file a partition: info =\n%s\nwant the line 'rows            2'", out)
	}
	mustCLI(t, csv, "append", dir, "-") // the same keys again: stored twice until compaction
	out = mustCLI(t, "", "info", dir)
	if !strings.Contains(out, "\nrows            4 stored (may include duplicates until compaction)\n") {
		t.Errorf("two files in a partition: info =\n%s\nwant the duplicates hint", out)
	}
	all := len(table.DefaultProperties()) + 3 // and the time and series columns and partition
	wantProps := "\nproperties: 1 of " + itoa(all) + "; the others are Timelake's defaults or the key's (--verbose lists all):\n" +
		"  timelake.retention=3650d\n"
	if !strings.HasSuffix(out, wantProps) {
		t.Errorf("info ends\n%s\nwant\n%s", out[strings.LastIndex(out, "\nproperties"):], wantProps)
	}
	verbose := mustCLI(t, "", "info", dir, "--verbose")
	props := verbose[strings.LastIndex(verbose, "\nproperties:\n")+len("\nproperties:\n"):]
	if n := strings.Count(props, "\n"); n != all || !strings.Contains(props, "  write.format.default=parquet\n") || !strings.Contains(props, "  timelake.time-column=ts\n") {
		t.Errorf("info --verbose lists %d properties, want %d:\n%s", n, all, props)
	}
	var info struct{ Properties map[string]string }
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil || len(info.Properties) != all {
		t.Errorf("info --json: %d properties (%v), want %d", len(info.Properties), err, all)
	}

	// Compaction merges the partition's files into one: no hint.
	mustCLI(t, "", "maintain", dir, "--compact")
	if out := mustCLI(t, "", "info", dir); !strings.Contains(out, "\nrows            2\n") {
		t.Errorf("after compaction: info =\n%s\nwant 'rows            2'", out)
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2992110: "2,992,110", -1234567: "-1,234,567"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}

func itoa(n int) string { return grouped(int64(n)) }
