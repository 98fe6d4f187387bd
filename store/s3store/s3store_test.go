package s3store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/s3store"
	"github.com/timelake/timelake/store/storetest"
)

// serverConfig is the local test server started by scripts/s3server.sh (the
// variables it exports), with a fresh prefix; the test skips without one.
func serverConfig(t *testing.T) s3store.Config {
	t.Helper()
	bucket := os.Getenv("TIMELAKE_S3_BUCKET")
	if bucket == "" || os.Getenv("AWS_ENDPOINT_URL") == "" {
		t.Skip("no S3 server: run under scripts/test.sh, or eval \"$(bash scripts/s3server.sh start)\" first")
	}
	var r [6]byte
	rand.Read(r[:])
	c, err := s3store.ConfigFromEnv("s3://"+bucket+"/test/"+t.Name()+"-"+hex.EncodeToString(r[:]), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func open(t *testing.T, c s3store.Config) *s3store.Store {
	t.Helper()
	s, err := s3store.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, serverConfig(t)) })
}

// TestGetLimited: an object over the limit is ErrTooLarge naming its size;
// one within it (or exactly at it) is read whole.
func TestGetLimited(t *testing.T) {
	ctx := context.Background()
	s := open(t, serverConfig(t))
	data := bytes.Repeat([]byte("x"), 1000)
	if err := s.Put(ctx, "metadata/v1.metadata.json", data); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{1000, 1 << 20} {
		got, err := store.GetLimited(ctx, s, "metadata/v1.metadata.json", limit)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("limit %d: %d bytes, %v; want the object", limit, len(got), err)
		}
	}
	_, err := store.GetLimited(ctx, s, "metadata/v1.metadata.json", 999)
	if !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), "has 1000 bytes, the limit is 999") {
		t.Errorf("limit 999: %v, want ErrTooLarge naming 1000 bytes", err)
	}
	if _, err := store.GetLimited(ctx, s, "metadata/none.json", 10); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing key: %v, want ErrNotFound", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		uri, bucket, prefix, loc string
	}{
		{"s3://bkt", "bkt", "", "s3://bkt"},
		{"s3://bkt/", "bkt", "", "s3://bkt"},
		{"s3://my-bucket.1/tables/metrics", "my-bucket.1", "tables/metrics", "s3://my-bucket.1/tables/metrics"},
		{"s3://bkt/tables/metrics/", "bkt", "tables/metrics", "s3://bkt/tables/metrics"},
		// Locations as they are (written so since), or percent-encoded (decoded).
		{"s3://bkt/my tablé #1", "bkt", "my tablé #1", "s3://bkt/my tablé #1"},
		{"s3://bkt/100% cpu", "bkt", "100% cpu", "s3://bkt/100% cpu"},
		{"s3://bkt/my%20tabl%C3%A9", "bkt", "my tablé", "s3://bkt/my tablé"},
	}
	for _, tc := range tests {
		c, err := s3store.ConfigFromEnv(tc.uri, getenv)
		if err != nil {
			t.Errorf("ConfigFromEnv(%q): %v", tc.uri, err)
			continue
		}
		if c.Bucket != tc.bucket || c.Prefix != tc.prefix || c.Location() != tc.loc || c.Region != "us-east-1" || c.PathStyle {
			t.Errorf("ConfigFromEnv(%q) = %+v, want bucket %q prefix %q location %q, us-east-1, virtual-hosted", tc.uri, c, tc.bucket, tc.prefix, tc.loc)
		}
	}
	for _, bad := range []string{"s3:/bkt", "s3://", "http://bkt/x", "s3://bkt/a/../c", "s3://bkt/a//c", "s3://bkt/x?y=1", "s3://u:p@bkt/x", "s3://bkt:80/x", "s3://b/x", "s3://Bkt/x"} {
		if _, err := s3store.ConfigFromEnv(bad, getenv); err == nil {
			t.Errorf("ConfigFromEnv(%q): no error", bad)
		}
	}
	env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000"
	env["AWS_DEFAULT_REGION"] = "eu-west-1"
	env["AWS_SESSION_TOKEN"] = "TOK"
	c, err := s3store.ConfigFromEnv("s3://bkt/t", getenv)
	if err != nil || !c.PathStyle || c.Endpoint != "http://127.0.0.1:9000" || c.Region != "eu-west-1" || c.SessionToken != "TOK" {
		t.Errorf("with a custom endpoint: %+v, %v; want path-style, the endpoint, eu-west-1, the token", c, err)
	}
	env["AWS_ENDPOINT_URL_S3"] = "http://s3.local:1"
	env["AWS_REGION"] = "auto"
	if c, _ := s3store.ConfigFromEnv("s3://bkt/t", getenv); c.Endpoint != "http://s3.local:1" || c.Region != "auto" {
		t.Errorf("AWS_ENDPOINT_URL_S3 and AWS_REGION should win: %+v", c)
	}
	delete(env, "AWS_SECRET_ACCESS_KEY")
	if _, err := s3store.ConfigFromEnv("s3://bkt/t", getenv); err == nil || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("without a secret: err = %v, want one naming AWS_SECRET_ACCESS_KEY", err)
	}
}

func FuzzConfigFromEnv(f *testing.F) {
	for _, s := range []string{"s3://bkt/tables/m", "s3://bkt", "s3://bkt/a/../c", "s3://bkt/%2e%2e/x", "s3://bkt/x?y", "s3://bkt:1/x"} {
		f.Add(s)
	}
	getenv := func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"}[k]
	}
	f.Fuzz(func(t *testing.T, uri string) {
		c, err := s3store.ConfigFromEnv(uri, getenv)
		if err != nil {
			return
		}
		if c.Bucket == "" {
			t.Fatalf("%q: accepted with no bucket", uri)
		}
		if c.Prefix != "" && store.CheckKey(c.Prefix) != nil {
			t.Fatalf("%q: accepted prefix %q that CheckKey refuses", uri, c.Prefix)
		}
		if _, err := s3store.New(c); err != nil {
			t.Fatalf("%q: ConfigFromEnv accepted, New refused: %v", uri, err)
		}
	})
}

// wantError checks err is an *s3store.Error with the status (4: any 4xx), code and key,
// and that no message carries the secret.
func wantError(t *testing.T, what string, err error, status int, code, key, secret string) {
	t.Helper()
	var e *s3store.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: err = %v (%T), want *s3store.Error", what, err, err)
	}
	statusOK := e.Status == status || (status == 4 && e.Status >= 400 && e.Status < 500)
	if !statusOK || (code != "" && e.Code != code) || e.Key != key {
		t.Errorf("%s: status %d code %q key %q, want %d %q %q (%v)", what, e.Status, e.Code, e.Key, status, code, key, err)
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("%s: message %q does not name the key %q", what, err, key)
	}
	if secret != "" && strings.Contains(err.Error(), secret) {
		t.Errorf("%s: message carries the secret: %q", what, err)
	}
	if errors.Is(err, store.ErrNotFound) {
		t.Errorf("%s: err matches ErrNotFound; a refusal must not read as a missing key", what)
	}
}

func TestBadCredentialsBucketRegion(t *testing.T) {
	good := serverConfig(t)
	ctx := t.Context()
	if err := open(t, good).Put(ctx, "metadata/v1.metadata.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}

	bad := good
	bad.SecretAccessKey = "wrong-secret-0123456789abcdef"
	s := open(t, bad)
	_, err := s.Get(ctx, "metadata/v1.metadata.json")
	wantError(t, "wrong secret, Get", err, 403, "SignatureDoesNotMatch", "metadata/v1.metadata.json", bad.SecretAccessKey)
	_, err = s.PutIfAbsent(ctx, "metadata/v2.metadata.json", []byte("{}"))
	wantError(t, "wrong secret, PutIfAbsent", err, 403, "", "metadata/v2.metadata.json", bad.SecretAccessKey)
	_, err = s.List(ctx, "metadata/")
	wantError(t, "wrong secret, List", err, 403, "", "metadata/", bad.SecretAccessKey)

	unknown := good
	unknown.AccessKeyID = "NOSUCHKEY0000000"
	_, err = open(t, unknown).Get(ctx, "metadata/v1.metadata.json")
	// AWS answers 403 InvalidAccessKeyId; versitygw 404 XAdminUserNotFound.
	wantError(t, "unknown access key, Get", err, 4, "", "metadata/v1.metadata.json", good.SecretAccessKey)
	if !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("unknown access key: %q gives no hint", err)
	}

	nob := good
	nob.Bucket = "no-such-bucket-timelake"
	s = open(t, nob)
	_, err = s.Get(ctx, "metadata/v1.metadata.json")
	wantError(t, "missing bucket, Get", err, 404, "NoSuchBucket", "metadata/v1.metadata.json", good.SecretAccessKey)
	_, err = s.GetRange(ctx, "metadata/v1.metadata.json", 0, 0)
	wantError(t, "missing bucket, GetRange(0,0)", err, 404, "NoSuchBucket", "metadata/v1.metadata.json", good.SecretAccessKey)
	_, err = s.PutIfAbsent(ctx, "metadata/v1.metadata.json", []byte("{}"))
	wantError(t, "missing bucket, PutIfAbsent", err, 404, "NoSuchBucket", "metadata/v1.metadata.json", good.SecretAccessKey)
	if !strings.Contains(err.Error(), "bucket does not exist") {
		t.Errorf("missing bucket: %q gives no hint", err)
	}

	region := good
	region.Region = "eu-central-1"
	_, err = open(t, region).Get(ctx, "metadata/v1.metadata.json")
	t.Logf("wrong region: %v", err)
	var e *s3store.Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 || !strings.Contains(err.Error(), "metadata/v1.metadata.json") || errors.Is(err, store.ErrNotFound) {
		t.Errorf("wrong region: err = %v, want a 4xx *s3store.Error naming the key", err)
	}
	if strings.Contains(err.Error(), good.SecretAccessKey) {
		t.Errorf("wrong region: message carries the secret: %q", err)
	}
}

// faultTransport passes requests to the server and breaks chosen ones.
type faultTransport struct {
	// fault sees each request (n counts from 1) and returns what to do:
	// "" forward, "drop-before" fail without sending, "drop-after" send and
	// lose the answer, "conflict" answer 409 ConditionalRequestConflict,
	// "denied" answer 403 AccessDenied.
	fault func(n int64, r *http.Request) string
	n     atomic.Int64
}

func (f *faultTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	switch f.fault(f.n.Add(1), r) {
	case "drop-before":
		return nil, errors.New("test: connection reset before the request was sent")
	case "drop-after":
		res, err := http.DefaultTransport.RoundTrip(r)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return nil, errors.New("test: connection reset, answer lost")
	case "denied":
		body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>R403</RequestId></Error>`
		return &http.Response{StatusCode: 403, Status: "403 Forbidden", Header: http.Header{"Content-Type": {"application/xml"}},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
	case "conflict":
		body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is in progress</Message></Error>`
		return &http.Response{StatusCode: 409, Status: "409 Conflict", Header: http.Header{"Content-Type": {"application/xml"}},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
	}
	return http.DefaultTransport.RoundTrip(r)
}

func isConditionalPut(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*"
}

func TestPutIfAbsentFaults(t *testing.T) {
	c := serverConfig(t)
	ctx := t.Context()
	key := "metadata/v2.metadata.json"
	ours := []byte(`{"commit":"ours"}`)

	// The first conditional PUT reaches the server but its answer is lost: the
	// retry meets 412 and the read-back finds our bytes, so it is ours.
	lost := c
	lost.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(n int64, r *http.Request) string {
		if n == 1 && isConditionalPut(r) {
			return "drop-after"
		}
		return ""
	}}}
	created, err := open(t, lost).PutIfAbsent(ctx, key, ours)
	if err != nil || !created {
		t.Fatalf("PutIfAbsent with a lost answer = %v, %v; want true, nil", created, err)
	}
	// Another writer with other bytes, after the same kind of fault, loses.
	created, err = open(t, lost).PutIfAbsent(ctx, key, []byte(`{"commit":"theirs"}`))
	if err != nil || created {
		t.Errorf("a second writer after a lost answer = %v, %v; want false, nil", created, err)
	}
	got, err := open(t, c).Get(ctx, key)
	if err != nil || !bytes.Equal(got, ours) {
		t.Errorf("stored %q, %v; want %q", got, err, ours)
	}

	// 409 ConditionalRequestConflict twice, then through.
	conflict := c
	conflict.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(n int64, r *http.Request) string {
		if n <= 2 && isConditionalPut(r) {
			return "conflict"
		}
		return ""
	}}}
	created, err = open(t, conflict).PutIfAbsent(ctx, "metadata/v3.metadata.json", ours)
	if err != nil || !created {
		t.Errorf("PutIfAbsent after two 409s = %v, %v; want true, nil", created, err)
	}

	// A connection that always drops: a coded error naming the key, after the attempts.
	var puts atomic.Int64
	down := c
	down.MaxAttempts = 3
	down.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(n int64, r *http.Request) string {
		puts.Add(1)
		return "drop-before"
	}}}
	_, err = open(t, down).PutIfAbsent(ctx, "metadata/v4.metadata.json", ours)
	wantError(t, "PutIfAbsent, server unreachable", err, 0, "", "metadata/v4.metadata.json", c.SecretAccessKey)
	if puts.Load() != 3 {
		t.Errorf("PutIfAbsent made %d attempts, want 3", puts.Load())
	}
}

func TestPutRetriesDroppedUpload(t *testing.T) {
	c := serverConfig(t)
	c.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(n int64, r *http.Request) string {
		if n == 1 {
			return "drop-before"
		}
		return ""
	}}}
	s := open(t, c)
	data := bytes.Repeat([]byte("x"), 1<<20)
	if err := s.Put(t.Context(), "data/a.parquet", data); err != nil {
		t.Fatalf("Put after a dropped connection: %v", err)
	}
	got, err := s.Get(t.Context(), "data/a.parquet")
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Get = %d bytes, %v; want the 1 MiB put", len(got), err)
	}
}

// A policy that refuses one key: that key's calls fail with a coded error
// naming it; the others work.
func TestForbiddenKey(t *testing.T) {
	c := serverConfig(t)
	c.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(_ int64, r *http.Request) string {
		if strings.HasSuffix(r.URL.Path, "/metadata/secret.json") {
			return "denied"
		}
		return ""
	}}}
	s := open(t, c)
	ctx := t.Context()
	if err := s.Put(ctx, "metadata/v1.metadata.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx, "metadata/secret.json")
	wantError(t, "Get of a refused key", err, 403, "AccessDenied", "metadata/secret.json", c.SecretAccessKey)
	if !strings.Contains(err.Error(), "R403") || !strings.Contains(err.Error(), "not be allowed") {
		t.Errorf("Get of a refused key: %q lacks the request id or the hint", err)
	}
	err = s.Put(ctx, "metadata/secret.json", []byte("x"))
	wantError(t, "Put of a refused key", err, 403, "AccessDenied", "metadata/secret.json", c.SecretAccessKey)
	if _, err := s.Get(ctx, "metadata/v1.metadata.json"); err != nil {
		t.Errorf("Get of an allowed key: %v", err)
	}
}

func TestNoRetryOn4xx(t *testing.T) {
	c := serverConfig(t)
	c.SecretAccessKey = "wrong"
	var n atomic.Int64
	c.HTTPClient = &http.Client{Transport: &faultTransport{fault: func(int64, *http.Request) string { n.Add(1); return "" }}}
	s := open(t, c)
	if err := s.Put(t.Context(), "data/x", []byte("x")); err == nil {
		t.Fatal("Put with a wrong secret: no error")
	}
	if _, err := s.PutIfAbsent(t.Context(), "data/y", []byte("x")); err == nil {
		t.Fatal("PutIfAbsent with a wrong secret: no error")
	}
	if n.Load() != 2 {
		t.Errorf("%d requests for two refused calls, want 2 (no retry on 403)", n.Load())
	}
}

func TestListPaginates(t *testing.T) {
	s := open(t, serverConfig(t))
	ctx := t.Context()
	var want []string
	for i := range 1005 {
		k := fmt.Sprintf("data/f%04d", i)
		want = append(want, k)
	}
	// Many small puts: in parallel, bounded.
	sem := make(chan struct{}, 32)
	errs := make(chan error, len(want))
	for _, k := range want {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- s.Put(ctx, k, []byte("x"))
		}()
	}
	for range want {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.List(ctx, "data/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got[0].Key != want[0] || got[len(got)-1].Key != want[len(want)-1] {
		t.Fatalf("List gave %d objects, want %d (more than one page)", len(got), len(want))
	}
	if err := s.Delete(ctx, want); err != nil {
		t.Fatalf("Delete of %d keys (two DeleteObjects batches): %v", len(want), err)
	}
	if got, err := s.List(ctx, "data/"); err != nil || len(got) != 0 {
		t.Errorf("after Delete: List = %d objects, %v; want none", len(got), err)
	}
}
