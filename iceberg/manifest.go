package iceberg

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/schema"
)

// EntryStatus says what a manifest entry does to its file. persisted: must not change.
type EntryStatus int32

const (
	StatusExisting EntryStatus = 0
	StatusAdded    EntryStatus = 1
	StatusDeleted  EntryStatus = 2
)

func (s EntryStatus) String() string {
	switch s {
	case StatusExisting:
		return "EXISTING"
	case StatusAdded:
		return "ADDED"
	case StatusDeleted:
		return "DELETED"
	}
	return "EntryStatus(" + strconv.Itoa(int(s)) + ")"
}

// Content values of data files and manifests. persisted: must not change.
const (
	ContentData = 0 // data files (data_file.content, manifest_file.content)
	// ContentPositionDeletes is data_file.content of a position delete file
	// (rows file_path string, pos long); as manifest_file.content, 1 is a
	// delete manifest, which lists position and equality delete files.
	ContentPositionDeletes = 1
	ContentEqualityDeletes = 2 // data_file.content of an equality delete file
)

// IsDelete reports whether f is a delete file (position or equality).
func (f *DataFile) IsDelete() bool { return f.Content != ContentData }

// FormatParquet is the file_format of Parquet data files. persisted: must not change.
const FormatParquet = "PARQUET"

// DataFile describes one data file (data_file in the spec). Maps are keyed
// by column field id; bounds are in the single-value serialization
// (EncodeValue). Nil maps and slices are written as null.
type DataFile struct {
	Content      int32  // ContentData
	Path         string // full location, e.g. s3://bucket/table/data/ts_day=2026-11-29/….parquet
	Format       string // FormatParquet
	Partition    int32  // the value of the single partition field (days/hours/months since epoch)
	RecordCount  int64
	FileSize     int64
	ColumnSizes  map[int32]int64
	ValueCounts  map[int32]int64
	NullCounts   map[int32]int64
	NaNCounts    map[int32]int64
	Lower        map[int32][]byte
	Upper        map[int32][]byte
	KeyMetadata  []byte
	SplitOffsets []int64
	EqualityIDs  []int32
	SortOrderID  *int32
	// OtherPartition says the partition record is not the single int
	// field Timelake writes (a partition spec of another engine's): such
	// an entry is read for its counts and paths, Partition is 0, and it
	// cannot be written back (WriteManifest refuses it); its manifest is
	// carried through commits unchanged.
	OtherPartition bool
	// PartitionValues are the partition record's values, by field, of an
	// OtherPartition entry (nil otherwise): int64 (int, long, date, time,
	// timestamp), float64, bool, string, []byte (bytes, fixed, decimal,
	// uuid), nil for null.
	PartitionValues []any
	// SpecID is the partition spec id of the manifest that lists the entry
	// (its manifest list entry's), set by the readers; not written.
	SpecID int32

	// Format v3 (row lineage and deletion vectors; nil or "" before it).
	// FirstRowID is the _row_id of the file's first row: written for
	// EXISTING and DELETED entries, null for ADDED ones, which inherit it
	// from the manifest's first_row_id (the readers fill it in then, for
	// data files of a manifest that has one).
	FirstRowID *int64
	// ReferencedDataFile is the data file a deletion vector (or a position
	// delete file that names one file only) applies to.
	ReferencedDataFile string
	// ContentOffset and ContentSizeInBytes locate a deletion vector's blob
	// inside its Puffin file.
	ContentOffset      *int64
	ContentSizeInBytes *int64
}

// ManifestEntry is one entry of a manifest. For StatusAdded entries the
// writer leaves SnapshotID and the sequence numbers null so that they are
// inherited from the manifest list entry: that is what lets a rebased
// commit reuse the manifest unchanged. EXISTING and DELETED entries are
// written with their values (a DELETED entry's SnapshotID is the deleting
// snapshot, which keeps its id across a rebase).
type ManifestEntry struct {
	Status             EntryStatus
	SnapshotID         int64
	SequenceNumber     int64 // data sequence number
	FileSequenceNumber int64
	DataFile           DataFile
}

// Manifest header keys. persisted: must not change.
const (
	metaSchema          = "schema"
	metaSchemaID        = "schema-id"
	metaPartitionSpec   = "partition-spec"
	metaPartitionSpecID = "partition-spec-id"
	metaFormatVersion   = "format-version"
	metaContent         = "content"
)

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteManifest writes a v2 manifest of entries to w — a data manifest, or
// a delete manifest when the entries are delete files (all of one kind), for the table
// schema s and partition spec. sync is the Avro sync marker (e.g. taken from
// the manifest's UUID). It returns the manifest_file entry describing it,
// without the path and the snapshot fields: set ManifestPath, then call
// Assign with the snapshot id and sequence number once they are known.
func WriteManifest(w io.Writer, s Schema, spec PartitionSpec, entries []ManifestEntry, sync [avro.SyncSize]byte) (ManifestFile, error) {
	return WriteManifestVersion(w, FormatVersion, s, spec, entries, sync)
}

// WriteManifestVersion is WriteManifest for a table of format version 2
// or 3. A v3 manifest's data_file has the row lineage and deletion vector
// fields: first_row_id is written for EXISTING and DELETED entries (so
// that a rewritten manifest keeps its rows' ids) and left null for ADDED
// ones, which inherit it from the manifest list.
func WriteManifestVersion(w io.Writer, version int, s Schema, spec PartitionSpec, entries []ManifestEntry, sync [avro.SyncSize]byte) (ManifestFile, error) {
	if version != 2 && version != 3 {
		return ManifestFile{}, fmt.Errorf("iceberg: manifest: format-version %d is not written", version)
	}
	v3 := version == 3
	schemaText, err := schemaJSON(&s)
	if err != nil {
		return ManifestFile{}, err
	}
	fields := spec.Fields
	if fields == nil {
		fields = []PartitionField{}
	}
	specJSON, err := partitionFieldsJSON(fields)
	if err != nil {
		return ManifestFile{}, err
	}
	// The entry schema follows from the spec's fields alone (names, ids,
	// transforms): built and encoded once per spec text.
	// The entry schema follows from the spec's fields and their sources'
	// types: built and encoded once per (spec, types) text.
	key := append([]byte(nil), specJSON...)
	if v3 {
		key = append(key, " v3"...)
	}
	types := make([]*avro.Schema, len(spec.Fields))
	for i, pf := range spec.Fields {
		if types[i], err = partitionAvroFieldType(pf, &s); err != nil {
			return ManifestFile{}, fmt.Errorf("iceberg: manifest: %w", err)
		}
		key = types[i].AppendJSON(key)
	}
	sch, err := entrySchemas.Get(key, func([]byte) (writerSchema, error) {
		es, err := manifestEntrySchema(spec, &s, v3)
		if err != nil {
			return writerSchema{}, err
		}
		return writerSchema{es, es.AppendJSON(nil)}, nil
	})
	if err != nil {
		return ManifestFile{}, err
	}
	content, contentName := int32(ContentData), "data"
	for i := range entries {
		if entries[i].DataFile.IsDelete() != entries[0].DataFile.IsDelete() {
			return ManifestFile{}, fmt.Errorf("iceberg: manifest: entry %d (%s) mixes data and delete files", i, entries[i].DataFile.Path)
		}
		if df := &entries[i].DataFile; df.OtherPartition && len(df.PartitionValues) != len(spec.Fields) {
			return ManifestFile{}, fmt.Errorf("iceberg: manifest: entry %d (%s) has a partition of another spec (%d values for %d fields)", i, df.Path, len(df.PartitionValues), len(spec.Fields))
		}
	}
	if len(entries) > 0 && entries[0].DataFile.IsDelete() {
		content, contentName = ContentPositionDeletes, "deletes"
	}
	cw := &countingWriter{w: w}
	aw, err := avro.NewWriter(cw, sch.schema, avro.WriterOptions{
		Codec:        manifestCodec,
		DeflateLevel: manifestDeflateLevel,
		Sync:         sync,
		SchemaJSON:   sch.json,
		Meta: map[string][]byte{
			metaSchema:          schemaText,
			metaSchemaID:        []byte(strconv.Itoa(s.SchemaID)),
			metaPartitionSpec:   specJSON,
			metaPartitionSpecID: []byte(strconv.Itoa(spec.SpecID)),
			metaFormatVersion:   []byte(strconv.Itoa(version)),
			metaContent:         []byte(contentName),
		},
	})
	if err != nil {
		return ManifestFile{}, err
	}
	mf := ManifestFile{PartitionSpecID: int32(spec.SpecID), Content: content}
	// One int field (a time transform, Timelake's own spec) is written
	// from DataFile.Partition; any other spec from PartitionValues.
	single := len(spec.Fields) == 1 && types[0].Type == avro.TypeInt
	sums := make([]valueSummary, len(spec.Fields))
	for i, pf := range spec.Fields {
		sums[i].t, _ = PartitionType(pf, &s)
		if pf.Transform == "day" {
			sums[i].t = schema.Int
		}
	}
	var sum partitionSummary
	var rec []byte
	var keys []int32
	for i := range entries {
		e := &entries[i]
		if err := checkEntry(e); err != nil {
			return ManifestFile{}, fmt.Errorf("iceberg: manifest entry %d (%s): %w", i, e.DataFile.Path, err)
		}
		if single && e.DataFile.PartitionValues == nil {
			rec = appendEntry(rec[:0], e, v3, func(b []byte) ([]byte, error) {
				return avro.AppendInt(avro.AppendUnion(b, 1), e.DataFile.Partition), nil
			}, &keys)
			sum.add(e.DataFile.Partition)
			sums[0].add(int64(e.DataFile.Partition))
		} else {
			vals := e.DataFile.PartitionTuple(len(spec.Fields))
			if len(vals) != len(spec.Fields) {
				return ManifestFile{}, fmt.Errorf("iceberg: manifest entry %d (%s): %d partition values for %d fields", i, e.DataFile.Path, len(vals), len(spec.Fields))
			}
			var perr error
			rec = appendEntry(rec[:0], e, v3, func(b []byte) ([]byte, error) {
				for k, v := range vals {
					var err error
					if b, err = appendPartitionValue(b, types[k], v); err != nil {
						perr = fmt.Errorf("partition field %s: %w", spec.Fields[k].Name, err)
						return nil, perr
					}
					sums[k].add(v)
				}
				return b, nil
			}, &keys)
			if rec == nil {
				return ManifestFile{}, fmt.Errorf("iceberg: manifest entry %d (%s): %w", i, e.DataFile.Path, perr)
			}
		}
		if err := aw.AppendEncoded(rec); err != nil {
			return ManifestFile{}, err
		}
		mf.count(e)
	}
	if err := aw.Close(); err != nil {
		return ManifestFile{}, err
	}
	mf.ManifestLength = cw.n
	switch {
	case single && len(entries) > 0 && entries[0].DataFile.PartitionValues == nil && !sums[0].null:
		mf.Partitions = []FieldSummary{sum.summary()}
	case len(spec.Fields) > 0:
		mf.Partitions = make([]FieldSummary, len(sums))
		for k := range sums {
			mf.Partitions[k] = sums[k].summary()
		}
	}
	return mf, nil
}

func checkEntry(e *ManifestEntry) error {
	switch {
	case e.DataFile.Content < ContentData || e.DataFile.Content > ContentEqualityDeletes:
		return fmt.Errorf("content %d is not data, position or equality deletes", e.DataFile.Content)
	case e.Status < StatusExisting || e.Status > StatusDeleted:
		return fmt.Errorf("status %d is not EXISTING, ADDED or DELETED", e.Status)
	case e.DataFile.Path == "":
		return fmt.Errorf("file path is empty")
	case e.DataFile.Format == "":
		return fmt.Errorf("file format is empty")
	case e.DataFile.RecordCount < 0 || e.DataFile.FileSize < 0:
		return fmt.Errorf("negative record count %d or file size %d", e.DataFile.RecordCount, e.DataFile.FileSize)
	}
	return nil
}

// appendEntry encodes e as a manifest_entry record; part encodes its
// partition record's fields (nil for an unpartitioned spec). A part that
// fails makes appendEntry return nil.
func appendEntry(b []byte, e *ManifestEntry, v3 bool, part func([]byte) ([]byte, error), keys *[]int32) []byte {
	b = avro.AppendInt(b, int32(e.Status))
	if e.Status == StatusAdded {
		b = avro.AppendUnion(b, 0) // snapshot_id: inherited
		b = avro.AppendUnion(b, 0) // sequence_number: inherited
		b = avro.AppendUnion(b, 0) // file_sequence_number: inherited
	} else {
		b = avro.AppendLong(avro.AppendUnion(b, 1), e.SnapshotID)
		b = avro.AppendLong(avro.AppendUnion(b, 1), e.SequenceNumber)
		b = avro.AppendLong(avro.AppendUnion(b, 1), e.FileSequenceNumber)
	}
	f := &e.DataFile
	b = avro.AppendInt(b, f.Content)
	b = avro.AppendString(b, f.Path)
	b = avro.AppendString(b, f.Format)
	if part != nil {
		var err error
		if b, err = part(b); err != nil {
			return nil
		}
	}
	b = avro.AppendLong(b, f.RecordCount)
	b = avro.AppendLong(b, f.FileSize)
	b = appendLongMap(b, f.ColumnSizes, keys)
	b = appendLongMap(b, f.ValueCounts, keys)
	b = appendLongMap(b, f.NullCounts, keys)
	b = appendLongMap(b, f.NaNCounts, keys)
	b = appendBytesMap(b, f.Lower, keys)
	b = appendBytesMap(b, f.Upper, keys)
	if f.KeyMetadata == nil {
		b = avro.AppendUnion(b, 0)
	} else {
		b = avro.AppendBytes(avro.AppendUnion(b, 1), f.KeyMetadata)
	}
	if f.SplitOffsets == nil {
		b = avro.AppendUnion(b, 0)
	} else {
		b = avro.AppendUnion(b, 1)
		if len(f.SplitOffsets) > 0 {
			b = avro.AppendLong(b, int64(len(f.SplitOffsets)))
			for _, o := range f.SplitOffsets {
				b = avro.AppendLong(b, o)
			}
		}
		b = avro.AppendLong(b, 0)
	}
	if f.EqualityIDs == nil {
		b = avro.AppendUnion(b, 0)
	} else {
		b = avro.AppendUnion(b, 1)
		if len(f.EqualityIDs) > 0 {
			b = avro.AppendLong(b, int64(len(f.EqualityIDs)))
			for _, id := range f.EqualityIDs {
				b = avro.AppendInt(b, id)
			}
		}
		b = avro.AppendLong(b, 0)
	}
	if f.SortOrderID == nil {
		b = avro.AppendUnion(b, 0)
	} else {
		b = avro.AppendInt(avro.AppendUnion(b, 1), *f.SortOrderID)
	}
	if v3 {
		first := f.FirstRowID
		if e.Status == StatusAdded {
			first = nil // inherited from the manifest list's first_row_id
		}
		b = appendOptLong(b, first)
		if f.ReferencedDataFile == "" {
			b = avro.AppendUnion(b, 0)
		} else {
			b = avro.AppendString(avro.AppendUnion(b, 1), f.ReferencedDataFile)
		}
		b = appendOptLong(b, f.ContentOffset)
		b = appendOptLong(b, f.ContentSizeInBytes)
	}
	return b
}

func appendOptLong(b []byte, v *int64) []byte {
	if v == nil {
		return avro.AppendUnion(b, 0)
	}
	return avro.AppendLong(avro.AppendUnion(b, 1), *v)
}

// sortedKeys returns m's keys in order, in the scratch slice keys.
func sortedKeys[V any](m map[int32]V, keys *[]int32) []int32 {
	*keys = (*keys)[:0]
	for k := range m {
		*keys = append(*keys, k)
	}
	slices.Sort(*keys)
	return *keys
}

// appendLongMap writes an optional map<int, long> as the union branch then
// one block of key/value records in key order (deterministic output).
func appendLongMap(b []byte, m map[int32]int64, keys *[]int32) []byte {
	if m == nil {
		return avro.AppendUnion(b, 0)
	}
	b = avro.AppendUnion(b, 1)
	if len(m) > 0 {
		b = avro.AppendLong(b, int64(len(m)))
		for _, k := range sortedKeys(m, keys) {
			b = avro.AppendLong(avro.AppendInt(b, k), m[k])
		}
	}
	return avro.AppendLong(b, 0)
}

func appendBytesMap(b []byte, m map[int32][]byte, keys *[]int32) []byte {
	if m == nil {
		return avro.AppendUnion(b, 0)
	}
	b = avro.AppendUnion(b, 1)
	if len(m) > 0 {
		b = avro.AppendLong(b, int64(len(m)))
		for _, k := range sortedKeys(m, keys) {
			b = avro.AppendBytes(avro.AppendInt(b, k), m[k])
		}
	}
	return avro.AppendLong(b, 0)
}
