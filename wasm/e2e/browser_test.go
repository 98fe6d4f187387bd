package e2e

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
)

// TestBrowser runs client/test/browser/run.mjs: headless Chromium (the
// system's /usr/bin/chromium, driven by playwright-core from
// client/test/browser/node_modules; scripts/test-client.sh installs both)
// loads the default entry of @timelake/client from a local server, runs its
// checks (see page.ts) and sends back the objects of two tables — one on
// memoryStore(), one on a Store the page implements over IndexedDB — which
// run.mjs writes into a directory. Every outside reader must then see
// exactly the rows the page appended, version by version.
func TestBrowser(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client, Chromium and playwright-core: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	root := interoptest.Root()
	dir := filepath.Join(root, "client", "test", "browser")
	for _, need := range []string{
		filepath.Join(root, "client", "dist", "test", "browser", "page.js"),
		filepath.Join(dir, "node_modules", "playwright-core"),
	} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%v: run scripts/test-client.sh (it builds the client and installs playwright-core and Chromium)", err)
		}
	}
	readers := interoptest.Readers(t)
	out := t.TempDir()
	cmd := exec.Command("node", "run.mjs", out)
	cmd.Dir = dir
	log, err := cmd.CombinedOutput()
	t.Logf("run.mjs:\n%s", log)
	if err != nil {
		t.Fatalf("browser test (run.mjs): %v", err)
	}

	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	tables := map[string][]interoptest.Summary{
		"memory": browserMemorySummaries(),
		"idb":    {{}, {}, smokeSummary(false)}, // only v3 is checked
	}
	for _, name := range []string{"memory", "idb"} {
		want := tables[name]
		var paths []string
		first := 1
		if name == "idb" {
			first = len(want)
		}
		for v := first; v <= len(want); v++ {
			paths = append(paths, filepath.Join(out, name, commit.MetadataKey(v)))
		}
		if _, err := os.Stat(filepath.Join(out, name, commit.MetadataKey(len(want)+1))); err == nil {
			t.Errorf("%s table has more versions than appends", name)
		}
		for _, r := range readers {
			got := interoptest.SummarizeVersions(t, r, paths, q)
			for k, g := range got {
				v := first + k
				interoptest.ExpectSame(t, fmt.Sprintf("browser %s table, %s, version %d", name, r, v), want[v-1], g)
			}
		}
	}
}

// browserMemorySummaries mirrors page.ts's memory table: v1 empty; v2 five
// rows of mixed inputs; v3 those and bulkRow(0…9999).
func browserMemorySummaries() []interoptest.Summary {
	us := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return tm.UnixMicro()
	}
	mem := new(big.Int)
	for _, m := range []string{"9007199254740993", "-9223372036854775808", "-42", "7", "9223372036854775807"} {
		v, _ := new(big.Int).SetString(m, 10)
		mem.Add(mem, v)
	}
	cpu := 0.5 + 1.25 - 3.5 + 2
	minT, maxT := us("2026-11-29T10:00:00Z"), us("2026-11-30T00:00:00Z")
	v2 := interoptest.Summary{
		Rows:           5,
		Sums:           map[string]interoptest.Sum{"cpu": interoptest.Sum(strconv.FormatFloat(cpu, 'e', -1, 64)), "mem": interoptest.Sum(mem.String())},
		NonNull:        map[string]int64{"cpu": 4, "mem": 5},
		DistinctSeries: 3,
		MinTimeUS:      &minT,
		MaxTimeUS:      &maxT,
		PlannedFiles:   -1,
	}

	cpuN := int64(4)
	t1 := us("2026-12-01T00:00:00Z")
	for i := range int64(10_000) {
		if i%11 != 0 {
			cpu += float64(i) / 4
			cpuN++
		}
		mem.Add(mem, new(big.Int).Mul(big.NewInt(i), big.NewInt(1_000_000_007)))
	}
	maxT3 := t1 + 9_999*60_000_000
	v3 := interoptest.Summary{
		Rows:           10_005,
		Sums:           map[string]interoptest.Sum{"cpu": interoptest.Sum(strconv.FormatFloat(cpu, 'e', -1, 64)), "mem": interoptest.Sum(mem.String())},
		NonNull:        map[string]int64{"cpu": cpuN, "mem": 10_005},
		DistinctSeries: 23,
		MinTimeUS:      &minT,
		MaxTimeUS:      &maxT3,
		PlannedFiles:   -1,
	}
	return []interoptest.Summary{summary(nil), v2, v3}
}
