package interoptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// catalogDo sends one REST catalog request (body marshalled as JSON unless it
// is url.Values, sent as a form) and returns the status and the decoded body.
func catalogDo(t *testing.T, c *RESTCatalog, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case url.Values:
		r, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.URI+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: status %d, body not JSON: %v\n%s", method, path, resp.StatusCode, err, raw)
		}
	}
	return resp.StatusCode, out
}

var tsSchema = map[string]any{
	"type": "struct", "schema-id": 0,
	"fields": []any{
		map[string]any{"id": 1, "name": "ts", "required": true, "type": "timestamptz"},
		map[string]any{"id": 2, "name": "host", "required": true, "type": "string"},
		map[string]any{"id": 3, "name": "cpu", "required": false, "type": "double"},
	},
}

func TestRESTCatalogServer(t *testing.T) {
	c := StartRESTCatalog(t, RESTCatalogOptions{})
	if !strings.HasPrefix(c.URI, "http://127.0.0.1:") || !strings.HasPrefix(c.Warehouse, "file:///") {
		t.Fatalf("catalog at %q, warehouse %q", c.URI, c.Warehouse)
	}
	code, cfg := catalogDo(t, c, "GET", "/v1/config", "", nil)
	if code != 200 || cfg["defaults"] == nil || cfg["overrides"] == nil {
		t.Fatalf("GET /v1/config: %d %v", code, cfg)
	}
	code, ns := catalogDo(t, c, "POST", "/v1/namespaces", "", map[string]any{"namespace": []string{"metrics"}})
	if code != 200 {
		t.Fatalf("create namespace: %d %v\n%s", code, ns, c.LogTail(2000))
	}
	if got := ns["namespace"].([]any); len(got) != 1 || got[0] != "metrics" {
		t.Fatalf("create namespace answered %v", ns)
	}
	code, created := catalogDo(t, c, "POST", "/v1/namespaces/metrics/tables", "", map[string]any{
		"name": "cpu", "schema": tsSchema, "properties": map[string]string{"owner": "timelake-test"},
	})
	if code != 200 {
		t.Fatalf("create table: %d %v\n%s", code, created, c.LogTail(2000))
	}
	loc, _ := created["metadata-location"].(string)
	code, loaded := catalogDo(t, c, "GET", "/v1/namespaces/metrics/tables/cpu", "", nil)
	if code != 200 {
		t.Fatalf("load table: %d %v", code, loaded)
	}
	if loaded["metadata-location"] != loc || loc == "" {
		t.Fatalf("load table: metadata-location %v, create gave %q", loaded["metadata-location"], loc)
	}
	md := loaded["metadata"].(map[string]any)
	if md["format-version"] != float64(2) || md["table-uuid"] != created["metadata"].(map[string]any)["table-uuid"] {
		t.Fatalf("load table metadata: format %v uuid %v", md["format-version"], md["table-uuid"])
	}
	if got := md["location"]; got != c.Warehouse+"/metrics/cpu" {
		t.Fatalf("table location %v, want %s/metrics/cpu", got, c.Warehouse)
	}
	if md["properties"].(map[string]any)["owner"] != "timelake-test" {
		t.Fatalf("table properties %v", md["properties"])
	}
	schemas := md["schemas"].([]any)
	fields := schemas[0].(map[string]any)["fields"].([]any)
	if len(fields) != 3 || fields[0].(map[string]any)["type"] != "timestamptz" || fields[1].(map[string]any)["required"] != true {
		t.Fatalf("schema %v", fields)
	}
	// The metadata file is in the file warehouse, where outside clients read it.
	path := strings.TrimPrefix(strings.TrimPrefix(loc, "file://"), "file:")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("metadata file: %v", err)
	}
	if !strings.HasPrefix(filepath.Clean(path), filepath.Clean(strings.TrimPrefix(c.Warehouse, "file://"))) {
		t.Fatalf("metadata %s outside the warehouse %s", path, c.Warehouse)
	}
	code, missing := catalogDo(t, c, "GET", "/v1/namespaces/metrics/tables/nope", "", nil)
	if code != 404 || missing["error"].(map[string]any)["type"] != "NoSuchTableException" {
		t.Fatalf("load of a missing table: %d %v", code, missing)
	}
}

func TestRESTCatalogAuth(t *testing.T) {
	const token, client = "test-token-1f3a", "timelake-client:s3cr3t"
	c := StartRESTCatalog(t, RESTCatalogOptions{Token: token, Client: client})

	code, body := catalogDo(t, c, "GET", "/v1/config", "", nil)
	if code != 401 {
		t.Fatalf("no token: %d %v, want 401", code, body)
	}
	e, _ := body["error"].(map[string]any)
	if e["type"] != "NotAuthorizedException" || e["code"] != float64(401) || e["message"] == "" {
		t.Fatalf("no token: error model %v", body)
	}
	if code, body = catalogDo(t, c, "GET", "/v1/namespaces", "wrong", nil); code != 401 {
		t.Fatalf("wrong token: %d %v, want 401", code, body)
	}
	if code, body = catalogDo(t, c, "GET", "/v1/config", token, nil); code != 200 {
		t.Fatalf("with the token: %d %v", code, body)
	}
	if code, body = catalogDo(t, c, "POST", "/v1/namespaces", token, map[string]any{"namespace": []string{"a"}}); code != 200 {
		t.Fatalf("create namespace with the token: %d %v", code, body)
	}

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"timelake-client"}, "client_secret": {"s3cr3t"}, "scope": {"catalog"}}
	code, body = catalogDo(t, c, "POST", "/v1/oauth/tokens", "", form)
	if code != 200 || body["access_token"] != token || body["token_type"] != "bearer" ||
		body["issued_token_type"] != "urn:ietf:params:oauth:token-type:access_token" || body["expires_in"] != float64(3600) {
		t.Fatalf("token for the right secret: %d %v", code, body)
	}
	form.Set("client_secret", "guess")
	if code, body = catalogDo(t, c, "POST", "/v1/oauth/tokens", "", form); code != 401 || body["error"] != "invalid_client" {
		t.Fatalf("token for a wrong secret: %d %v, want 401 invalid_client", code, body)
	}
	form.Set("client_secret", "s3cr3t")
	form.Set("client_id", "someone-else")
	if code, body = catalogDo(t, c, "POST", "/v1/oauth/tokens", "", form); code != 401 {
		t.Fatalf("token for a wrong client id: %d %v, want 401", code, body)
	}
}
