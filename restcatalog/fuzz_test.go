package restcatalog

import (
	"context"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// FuzzParseIdent: a user's table name parses or is refused by name; what
// parses prints back the same.
func FuzzParseIdent(f *testing.F) {
	for _, s := range []string{"ns.t", "a.b.c", "t", "", ".", "a..b", "a.\x1f.b", "ü.ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseIdent(s)
		if err != nil {
			if Code(err) != "BAD_TABLE_NAME" {
				t.Fatalf("ParseIdent(%q): %v without its code", s, err)
			}
			return
		}
		if id.String() != s || len(id.Namespace) == 0 || id.Name == "" {
			t.Fatalf("ParseIdent(%q) = %+v", s, id)
		}
		if strings.Contains(namespacePath(id.Namespace), "/") {
			t.Fatalf("namespace path %q holds a slash", namespacePath(id.Namespace))
		}
	})
}

// FuzzResponses: whatever a catalog answers (status, body, Retry-After),
// loading and committing end in a version or a coded error, never a panic.
func FuzzResponses(f *testing.F) {
	f.Add(200, `{"metadata-location":"s3://b/t/metadata/00001-x.metadata.json","metadata":{"format-version":2}}`, "")
	f.Add(404, `{"error":{"message":"no","type":"NoSuchTableException","code":404}}`, "")
	f.Add(429, `{}`, "Tue, 01 Dec 2026 10:00:07 GMT")
	f.Add(409, `{"error":{"type":"CommitFailedException"}}`, "")
	f.Add(500, `<html>`, "5")
	f.Add(200, `{"metadata-location":"x","metadata":[1]}`, "")
	f.Fuzz(func(t *testing.T, status int, body, retry string) {
		if status < 100 || status > 599 {
			return
		}
		tr := TransportFunc(func(ctx context.Context, req *Request) (*Response, error) {
			if strings.HasSuffix(req.URL, "/v1/config") {
				return &Response{Status: 200, Body: []byte(`{}`)}, nil
			}
			return &Response{Status: status, Body: []byte(body), Header: map[string]string{"Retry-After": retry}}, nil
		})
		c, _ := newClient(t, tr, Config{})
		r, err := c.LoadTable(context.Background(), MustIdent("ns.t"))
		if err == nil {
			if r.MetadataLocation == "" || len(r.Metadata) == 0 {
				t.Fatalf("a load without metadata was accepted: %+v", r)
			}
		} else if Code(err) == "" && !strings.Contains(err.Error(), "catalog:") {
			t.Fatalf("uncoded error: %v", err)
		}
		base := testMetadata(t, 1)
		next := testMetadata(t, 1, 2)
		var res commit.Result
		d := &Decider{Client: c, Table: MustIdent("ns.t")}
		_, _, err = d.Propose(context.Background(), commit.Version{N: 1, Raw: raw(t, base)}, commit.Attempt{Base: base, Next: next, Metadata: raw(t, next)},
			func(v commit.Version) bool {
				_, err := iceberg.ParseMetadata(v.Raw)
				return err == nil && strings.Contains(string(v.Raw), "commit-2")
			}, 3, &res)
		if res.Attempts > 3 {
			t.Fatalf("%d attempts with a budget of 3", res.Attempts)
		}
		_ = err
	})
}
