package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUnboundedInput: inputs that once took the process's memory fail at
// once with a code naming the line, and the table stays as it was:
// /dev/zero given as Parquet or Arrow (read whole: checked first), a CSV
// field and an NDJSON line past the line limit, a CSV header past its own.
func TestUnboundedInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host")
	before := dirState(t, dir)
	big := strings.Repeat("x", 40<<20)
	write := func(name, s string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"/dev/zero as parquet", []string{"/dev/zero", "--format", "parquet"}, "not a Parquet file: it does not start with PAR1 [SYNTAX]"},
		{"/dev/zero as arrow", []string{"/dev/zero", "--format", "arrow"}, "[SYNTAX]"},
		{"a 40 MB CSV field", []string{write("f.csv", "ts,host\n2026-11-20T00:00:00Z,"+big+"\n")}, "line 2: the line is longer than"},
		{"a 40 MB NDJSON line", []string{write("f.ndjson", `{"ts":"2026-11-20T00:00:00Z","host":"`+big+`"}`+"\n")}, "line 1: the line is longer than"},
		{"a 2 MB CSV header", []string{write("h.csv", "ts,host,"+strings.Repeat("y", 2<<20)+"\n")}, "line 1: the header line is longer than"},
	} {
		code, _, errs := cli(t, "", append([]string{"append", dir}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, firstLine(errs), c.want)
		}
		if !strings.Contains(c.want, "SYNTAX") && !strings.Contains(errs, "[INPUT_TOO_LARGE]") {
			t.Errorf("%s: %q, want INPUT_TOO_LARGE", c.name, firstLine(errs))
		}
	}
	after := dirState(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("a refused input changed %s", k)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestScanOutputInsideTable: scan -o refuses a path inside the table's
// directory (it once overwrote metadata/v3.metadata.json); the table stays.
func TestScanOutputInsideTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host")
	mustCLI(t, "ts,host\n2026-11-20T00:00:00Z,a\n", "append", dir, "-", "--format", "csv")
	before := dirState(t, dir)
	for _, out := range []string{filepath.Join(dir, "metadata", "v2.metadata.json"), filepath.Join(dir, "new.csv"), dir} {
		code, _, errs := cli(t, "", "scan", dir, "-o", out)
		if code != 2 || !strings.Contains(errs, "inside the table's directory") {
			t.Errorf("scan -o %s: exit %d, %q; want exit 2 and a refusal", out, code, firstLine(errs))
		}
	}
	after := dirState(t, dir)
	if len(after) != len(before) {
		t.Errorf("the table's files changed: %d, were %d", len(after), len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("scan -o changed %s", k)
		}
	}
	if code, _, errs := cli(t, "", "scan", dir, "-o", filepath.Join(t.TempDir(), "out.csv")); code != 0 {
		t.Errorf("scan -o outside: exit %d, %s", code, errs)
	}
}

// TestCorruptParquetInput: a Parquet input whose pages are damaged is bad
// input (SYNTAX, naming the column), not a storage failure.
func TestCorruptParquetInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host")
	mustCLI(t, "ts,host\n2026-11-20T00:00:00Z,a\n2026-11-20T00:01:00Z,b\n", "append", dir, "-", "--format", "csv")
	good := filepath.Join(t.TempDir(), "good.parquet")
	mustCLI(t, "", "scan", dir, "--format", "parquet", "-o", good)
	b, err := os.ReadFile(good)
	if err != nil || len(b) < 300 {
		t.Fatalf("scan output: %d bytes, %v", len(b), err)
	}
	for i := 4; i < 60; i++ { // the first page's header, the footer kept
		b[i] = 0
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cli(t, "", "append", dir, bad)
	if code != 1 || !strings.Contains(errs, "[SYNTAX]") || !strings.Contains(errs, `column "ts"`) {
		t.Errorf("append of a damaged Parquet file: exit %d, %q; want SYNTAX naming the column", code, firstLine(errs))
	}
}

// TestInputUnderMemoryLimit runs the CLI under `ulimit -v` (2 GB of
// address space; built without cgo, whose thread stacks alone exceed such
// a limit) on unbounded and oversized inputs: each is a coded error, never
// the runtime's out-of-memory crash (exit 2), and a sound append still
// works under the same limit.
func TestInputUnderMemoryLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v is tested on Linux")
	}
	bin := filepath.Join(t.TempDir(), "timelake")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "v:double")
	field := filepath.Join(t.TempDir(), "field.csv")
	f, err := os.Create(field)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "ts,host,v\n2026-11-20T00:00:00Z,%s,1\n", strings.Repeat("x", 60<<20))
	f.Close()
	sound := filepath.Join(t.TempDir(), "ok.csv")
	if err := os.WriteFile(sound, []byte("ts,host,v\n2026-11-20T00:00:00Z,a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, shell, want string }{
		{"/dev/zero as parquet", `"$BIN" append "$T" /dev/zero --format parquet`, "[SYNTAX]"},
		{"200 MB of zeros as CSV on stdin", `head -c 200000000 /dev/zero | "$BIN" append "$T" - --format csv`, "[INPUT_TOO_LARGE]"},
		{"200 MB of zeros as NDJSON on stdin", `head -c 200000000 /dev/zero | "$BIN" append "$T" - --format ndjson`, "[INPUT_TOO_LARGE]"},
		{"a 60 MB CSV field", `"$BIN" append "$T" "` + field + `"`, "[INPUT_TOO_LARGE]"},
		{"a sound append", `"$BIN" append "$T" "` + sound + `"`, ""},
	} {
		cmd := exec.Command("bash", "-c", "ulimit -v 2000000 && "+c.shell)
		cmd.Env = append(os.Environ(), "BIN="+bin, "T="+dir)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && code != 0:
			t.Errorf("%s: exit %d under the limit: %s", c.name, code, firstLine(string(out)))
		case c.want != "" && (code != 1 || !strings.Contains(string(out), c.want)):
			t.Errorf("%s: exit %d, %q; want exit 1 and %s", c.name, code, firstLine(string(out)), c.want)
		}
	}
}
