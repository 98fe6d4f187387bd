package table_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/puffin"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestIndexStatistics: each append's index is a Puffin file listed in the
// statistics for its snapshot; expiry drops the entries of expired
// snapshots and cleanup deletes their files, keeping the retained ones'
// and another engine's entry as it was written.
func TestIndexStatistics(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(memstore.WithClock(oldClock()))
	env := testenv.New(3)
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{
		table.PropMaxSnapshotAgeMs: "0", maintenance.PropOrphanGrace: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	var snaps []int64
	for i := range 3 {
		res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(i)*time.Hour), 10, 2))
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, res.SnapshotID)
	}
	md := tb.Metadata()
	if got, want := len(md.Statistics), 3; got != want {
		t.Fatalf("%d statistics entries, want %d", got, want)
	}
	for _, id := range snaps {
		s := md.StatisticsFor(id)
		if s == nil {
			t.Fatalf("snapshot %d has no statistics entry", id)
		}
		key := tb.IndexKey(id)
		data, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := puffin.Read(data)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		got := []any{s.FileSizeInBytes, s.FileFooterSizeInBytes, pf.Find(table.IndexBlobType), pf.Blobs[0].SnapshotID, md.SnapshotByID(id).Summary["timelake.last-value-index"]}
		want := []any{int64(len(data)), pf.FooterSize, 0, id, s.StatisticsPath}
		if !jsonEqual(got, want) {
			t.Fatalf("snapshot %d: got %v, want %v", id, got, want)
		}
	}

	// Another engine adds a statistics file for the current snapshot's
	// parent (say, NDV sketches); it must pass through our commits as is.
	raw, _ := st.Get(ctx, "metadata/v4.metadata.json")
	foreign := `{"snapshot-id":` + itoa(snaps[1]) + `,"statistics-path":"` + loc + `/metadata/theirs.stats","file-size-in-bytes":9,"file-footer-size-in-bytes":5,"blob-metadata":[{"type":"apache-datasketches-theta-v1","snapshot-id":` + itoa(snaps[1]) + `,"sequence-number":2,"fields":[2]}]}`
	raw = bytes.Replace(raw, []byte(`"statistics":[`), []byte(`"statistics":[`+foreign+`,`), 1)
	if err := st.Put(ctx, "metadata/v5.metadata.json", raw); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "metadata/theirs.stats", []byte("PFA1...")); err != nil {
		t.Fatal(err)
	}
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(5*time.Hour), 10, 2))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = st.Get(ctx, "metadata/v6.metadata.json")
	if !bytes.Contains(raw, []byte(foreign)) {
		t.Fatalf("the other engine's statistics entry changed:\n%s", raw)
	}

	mr, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	md = tb.Metadata()
	var ids []int64
	for _, s := range md.Statistics {
		ids = append(ids, s.SnapshotID)
	}
	if !jsonEqual(ids, []int64{res.SnapshotID}) || mr.SnapshotsExpired != 3 {
		t.Fatalf("after expiry: statistics of %v (%d expired), want only %d", ids, mr.SnapshotsExpired, res.SnapshotID)
	}
	for _, k := range keysOf(t, st, "metadata/") {
		isIndex := strings.Contains(k, "lastvalue-")
		if (isIndex && k != tb.IndexKey(res.SnapshotID)) || k == "metadata/theirs.stats" {
			t.Errorf("%s survived the expiry of its snapshot", k)
		}
	}
	if _, err := st.Get(ctx, tb.IndexKey(res.SnapshotID)); err != nil {
		t.Fatalf("the current index: %v", err)
	}
	if s := latest(t, tb); s == "" {
		t.Fatal("empty latest")
	}
}

// TestHeadRewritten: a missing head.json fails nothing and is written again
// by the next commit.
func TestHeadRewritten(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 10, 2)); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, []string{table.HeadKey}); err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Latest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Hour), 10, 2)); err != nil {
		t.Fatal(err)
	}
	b, err := st.Get(ctx, table.HeadKey)
	if err != nil {
		t.Fatal(err)
	}
	h, err := table.ParseHead(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := []any{h.MetadataVersion, h.LastValueIndex}, []any{tb.Version(), tb.IndexKey(*tb.Metadata().CurrentSnapshotID)}; !jsonEqual(got, want) {
		t.Fatalf("head %v, want %v", got, want)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }
