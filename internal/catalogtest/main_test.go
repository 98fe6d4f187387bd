package catalogtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/cmd/timelake/locstore"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/restcatalog/nethttp"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/table"
)

const (
	testToken  = "tok-7c1e0d4a9b"
	testClient = "client-1:secret-9f3a"
)

var (
	server     *interoptest.RESTCatalog // file warehouse, auth on
	s3server   *interoptest.RESTCatalog // S3 warehouse vending credentials, or nil
	skipReason string
)

func TestMain(m *testing.M) {
	missing, err := interoptest.FindRESTCatalog()
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogtest:", err)
		os.Exit(1)
	}
	if missing != "" {
		skipReason = missing
		os.Exit(m.Run())
	}
	server, err = interoptest.LaunchRESTCatalog(interoptest.RESTCatalogOptions{Token: testToken, Client: testClient})
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogtest:", err)
		os.Exit(1)
	}
	if os.Getenv("AWS_ENDPOINT_URL") != "" && os.Getenv("TIMELAKE_S3_BUCKET") != "" {
		s3server, err = interoptest.LaunchRESTCatalog(interoptest.RESTCatalogOptions{S3: true, VendS3: true})
		if err != nil {
			server.Stop()
			fmt.Fprintln(os.Stderr, "catalogtest:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	server.Stop()
	if s3server != nil {
		s3server.Stop()
	}
	os.Exit(code)
}

func need(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// counting is a Transport that counts requests by method and path suffix
// and lets a test fail them (faults.go).
type counting struct {
	next  restcatalog.Transport
	mu    sync.Mutex
	sent  []string // "METHOD path"
	fault func(req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error)
}

func (c *counting) Do(ctx context.Context, req *restcatalog.Request) (*restcatalog.Response, error) {
	c.mu.Lock()
	path, _, _ := strings.Cut(req.URL, "?")
	c.sent = append(c.sent, req.Method+" "+path)
	fault := c.fault
	c.mu.Unlock()
	forward := func() (*restcatalog.Response, error) { return c.next.Do(ctx, req) }
	if fault != nil {
		return fault(req, forward)
	}
	return forward()
}

func (c *counting) setFault(f func(req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error)) {
	c.mu.Lock()
	c.fault = f
	c.mu.Unlock()
}

// reset forgets the requests counted so far.
func (c *counting) reset() {
	c.mu.Lock()
	c.sent = nil
	c.mu.Unlock()
}

// count is how many requests had method and a path ending in suffix.
func (c *counting) count(method, suffix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.sent {
		if strings.HasPrefix(s, method+" ") && strings.HasSuffix(s, suffix) {
			n++
		}
	}
	return n
}

// env is the real clock and randomness with sleeps recorded, not slept.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) env() table.Env {
	return table.Env{Now: time.Now, Rand: rand.Reader, Sleep: func(ctx context.Context, d time.Duration) error {
		s.mu.Lock()
		s.d = append(s.d, d)
		s.mu.Unlock()
		return ctx.Err()
	}}
}

func (s *sleeps) total() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum time.Duration
	for _, d := range s.d {
		sum += d
	}
	return sum
}

// client is a catalog client of srv through a counting transport.
func client(t *testing.T, srv *interoptest.RESTCatalog, cfg restcatalog.Config, sl *sleeps) (*restcatalog.Client, *counting) {
	t.Helper()
	tr := &counting{next: nethttp.New(30 * time.Second)}
	cfg.URI, cfg.Transport = srv.URI, tr
	if cfg.Token == "" && cfg.Credential == "" && srv.Options.Token != "" {
		cfg.Token = srv.Options.Token
	}
	e := sl.env()
	cfg.Now, cfg.Sleep = e.Now, e.Sleep
	c, err := restcatalog.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, tr
}

// storeFor follows the table's location, with the stores counted.
func storeFor(puts *atomic.Int64, getenv func(string) string) table.StoreFor {
	return func(loc string, vended map[string]string) (store.Store, error) {
		st, err := locstore.Open(loc, vended, getenv)
		if err != nil {
			return nil, err
		}
		return &countingStore{Store: st, puts: puts}, nil
	}
}

type countingStore struct {
	store.Store
	puts *atomic.Int64
}

func (s *countingStore) Put(ctx context.Context, key string, data []byte) error {
	if s.puts != nil && strings.HasPrefix(key, "data/") {
		s.puts.Add(1)
	}
	return s.Store.Put(ctx, key, data)
}

var ids atomic.Int64

// ident is a fresh table name in a fresh namespace.
func ident(t *testing.T) restcatalog.Ident {
	n := ids.Add(1)
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name()))
	return restcatalog.MustIdent(fmt.Sprintf("ns%d.%s", n, name))
}

func metrics(t testing.TB) *schema.Table {
	t.Helper()
	s, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}, {Name: "mem", Type: schema.Long}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var day = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// batch is n rows from start, one a minute, host h<i%hosts>, cpu = base+i.
func batch(t testing.TB, s *schema.Table, start time.Time, n, hosts int, base float64) *rows.Batch {
	t.Helper()
	return hostBatch(t, s, "h", start, n, hosts, base)
}

// hostBatch is batch with hosts named prefix<i%hosts>.
func hostBatch(t testing.TB, s *schema.Table, prefix string, start time.Time, n, hosts int, base float64) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, n)
	for i := range ms {
		ms[i] = map[string]any{"ts": start.Add(time.Duration(i) * time.Minute), "host": fmt.Sprintf("%s%02d", prefix, i%hosts), "cpu": base + float64(i), "mem": int64(i)}
	}
	b, err := rows.FromMaps(s, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// metadataFiles counts *.metadata.json under a file warehouse table.
func metadataFiles(t *testing.T, loc string) int {
	t.Helper()
	dir := strings.TrimPrefix(strings.TrimPrefix(loc, "file://"), "file:")
	m, err := filepath.Glob(filepath.Join(dir, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

func code(err error) string { return table.Code(err) }

var errForced = errors.New("forced: connection reset")
