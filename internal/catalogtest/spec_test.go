package catalogtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// The recorded requests' base and prefix (restcatalog/exchange_test.go).
const recordedBase, recordedPrefix = "http://127.0.0.1:8181/api/catalog", "wh1"

// specCheck runs Iceberg's own parsers over requests files in one JVM
// (interop/restcatalog/.../SpecCheck.java) and returns each file's report.
func specCheck(t *testing.T, files ...string) map[string]string {
	t.Helper()
	cache := filepath.Join(interoptest.Root(), ".cache", "restcatalog")
	args := append([]string{"-cp", filepath.Join(cache, "classes") + ":" + filepath.Join(cache, "lib", "*"),
		"org.apache.iceberg.rest.SpecCheck", recordedBase, recordedPrefix}, files...)
	out, _ := exec.Command("java", args...).CombinedOutput()
	reports := map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(out), "\n") {
		if f, ok := strings.CutPrefix(line, "== "); ok {
			if i := strings.Index(f, ": "); i >= 0 {
				f = f[:i]
			}
			cur = f
		}
		reports[cur] += line + "\n"
	}
	if len(reports) < len(files) {
		t.Fatalf("SpecCheck reported on %d of %d files:\n%s", len(reports), len(files), out)
	}
	return reports
}

// TestRecordedRequestsFollowIceberg checks every request kind the client
// sends (restcatalog/testdata/requests.json, recorded by
// restcatalog.TestRecordedRequests) with Apache Iceberg's REST
// implementation: a route of the spec, a body its parsers accept and
// validate, no member they do not know. Broken copies must fail, so the
// check cannot pass vacuously.
func TestRecordedRequestsFollowIceberg(t *testing.T) {
	need(t)
	file := filepath.Join(interoptest.Root(), "restcatalog", "testdata", "requests.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(reqs []map[string]any)
		want   string
	}{
		{"an unknown update action", func(reqs []map[string]any) {
			updates(t, reqs, "commit an append")[0]["action"] = "add-snapshotx"
		}, "UpdateTableRequest"},
		{"a snapshot id as a string", func(reqs []map[string]any) {
			for _, u := range updates(t, reqs, "commit an append") {
				if u["action"] == "set-snapshot-ref" {
					u["snapshot-id"] = "3"
				}
			}
		}, "UpdateTableRequest"},
		{"an unknown requirement", func(reqs []map[string]any) {
			body(t, reqs, "commit an append")["requirements"].([]any)[0].(map[string]any)["type"] = "assert-nothing"
		}, "UpdateTableRequest"},
		{"a member Iceberg does not know", func(reqs []map[string]any) {
			updates(t, reqs, "commit an append")[0]["snapshot"].(map[string]any)["parent-id"] = 7
		}, "unknown to Iceberg's parser"},
		{"a table without a name", func(reqs []map[string]any) { delete(body(t, reqs, "create table"), "name") }, "CreateTableRequest"},
		{"a path outside the spec", func(reqs []map[string]any) {
			r := find(t, reqs, "load table")
			r["url"] = strings.Replace(r["url"].(string), "/namespaces/", "/namespace/", 1)
		}, "no such route"},
		{"a token request without the secret", func(reqs []map[string]any) {
			r := find(t, reqs, "token, then config")
			r["form"] = strings.Replace(r["form"].(string), "client_secret=", "client_secreX=", 1)
		}, "lacks client_secret"},
	}
	files := []string{file}
	dir := t.TempDir()
	for i, tc := range cases {
		var reqs []map[string]any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if err := d.Decode(&reqs); err != nil {
			t.Fatal(err)
		}
		tc.mutate(reqs)
		b, _ := json.Marshal(reqs)
		p := filepath.Join(dir, fmt.Sprintf("broken-%d.json", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	reports := specCheck(t, files...)
	got := reports[file]
	if strings.Contains(got, "FAIL") || !strings.Contains(got, ": 0 failed") || strings.Count(got, "\nok ") < 11 {
		t.Errorf("the recorded requests, by Iceberg's parsers:\n%s", got)
	}
	for i, tc := range cases {
		rep := reports[files[i+1]]
		if !strings.Contains(rep, "FAIL") || !strings.Contains(rep, tc.want) {
			t.Errorf("%s: the broken request passed, want a FAIL saying %q:\n%s", tc.name, tc.want, rep)
		}
	}
}

func find(t *testing.T, reqs []map[string]any, name string) map[string]any {
	t.Helper()
	for _, r := range reqs {
		if r["name"] == name {
			return r
		}
	}
	t.Fatalf("no recorded request %q", name)
	return nil
}

func body(t *testing.T, reqs []map[string]any, name string) map[string]any {
	t.Helper()
	return find(t, reqs, name)["body"].(map[string]any)
}

func updates(t *testing.T, reqs []map[string]any, name string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, u := range body(t, reqs, name)["updates"].([]any) {
		out = append(out, u.(map[string]any))
	}
	return out
}
