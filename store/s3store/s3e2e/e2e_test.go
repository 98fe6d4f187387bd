// Package s3e2e has the outside readers (iceberg-go, DuckDB, pyiceberg) read
// a table that @timelake/client wrote to the local S3 server from Node and
// from a Worker in workerd at once (client/dist/test/s3e2e/write.js). The
// server's posix backend keeps each object as a file, so the readers read the
// table's directory, which the writer named as the table location.
//
// Gated like wasm/e2e: it needs the built client (scripts/build-client.sh) and
// runs with TIMELAKE_CLIENT_E2E=1 and the variables of scripts/s3server.sh,
// which scripts/test-client.sh provides.
package s3e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
)

type row struct {
	TS   string   `json:"ts"`
	Host string   `json:"host"`
	CPU  *float64 `json:"cpu"`
	Mem  string   `json:"mem"`
}

func TestClientS3TableReadOutside(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	if os.Getenv("TIMELAKE_S3_ROOT") == "" {
		t.Skip("no S3 server: run scripts/test-client.sh (it starts scripts/s3server.sh)")
	}
	readers := interoptest.Readers(t)
	out := t.TempDir()
	interoptest.RunClientScript(t, "s3e2e/write.js", out)
	var tbl struct {
		Dir      string
		Versions int
	}
	b, err := os.ReadFile(filepath.Join(out, "table.json"))
	if err != nil || json.Unmarshal(b, &tbl) != nil {
		t.Fatalf("table.json: %v %s", err, b)
	}

	// The model: every batch's rows (keys never repeat across batches).
	var rows []interoptest.Row
	for k := 0; ; k++ {
		f, err := os.Open(filepath.Join(out, fmt.Sprintf("batch-%d.ndjson", k)))
		if err != nil {
			break
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r row
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			ts, err := time.Parse(time.RFC3339Nano, r.TS)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := strconv.ParseInt(r.Mem, 10, 64)
			if err != nil {
				t.Fatalf("mem %q: %v", r.Mem, err)
			}
			rows = append(rows, interoptest.Row{TimeUS: ts.UnixMicro(), Series: r.Host, CPU: r.CPU, Mem: &mem})
		}
		f.Close()
	}
	want := interoptest.Expect(rows, nil)
	if want.Rows == 0 {
		t.Fatal("write.js wrote no batches")
	}

	last := filepath.Join(tbl.Dir, commit.MetadataKey(tbl.Versions))
	if _, err := os.Stat(filepath.Join(tbl.Dir, commit.MetadataKey(tbl.Versions+1))); err == nil {
		t.Errorf("the table has more versions than appends")
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	for _, r := range readers {
		got := interoptest.Summarize(t, r, last, q)
		t.Logf("%s: %d rows, %d series, sums %v", r, got.Rows, got.DistinctSeries, got.Sums)
		interoptest.ExpectSame(t, fmt.Sprintf("S3 table written from Node and workerd, %s, version %d", r, tbl.Versions), want, got)
	}
}
