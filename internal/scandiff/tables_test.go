package scandiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// A table of the test and what the queries draw from.
type table struct {
	name     string
	dir      string
	hosts    []string // present host values (the queries add absent ones)
	times    []int64  // some stored times (µs), for ranges on exact edges
	snapshot []int64  // snapshot ids, oldest first
	snapMs   []int64  // their timestamp-ms
	ingest   bool
}

const (
	day     = int64(86_400_000_000)
	firstUs = int64(1795132800000000) // 2026-11-20T00:00:00Z
	nDays   = 6
)

func rfc(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// rowsCSV is one append's input: a set of keys (host, shard, time) with
// fresh values; no key twice in one input.
func rowsCSV(r *rand.Rand, keys [][3]int64, hosts []string, ingest bool) string {
	var b strings.Builder
	b.WriteString("ts,host,shard,cpu,mem,ok,note,load\n")
	for _, k := range keys {
		cpu := fmt.Sprint(math.Round(r.NormFloat64()*1e6) / 1e3)
		special := r.IntN(40)
		if k[2] >= firstUs+(nDays-1)*day {
			// none in the last day, which holds each series' latest row:
			// `timelake latest --json` fails on NaN ("json: unsupported
			// value: NaN"), and TestScanRefLatest compares with it
			special = 40
		}
		switch special {
		case 0:
			cpu = "NaN"
		case 1:
			cpu = "Infinity"
		case 2:
			cpu = "-Infinity"
		case 3:
			cpu = fmt.Sprint(r.Float64() * 1e-9)
		case 4:
			cpu = fmt.Sprint(r.Float64() * 1e22)
		}
		mem := ""
		if r.IntN(5) > 0 {
			mem = fmt.Sprint(r.Int64() - math.MaxInt64/2)
		}
		ok := []string{"", "true", "false"}[r.IntN(3)]
		note := ""
		if r.IntN(3) > 0 {
			note = fmt.Sprintf("n%d-%s", r.IntN(1000), []string{"a", "bé", "x y", "q\"z", "<b>&c", "\u2028☃\t"}[r.IntN(6)])
		}
		load := "" // a float (32-bit) column
		switch r.IntN(4) {
		case 0:
			load = fmt.Sprint(float32(r.NormFloat64() * 100))
		case 1:
			load = fmt.Sprint(float32(r.Float64() * 1e-6))
		case 2:
			load = fmt.Sprint(float32(r.Float64() * 1e9))
		}
		fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s\n", rfc(k[2]), hosts[k[0]], k[1], cpu, mem, ok, csvQuote(note), load)
	}
	return b.String()
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, "\",\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// makeTable writes a table with appends of overlapping keys; compact runs
// `maintain --compact` before the last append; py makes the third append
// pyiceberg's (interop/pywriter.py), whose rows have no _ingest_ts and rank
// by their file's sequence number against Timelake's.
//
// deletes commits position deletes (addPositionDeletes) before the last
// append, and again after it.
func makeTable(t *testing.T, bin, dir, name string, ingest, compact, py, deletes bool) *table {
	t.Helper()
	r := rand.New(rand.NewPCG(*seed, uint64(len(name))))
	tb := &table{name: name, dir: filepath.Join(dir, name), ingest: ingest}
	for i := range 10 {
		tb.hosts = append(tb.hosts, fmt.Sprintf("h%02d", i))
	}
	// series values whose order is by bytes: upper case, non-ASCII, a space
	tb.hosts[3], tb.hosts[6], tb.hosts[9] = "Z-3", "é6", "h09 x"
	args := []string{"create", tb.dir, "--time", "ts", "--series", "host,shard",
		"--column", "shard:long", "--column", "cpu:double", "--column", "mem:long?",
		"--column", "ok:boolean?", "--column", "note:string?", "--column", "load:float?", "--partition", "day",
		"--prop", "write.parquet.page-row-limit=37",
		"--prop", "write.parquet.row-group-size-bytes=4096",
		"--prop", "write.target-file-size-bytes=65536"}
	if !ingest {
		args = append(args, "--no-ingest-column")
	}
	cli(t, bin, "", args...)
	// The base grid: every host and shard every 20 minutes (plus a few µs
	// of jitter) over nDays days, then appends re-writing random subsets
	// and adding new keys.
	var base [][3]int64
	for h := range len(tb.hosts) - 2 { // the last two hosts come later
		for s := range 3 {
			for ts := firstUs; ts < firstUs+nDays*day; ts += 30 * 60_000_000 {
				base = append(base, [3]int64{int64(h), int64(s), ts + int64(h*1000+s)})
			}
		}
	}
	appends := [][][3]int64{base}
	for a := range 4 {
		var keys [][3]int64
		for _, k := range base {
			if r.IntN(5) == 0 {
				keys = append(keys, k)
			}
		}
		for range 300 {
			keys = append(keys, [3]int64{int64(len(tb.hosts) - 1 - a%2), int64(r.IntN(3)), firstUs + r.Int64N(nDays*day)})
		}
		slices.SortFunc(keys, func(x, y [3]int64) int { return slices.Compare(x[:], y[:]) })
		keys = slices.Compact(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		appends = append(appends, keys)
	}
	for i, keys := range appends {
		if compact && i == len(appends)-1 {
			var res struct {
				Merges       int   `json:"merges"`
				FilesRead    int   `json:"files-read"`
				FilesWritten int   `json:"files-written"`
				RowsBefore   int64 `json:"rows-before"`
				RowsAfter    int64 `json:"rows-after"`
			}
			if err := json.Unmarshal([]byte(cli(t, bin, "", "maintain", tb.dir, "--compact", "--json")), &res); err != nil || res.Merges == 0 {
				t.Fatalf("maintain --compact: %+v, %v", res, err)
			}
			t.Logf("%s: compacted %d files into %d (%d merges), %d rows into %d", name, res.FilesRead, res.FilesWritten, res.Merges, res.RowsBefore, res.RowsAfter)
		}
		if deletes && i == len(appends)-1 {
			n := addPositionDeletes(t, r, tb.dir, 12, 5)
			t.Logf("%s: %d position deletes", name, n)
		}
		if py && i == 2 {
			pyAppend(t, r, tb, keys)
		} else {
			cli(t, bin, rowsCSV(r, keys, tb.hosts, ingest), "append", tb.dir, "-", "--format", "csv")
		}
		for j := 0; j < len(keys); j += 97 {
			tb.times = append(tb.times, keys[j][2])
		}
	}
	if deletes {
		n := addPositionDeletes(t, r, tb.dir, 6, 20)
		t.Logf("%s: %d position deletes", name, n)
	}
	var md struct {
		Snapshots []struct {
			ID int64 `json:"snapshot-id"`
			Ms int64 `json:"timestamp-ms"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(readFile(t, metadataPath(t, tb.dir))), &md); err != nil {
		t.Fatal(err)
	}
	for _, s := range md.Snapshots {
		tb.snapshot = append(tb.snapshot, s.ID)
		tb.snapMs = append(tb.snapMs, s.Ms)
	}
	return tb
}

// pyAppend appends keys with fresh values through pyiceberg (no NaN: the
// rows go as JSON).
func pyAppend(t *testing.T, r *rand.Rand, tb *table, keys [][3]int64) {
	t.Helper()
	var rows []map[string]any
	for _, k := range keys {
		m := map[string]any{"ts": rfc(k[2]), "host": tb.hosts[k[0]], "shard": k[1],
			"cpu": math.Round(r.NormFloat64()*1e6) / 1e3, "mem": nil, "ok": nil, "note": nil}
		if r.IntN(2) == 0 {
			m["mem"] = r.Int64N(1 << 40)
		}
		if r.IntN(2) == 0 {
			m["ok"] = r.IntN(2) == 0
		}
		if r.IntN(2) == 0 {
			m["note"] = fmt.Sprintf("py%d", r.IntN(100))
		}
		rows = append(rows, m)
	}
	b, _ := json.Marshal(rows)
	f := filepath.Join(filepath.Dir(tb.dir), tb.name+"-py.json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(interoptest.Python(t), filepath.Join(interoptest.Root(), "interop", "pywriter.py"), "append", tb.dir, f)
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("pywriter.py append: %v\n%s%s", err, out, stderr.String())
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// metadataPath is the table's current metadata file (version-hint.text).
func metadataPath(t *testing.T, dir string) string {
	t.Helper()
	v := strings.TrimSpace(readFile(t, filepath.Join(dir, "metadata", "version-hint.text")))
	return filepath.Join(dir, "metadata", "v"+v+".metadata.json")
}
