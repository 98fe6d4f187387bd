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

	"github.com/timelake/timelake/internal/interoptest"
)

// TestRuntimeSmoke runs client/test/runtimes/smoke.mjs in Node, Deno and Bun
// (Deno and Bun from npm, installed by scripts/test-client.sh under
// client/test/runtimes) and has the outside readers read the localStore
// table each one wrote: 1,000 rows appended twice, a day apart, then the
// 1,000 rows of the Arrow IPC fixture arrowipc/testdata/bench.arrows.
func TestRuntimeSmoke(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	root := interoptest.Root()
	dir := filepath.Join(root, "client", "test", "runtimes")
	bin := filepath.Join(dir, "node_modules", ".bin")
	runs := map[string][]string{
		"node": {"node", "smoke.mjs"},
		"deno": {filepath.Join(bin, "deno"), "run", "--allow-read", "--allow-write", "--allow-env", "smoke.mjs"},
		"bun":  {filepath.Join(bin, "bun"), "smoke.mjs"},
	}
	readers := interoptest.Readers(t)
	want := smokeSummary(true)
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	for _, rt := range []string{"node", "deno", "bun"} {
		t.Run(rt, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "table")
			argv := append(runs[rt], out)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "DENO_NO_UPDATE_CHECK=1", "NO_COLOR=1")
			log, err := cmd.CombinedOutput()
			t.Logf("%s", log)
			if err != nil {
				t.Fatalf("%s smoke.mjs: %v", rt, err)
			}
			meta := filepath.Join(out, "metadata", "v4.metadata.json")
			for _, r := range readers {
				got := interoptest.Summarize(t, r, meta, q)
				interoptest.ExpectSame(t, fmt.Sprintf("%s table, %s", rt, r), want, got)
			}
		})
	}
}

// smokeSummary is what smoke.mjs appends: rows i = 0..999 at T0 + i s, host
// h(i%10), cpu i/8, mem i<<40; then the same a day later; then, withArrow,
// bench.arrows (see arrowipc/testdata/gen.py): rows i = 0..999 at
// 2025-11-29T10:00Z + i×100 ms, host-(i%50), cpu (i%997)/7, mem i×1024.
// The browser test appends the first two only.
func smokeSummary(withArrow bool) interoptest.Summary {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMicro()
	var cpu float64
	mem := new(big.Int)
	for range 2 {
		for i := range 1000 {
			cpu += float64(i) / 8
			mem.Add(mem, new(big.Int).Lsh(big.NewInt(int64(i)), 40))
		}
	}
	rows, series := int64(2000), int64(10)
	minT, maxT := t0, t0+999_000_000+86_400_000_000
	if withArrow {
		for i := range 1000 {
			cpu += float64(i%997) / 7
			mem.Add(mem, big.NewInt(int64(i)*1024))
		}
		rows, series = 3000, 60
		minT = time.Date(2025, 11, 29, 10, 0, 0, 0, time.UTC).UnixMicro()
	}
	return interoptest.Summary{
		Rows:           rows,
		Sums:           map[string]interoptest.Sum{"cpu": interoptest.Sum(strconv.FormatFloat(cpu, 'e', -1, 64)), "mem": interoptest.Sum(mem.String())},
		NonNull:        map[string]int64{"cpu": rows, "mem": rows},
		DistinctSeries: series,
		MinTimeUS:      &minT,
		MaxTimeUS:      &maxT,
		PlannedFiles:   -1,
	}
}
