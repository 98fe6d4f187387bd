package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMessages: counts agree with their nouns, a rollup error says
// "rollup" once, and latest prints a heading and times as scan does.
func TestMessages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?")
	out := mustCLI(t, "ts,host,cpu\n2026-11-28T10:00:00Z,a,\n", "append", dir, "-")
	if !strings.HasPrefix(out, "appended 1 row (1 after deduplication) in 1 commit: 1 file, ") {
		t.Errorf("append of one row: %q", out)
	}
	out = mustCLI(t, "ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n2026-11-28T10:00:00.5Z,b,2\n", "append", dir, "-")
	if !strings.HasPrefix(out, "appended 2 rows (2 after deduplication) in 1 commit: 1 file, ") {
		t.Errorf("append of two rows: %q", out)
	}

	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"rollup", "add", dir, "bad-name", "--every", "1h", "--agg", "cpu:avg"},
			"timelake rollup add: bad-name: a rollup name is 1 to 64 of a-z, 0-9 and _, starting with a letter (and not \"inline\") [BAD_ROLLUP]\n"},
		{[]string{"rollup", "drop", dir, "nope"}, "timelake rollup drop: nope: no such rollup (the table has none) [NO_ROLLUP]\n"},
		{[]string{"rollup", "refresh", dir, "nope"}, "timelake rollup refresh: nope: no such rollup (the table has none) [NO_ROLLUP]\n"},
	} {
		if code, _, errs := cli(t, "", c.argv...); code != 1 || errs != c.want {
			t.Errorf("timelake %s: exit %d, %q; want 1 and %q", strings.Join(c.argv, " "), code, errs, c.want)
		}
	}

	out = mustCLI(t, "", "latest", dir)
	lines := strings.Split(out, "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "latest row of each series: 2 series (snapshot ") || !strings.HasSuffix(lines[0], ", version 3)") {
		t.Fatalf("latest =\n%s", out)
	}
	// the rows as scan prints them (times with microseconds, Z), then _ingest_ts
	if !strings.HasPrefix(lines[2], "2026-11-28T10:00:00.000000Z  a     1  ") || !strings.HasPrefix(lines[3], "2026-11-28T10:00:00.500000Z  b     2  ") {
		t.Errorf("latest rows:\n%s", out)
	}
	scan := mustCLI(t, "", "scan", dir)
	if !strings.Contains(scan, "\n2026-11-28T10:00:00.000000Z,a,1\n") || !strings.Contains(scan, "\n2026-11-28T10:00:00.500000Z,b,2\n") {
		t.Errorf("scan =\n%s", scan)
	}
	empty := filepath.Join(t.TempDir(), "e")
	mustCLI(t, "", "create", empty, "--time", "ts", "--column", "cpu:double")
	if out := mustCLI(t, "", "latest", empty); out != "latest row of each series: none, the table is empty (version 1)\n" {
		t.Errorf("latest of an empty table: %q", out)
	}
}
