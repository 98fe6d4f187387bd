package restcatalog

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestErrorsAreCodedAndNamed(t *testing.T) {
	for _, tc := range []struct {
		status          int
		body            string
		wantCode, wantS string
	}{
		{404, `{"error":{"message":"Table does not exist: ns.t","type":"NoSuchTableException","code":404}}`, "NO_TABLE", "NoSuchTableException: Table does not exist: ns.t"},
		{404, `{"error":{"message":"Namespace does not exist: ns","type":"NoSuchNamespaceException","code":404}}`, "NO_NAMESPACE", "Namespace does not exist"},
		{401, `{"error":{"message":"bad token","type":"NotAuthorizedException","code":401}}`, "CATALOG_AUTH", "HTTP 401"},
		{403, ``, "CATALOG_AUTH", "HTTP 403"},
		{503, `<html>down</html>`, "CATALOG_UNAVAILABLE", "<html>down</html>"},
		{500, `{"error":{"message":"boom","type":"RuntimeException","code":500}}`, "CATALOG_ERROR", "RuntimeException: boom"},
		{429, ``, "CATALOG_RATE_LIMITED", "HTTP 429"},
	} {
		s := (&script{}).on("GET /v1/config", reply{status: 200, body: `{}`}).on("GET /v1/namespaces/ns/tables/t", reply{status: tc.status, body: tc.body})
		c, _ := newClient(t, s, Config{Token: "s3cr3t-token"})
		_, err := c.LoadTable(context.Background(), MustIdent("ns.t"))
		if got := errCode(err); got != tc.wantCode {
			t.Errorf("%d: code %q, want %q (%v)", tc.status, got, tc.wantCode, err)
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantS) || !strings.Contains(err.Error(), "load table ns.t") {
			t.Errorf("%d: error %q, want it to name the operation and say %q", tc.status, err, tc.wantS)
		}
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%d: the token leaked: %v", tc.status, err)
		}
	}
}

func TestTransportErrorsHideSecrets(t *testing.T) {
	s := (&script{}).on("GET /v1/config", reply{err: errors.New(`dial tcp: refused (Authorization: Bearer s3cr3t-token)`)})
	c, _ := newClient(t, s, Config{Token: "s3cr3t-token"})
	_, err := c.LoadTable(context.Background(), MustIdent("ns.t"))
	if errCode(err) != "CATALOG_UNAVAILABLE" || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("err = %v", err)
	}
}

func TestClientCredentials(t *testing.T) {
	tok := func(tok string, exp int) reply {
		return reply{status: 200, body: `{"access_token":"` + tok + `","token_type":"bearer","expires_in":` + itoa(exp) + `}`}
	}
	s := (&script{}).
		on("POST /v1/oauth/tokens", tok("tok-1", 3600), tok("tok-2", 3600)).
		on("GET /v1/config", reply{status: 200, body: configOK}).
		on("HEAD /v1/wh1/namespaces/ns/tables/t", reply{status: 401}, reply{status: 204}, reply{status: 204})
	c, _ := newClient(t, s, Config{Credential: "id-1:the-secret"})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		ok, err := c.TableExists(ctx, MustIdent("ns.t"))
		if err != nil || !ok {
			t.Fatalf("exists = %v, %v", ok, err)
		}
	}
	// One token for config, a 401 fetches a second, which the next call reuses.
	if got := s.count("POST", "/v1/oauth/tokens"); got != 2 {
		t.Errorf("token requests = %d, want 2", got)
	}
	last := s.sent[len(s.sent)-1]
	if last.Header["Authorization"] != "Bearer tok-2" {
		t.Errorf("last Authorization = %q", last.Header["Authorization"])
	}
	if !strings.Contains(string(s.sent[0].Body), "client_secret=the-secret") || !strings.Contains(string(s.sent[0].Body), "grant_type=client_credentials") {
		t.Errorf("token request body = %q", s.sent[0].Body)
	}

	bad := (&script{}).on("POST /v1/oauth/tokens", reply{status: 401, body: `{"error":"invalid_client","error_description":"wrong secret"}`})
	c, _ = newClient(t, bad, Config{Credential: "id-1:the-secret"})
	_, err := c.LoadTable(ctx, MustIdent("ns.t"))
	if errCode(err) != "CATALOG_AUTH" || !strings.Contains(err.Error(), "invalid_client") || strings.Contains(err.Error(), "the-secret") {
		t.Fatalf("err = %v", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	for in, want := range map[string]time.Duration{
		"3": 3 * time.Second, "0": 0, "": 0, "soon": 0, "-4": 0,
		"Tue, 01 Dec 2026 10:00:07 GMT": 7 * time.Second,
	} {
		if got := retryAfter(in, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	for _, cfg := range []Config{
		{URI: "ftp://x"}, {URI: "http://u:p@host"}, {URI: "http://h", Token: "a", Credential: "b:c"}, {URI: "http://h", Credential: "nocolon"},
	} {
		cfg.Transport = &script{}
		if _, err := New(cfg); err == nil || strings.Contains(err.Error(), ":p@") {
			t.Errorf("New(%+v) err = %v", cfg.URI, err)
		}
	}
}

func TestStorageConfig(t *testing.T) {
	r := &LoadResult{Config: map[string]string{"s3.access-key-id": "A", "s3.endpoint": "http://e", "other": "x", "client.region": "auto"},
		StorageCredentials: []StorageCredential{
			{Prefix: "s3://b/", Config: map[string]string{"s3.access-key-id": "B"}},
			{Prefix: "s3a://b/wh/ns/t", Config: map[string]string{"s3.access-key-id": "C", "s3.session-token": "T"}},
			{Prefix: "s3://other/", Config: map[string]string{"s3.access-key-id": "D"}},
		}}
	got := r.StorageConfig("s3://b/wh/ns/t")
	if got["s3.access-key-id"] != "C" || got["s3.session-token"] != "T" || got["s3.endpoint"] != "http://e" || got["s3.region"] != "auto" || got["other"] != "" {
		t.Errorf("StorageConfig = %v", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
