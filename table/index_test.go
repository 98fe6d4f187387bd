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
	// And partition statistics for that snapshot and the current one.
	partStats := func(id int64, name string) string {
		return `{"snapshot-id":` + itoa(id) + `,"statistics-path":"` + loc + `/metadata/` + name + `","file-size-in-bytes":3}`
	}
	raw = bytes.Replace(raw, []byte(`"statistics":[`), []byte(`"partition-statistics":[`+partStats(snaps[1], "ps-old.parquet")+`,`+partStats(snaps[2], "ps-cur.parquet")+`],"statistics":[`), 1)
	for _, k := range []string{"metadata/ps-old.parquet", "metadata/ps-cur.parquet"} {
		if err := st.Put(ctx, k, []byte("PAR1")); err != nil {
			t.Fatal(err)
		}
	}
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
		if (isIndex && k != tb.IndexKey(res.SnapshotID)) || k == "metadata/theirs.stats" || k == "metadata/ps-old.parquet" {
			t.Errorf("%s survived the expiry of its snapshot", k)
		}
	}
	if ps, err := tb.Metadata().PartitionStatistics(); err != nil || len(ps) != 0 {
		t.Errorf("partition statistics after expiry: %+v, %v; want none (both snapshots expired)", ps, err)
	}
	// A retained snapshot's partition statistics file is reachable: orphan
	// cleanup keeps it.
	if err := st.Put(ctx, "metadata/ps-cur.parquet", []byte("PAR1")); err != nil {
		t.Fatal(err)
	}
	v := tb.Version()
	raw, _ = st.Get(ctx, "metadata/v"+itoa(int64(v))+".metadata.json")
	raw = bytes.Replace(raw, []byte(`"statistics":[`), []byte(`"partition-statistics":[`+partStats(res.SnapshotID, "ps-cur.parquet")+`],"statistics":[`), 1)
	if err := st.Put(ctx, "metadata/v"+itoa(int64(v+1))+".metadata.json", raw); err != nil {
		t.Fatal(err)
	}
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "metadata/ps-cur.parquet"); err != nil {
		t.Errorf("the current snapshot's partition statistics file: %v", err)
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

// TestOldParquetIndex: a table written before the Puffin index (the summary
// key names a bare Parquet file, no statistics) keeps working: Latest reads
// it, a compaction carries it, the next append writes a Puffin index.
func TestOldParquetIndex(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(5)
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(i)*time.Hour), 10, 3)); err != nil {
			t.Fatal(err)
		}
	}
	want := latest(t, tb)
	// Turn v3 into what an older version wrote: the index as bare Parquet
	// under its old name, named by the summary key only.
	id := *tb.Metadata().CurrentSnapshotID
	data, err := st.Get(ctx, tb.IndexKey(id))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := puffin.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	pq, _ := pf.BlobData(data, 0)
	oldKey := "metadata/lastvalue-" + itoa(id) + "-old.parquet"
	if err := st.Put(ctx, oldKey, pq); err != nil {
		t.Fatal(err)
	}
	raw, _ := st.Get(ctx, "metadata/v3.metadata.json")
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 64-bit ids
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "statistics")
	for _, s := range doc["snapshots"].([]any) {
		sm := s.(map[string]any)
		if sm["snapshot-id"].(json.Number).String() == itoa(id) {
			sm["summary"].(map[string]any)["timelake.last-value-index"] = loc + "/" + oldKey
		}
	}
	raw, _ = json.Marshal(doc)
	if err := st.Put(ctx, "metadata/v4.metadata.json", raw); err != nil {
		t.Fatal(err)
	}
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	if got := tb.IndexKey(id); got != oldKey {
		t.Fatalf("index key %q, want %q", got, oldKey)
	}
	if got := latest(t, tb); got != want {
		t.Fatalf("old index: %q, want %q", got, want)
	}
	objs := listKeys(t, st)
	if got := latest(t, tb); got != want || listKeys(t, st) != objs {
		t.Fatalf("Latest again: %q (store changed: %v)", got, listKeys(t, st) != objs)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	cur := *tb.Metadata().CurrentSnapshotID
	if cur == id || tb.IndexKey(cur) != oldKey || tb.Metadata().StatisticsFor(cur) != nil {
		t.Fatalf("compaction: snapshot %d names %q (statistics %v), want the old index carried", cur, tb.IndexKey(cur), tb.Metadata().StatisticsFor(cur))
	}
	res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(5*time.Hour), 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if k := tb.IndexKey(res.SnapshotID); !strings.HasSuffix(k, ".puffin") || tb.Metadata().StatisticsFor(res.SnapshotID) == nil {
		t.Fatalf("the next append's index %q is not a listed Puffin file", k)
	}
	if got := latest(t, tb); !strings.Contains(got, "h000@300=0") {
		t.Fatalf("after the append: %q (before %q)", got, want)
	}
}
