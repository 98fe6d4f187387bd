package catalogclients

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// row is one row of the test table: ts timestamptz required, host string
// required, cpu double (nil: null).
type row struct {
	TS   int64 // microseconds
	Host string
	CPU  *float64
}

var base = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).UnixMicro()

// batch is n rows of step k: one minute apart, hosts h0..h2 in turn, cpu a
// multiple of 1/4 (float sums exact), null for every 5th row.
func batch(k, n int) []row {
	out := make([]row, n)
	for r := range out {
		out[r] = row{TS: base + int64(k)*3_600_000_000 + int64(r)*60_000_000, Host: fmt.Sprintf("h%d", r%3)}
		if r%5 != 4 {
			v := float64(k*100+r) / 4
			out[r].CPU = &v
		}
	}
	return out
}

func writeRows(t *testing.T, rows []row) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		m := map[string]any{"ts": r.TS, "host": r.Host, "cpu": r.CPU}
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	path := filepath.Join(t.TempDir(), "rows.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// expect is the summary of rows for query q (cpu only: the table has no mem).
func expect(rows []row) interoptest.Summary {
	in := make([]interoptest.Row, len(rows))
	for i, r := range rows {
		in[i] = interoptest.Row{TimeUS: r.TS, Series: r.Host, CPU: r.CPU}
	}
	s := interoptest.Expect(in, nil)
	delete(s.Sums, "mem")
	delete(s.NonNull, "mem")
	return s
}

var q = interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu"}}

// group is one run of the scenario on one catalog: each client with its own
// way to authenticate (so every way is exercised), and what S3 settings it
// gets.
type group struct {
	cat  *interoptest.RESTCatalog
	auth map[interoptest.Reader]interoptest.CatalogAuth
	// goErr: iceberg-go cannot read the table since DuckDB wrote to it, and
	// fails with this known error (one of the two below).
	goErr string
	// short: stop after the delete (the S3 group: the steps after it test
	// the clients, not the storage).
	short bool
}

// duckListError is what iceberg-go v0.7.0 says of a manifest list written by
// DuckDB 1.4.4's iceberg extension: DuckDB writes every manifest_file field
// as a union with null, the spec (and iceberg-go's reader schema) has
// manifest_path and others required, and iceberg-go's Avro schema resolution
// refuses it. pyiceberg and DuckDB read those lists.
const duckListError = "avro: incompatible at manifest_path: reader string vs writer null"

// duckDeleteManifestError is what iceberg-go v0.7.0 says of the positional
// delete manifest DuckDB 1.4.4 writes for a DELETE or UPDATE, once a manifest
// list lists it that iceberg-go can read (pyiceberg's, after an append): the
// manifest's Avro key-value metadata says content "data", the list says
// "deletes", and iceberg-go refuses the contradiction. pyiceberg and DuckDB
// go by the list.
const duckDeleteManifestError = `manifest file's 'content' metadata indicates "data", but entry from manifest list indicates "deletes"`

// agree checks that every reader's summary of ns.t matches want.
func (g group) agree(t *testing.T, step string, want interoptest.Summary) {
	t.Helper()
	for _, r := range interoptest.Readers(t) {
		got, err := interoptest.CatalogSummary(g.cat, g.auth[r], r, "ns.t", q)
		if r == interoptest.IcebergGo && g.goErr != "" {
			if err == nil || !strings.Contains(err.Error(), g.goErr) {
				t.Errorf("%s: iceberg-go on DuckDB's metadata: got %v (summary %v), want the known error %q: "+
					"if iceberg-go reads it now, compare it like the others", step, err, got, g.goErr)
			} else {
				t.Logf("%s: iceberg-go: known limitation: %s", step, g.goErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %s: %v\ncatalog log:\n%s", step, r, err, g.cat.LogTail(3000))
		}
		interoptest.ExpectSame(t, step+": "+string(r), want, got)
	}
}

func (g group) run(t *testing.T) {
	py := g.auth[interoptest.PyIceberg]
	duck := g.auth[interoptest.DuckDB]
	interoptest.CatalogClient(t, g.cat, py, interoptest.PyIceberg, "create", "--table", "ns.t",
		"--schema", "ts timestamptz required, host string required, cpu double")

	var rows []row
	for k := 0; k < 2; k++ {
		b := batch(k, 45)
		ans := interoptest.CatalogClient(t, g.cat, py, interoptest.PyIceberg, "append", "--table", "ns.t", "--rows", writeRows(t, b))
		if ans["rows"] != json.Number("45") {
			t.Fatalf("append %d: %v", k, ans)
		}
		rows = append(rows, b...)
	}
	g.agree(t, "after two pyiceberg appends", expect(rows))

	// DuckDB deletes the rows of cpu < 20 (a null cpu is not < 20: kept).
	ans := interoptest.CatalogClient(t, g.cat, duck, interoptest.DuckDB, "delete", "--table", "ns.t", "--where", "cpu < 20")
	var kept []row
	for _, r := range rows {
		if r.CPU == nil || *r.CPU >= 20 {
			kept = append(kept, r)
		}
	}
	if want := fmt.Sprint(len(rows) - len(kept)); fmt.Sprint(ans["rows"]) != want {
		t.Errorf("duckdb delete: %v rows, want %s", ans["rows"], want)
	}
	rows = kept
	g.goErr = duckListError
	g.agree(t, "after a DuckDB delete", expect(rows))
	if g.short {
		return
	}

	// DuckDB updates h1's cpu (nulls stay null).
	interoptest.CatalogClient(t, g.cat, duck, interoptest.DuckDB, "update", "--table", "ns.t", "--set", "cpu = cpu + 1", "--where", "host = 'h1'")
	for i, r := range rows {
		if r.Host == "h1" && r.CPU != nil {
			v := *r.CPU + 1
			rows[i].CPU = &v
		}
	}
	g.agree(t, "after a DuckDB update", expect(rows))

	// pyiceberg expires every snapshot but the current one: the data stay.
	ans = interoptest.CatalogClient(t, g.cat, py, interoptest.PyIceberg, "expire", "--table", "ns.t", "--keep-last", "1")
	if ans["snapshots"] != json.Number("1") {
		t.Errorf("expire --keep-last 1 left %v snapshots: %v", ans["snapshots"], ans)
	}
	g.agree(t, "after pyiceberg expire", expect(rows))

	// pyiceberg appends again: the new manifest list is pyiceberg's, listing
	// DuckDB's manifests too, which iceberg-go still refuses (the delete
	// manifest's header).
	b := batch(2, 30)
	interoptest.CatalogClient(t, g.cat, py, interoptest.PyIceberg, "append", "--table", "ns.t", "--rows", writeRows(t, b))
	rows = append(rows, b...)
	g.goErr = duckDeleteManifestError
	g.agree(t, "after a pyiceberg append over DuckDB's changes", expect(rows))
	g.adoptByTimelake(t, rows)
	g.adoptDuckDBTable(t)
}

// TestFileWarehouse runs the scenario on a catalog with a file:// warehouse
// that wants a bearer token: pyiceberg and iceberg-go do the client
// credentials exchange, DuckDB sends the token. A wrong secret is refused
// with the catalog's answer, for each client.
func TestFileWarehouse(t *testing.T) {
	t.Parallel()
	const token, client = "catalog-test-token", "timelake:catalog-secret"
	cat := interoptest.StartRESTCatalog(t, interoptest.RESTCatalogOptions{Token: token, Client: client})
	g := group{cat: cat, auth: map[interoptest.Reader]interoptest.CatalogAuth{
		interoptest.PyIceberg: {Credential: client},
		interoptest.IcebergGo: {Credential: client},
		interoptest.DuckDB:    {Token: token},
	}}
	g.run(t)

	for _, r := range interoptest.Readers(t) {
		// A wrong one of the client's own kind, and none.
		wrong := interoptest.CatalogAuth{Credential: "timelake:wrong"}
		if g.auth[r].Token != "" {
			wrong = interoptest.CatalogAuth{Token: "wrong"}
		}
		for _, bad := range []interoptest.CatalogAuth{wrong, {}} {
			_, err := interoptest.CatalogSummary(cat, bad, r, "ns.t", q)
			if err == nil {
				t.Errorf("%s with %+v: read the table; want refused", r, bad)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, "401") && !strings.Contains(msg, "invalid_client") && !strings.Contains(msg, "NotAuthorized") && !strings.Contains(msg, "Unauthorized") &&
				!strings.Contains(msg, "Could not get token") { // DuckDB, refused at the token endpoint
				t.Errorf("%s with %+v: refused, but not for authorization: %v", r, bad, err)
			}
		}
	}
}

// TestS3VendedWarehouse runs the scenario on a catalog with an s3://
// warehouse on the local S3 server whose clients get no S3 settings of their
// own: only what the catalog vends in the load-table config (as R2 Data
// Catalog does).
func TestS3VendedWarehouse(t *testing.T) {
	t.Parallel()
	cat := interoptest.StartRESTCatalog(t, interoptest.RESTCatalogOptions{S3: true, VendS3: true})
	if !strings.HasPrefix(cat.Warehouse, "s3://") {
		t.Fatalf("warehouse %s", cat.Warehouse)
	}
	g := group{cat: cat, auth: map[interoptest.Reader]interoptest.CatalogAuth{}, short: true}
	g.run(t)
	// The table is in the S3 server's bucket, under the catalog's prefix.
	root := os.Getenv("TIMELAKE_S3_ROOT")
	if root != "" {
		dir := filepath.Join(root, strings.TrimPrefix(cat.Warehouse, "s3://"), "ns", "t", "data")
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) == 0 {
			t.Fatalf("no data files in %s: %v", dir, err)
		}
		t.Logf("%d data and delete files in %s", len(ents), dir)
	}
}
