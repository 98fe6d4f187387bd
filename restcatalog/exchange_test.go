package restcatalog

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/commit"
)

var update = flag.Bool("update", false, "rewrite testdata/requests.json (the recorded requests)")

// recorded is one request as testdata/requests.json holds it: the file the
// spec check (interop/restspec.py, run by TestRequestsFollowTheSpec in
// internal/restspec) validates against Iceberg's REST OpenAPI document.
type recorded struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body,omitempty"` // JSON bodies
	Form    string            `json:"form,omitempty"` // form bodies (the token endpoint)
}

// TestRecordedRequests sends every kind of request this client makes and
// compares them with testdata/requests.json (-update rewrites it).
func TestRecordedRequests(t *testing.T) {
	md := testMetadata(t, 1, 2)
	load := loadBody(t, md, 2)
	s := (&script{}).
		on("POST /v1/oauth/tokens", reply{status: 200, body: `{"access_token":"tok-abc","token_type":"bearer","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","expires_in":3600}`}).
		on("GET /v1/config", reply{status: 200, body: configOK}).
		on("POST /v1/wh1/namespaces", reply{status: 200, body: `{"namespace":["a","b"],"properties":{}}`}).
		on("HEAD /v1/wh1/namespaces/a%1Fb", reply{status: 204}).
		on("POST /v1/wh1/namespaces/a%1Fb/tables", reply{status: 200, body: load}).
		on("GET /v1/wh1/namespaces/a%1Fb/tables/t", reply{status: 200, body: load}).
		on("HEAD /v1/wh1/namespaces/a%1Fb/tables/t", reply{status: 204}).
		on("POST /v1/wh1/namespaces/a%1Fb/tables/t", reply{status: 200, body: loadBody(t, testMetadata(t, 1, 2, 3), 3)}, reply{status: 200, body: loadBody(t, testMetadata(t, 2, 3), 4)}).
		on("POST /v1/wh1/namespaces/a%1Fb/register", reply{status: 200, body: load}).
		on("DELETE /v1/wh1/namespaces/a%1Fb/tables/t", reply{status: 204})
	c, _ := newClient(t, s, Config{Warehouse: "acct_bucket", Credential: "client-1:secret-1"})
	ctx := context.Background()
	id := MustIdent("a.b.t")
	var names []string
	step := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for len(names) < len(s.sent) {
			names = append(names, name)
		}
	}
	step("token, then config", c.configure(ctx))
	step("create namespace", c.CreateNamespace(ctx, id.Namespace, map[string]string{"owner": "timelake"}))
	_, err := c.NamespaceExists(ctx, id.Namespace)
	step("namespace exists", err)
	sch := md.Schemas[0]
	_, err = c.CreateTable(ctx, id, CreateRequest{Schema: sch, PartitionSpec: &md.PartitionSpecs[0], WriteOrder: &md.SortOrders[0], Properties: map[string]string{"format-version": "2"}})
	step("create table", err)
	_, err = c.LoadTable(ctx, id)
	step("load table", err)
	_, err = c.TableExists(ctx, id)
	step("table exists", err)
	d := &Decider{Client: c, Table: id}
	base := commit.Version{N: 2, Raw: raw(t, md)}
	var res commit.Result
	_, _, err = d.Propose(ctx, base, commit.Attempt{Metadata: raw(t, withStats(t, testMetadata(t, 1, 2, 3)))}, func(commit.Version) bool { return false }, 1, &res)
	step("commit an append", err)
	_, _, err = d.Propose(ctx, commit.Version{N: 3, Raw: raw(t, withStats(t, testMetadata(t, 1, 2, 3)))}, commit.Attempt{Metadata: raw(t, expired(t))}, func(commit.Version) bool { return false }, 1, &res)
	step("commit an expiry", err)
	_, err = c.RegisterTable(ctx, id, "s3://b/wh/a/b/t/metadata/v7.metadata.json")
	step("register table", err)
	step("drop table", c.DropTable(ctx, id))

	var got []recorded
	for i, r := range s.sent {
		rec := recorded{Name: names[i], Method: r.Method, URL: r.URL, Headers: r.Header}
		switch ct := r.Header["Content-Type"]; {
		case ct == "application/json":
			rec.Body = r.Body
		case len(r.Body) > 0:
			rec.Form = string(r.Body)
		}
		got = append(got, rec)
	}
	out, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, '\n')
	path := filepath.Join("testdata", "requests.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./restcatalog -run TestRecordedRequests -update)", err)
	}
	if string(want) != string(out) {
		t.Errorf("requests differ from %s (rerun with -update if intended):\n%s", path, out)
	}
}
