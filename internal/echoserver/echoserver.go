// Package echoserver is a hostile server for tests: it refuses every request
// with an answer that repeats the request (method, URL with its query,
// every header, the body), as a misconfigured proxy or a debugging endpoint
// might. The repeat holds the request's secrets raw, JSON-escaped and
// percent-encoded, so a test can show that an error built from the answer
// holds none of them (package redact).
package echoserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Dump is the request as the server repeats it: raw, then the headers as
// JSON, then the body JSON-escaped and percent-encoded.
func Dump(r *http.Request) string {
	body, _ := io.ReadAll(r.Body)
	if !utf8.Valid(body) || strings.ContainsFunc(string(body), func(c rune) bool { return c < ' ' && c != '\n' && c != '\t' }) {
		body = []byte(fmt.Sprintf("(%d bytes of binary)", len(body))) // an XML answer cannot hold them
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s ", r.Method, r.URL.RequestURI())
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(r.Header[k], ","))
	}
	hj, _ := json.Marshal(r.Header)
	bj, _ := json.Marshal(string(body))
	fmt.Fprintf(&b, "body %s; json headers %s; json body %s; encoded headers %s",
		body, hj, bj, url.QueryEscape(fmt.Sprint(r.Header)))
	return b.String()
}

// S3 answers every request with status and an S3 error document
// (AccessDenied) whose message is the Dump.
func S3(t testing.TB, status int) *httptest.Server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		d := Dump(r)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>%s</Message><RequestId>%s</RequestId></Error>`,
			html.EscapeString(d), html.EscapeString(r.Header.Get("X-Amz-Security-Token")))
	})
}

// Catalog answers as an Iceberg REST catalog that refuses: the token
// endpoint with status and an OAuth2 error whose description is the Dump,
// any other path with status and an ErrorModel whose message (and type) is
// the Dump. Paths in ok are answered 200 with their body instead.
func Catalog(t testing.TB, status int, ok map[string]string) *httptest.Server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if body, found := ok[r.URL.Path]; found {
			io.Copy(io.Discard, r.Body)
			w.Write([]byte(body))
			return
		}
		d := Dump(r)
		var out any
		if strings.HasSuffix(r.URL.Path, "/oauth/tokens") {
			out = map[string]string{"error": "invalid_client", "error_description": "refused " + d}
		} else {
			out = map[string]any{"error": map[string]any{"message": "refused " + d, "type": "NotAuthorizedException " + r.Header.Get("Authorization"), "code": status}}
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(out)
	})
}

func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Forms are the spellings of secret that no output may hold: as it is,
// percent-encoded for a query and for a path, JSON-escaped (inside the
// quotes), Go-quoted in ASCII, and base64 (with id, as CLIENT_ID:SECRET in
// HTTP Basic authentication, when id is not empty).
func Forms(id, secret string) []string {
	j, _ := json.Marshal(secret)
	q := strconv.QuoteToASCII(secret)
	out := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), string(j[1 : len(j)-1]), q[1 : len(q)-1],
		base64.StdEncoding.EncodeToString([]byte(secret))}
	if id != "" {
		out = append(out, base64.StdEncoding.EncodeToString([]byte(id+":"+secret)))
	}
	return out
}

// Check fails t when text holds any of the forms of the secrets.
func Check(t testing.TB, what, text string, forms ...[]string) {
	t.Helper()
	for _, fs := range forms {
		for _, f := range fs {
			if strings.Contains(text, f) {
				t.Errorf("%s holds %q:\n%s", what, f, text)
			}
		}
	}
}
