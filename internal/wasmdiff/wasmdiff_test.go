package wasmdiff_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// printEnv makes TestHashes print its hashes (the WebAssembly run).
const printEnv = "WASMDIFF_PRINT"

const csvInput = `ts,host,region,cpu,mem,ok
2026-11-20T10:00:00Z,web-1,eu,0.5,1024,true
2026-11-20T10:00:01.123456789+01:00,web-2,us,,2048,false
2026-11-28 23:59:59,db-1,eu,NaN,-9223372036854775808,1
2026-11-28,db-1,eu,-Infinity,9223372036854775807,0
2026-11-29T00:00:00Z,web-1,ap,1e308,,true
`

const ndjsonInput = `{"ts":"2026-11-28T12:00:00Z","host":"web-1","region":"eu","cpu":0.25,"mem":1,"ok":true,"tags":{"x":1},"attrs":{"b":["é"]}}
{"ts":1795000000000,"host":"wéb-ü","region":"日本","cpu":null,"mem":-5}
{"ts":"2026-11-28T12:00:00Z","host":"web-1","region":"eu","cpu":0.75,"mem":2,"ok":false}
`

// build makes the table and returns key → sha256 of every object.
func build(t testing.TB) map[string]string {
	t.Helper()
	ctx := context.Background()
	_, tags, err := schema.ParseTypeText("map<string, long>")
	if err != nil {
		t.Fatal(err)
	}
	_, attrs, err := schema.ParseTypeText("struct<a: double, b: list<string>>")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "ok", Type: schema.Boolean},
		{Name: "tags", Type: schema.Nested, Nested: tags},
		{Name: "attrs", Type: schema.Nested, Nested: attrs},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New(memstore.WithClock(memstore.FakeClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Second)))
	tb, err := table.Create(ctx, st, testenv.New(7), "s3://bucket/diff", sch, map[string]string{
		table.PropPageRowLimit: "64", table.PropMaxSnapshotAgeMs: "0", maintenance.PropRetention: "5d", maintenance.PropOrphanGrace: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	appendAll := func(next func(int) (*rows.Batch, error)) {
		for {
			b, err := next(1000)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b == nil || b.Len == 0 {
				return
			}
			if _, err := tb.Append(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendAll(rows.NewCSVReader(strings.NewReader(csvInput), sch, rows.Options{}).Next)
	appendAll(rows.NewNDJSONReader(strings.NewReader(ndjsonInput), sch, rows.Options{}).Next)
	// Several overlapping batches of one day, then maintenance merges them.
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for k := range 4 {
		ms := make([]map[string]any, 300)
		for i := range ms {
			ms[i] = map[string]any{"ts": day.Add(time.Duration(i+k*150) * time.Second), "host": fmt.Sprintf("h%02d", i%9),
				"region": "eu", "cpu": float64(k*1000+i) / 3, "mem": int64(i * k), "ok": i%3 == 0,
				// nested values: maps, structs with lists, nulls and empties
				"tags":  map[string]any{"i": i, "k": k},
				"attrs": fmt.Sprintf(`{"a":%v,"b":%s}`, float64(i)/7, []string{`null`, `[]`, `["x",null]`}[i%3])}
			if i%5 == 0 {
				ms[i]["tags"] = nil
			}
		}
		b, err := rows.FromMaps(sch, ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	// A schema change: a metadata version with the schema history.
	if _, err := tb.Alter(ctx, []evolve.Change{{Op: evolve.Add, Column: "disk", Type: schema.Long},
		{Op: evolve.Add, Column: "attrs.c", Type: schema.Long},
		{Op: evolve.Rename, Column: "cpu", To: "load"}, {Op: evolve.Drop, Column: "ok"}}); err != nil {
		t.Fatal(err)
	}
	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		b, err := st.Get(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		out[o.Key] = hex.EncodeToString(h[:])
	}
	return out
}

// TestHashes builds the table; with WASMDIFF_PRINT=1 it prints one
// "wasmdiff KEY SHA256" line per object.
func TestHashes(t *testing.T) {
	got := build(t)
	if len(got) < 10 {
		t.Fatalf("only %d objects", len(got))
	}
	if os.Getenv(printEnv) == "" {
		return
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("wasmdiff %s %s\n", k, got[k])
	}
}

// TestNativeMatchesWASM runs TestHashes as WebAssembly in Node and compares
// every object's hash with the native build's.
func TestNativeMatchesWASM(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("this is the WebAssembly run")
	}
	if testing.Short() {
		t.Skip("-short: skips the WebAssembly build")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH (logged): the WebAssembly side cannot run")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	execWrapper := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestHashes$", "-exec", execWrapper, "-v", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", printEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the WebAssembly run failed: %v\n%s\n%s", err, out, stderr.String())
	}
	wasm := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "wasmdiff" {
			wasm[f[1]] = f[2]
		}
	}
	native := build(t)
	if len(wasm) != len(native) {
		t.Errorf("WebAssembly wrote %d objects, native %d", len(wasm), len(native))
	}
	for k, h := range native {
		if wasm[k] != h {
			t.Errorf("%s: WebAssembly sha256 %q, native %q", k, wasm[k], h)
		}
	}
	t.Logf("%d objects byte-identical native and WebAssembly", len(native))
}
