package restcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/schema"
)

// script is a Transport that answers each request with the next reply
// for its method and path suffix, and records every request.
type script struct {
	mu      sync.Mutex
	replies map[string][]reply // "POST tables/t" → replies in turn
	sent    []*Request
}

// reply is a response, or a transport error (no response).
type reply struct {
	status int
	body   string
	header map[string]string
	err    error
}

func (s *script) on(key string, r ...reply) *script {
	if s.replies == nil {
		s.replies = map[string][]reply{}
	}
	s.replies[key] = append(s.replies[key], r...)
	return s
}

func (s *script) Do(ctx context.Context, req *Request) (*Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, req)
	for key, rs := range s.replies {
		method, suffix, _ := strings.Cut(key, " ")
		u, _, _ := strings.Cut(req.URL, "?")
		if req.Method != method || !strings.HasSuffix(u, suffix) || len(rs) == 0 {
			continue
		}
		r := rs[0]
		if len(rs) > 1 {
			s.replies[key] = rs[1:]
		}
		if r.err != nil {
			return nil, r.err
		}
		return &Response{Status: r.status, Header: r.header, Body: []byte(r.body)}, nil
	}
	return nil, fmt.Errorf("script: no reply for %s %s", req.Method, req.URL)
}

// count is how many requests matched method and the path suffix.
func (s *script) count(method, suffix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.sent {
		u, _, _ := strings.Cut(r.URL, "?")
		if r.Method == method && strings.HasSuffix(u, suffix) {
			n++
		}
	}
	return n
}

const configOK = `{"defaults":{},"overrides":{"prefix":"wh1"}}`

// testMetadata is a table's metadata with the given snapshots (ids), main at the last.
func testMetadata(t *testing.T, snaps ...int64) *iceberg.Metadata {
	t.Helper()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	md := iceberg.NewTableMetadata(sch, "9b6f3b0e-1d2c-4a5b-8c7d-000000000001", "s3://b/wh/ns/t", 1000, map[string]string{"k": "v"})
	for i, id := range snaps {
		s := iceberg.Snapshot{SnapshotID: id, SequenceNumber: int64(i + 1), TimestampMs: 2000 + int64(i),
			ManifestList: fmt.Sprintf("s3://b/wh/ns/t/metadata/snap-%d.avro", id),
			Summary:      map[string]string{"operation": "append", "timelake.commit-id": fmt.Sprintf("commit-%d", id)}}
		if i > 0 {
			p := snaps[i-1]
			s.ParentSnapshotID = &p
		}
		md.Snapshots = append(md.Snapshots, s)
		md.LastSequenceNumber = int64(i + 1)
	}
	if len(snaps) > 0 {
		last := snaps[len(snaps)-1]
		md.CurrentSnapshotID = &last
		md.Refs = map[string]iceberg.SnapshotRef{"main": {SnapshotID: last, Type: "branch"}}
	}
	return md
}

func raw(t *testing.T, md *iceberg.Metadata) []byte {
	t.Helper()
	b, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadBody is a LoadTableResult holding md.
func loadBody(t *testing.T, md *iceberg.Metadata, n int) string {
	t.Helper()
	out, err := json.Marshal(map[string]any{
		"metadata-location": fmt.Sprintf("s3://b/wh/ns/t/metadata/%05d-x.metadata.json", n),
		"metadata":          json.RawMessage(raw(t, md)),
		"config":            map[string]string{"s3.access-key-id": "AK", "s3.secret-access-key": "SK", "s3.endpoint": "http://127.0.0.1:9000", "s3.region": "auto"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func newClient(t *testing.T, tr Transport, cfg Config) (*Client, *[]time.Duration) {
	t.Helper()
	var slept []time.Duration
	cfg.Transport = tr
	if cfg.URI == "" {
		cfg.URI = "http://127.0.0.1:8181/api/catalog"
	}
	cfg.Now = func() time.Time { return time.Unix(1_800_000_000, 0).UTC() }
	cfg.Sleep = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return ctx.Err() }
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, &slept
}

func errCode(err error) string {
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Code()
	}
	return Code(err)
}

func mustParse(t *testing.T, b []byte) *iceberg.Metadata {
	t.Helper()
	md, err := iceberg.ParseMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// withStats gives the current snapshot a statistics file (the last-value index).
func withStats(t *testing.T, md *iceberg.Metadata) *iceberg.Metadata {
	id := *md.CurrentSnapshotID
	md.Statistics = append(md.Statistics, iceberg.StatisticsFile{SnapshotID: id,
		StatisticsPath:  fmt.Sprintf("s3://b/wh/ns/t/metadata/lastvalue-%d-u.puffin", id),
		FileSizeInBytes: 1234, FileFooterSizeInBytes: 100})
	return md
}

// expired is snapshots 2, 3 with 3's statistics: snapshot 1 expired.
func expired(t *testing.T) *iceberg.Metadata {
	md := withStats(t, testMetadata(t, 1, 2, 3))
	md.Snapshots = md.Snapshots[1:]
	md.Snapshots[0].ParentSnapshotID = nil
	md.Properties["timelake.last-expiry"] = "x"
	delete(md.Properties, "k")
	return md
}
