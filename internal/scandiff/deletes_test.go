package scandiff

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
)

// addPositionDeletes commits, the way Spark's merge-on-read DELETE does, one
// snapshot with a delete manifest: a position delete file (file_path, pos)
// per chosen data file of the current snapshot, deleting about one row in
// perRows of it (a deleted winner lets an older duplicate of its key through,
// as in every reader that applies the deletes before the dedup). It returns
// the number of positions deleted. The commit is ported from the table
// package's foreignWriter (table/foreignwriter_test.go), on exported APIs.
func addPositionDeletes(t *testing.T, r *rand.Rand, dir string, files, perRows int) int {
	t.Helper()
	ctx := context.Background()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := commit.Latest(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		t.Fatal(err)
	}
	key := func(path string) string { return strings.TrimPrefix(path, md.Location+"/") }
	parent := md.CurrentSnapshot()
	raw, err := st.Get(ctx, key(parent.ManifestList))
	if err != nil {
		t.Fatal(err)
	}
	ml, err := iceberg.ReadManifestList(raw, parent.ManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var data []iceberg.DataFile
	for _, mf := range ml.Files {
		if mf.Content != iceberg.ContentData {
			continue
		}
		b, err := st.Get(ctx, key(mf.ManifestPath))
		if err != nil {
			t.Fatal(err)
		}
		m, err := iceberg.ReadManifest(b, mf)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Entries {
			if e.Status != iceberg.StatusDeleted {
				data = append(data, e.DataFile)
			}
		}
	}
	// in an order independent of the files' random names as far as
	// possible, so that the seed decides the deletes
	slices.SortFunc(data, func(a, b iceberg.DataFile) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.RecordCount, b.RecordCount), strings.Compare(a.Path, b.Path))
	})
	r.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
	seq := md.LastSequenceNumber + 1
	snapID := int64(7_000_000_000_000_000 + seq) // above 10^12: --as-of reads it as an id
	var entries []iceberg.ManifestEntry
	total := 0
	for i, df := range data[:min(files, len(data))] {
		var pos []int64
		for p := range df.RecordCount {
			if r.IntN(perRows) == 0 {
				pos = append(pos, p)
			}
		}
		if len(pos) == 0 {
			pos = []int64{r.Int64N(df.RecordCount)}
		}
		paths := make([]string, len(pos))
		for j := range paths {
			paths[j] = df.Path
		}
		w, err := parquet.NewWriter([]parquet.ColumnSpec{
			{Name: "file_path", FieldID: 2147483546, Type: schema.String, Required: true},
			{Name: "pos", FieldID: 2147483545, Type: schema.Long, Required: true},
		}, parquet.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write([]rows.Column{{Strs: paths}, {Ints: pos}}, len(pos)); err != nil {
			t.Fatal(err)
		}
		b, _, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		k := key(df.Path[:strings.LastIndex(df.Path, "/")+1]) + fmt.Sprintf("posdel-%d-%03d.parquet", seq, i)
		if err := st.Put(ctx, k, b); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: iceberg.DataFile{
			Content: iceberg.ContentPositionDeletes, Path: md.Location + "/" + k, Format: iceberg.FormatParquet,
			Partition: df.Partition, RecordCount: int64(len(pos)), FileSize: int64(len(b))}})
		total += len(pos)
	}
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifest(&buf, *md.CurrentSchema(), *md.DefaultSpec(), entries, [16]byte{byte(seq), 0xde})
	if err != nil {
		t.Fatal(err)
	}
	mkey := fmt.Sprintf("metadata/posdel-%d-m0.avro", seq)
	if err := st.Put(ctx, mkey, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = md.Location + "/" + mkey
	mf.Assign(snapID, seq)
	list := append([]iceberg.ManifestFile{mf}, ml.Files...)
	var lbuf bytes.Buffer
	if err := iceberg.WriteManifestList(&lbuf, snapID, &parent.SnapshotID, seq, list, [16]byte{byte(seq), 0xdf}); err != nil {
		t.Fatal(err)
	}
	listKey := fmt.Sprintf("metadata/snap-%d-1-posdel.avro", snapID)
	if err := st.Put(ctx, listKey, lbuf.Bytes()); err != nil {
		t.Fatal(err)
	}
	n := func(k string) int64 { x, _ := strconv.ParseInt(parent.Summary[k], 10, 64); return x }
	f := func(x int64) string { return strconv.FormatInt(x, 10) }
	summary := map[string]string{
		"operation":              "delete",
		"spark.app.id":           "local-1",
		"added-delete-files":     f(int64(len(entries))),
		"added-position-deletes": f(int64(total)),
		"total-records":          f(n("total-records")),
		"total-data-files":       f(n("total-data-files")),
		"total-files-size":       f(n("total-files-size")),
		"total-delete-files":     f(n("total-delete-files") + int64(len(entries))),
		"total-position-deletes": f(n("total-position-deletes") + int64(total)),
		"total-equality-deletes": f(n("total-equality-deletes")),
	}
	next := *md
	next.Snapshots = append(slices.Clone(md.Snapshots), iceberg.Snapshot{
		SnapshotID: snapID, ParentSnapshotID: &parent.SnapshotID, SequenceNumber: seq,
		TimestampMs: md.LastUpdatedMs + 1, ManifestList: md.Location + "/" + listKey, Summary: summary,
		SchemaID: &md.CurrentSchemaID,
	})
	next.LastSequenceNumber = seq
	next.LastUpdatedMs = md.LastUpdatedMs + 1
	next.CurrentSnapshotID = &snapID
	next.Refs = map[string]iceberg.SnapshotRef{"main": {SnapshotID: snapID, Type: "branch"}}
	next.SnapshotLog = append(slices.Clone(md.SnapshotLog), iceberg.SnapshotLogEntry{TimestampMs: next.LastUpdatedMs, SnapshotID: snapID})
	next.MetadataLog = append(slices.Clone(md.MetadataLog), iceberg.MetadataLogEntry{TimestampMs: md.LastUpdatedMs, MetadataFile: md.Location + "/" + commit.MetadataKey(v.N)})
	rawMD, err := next.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(v.N+1), rawMD); err != nil || !ok {
		t.Fatalf("position deletes commit v%d: %v, %v", v.N+1, ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(v.N+1))); err != nil {
		t.Fatal(err)
	}
	return total
}
