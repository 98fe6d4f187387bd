package catalogtest

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/restcatalog/nethttp"
	"github.com/timelake/timelake/table"
)

// isCommit is a commit request to a table (POST …/tables/NAME).
func isCommit(req *restcatalog.Request, name string) bool {
	return req.Method == "POST" && strings.HasSuffix(strings.SplitN(req.URL, "?", 2)[0], "/tables/"+name)
}

func response(status int, body string, hdr map[string]string) *restcatalog.Response {
	return &restcatalog.Response{Status: status, Body: []byte(body), Header: hdr}
}

// TestFaults injects one fault per case into the commit of an append and
// checks the table afterwards: the rows are there exactly once (or, where
// the append failed, not at all), and the user was told.
func TestFaults(t *testing.T) {
	need(t)
	type fault = func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error)
	for _, tc := range []struct {
		name      string
		fault     fault // n counts the commit requests, from 1
		wantRows  int64 // after the append (the table had 60)
		wantCode  string
		wantSlept time.Duration
		wantPosts int
	}{
		{name: "500 after the commit was applied", wantRows: 120, wantPosts: 1,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if n == 1 {
					if _, err := forward(); err != nil {
						return nil, err
					}
					return response(500, `{"error":{"message":"proxy failed after forwarding","type":"ServiceFailureException","code":500}}`, nil), nil
				}
				return forward()
			}},
		{name: "lost response after the commit was applied", wantRows: 120, wantPosts: 1,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if n == 1 {
					forward()
					return nil, errForced
				}
				return forward()
			}},
		{name: "lost request: not applied, sent again", wantRows: 120, wantPosts: 2, wantSlept: 100 * time.Millisecond,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if n == 1 {
					return nil, errForced
				}
				return forward()
			}},
		{name: "429 with Retry-After", wantRows: 120, wantPosts: 3, wantSlept: 4 * time.Second,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if n <= 2 {
					return response(429, `{"error":{"message":"slow down","type":"TooManyRequests","code":429}}`, map[string]string{"Retry-After": "2"}), nil
				}
				return forward()
			}},
		{name: "409 storm, then through", wantRows: 120, wantPosts: 6,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if n <= 5 {
					return response(409, `{"error":{"message":"Requirement failed: branch main has changed","type":"CommitFailedException","code":409}}`, nil), nil
				}
				return forward()
			}},
		{name: "409 storm past the retries", wantRows: 60, wantCode: "COMMIT_CONFLICT_EXHAUSTED", wantPosts: 10,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				return response(409, `{"error":{"message":"Requirement failed","type":"CommitFailedException","code":409}}`, nil), nil
			}},
		{name: "catalog down during the commit", wantRows: 60, wantCode: "COMMIT_UNKNOWN", wantPosts: 1 + restcatalog.MaxUnknownResends,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				return nil, errForced
			}},
		{name: "token revoked", wantRows: 60, wantCode: "CATALOG_AUTH", wantPosts: 1,
			fault: func(n int, req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				req.Header["Authorization"] = "Bearer revoked"
				return forward()
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var sl sleeps
			cat, tr := client(t, server, restcatalog.Config{}, &sl)
			id := ident(t)
			sch := metrics(t)
			tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Append(ctx, batch(t, sch, day, 60, 4, 0)); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			posts := 0
			tr.setFault(func(req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
				if !isCommit(req, id.Name) {
					if req.Method == "GET" && strings.Contains(tc.name, "down") {
						return nil, errForced // the reload fails too
					}
					return forward()
				}
				mu.Lock()
				posts++
				n := posts
				mu.Unlock()
				return tc.fault(n, req, forward)
			})
			sl.d = nil
			_, err = tb.Append(ctx, batch(t, sch, day.Add(2*time.Hour), 60, 4, 100))
			tr.setFault(nil)
			if got := code(err); got != tc.wantCode {
				t.Fatalf("append: code %q (%v), want %q", got, err, tc.wantCode)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("the token leaked into the error: %v", err)
			}
			if posts != tc.wantPosts {
				t.Errorf("commit requests = %d, want %d", posts, tc.wantPosts)
			}
			if tc.wantSlept > 0 && sl.total() != tc.wantSlept {
				t.Errorf("slept %v in all, want %v", sl.total(), tc.wantSlept)
			}
			re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
			if err != nil {
				t.Fatal(err)
			}
			info, err := re.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.Rows != tc.wantRows {
				t.Errorf("rows = %d, want %d (snapshots %d)", info.Rows, tc.wantRows, info.Snapshots)
			}
			if want := int(tc.wantRows / 60); info.Snapshots != want {
				t.Errorf("snapshots = %d, want %d: an append must land once", info.Snapshots, want)
			}
		})
	}
}

// TestRefusals: what the user is told when the catalog says no.
func TestRefusals(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	sch := metrics(t)
	good, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	if _, err := table.CreateInCatalog(ctx, good, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv)); err != nil {
		t.Fatal(err)
	}
	_, err := table.CreateInCatalog(ctx, good, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
	if code(err) != "TABLE_EXISTS" {
		t.Errorf("create twice: %q (%v), want TABLE_EXISTS", code(err), err)
	}
	wrong, _ := client(t, server, restcatalog.Config{Token: "not-the-token"}, &sl)
	_, err = table.OpenInCatalog(ctx, wrong, id, sl.env(), storeFor(nil, os.Getenv))
	if code(err) != "CATALOG_AUTH" || strings.Contains(err.Error(), "not-the-token") {
		t.Errorf("wrong token: %q (%v), want CATALOG_AUTH without the token", code(err), err)
	}
	badSecret, _ := client(t, server, restcatalog.Config{Credential: "client-1:wrong-secret"}, &sl)
	_, err = table.OpenInCatalog(ctx, badSecret, id, sl.env(), storeFor(nil, os.Getenv))
	if code(err) != "CATALOG_AUTH" || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("wrong secret: %q (%v), want CATALOG_AUTH without the secret", code(err), err)
	}
	_, err = table.OpenInCatalog(ctx, good, restcatalog.MustIdent(id.NamespaceString()+".nope"), sl.env(), storeFor(nil, os.Getenv))
	if code(err) != "NO_TABLE" || !strings.Contains(err.Error(), ".nope") {
		t.Errorf("missing table: %q (%v), want NO_TABLE naming it", code(err), err)
	}
	_, err = table.OpenInCatalog(ctx, good, restcatalog.MustIdent("no_such_ns.t"), sl.env(), storeFor(nil, os.Getenv))
	if c := code(err); c != "NO_TABLE" && c != "NO_NAMESPACE" {
		t.Errorf("missing namespace: %q (%v), want NO_TABLE or NO_NAMESPACE", c, err)
	}
	// A catalog that is down: a port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	down, err := restcatalog.New(restcatalog.Config{URI: "http://" + addr, Token: testToken, Transport: nethttp.New(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = table.OpenInCatalog(ctx, down, id, sl.env(), storeFor(nil, os.Getenv))
	if code(err) != "CATALOG_UNAVAILABLE" || !errors.Is(err, restcatalog.ErrUnavailable) {
		t.Errorf("catalog down: %q (%v), want CATALOG_UNAVAILABLE", code(err), err)
	}
}
