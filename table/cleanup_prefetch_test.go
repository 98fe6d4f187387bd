package table_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// slowStore answers every read after a delay, as object storage does, and
// records how many reads were in flight at most.
type slowStore struct {
	store.Store
	delay    time.Duration
	mu       sync.Mutex
	in, most int
	gets     int
}

func (s *slowStore) wait() func() {
	s.mu.Lock()
	s.in++
	s.gets++
	s.most = max(s.most, s.in)
	s.mu.Unlock()
	time.Sleep(s.delay)
	return func() { s.mu.Lock(); s.in--; s.mu.Unlock() }
}

func (s *slowStore) Get(ctx context.Context, key string) ([]byte, error) {
	defer s.wait()()
	return s.Store.Get(ctx, key)
}

func (s *slowStore) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	defer s.wait()()
	return store.GetLimited(ctx, s.Store, key, limit)
}

// TestCleanupReadsAhead: expiry and cleanup of 60 snapshots read their
// manifest lists and manifests several at a time (the reads of one
// snapshot after another were most of an expiry's time on object storage
// and through the WebAssembly bridge), with the same outcome as one at a
// time.
func TestCleanupReadsAhead(t *testing.T) {
	ctx := context.Background()
	var results []string
	for _, fetches := range []int{1, 16} {
		restore := table.SetCleanupFetches(fetches)
		mem := memstore.New(memstore.WithClock(oldClock()))
		tb := createWith(t, mem, 1, map[string]string{
			table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0s",
		})
		for i := range 60 {
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(i)*10*time.Minute), 10, 10)); err != nil {
				t.Fatal(err)
			}
		}
		slow := &slowStore{Store: mem, delay: 2 * time.Millisecond}
		env := testenv.New(2)
		later := testenv.Start.Add(24 * time.Hour)
		env.Now = func() time.Time { return later }
		re, err := table.Open(ctx, slow, env)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := re.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
		restore()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d reads in flight at most: %d gets in %v (2 ms each)", slow.most, slow.gets, time.Since(start).Round(time.Millisecond))
		if fetches > 1 && slow.most < 4 {
			t.Errorf("at most %d reads in flight, want several", slow.most)
		}
		results = append(results, fmtMaintain(res))
	}
	if results[0] != results[1] {
		t.Errorf("one read at a time: %s; several: %s", results[0], results[1])
	}
}

func fmtMaintain(r *table.MaintainResult) string {
	return fmt.Sprintf("expired %d, deleted %d files (%d bytes), kept young %d", r.SnapshotsExpired, r.FilesDeleted, r.BytesDeleted, r.KeptYoung)
}
