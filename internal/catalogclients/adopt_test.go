package catalogclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// timelakeCLI builds the timelake command once for the package.
func timelakeCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "timelake")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/timelake")
	cmd.Dir = interoptest.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build timelake: %v\n%s", err, out)
	}
	return bin
}

// adoptByTimelake is the scenario's last act: the table pyiceberg created
// and DuckDB deleted from and updated (another engine's shape, no Timelake
// key) is read by Timelake as stored, adopted through the catalog, and
// appended to; every reader agrees after.
func (g group) adoptByTimelake(t *testing.T, rows []row) {
	tl := timelakeCLI(t)
	auth := g.auth[interoptest.PyIceberg]
	env := append(os.Environ(), "TIMELAKE_CATALOG_URI="+g.cat.URI, "TIMELAKE_CATALOG_WAREHOUSE="+g.cat.Warehouse,
		"TIMELAKE_CATALOG_TOKEN="+auth.Token, "TIMELAKE_CATALOG_CREDENTIAL="+auth.Credential)
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(tl, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("timelake %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return out
	}
	var info struct {
		Rows int64  `json:"rows"`
		Key  string `json:"key"`
	}
	if err := json.Unmarshal(run("info", "ns.t", "--json"), &info); err != nil || info.Rows != int64(len(rows)) || info.Key != "" {
		t.Fatalf("timelake info of the catalog table before adopting: %+v, %v; want %d rows (deletes applied), no key", info, err, len(rows))
	}
	out := run("scan", "ns.t", "--format", "ndjson", "--series", "host=h1")
	want := 0
	for _, r := range rows {
		if r.Host == "h1" {
			want++
		}
	}
	if n := bytes.Count(out, []byte("\n")); n != want {
		t.Errorf("timelake scan --series host=h1 as stored: %d rows, want %d", n, want)
	}
	run("adopt", "ns.t", "--time", "ts", "--series", "host")
	b := batch(3, 30)
	var csv strings.Builder
	csv.WriteString("ts,host,cpu\n")
	for _, r := range b {
		cpu := ""
		if r.CPU != nil {
			cpu = fmt.Sprint(*r.CPU)
		}
		fmt.Fprintf(&csv, "%d,%s,%s\n", r.TS/1000, r.Host, cpu)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run("append", "ns.t", path)
	g.agree(t, "after Timelake adopted the table and appended", expect(append(rows, b...)))
}

// adoptDuckDBTable: DuckDB creates a table of its own in the catalog and
// inserts rows; Timelake reads it as stored, adopts it through the
// catalog and appends; pyiceberg and DuckDB read every row after.
func (g group) adoptDuckDBTable(t *testing.T) {
	duck := g.auth[interoptest.DuckDB]
	first := batch(7, 9)
	interoptest.CatalogClient(t, g.cat, duck, interoptest.DuckDB, "create", "--table", "ns.duck",
		"--columns", "ts TIMESTAMPTZ NOT NULL, host VARCHAR NOT NULL, cpu DOUBLE", "--rows", writeRows(t, first))
	tl := timelakeCLI(t)
	auth := g.auth[interoptest.PyIceberg]
	env := append(os.Environ(), "TIMELAKE_CATALOG_URI="+g.cat.URI, "TIMELAKE_CATALOG_WAREHOUSE="+g.cat.Warehouse,
		"TIMELAKE_CATALOG_TOKEN="+auth.Token, "TIMELAKE_CATALOG_CREDENTIAL="+auth.Credential)
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(tl, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("timelake %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return out
	}
	if n := bytes.Count(run("scan", "ns.duck", "--format", "ndjson"), []byte("\n")); n != len(first) {
		t.Errorf("scan of DuckDB's table as stored: %d rows, want %d", n, len(first))
	}
	run("adopt", "ns.duck", "--time", "ts", "--series", "host")
	b := batch(8, 12)
	var csv strings.Builder
	csv.WriteString("ts,host,cpu\n")
	for _, r := range b {
		cpu := ""
		if r.CPU != nil {
			cpu = fmt.Sprint(*r.CPU)
		}
		fmt.Fprintf(&csv, "%d,%s,%s\n", r.TS/1000, r.Host, cpu)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run("append", "ns.duck", path)
	want := expect(append(first, b...))
	for _, r := range []interoptest.Reader{interoptest.PyIceberg, interoptest.DuckDB} {
		got, err := interoptest.CatalogSummary(g.cat, g.auth[r], r, "ns.duck", q)
		if err != nil {
			t.Fatalf("%s reading the adopted DuckDB table: %v", r, err)
		}
		interoptest.ExpectSame(t, "DuckDB's table adopted and appended to: "+string(r), want, got)
	}
}
