package table_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestCleanupCorruptManifest: cleanup reads manifests for their entries'
// paths only, skipping the stats maps' bytes; a manifest cut short is
// still a CORRUPT_TABLE error naming it, and nothing is deleted.
func TestCleanupCorruptManifest(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New(memstore.WithClock(oldClock()))
	tb := createWith(t, mem, 1, map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0s",
	})
	for i := range 5 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(i)*10*time.Minute), 10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := mem.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	// Every manifest (not a manifest list, snap-*) loses its last 20
	// bytes: a cut inside its block of entries.
	var cut []string
	for _, o := range objs {
		name := o.Key[strings.LastIndex(o.Key, "/")+1:]
		if !strings.HasSuffix(name, ".avro") || strings.HasPrefix(name, "snap-") {
			continue
		}
		data, err := mem.Get(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		if err := mem.Put(ctx, o.Key, data[:len(data)-20]); err != nil {
			t.Fatal(err)
		}
		cut = append(cut, o.Key)
	}
	if len(cut) == 0 {
		t.Fatal("no manifests found")
	}
	env := testenv.New(2)
	later := testenv.Start.Add(24 * time.Hour)
	env.Now = func() time.Time { return later }
	re, err := table.Open(ctx, mem, env)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := mem.List(ctx, "")
	_, err = re.Maintain(ctx, table.MaintainOptions{Orphans: true})
	if err == nil || table.Code(err) != "CORRUPT_TABLE" {
		t.Fatalf("Maintain: %v (%s); want a CORRUPT_TABLE error", err, table.Code(err))
	}
	t.Log(err)
	named := false
	for _, k := range cut {
		named = named || strings.Contains(err.Error(), k[strings.LastIndex(k, "/")+1:])
	}
	if !named {
		t.Errorf("error %q names none of the cut manifests %v", err, cut)
	}
	after, _ := mem.List(ctx, "")
	if len(after) != len(before) {
		t.Errorf("%d objects before, %d after: cleanup deleted files", len(before), len(after))
	}
}
