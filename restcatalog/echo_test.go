package restcatalog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/echoserver"
	"github.com/timelake/timelake/redact"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/restcatalog/nethttp"
)

// Secrets that change under every encoding: "+", "/", "=", a quote, a
// space, non-ASCII.
const (
	echoClientID = "timelake-client"
	echoSecret   = "supersecretAB+cd/ef=="
	echoToken    = `tok "quoted" ünïcode/+=`
)

// A catalog over HTTP that echoes each refused request (headers, query,
// body) in a 4xx or 5xx answer: the OAuth2 token request (client_secret in
// a form body, percent-encoded) and calls with a bearer token. The errors
// hold neither secret in any spelling, and still say what failed.
func TestEchoingCatalogScrubbed(t *testing.T) {
	for _, status := range []int{400, 401, 403, 500} {
		srv := echoserver.Catalog(t, status, map[string]string{"/v1/config": `{}`})
		for _, cfg := range []restcatalog.Config{
			{URI: srv.URL, Credential: echoClientID + ":" + echoSecret, Warehouse: "wh"},
			{URI: srv.URL, Token: echoToken, Warehouse: "wh"},
		} {
			cfg.Transport = nethttp.New(10 * time.Second)
			c, err := restcatalog.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.LoadTable(context.Background(), restcatalog.MustIdent("ns.t"))
			if err == nil {
				t.Fatalf("%d: loaded", status)
			}
			msg := err.Error()
			if !strings.Contains(msg, "refused") || !strings.Contains(msg, "[redacted]") {
				t.Errorf("%d: the echo is not in the error (the test would prove nothing): %s", status, msg)
			}
			if restcatalog.Code(err) == "" {
				t.Errorf("%d: no code: %s", status, msg)
			}
			echoserver.Check(t, "error", msg, echoserver.Forms(echoClientID, echoSecret), echoserver.Forms("", echoToken))
		}
	}
}

// The tokens a client fetches and the storage credentials a catalog vends
// join the Secrets the caller gave, so a driver scrubs its own output of
// them too; a later refusal that echoes them is scrubbed by the client.
func TestFetchedAndVendedSecretsKept(t *testing.T) {
	const fetched, vendedKey, vendedToken = "fetched-access-tok-77", "vended/secret+key=", "vended session tökén"
	load := `{"metadata-location":"s3://b/t/metadata/v1.metadata.json","metadata":{"format-version":2},` +
		`"config":{"s3.access-key-id":"AKIDVENDED","s3.secret-access-key":"` + vendedKey + `"},` +
		`"storage-credentials":[{"prefix":"s3://b/t","config":{"s3.session-token":"` + vendedToken + `"}}]}`
	srv := echoserver.Catalog(t, 500, map[string]string{
		"/v1/config":                 `{}`,
		"/v1/oauth/tokens":           `{"access_token":"` + fetched + `","token_type":"bearer"}`,
		"/v1/namespaces/ns/tables/t": load,
	})
	var sec redact.Set
	c, err := restcatalog.New(restcatalog.Config{URI: srv.URL, Credential: echoClientID + ":" + echoSecret,
		Transport: nethttp.New(10 * time.Second), Secrets: &sec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadTable(context.Background(), restcatalog.MustIdent("ns.t")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fetched, vendedKey, vendedToken, echoSecret} {
		if got := sec.Scrub("x " + s + " y"); got != "x [redacted] y" {
			t.Errorf("%q is not among the secrets: %q", s, got)
		}
	}
	if got := sec.Scrub("AKIDVENDED"); got != "AKIDVENDED" {
		t.Errorf("the access key id is an identifier, not a secret: %q", got)
	}
	// A refused call echoes the fetched token (the Authorization header).
	err = c.DropTable(context.Background(), restcatalog.MustIdent("ns.other"))
	if err == nil || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("drop = %v, want a refusal that echoed the token", err)
	}
	echoserver.Check(t, "drop error", err.Error(), echoserver.Forms("", fetched))
}
