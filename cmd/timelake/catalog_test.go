package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// The catalog tests run against Iceberg's own REST catalog server
// (scripts/restcatalog.sh), started once per set of options for the whole
// package and stopped in TestMain; they skip without Java and Maven unless
// TIMELAKE_REQUIRE_CATALOG is set.

// The test server's secrets: /v1/ needs the token; the client credential
// gets it from /v1/oauth/tokens.
const (
	catToken  = "tok-5ecret-4a1f9c"
	catClient = "timelake-cli:cl1ent-5ecret-9b2e"
)

var catalogs struct {
	sync.Mutex
	running map[interoptest.RESTCatalogOptions]*interoptest.RESTCatalog
}

func TestMain(m *testing.M) {
	// The developer's own catalog must not turn the storage-only tests into
	// catalog ones.
	for _, k := range []string{envCatalogURI, envCatalogWarehouse, envCatalogToken, envCatalogCredential} {
		os.Unsetenv(k)
	}
	code := m.Run()
	catalogs.Lock()
	for _, c := range catalogs.running {
		c.Stop()
	}
	catalogs.Unlock()
	os.Exit(code)
}

// catalogServer is the package's server for opt (started on first use);
// the test skips without the set-up.
func catalogServer(t *testing.T, opt interoptest.RESTCatalogOptions) *interoptest.RESTCatalog {
	t.Helper()
	missing, err := interoptest.FindRESTCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if missing != "" {
		t.Skip(missing)
	}
	catalogs.Lock()
	defer catalogs.Unlock()
	if c := catalogs.running[opt]; c != nil {
		return c
	}
	c, err := interoptest.LaunchRESTCatalog(opt)
	if err != nil {
		t.Fatal(err)
	}
	if catalogs.running == nil {
		catalogs.running = map[interoptest.RESTCatalogOptions]*interoptest.RESTCatalog{}
	}
	catalogs.running[opt] = c
	return c
}

// authCatalog is the server that needs catToken (or catClient); the test's
// environment gets the token.
func authCatalog(t *testing.T) *interoptest.RESTCatalog {
	t.Helper()
	c := catalogServer(t, interoptest.RESTCatalogOptions{Token: catToken, Client: catClient})
	t.Setenv(envCatalogToken, catToken)
	t.Setenv(envCatalogCredential, "")
	return c
}

// namespace is a fresh namespace name.
func namespace(t *testing.T) string {
	var r [4]byte
	rand.Read(r[:])
	return "t" + hex.EncodeToString(r[:])
}

func catFlags(c *interoptest.RESTCatalog) []string {
	return []string{"--catalog", c.URI, "--warehouse", c.Warehouse}
}

// catCLI runs a command on a catalog table: argv with the catalog flags.
func catCLI(t *testing.T, c *interoptest.RESTCatalog, stdin string, argv ...string) (int, string, string) {
	t.Helper()
	return cli(t, stdin, append(argv, catFlags(c)...)...)
}

func mustCatCLI(t *testing.T, c *interoptest.RESTCatalog, stdin string, argv ...string) string {
	t.Helper()
	code, out, errs := catCLI(t, c, stdin, argv...)
	if code != 0 {
		t.Fatalf("timelake %s: exit %d\n%s\nserver log:\n%s", strings.Join(argv, " "), code, errs, c.LogTail(3000))
	}
	return out
}

// wantCode checks a failure: exit 1 and stderr ending with [code].
func wantCode(t *testing.T, what string, code int, stderr, want string) {
	t.Helper()
	if code != 1 || !strings.HasSuffix(strings.TrimSpace(stderr), "["+want+"]") {
		t.Errorf("%s: exit %d, %q; want 1 and [%s]", what, code, stderr, want)
	}
}

type catInfo struct {
	Catalog          string
	Table            string
	MetadataLocation string `json:"metadata-location"`
	Location         string
	Version          int
	Rows             int64
	Files            int64
}

func infoJSON(t *testing.T, c *interoptest.RESTCatalog, tbl string) catInfo {
	t.Helper()
	out := mustCatCLI(t, c, "", "info", tbl, "--json")
	var info catInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("info --json: %v\n%s", err, out)
	}
	if strings.Contains(out, catToken) || strings.Contains(out, "5ecret") {
		t.Errorf("info --json shows a secret:\n%s", out)
	}
	return info
}

const catCSV1 = "ts,host,cpu,mem\n2026-11-28T10:00:00Z,a,1.5,100\n2026-11-28T10:01:00Z,b,,200\n"
const catCSV2 = "ts,host,cpu,mem\n2026-11-28T11:00:00Z,a,2.5,300\n2026-11-29T10:00:00Z,c,3.5,400\n"

func TestCatalogCreateAppendInfoLatestMaintain(t *testing.T) {
	c := authCatalog(t)
	tbl := namespace(t) + ".metrics.cpu" // a namespace of two levels
	out := mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long", "--json")
	var created catInfo
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Table != tbl || created.Catalog != c.URI || created.MetadataLocation == "" {
		t.Fatalf("create --json = %s (%v); want table %s in %s with its metadata file", out, err, tbl, c.URI)
	}
	if !strings.HasPrefix(created.Location, "file:") {
		t.Errorf("created at %q, want under the file warehouse %s", created.Location, c.Warehouse)
	}
	code, _, errs := catCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host")
	wantCode(t, "second create", code, errs, "TABLE_EXISTS")

	mustCatCLI(t, c, catCSV1, "append", tbl, "-", "--format", "csv")
	mustCatCLI(t, c, catCSV2, "append", tbl, "-", "--format", "csv")
	info := infoJSON(t, c, tbl)
	if info.Catalog != c.URI || info.Table != tbl || info.Rows != 4 || info.Files != 3 || info.MetadataLocation == created.MetadataLocation {
		t.Errorf("info = %+v; want table %s in %s, 4 rows in 3 files, a newer metadata file than %s", info, tbl, c.URI, created.MetadataLocation)
	}
	text := mustCatCLI(t, c, "", "info", tbl)
	for _, want := range []string{"catalog " + c.URI, "table " + tbl, "metadata " + info.MetadataLocation, "rows 4"} {
		if !containsFields(text, want) {
			t.Errorf("info does not show %q:\n%s", want, text)
		}
	}

	out = mustCatCLI(t, c, "", "latest", tbl, "--json")
	var latest []map[string]any
	if err := json.Unmarshal([]byte(out), &latest); err != nil {
		t.Fatalf("latest --json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, r := range latest {
		got[fmt.Sprint(r["host"])] = fmt.Sprintf("%v %v %v", r["ts"], r["cpu"], r["mem"])
	}
	want := map[string]string{"a": "2026-11-28T11:00:00Z 2.5 300", "b": "2026-11-28T10:01:00Z <nil> 200", "c": "2026-11-29T10:00:00Z 3.5 400"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("latest = %v, want %v", got, want)
	}

	out = mustCatCLI(t, c, "", "maintain", tbl, "--json")
	var res struct {
		Version int
		Merges  int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("maintain --json: %v\n%s", err, out)
	}
	after := infoJSON(t, c, tbl)
	if res.Merges != 1 || after.Rows != 4 || after.Files != 2 || after.Version <= info.Version {
		t.Errorf("maintain = %+v, then info = %+v; want one merge, 4 rows in 2 files at a version past %d", res, after, info.Version)
	}
	if n := len(strings.Split(strings.TrimSpace(mustCatCLI(t, c, "", "latest", tbl)), "\n")); n != 5 {
		t.Errorf("latest after maintain: %d lines, want a heading, a header and 3 series", n)
	}

	// The catalog named by the environment instead of the flags.
	t.Setenv(envCatalogURI, c.URI)
	t.Setenv(envCatalogWarehouse, c.Warehouse)
	if got := infoJSON(t, c, tbl); got.Rows != 4 {
		t.Errorf("info with %s: %+v", envCatalogURI, got)
	}
	code, _, errs = cli(t, "", "info", "/tmp/some/dir")
	if code != 2 || !strings.Contains(errs, "NAMESPACE.TABLE") {
		t.Errorf("a path with %s set: exit %d, %s; want 2 (TABLE is an identifier)", envCatalogURI, code, errs)
	}
}

// containsFields reports whether text has a line whose fields start with want's.
func containsFields(text, want string) bool {
	w := strings.Join(strings.Fields(want), " ")
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.Join(strings.Fields(l), " "), w) {
			return true
		}
	}
	return false
}

func TestCatalogRegister(t *testing.T) {
	c := authCatalog(t)
	dir := filepath.Join(t.TempDir(), "metrics")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long")
	mustCLI(t, catCSV1, "append", dir, "-", "--format", "csv")

	if code, _, errs := cli(t, "", "register", "ns.t", "--from", dir); code != 2 {
		t.Errorf("register without a catalog: exit %d, %s; want 2", code, errs)
	}
	if code, _, errs := catCLI(t, c, "", "register", "ns.t"); code != 2 {
		t.Errorf("register without --from: exit %d, %s; want 2", code, errs)
	}
	tbl := namespace(t) + ".cpu"
	// A fresh namespace: register makes it when the catalog says it is missing.
	out := mustCatCLI(t, c, "", "register", tbl, "--from", dir, "--json")
	var reg catInfo
	if err := json.Unmarshal([]byte(out), &reg); err != nil || reg.Table != tbl || !strings.HasSuffix(reg.MetadataLocation, "/metadata/v3.metadata.json") {
		t.Fatalf("register --json = %s (%v); want %s at the marked version 3", out, err, tbl)
	}

	mustCatCLI(t, c, catCSV2, "append", tbl, "-", "--format", "csv")
	info := infoJSON(t, c, tbl)
	if info.Rows != 4 || info.Location != "file://"+dir {
		t.Errorf("info after a catalog append = %+v; want 4 rows at file://%s", info, dir)
	}

	// Storage-only writers refuse it now, and leave it as it was.
	before := dirState(t, dir)
	code, _, errs := cli(t, "ts,host,cpu,mem\n2026-11-30T00:00:00Z,z,1,1\n", "append", dir, "-", "--format", "csv")
	wantCode(t, "storage-only append to a registered table", code, errs, "CATALOG_TABLE")
	code, _, errs = cli(t, "", "maintain", dir)
	wantCode(t, "storage-only maintain of a registered table", code, errs, "CATALOG_TABLE")
	if after := dirState(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the refused storage-only writes changed the table's files")
	}
	if got := infoJSON(t, c, tbl); got.Rows != 4 || got.Version != info.Version {
		t.Errorf("info after the refused writes = %+v, want %+v", got, info)
	}
	// Reading it from storage still works: the last storage-only version.
	var stale struct{ Rows int64 }
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &stale); err != nil || stale.Rows != 2 {
		t.Errorf("storage-only info after register: %+v (%v), want the 2 rows of the marked version", stale, err)
	}
	// Registering again is refused: it is in the catalog already.
	code, _, errs = catCLI(t, c, "", "register", tbl, "--from", dir)
	if code != 1 {
		t.Errorf("second register: exit %d, %s; want 1", code, errs)
	}
}

func TestCatalogErrors(t *testing.T) {
	c := authCatalog(t)
	tbl := namespace(t) + ".cpu"
	mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?")

	t.Run("wrong token", func(t *testing.T) {
		const bad = "wrong-t0ken-77c1"
		t.Setenv(envCatalogToken, bad)
		code, out, errs := catCLI(t, c, "", "info", tbl)
		wantCode(t, "info with a wrong token", code, errs, "CATALOG_AUTH")
		if strings.Contains(out+errs, bad) || strings.Contains(out+errs, catToken) {
			t.Errorf("the output shows the token:\n%s%s", out, errs)
		}
	})
	t.Run("credential", func(t *testing.T) {
		t.Setenv(envCatalogToken, "")
		t.Setenv(envCatalogCredential, catClient)
		code, out, errs := catCLI(t, c, "ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n", "append", tbl, "-", "--format", "csv")
		if code != 0 || strings.Contains(out+errs, "cl1ent-5ecret") {
			t.Errorf("append with the client credential: exit %d\n%s%s", code, out, errs)
		}
		const bad = "timelake-cli:wr0ng-5ecret-31"
		t.Setenv(envCatalogCredential, bad)
		code, out, errs = catCLI(t, c, "", "info", tbl)
		wantCode(t, "info with a wrong credential", code, errs, "CATALOG_AUTH")
		if strings.Contains(out+errs, "wr0ng-5ecret") {
			t.Errorf("the output shows the secret:\n%s%s", out, errs)
		}
		t.Setenv(envCatalogToken, catToken)
		if code, _, errs := catCLI(t, c, "", "info", tbl); code != 2 || strings.Contains(errs, "5ecret") {
			t.Errorf("a token and a credential: exit %d, %s; want 2 without either", code, errs)
		}
	})
	t.Run("no table", func(t *testing.T) {
		ns, _, _ := strings.Cut(tbl, ".")
		for _, cmd := range []string{"info", "latest", "maintain"} {
			code, _, errs := catCLI(t, c, "", cmd, ns+".nosuch")
			wantCode(t, cmd+" of an unknown table", code, errs, "NO_TABLE")
		}
		code, _, errs := catCLI(t, c, "ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n", "append", "nosuchns.cpu", "-", "--format", "csv")
		if code != 1 || !(strings.HasSuffix(strings.TrimSpace(errs), "[NO_TABLE]") || strings.HasSuffix(strings.TrimSpace(errs), "[NO_NAMESPACE]")) {
			t.Errorf("append in an unknown namespace: exit %d, %s; want 1 [NO_TABLE] or [NO_NAMESPACE]", code, errs)
		}
	})
	t.Run("catalog down", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		code, _, errs := cli(t, "", "info", tbl, "--catalog", "http://"+addr)
		wantCode(t, "info with the catalog down", code, errs, "CATALOG_UNAVAILABLE")
		if strings.Contains(errs, catToken) {
			t.Errorf("the output shows the token: %s", errs)
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, argv := range [][]string{
			{"info", "nodot", "--catalog", c.URI},
			{"info", "ns..t", "--catalog", c.URI},
			{"info", "./dir.with.dots", "--catalog", c.URI},
			{"info", "ns.t", "--catalog", "ftp://host"},
			{"info", t.TempDir(), "--warehouse", "w"},
			{"create", t.TempDir(), "--time", "ts", "--series", "host", "--location", "file:///tmp/x"},
		} {
			if code, _, errs := cli(t, "", argv...); code != 2 {
				t.Errorf("timelake %s: exit %d, %s; want 2", strings.Join(argv, " "), code, errs)
			}
		}
	})
}

// TestCatalogS3 keeps the warehouse on the S3 server: the store follows
// the table's s3:// location, with the user's AWS settings, and with the
// vended ones when the user gives none.
func TestCatalogS3(t *testing.T) {
	s3Table(t) // skips without the S3 server
	c := catalogServer(t, interoptest.RESTCatalogOptions{S3: true, VendS3: true})
	t.Setenv(envCatalogToken, "")
	tbl := namespace(t) + ".cpu"
	out := mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long", "--json")
	var created catInfo
	if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created.Location, "s3://"+os.Getenv("TIMELAKE_S3_BUCKET")+"/") {
		t.Fatalf("create --json = %s (%v); want an s3:// location in the test bucket", out, err)
	}
	mustCatCLI(t, c, catCSV1, "append", tbl, "-", "--format", "csv")

	// No AWS settings at all: the catalog's vended configuration.
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		t.Setenv(k, "")
	}
	mustCatCLI(t, c, catCSV2, "append", tbl, "-", "--format", "csv")
	if info := infoJSON(t, c, tbl); info.Rows != 4 || info.Location != created.Location {
		t.Errorf("info = %+v, want 4 rows at %s", info, created.Location)
	}
}
