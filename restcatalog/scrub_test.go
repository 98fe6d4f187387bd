package restcatalog

import (
	"context"
	"strings"
	"testing"
)

// A catalog that echoes the credentials it refused: the error names neither.
func TestRefusalScrubsSecrets(t *testing.T) {
	const tok, secret = "tok-echoed-81f2", "s3cret-echoed-4c"
	echo := TransportFunc(func(ctx context.Context, req *Request) (*Response, error) {
		if strings.HasSuffix(req.URL, "/v1/config") && req.Header["Authorization"] != "" {
			return &Response{Status: 200, Body: []byte(`{}`)}, nil // refused at the table, not before
		}
		body := `{"error":{"message":"refused ` + req.Header["Authorization"] + `","type":"NotAuthorizedException ` + tok + `","code":401}}`
		if strings.HasSuffix(req.URL, "/oauth/tokens") {
			body = `{"error":"invalid_client","error_description":"bad secret ` + string(req.Body) + `"}`
		}
		return &Response{Status: 401, Body: []byte(body)}, nil
	})
	for _, cfg := range []Config{
		{URI: "http://catalog.test", Token: tok, Transport: echo},
		{URI: "http://catalog.test", Credential: "id:" + secret, Transport: echo},
	} {
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.LoadTable(context.Background(), MustIdent("ns.t"))
		if err == nil || Code(err) != "CATALOG_AUTH" {
			t.Fatalf("load = %v (%s), want CATALOG_AUTH", err, Code(err))
		}
		if msg := err.Error(); strings.Contains(msg, tok) || strings.Contains(msg, secret) {
			t.Errorf("the error shows a secret: %s", msg)
		}
	}
}
