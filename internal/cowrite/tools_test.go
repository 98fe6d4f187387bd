package cowrite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// One Spark session for the whole package: a session costs ~20–30 s on 2
// cores, so the scenario and the fixtures share it (and its warehouse).
var shared struct {
	once  sync.Once
	spark *interoptest.Spark
	// catalog is Iceberg's REST catalog server (file warehouse, bearer
	// token catalogToken), Spark's catalog `rest`; nil when it is not set
	// up (catalogMissing says why).
	catalog        *interoptest.RESTCatalog
	catalogMissing string
	warehouse      string
	missing        string
	err            error
}

// sparkEngine returns the package's Spark engine and its warehouse
// directory; the table in warehouse/ns/t is cat.ns.t. It skips t when Spark
// is not installed (unless TIMELAKE_REQUIRE_SPARK is set).
func sparkEngine(t *testing.T) (*interoptest.Spark, string) {
	t.Helper()
	shared.once.Do(func() {
		python, jar, missing, err := interoptest.FindSpark()
		if err != nil || missing != "" {
			shared.missing, shared.err = missing, err
			return
		}
		shared.warehouse, shared.err = os.MkdirTemp("", "timelake-cowrite-")
		if shared.err != nil {
			return
		}
		var opt interoptest.SparkOptions
		if shared.catalogMissing, shared.err = interoptest.FindRESTCatalog(); shared.err != nil {
			return
		}
		if shared.catalogMissing == "" {
			shared.catalog, shared.err = interoptest.LaunchRESTCatalog(interoptest.RESTCatalogOptions{Token: catalogToken})
			if shared.err != nil {
				return
			}
			opt = interoptest.SparkOptions{RESTURI: shared.catalog.URI, RESTWarehouse: shared.catalog.Warehouse, RESTToken: catalogToken}
		}
		start := time.Now()
		shared.spark, shared.err = interoptest.LaunchSparkWith(python, jar, shared.warehouse, shared.warehouse, opt)
		if shared.err == nil {
			t.Logf("spark %s session started in %v (warehouse %s)", shared.spark.Version, time.Since(start).Round(time.Second), shared.warehouse)
		}
	})
	if shared.err != nil {
		t.Fatalf("spark: %v", shared.err)
	}
	if shared.missing != "" {
		t.Skipf("spark: %s", shared.missing)
	}
	return shared.spark, shared.warehouse
}

// catalogToken is the bearer token of the package's REST catalog.
const catalogToken = "cowrite-catalog-token-5e1d"

func TestMain(m *testing.M) {
	code := m.Run()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	if shared.spark != nil {
		shared.spark.Close()
	}
	if shared.catalog != nil {
		shared.catalog.Stop()
	}
	if shared.warehouse != "" && code == 0 {
		os.RemoveAll(shared.warehouse)
	} else if shared.warehouse != "" {
		fmt.Fprintf(os.Stderr, "cowrite: warehouse kept for inspection: %s\n", shared.warehouse)
	}
	os.Exit(code)
}

var builds struct {
	sync.Mutex
	dir  string // removed by TestMain
	bins map[string]string
}

// build compiles a command (pkg in the module at dir) once per process.
func build(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if b, ok := builds.bins[name]; ok {
		return b
	}
	if builds.dir == "" {
		d, err := os.MkdirTemp("", "timelake-cowrite-bin-")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir = d
	}
	out := filepath.Join(builds.dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	if builds.bins == nil {
		builds.bins = map[string]string{}
	}
	builds.bins[name] = out
	return out
}

// runErr is a failed command: its last stderr line names the error (the
// Timelake CLI ends it with a stable code in brackets).
func runErr(name string, err error, stdout, stderr []byte) error {
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(stdout))
	}
	return fmt.Errorf("%s: %v: %s", name, err, msg)
}

// run runs a command and returns its stdout.
func run(name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), runErr(filepath.Base(name)+" "+strings.Join(args[:min(len(args), 2)], " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// lastJSON decodes the last line of out (pywriter and icebergappend print
// one JSON line; libraries may print before it).
func lastJSON(out []byte) (map[string]any, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		return nil, fmt.Errorf("not a JSON line: %q", lines[len(lines)-1])
	}
	if e, ok := m["error"].(string); ok && e != "" {
		return m, fmt.Errorf("%s", e)
	}
	return m, nil
}

// currentMetadata is the table's current metadata file as a Hadoop catalog
// finds it: version-hint.text, then any vN+1 beyond it.
func currentMetadata(dir string) (string, int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text"))
	if err != nil {
		return "", 0, err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return "", 0, fmt.Errorf("version-hint.text: %q", b)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", v+1))); err != nil {
			break
		}
		v++
	}
	return filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", v)), v, nil
}

// snapshotNote describes the current snapshot of a metadata file for the
// log: who wrote it, its operation, sequence number, the form of its
// manifest-list location and which timelake.* summary keys it has.
func snapshotNote(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var md struct {
		FormatVersion int    `json:"format-version"`
		LastSeq       int64  `json:"last-sequence-number"`
		Current       *int64 `json:"current-snapshot-id"`
		Snapshots     []struct {
			ID           int64             `json:"snapshot-id"`
			Seq          int64             `json:"sequence-number"`
			ManifestList string            `json:"manifest-list"`
			Summary      map[string]string `json:"summary"`
		} `json:"snapshots"`
		Statistics []json.RawMessage `json:"statistics"`
	}
	if err := json.Unmarshal(b, &md); err != nil {
		return err.Error()
	}
	for _, s := range md.Snapshots {
		if md.Current == nil || s.ID != *md.Current {
			continue
		}
		var tl []string
		for k := range s.Summary {
			if strings.HasPrefix(k, "timelake.") {
				tl = append(tl, k)
			}
		}
		sort.Strings(tl)
		by := s.Summary["engine-name"] + " " + s.Summary["engine-version"] + s.Summary["iceberg-version"]
		return fmt.Sprintf("snapshot %d seq %d (last-sequence-number %d) op %s by %q; %d snapshots, %d statistics; manifest-list %s; delete files %s/%s pos %s eq %s; timelake keys %v",
			s.ID, s.Seq, md.LastSeq, s.Summary["operation"], strings.TrimSpace(by), len(md.Snapshots), len(md.Statistics),
			s.ManifestList, s.Summary["added-delete-files"], s.Summary["total-delete-files"],
			s.Summary["total-position-deletes"], s.Summary["total-equality-deletes"], tl)
	}
	return fmt.Sprintf("no current snapshot (%d snapshots)", len(md.Snapshots))
}

// listFiles lists the table's files relative to dir.
func listFiles(dir string) map[string]bool {
	out := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = true
		}
		return nil
	})
	return out
}

// fileChanges says which files a step added and removed, for the log:
// this is how each engine names its files.
func fileChanges(before, after map[string]bool) string {
	var added, removed []string
	for f := range after {
		if !before[f] {
			added = append(added, f)
		}
	}
	for f := range before {
		if !after[f] {
			removed = append(removed, f)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return fmt.Sprintf("added %d %v\n  removed %d %v", len(added), added, len(removed), removed)
}
