package main

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestUsageListsEveryFlag keeps each command's usage and its flag sets
// together: every flag a command parses is in its usage, and every flag
// its usage names is one it parses.
func TestUsageListsEveryFlag(t *testing.T) {
	flagRe := regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	for _, c := range commands {
		text := commandUsage(c)
		sets := slices.Clone(c.flags)
		if c.common {
			sets = append(sets, s3Flags, catalogFlags)
		}
		known := map[string]bool{}
		if c.name == "version" {
			known["version"] = true // timelake --version: the command's other name
		}
		for _, set := range sets {
			for name := range set {
				known[name] = true
				if !regexp.MustCompile(`--` + regexp.QuoteMeta(name) + `([^a-z0-9-]|$)`).MatchString(text) {
					t.Errorf("%s: the usage does not name --%s, which it takes:\n%s", c.name, name, text)
				}
			}
		}
		for _, f := range flagRe.FindAllString(text, -1) {
			if !known[f[2:]] {
				t.Errorf("%s: the usage names %s, which it does not take", c.name, f)
			}
		}
		// and the synopsis is in `timelake help`
		syn, _, _ := strings.Cut(c.usage, "\n\n")
		if !strings.Contains(usageText(), strings.Split(syn, "\n")[0]) {
			t.Errorf("%s: timelake help lacks its synopsis %q", c.name, syn)
		}
	}
}

// TestHelp: every way of asking for a command's usage prints that usage
// alone on stdout and exits 0.
func TestHelp(t *testing.T) {
	dir := newTable(t)
	for _, argv := range [][]string{
		{"help", "append"},
		{"append", "--help"},
		{"append", "-h"},
		{"append", dir, "in.csv", "--format", "csv", "--help"},
	} {
		code, out, errs := cli(t, "", argv...)
		if code != 0 || errs != "" || out != commandUsage(findCommand("append")) {
			t.Errorf("timelake %s: exit %d, stderr %q, stdout %q; want 0 and append's usage", strings.Join(argv, " "), code, errs, out)
		}
		if !strings.Contains(out, "--ignore-unknown") || strings.Contains(out, "timelake scan") {
			t.Errorf("timelake %s: %q; want append's flags and no other command", strings.Join(argv, " "), out)
		}
	}
	for _, name := range []string{"rollup", "history", "version", "info"} {
		code, out, _ := cli(t, "", name, "--help")
		if code != 0 || !strings.HasPrefix(out, "usage:\n  timelake "+name) {
			t.Errorf("timelake %s --help: exit %d, %q", name, code, out)
		}
	}
	if code, out, _ := cli(t, "", "help"); code != 0 || out != usageText() {
		t.Errorf("timelake help: exit %d, %q", code, out)
	}
	if code, out, errs := cli(t, "", "help", "explode"); code != 2 || out != "" || !strings.HasPrefix(errs, `timelake help: unknown command "explode"`) {
		t.Errorf("timelake help explode: exit %d, %q, %q; want 2", code, out, errs)
	}
	// A mistake prints that command's usage, not every command's.
	code, _, errs := cli(t, "", "maintain", dir, "--everything")
	if code != 2 || !strings.Contains(errs, "timelake maintain TABLE") || strings.Contains(errs, "timelake scan") {
		t.Errorf("maintain --everything: exit %d, %q; want 2 and maintain's usage", code, errs)
	}
}

func TestVersion(t *testing.T) {
	_, want, _ := cli(t, "", "version")
	for _, argv := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := cli(t, "", argv...)
		if code != 0 || errs != "" || out != want {
			t.Errorf("timelake %s: exit %d, %q, %q", argv[0], code, out, errs)
		}
	}
	for _, line := range []string{"timelake dev\n", "go: " + runtime.Version() + "\n", "iceberg format: reads v1, v2, v3, writes v2, v3 (new tables v2)\n"} {
		if !strings.Contains(want, line) {
			t.Errorf("version = %q; want the line %q", want, line)
		}
	}
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a902096f"}, {Key: "vcs.time", Value: "2026-12-05T17:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionText(bi); !strings.Contains(got, "\ncommit: a902096f (with uncommitted changes), 2026-12-05T17:00:00Z\n") {
		t.Errorf("versionText with VCS settings = %q", got)
	}
	if code, _, _ := cli(t, "", "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}
