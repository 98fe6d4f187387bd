package table_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/table"
)

// foreignWriter commits to a table the way another engine (Spark,
// pyiceberg) does: its own manifests with explicit sequence numbers,
// EXISTING and DELETED entries, delete manifests, a manifest of another
// partition spec, and summaries without Timelake's keys.
type foreignWriter struct {
	t   *testing.T
	ctx context.Context
	st  store.Store
	tb  *table.Table // for its schema, location and writer settings
	n   int          // names files uniquely
	// unsorted writes data files in reverse key order without Parquet
	// sorting_columns, as an engine that does not sort (pyarrow, DuckDB).
	unsorted bool
}

// foreignCommit is what one foreign snapshot changes.
type foreignCommit struct {
	op string
	// manifests are new manifests: their entries (ADDED entries inherit;
	// EXISTING and DELETED ones carry their own values) and spec.
	manifests []foreignManifest
	// replace drops these manifest paths from the parent's list (a
	// manifest the commit rewrote).
	replace map[string]bool
	addSpec *iceberg.PartitionSpec // added to partition-specs (not the default)
	// summary deltas: data and delete files/records/bytes
	addedFiles, addedRecords, addedBytes       int64
	removedFiles, removedRecords, removedBytes int64
	addedDeletes, addedPositionDeletes         int64
}

type foreignManifest struct {
	spec    iceberg.PartitionSpec
	entries []iceberg.ManifestEntry
}

func (fw *foreignWriter) name(prefix string) string {
	fw.n++
	return fmt.Sprintf("%sforeign-%04d", prefix, fw.n)
}

// latest is the newest metadata version and its parsed metadata.
func (fw *foreignWriter) latest() (commit.Version, *iceberg.Metadata) {
	v, err := commit.Latest(fw.ctx, fw.st)
	if err != nil {
		fw.t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		fw.t.Fatal(err)
	}
	return v, md
}

func (fw *foreignWriter) key(path string) string {
	return strings.TrimPrefix(path, fw.tb.Metadata().Location+"/")
}

// list reads the manifest list of the current snapshot.
func (fw *foreignWriter) list(md *iceberg.Metadata) []iceberg.ManifestFile {
	s := md.CurrentSnapshot()
	raw, err := fw.st.Get(fw.ctx, fw.key(s.ManifestList))
	if err != nil {
		fw.t.Fatal(err)
	}
	ml, err := iceberg.ReadManifestList(raw, s.ManifestList)
	if err != nil {
		fw.t.Fatal(err)
	}
	return ml.Files
}

func (fw *foreignWriter) manifest(mf iceberg.ManifestFile) *iceberg.Manifest {
	raw, err := fw.st.Get(fw.ctx, fw.key(mf.ManifestPath))
	if err != nil {
		fw.t.Fatal(err)
	}
	m, err := iceberg.ReadManifest(raw, mf)
	if err != nil {
		fw.t.Fatal(err)
	}
	return m
}

// commit writes the snapshot of c on top of the newest version and
// returns its sequence number.
func (fw *foreignWriter) commit(c foreignCommit) int64 {
	t := fw.t
	v, md := fw.latest()
	parent := md.CurrentSnapshot()
	seq := md.LastSequenceNumber + 1
	snapID := int64(7_000_000_000 + fw.n*1000 + int(seq))
	sch := *md.CurrentSchema()
	var list []iceberg.ManifestFile
	for _, m := range c.manifests {
		var buf bytes.Buffer
		mf, err := iceberg.WriteManifestVersion(&buf, max(md.FormatVersion, 2), sch, m.spec, m.entries, [16]byte{byte(fw.n)})
		if err != nil {
			t.Fatal(err)
		}
		key := fw.name("metadata/") + "-m0.avro"
		if err := fw.st.Put(fw.ctx, key, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		mf.ManifestPath = md.Location + "/" + key
		mf.Assign(snapID, seq)
		list = append(list, mf)
	}
	for _, mf := range fw.list(md) {
		if !c.replace[mf.ManifestPath] {
			list = append(list, mf)
		}
	}
	nextRowID := md.NextRowID()
	if md.FormatVersion >= 3 { // as Java's v3 list writer: ids for data manifests without
		nextRowID = iceberg.AssignRowIDs(list, nextRowID)
	}
	var lbuf bytes.Buffer
	if err := iceberg.WriteManifestListVersion(&lbuf, max(md.FormatVersion, 2), snapID, &parent.SnapshotID, seq, list, [16]byte{1}); err != nil {
		t.Fatal(err)
	}
	listKey := fmt.Sprintf("metadata/snap-%d-1-%s.avro", snapID, fw.name(""))
	if err := fw.st.Put(fw.ctx, listKey, lbuf.Bytes()); err != nil {
		t.Fatal(err)
	}
	n := func(k string) int64 { x, _ := strconv.ParseInt(parent.Summary[k], 10, 64); return x }
	f := func(x int64) string { return strconv.FormatInt(x, 10) }
	summary := map[string]string{
		"operation":              c.op,
		"spark.app.id":           "local-1",
		"added-data-files":       f(c.addedFiles),
		"added-records":          f(c.addedRecords),
		"total-records":          f(n("total-records") + c.addedRecords - c.removedRecords),
		"total-data-files":       f(n("total-data-files") + c.addedFiles - c.removedFiles),
		"total-files-size":       f(n("total-files-size") + c.addedBytes - c.removedBytes),
		"total-delete-files":     f(n("total-delete-files") + c.addedDeletes),
		"total-position-deletes": f(n("total-position-deletes") + c.addedPositionDeletes),
		"total-equality-deletes": f(n("total-equality-deletes")),
	}
	next := *md
	next.Snapshots = append(slices.Clone(md.Snapshots), iceberg.Snapshot{
		SnapshotID: snapID, ParentSnapshotID: &parent.SnapshotID, SequenceNumber: seq,
		TimestampMs: md.LastUpdatedMs + 1, ManifestList: md.Location + "/" + listKey, Summary: summary,
		SchemaID: &md.CurrentSchemaID,
	})
	next.LastSequenceNumber = seq
	if md.FormatVersion >= 3 {
		next.SetNextRowID(nextRowID)
	}
	next.LastUpdatedMs = md.LastUpdatedMs + 1
	next.CurrentSnapshotID = &snapID
	next.Refs = map[string]iceberg.SnapshotRef{"main": {SnapshotID: snapID, Type: "branch"}}
	next.SnapshotLog = append(slices.Clone(md.SnapshotLog), iceberg.SnapshotLogEntry{TimestampMs: next.LastUpdatedMs, SnapshotID: snapID})
	next.MetadataLog = append(slices.Clone(md.MetadataLog), iceberg.MetadataLogEntry{TimestampMs: md.LastUpdatedMs, MetadataFile: md.Location + "/" + commit.MetadataKey(v.N)})
	if c.addSpec != nil {
		next.PartitionSpecs = append(slices.Clone(md.PartitionSpecs), *c.addSpec)
	}
	raw, err := next.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := fw.st.PutIfAbsent(fw.ctx, commit.MetadataKey(v.N+1), raw); err != nil || !ok {
		t.Fatalf("foreign commit v%d: %v, %v", v.N+1, ok, err)
	}
	if err := fw.st.Put(fw.ctx, "metadata/version-hint.text", []byte(strconv.Itoa(v.N+1))); err != nil {
		t.Fatal(err)
	}
	return seq
}

// dataFile writes rs (sorted here, as the table's files are) as a Parquet
// data file of partition day; without ingest every _ingest_ts is null, as
// in a Spark INSERT of only the user's columns.
func (fw *foreignWriter) dataFile(day int32, rs []modelRow, ingest int64, withIngest bool) iceberg.DataFile {
	t := fw.t
	sch := fw.tb.Schema()
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b modelRow) int {
		return cmp.Or(strings.Compare(a.host, b.host), cmp.Compare(a.shard, b.shard), cmp.Compare(a.ts, b.ts))
	})
	if fw.unsorted {
		slices.Reverse(rs)
	}
	b := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields)), Len: len(rs)}
	col := func(name string) *rows.Column { return &b.Cols[sch.Index(name)] }
	for _, r := range rs {
		col("ts").Ints = append(col("ts").Ints, r.ts)
		col("host").Strs = append(col("host").Strs, r.host)
		col("shard").Ints = append(col("shard").Ints, r.shard)
		cpu := col("cpu")
		cpu.Nulls = append(cpu.Nulls, r.cpu == nil)
		if r.cpu != nil {
			cpu.Floats = append(cpu.Floats, *r.cpu)
		} else {
			cpu.Floats = append(cpu.Floats, 0)
		}
		col("mem").Ints = append(col("mem").Ints, r.mem)
		col("note").Strs = append(col("note").Strs, "foreign")
		if sch.Ingest >= 0 { // a table created without _ingest_ts has none to write
			in := col(schema.IngestColumn)
			in.Ints = append(in.Ints, ingest)
			in.Nulls = append(in.Nulls, !withIngest)
		}
	}
	specs, opts := table.WriterSettings(fw.tb)
	opts.CreatedBy = "parquet-mr version 1.13.1"
	if fw.unsorted {
		opts.Sorting = nil
	}
	w, err := parquet.NewWriter(specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(b.Cols, b.Len); err != nil {
		t.Fatal(err)
	}
	data, stats, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	key := fw.name("data/"+sch.PartitionName()+"="+sch.Partition.Format(day)+"/") + ".parquet"
	if err := fw.st.Put(fw.ctx, key, data); err != nil {
		t.Fatal(err)
	}
	return table.ForeignDataFile(fw.tb, key, day, int64(len(data)), stats)
}

// positionDeletes writes a position delete file (file_path, pos) of
// partition day: Spark's merge-on-read DELETE.
func (fw *foreignWriter) positionDeletes(day int32, path string, positions []int64) iceberg.DataFile {
	t := fw.t
	specs := []parquet.ColumnSpec{
		{Name: "file_path", FieldID: 2147483546, Type: schema.String, Required: true},
		{Name: "pos", FieldID: 2147483545, Type: schema.Long, Required: true},
	}
	_, opts := table.WriterSettings(fw.tb)
	opts.Sorting = nil
	w, err := parquet.NewWriter(specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(positions))
	for i := range paths {
		paths[i] = path
	}
	if err := w.Write([]rows.Column{{Strs: paths}, {Ints: positions}}, len(positions)); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	key := fw.name("data/"+fw.tb.Schema().PartitionName()+"="+fw.tb.Schema().Partition.Format(day)+"/") + "-deletes.parquet"
	if err := fw.st.Put(fw.ctx, key, data); err != nil {
		t.Fatal(err)
	}
	return iceberg.DataFile{Content: iceberg.ContentPositionDeletes, Path: fw.tb.Metadata().Location + "/" + key,
		Format: iceberg.FormatParquet, Partition: day, RecordCount: int64(len(positions)), FileSize: int64(len(data))}
}
