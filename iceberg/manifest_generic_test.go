package iceberg

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/timelake/timelake/avro"
)

// The generic manifest reader that the typed one (manifest_decode.go)
// replaced: every record decoded by avro.Reader.Next into a map, then read
// by name, and the header's JSON parsed on every read. It is kept as the
// reference the typed decoder is compared with.

// readManifestGeneric is ReadManifest through generic values; with header
// false it is ManifestDataFiles (no schema or spec parsed).
func readManifestGeneric(data []byte, from ManifestFile, header bool) (*Manifest, error) {
	r, err := avro.NewReader(data)
	if err != nil {
		return nil, fmt.Errorf("iceberg: manifest %s: %w", from.ManifestPath, err)
	}
	fail := func(format string, args ...any) (*Manifest, error) {
		return nil, fmt.Errorf("iceberg: manifest %s: "+format, append([]any{from.ManifestPath}, args...)...)
	}
	m := &Manifest{Content: string(r.Meta[metaContent]), FormatVersion: 1}
	if v, ok := r.Meta[metaFormatVersion]; ok {
		if m.FormatVersion, err = strconv.Atoi(string(v)); err != nil {
			return fail("format-version %q is not a number", v)
		}
	}
	if m.FormatVersion != FormatVersion {
		return fail("format-version %d is not supported (want %d)", m.FormatVersion, FormatVersion)
	}
	if m.Content == "" {
		m.Content = "data"
	}
	if m.Content != "data" {
		return fail("content %q is not supported (want data)", m.Content)
	}
	if header {
		if raw, ok := r.Meta[metaSchema]; ok {
			if err := json.Unmarshal(raw, &m.Schema); err != nil {
				return fail("header schema: %v", err)
			}
		}
		if v, ok := r.Meta[metaSchemaID]; ok {
			if m.SchemaID, err = strconv.Atoi(string(v)); err != nil {
				return fail("schema-id %q is not a number", v)
			}
		}
		if raw, ok := r.Meta[metaPartitionSpec]; ok {
			if err := json.Unmarshal(raw, &m.Spec.Fields); err != nil {
				return fail("header partition-spec: %v", err)
			}
		}
		if v, ok := r.Meta[metaPartitionSpecID]; ok {
			if m.Spec.SpecID, err = strconv.Atoi(string(v)); err != nil {
				return fail("partition-spec-id %q is not a number", v)
			}
		}
	}
	for i := 0; ; i++ {
		v, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail("%v", err)
		}
		e, err := entryFromAvro(v, from, partitionFieldOrder(r.Schema))
		if err != nil {
			return fail("entry %d: %v", i, err)
		}
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

func entryFromAvro(v any, from ManifestFile, partOrder []string) (ManifestEntry, error) {
	var e ManifestEntry
	rec, ok := v.(map[string]any)
	if !ok {
		return e, fmt.Errorf("not a record")
	}
	g := getter{rec: rec}
	e.Status = EntryStatus(g.int32("status"))
	if g.err == nil && (e.Status < StatusExisting || e.Status > StatusDeleted) {
		return e, fmt.Errorf("status %d is not 0, 1 or 2", e.Status)
	}
	snap, hasSnap := g.optInt64("snapshot_id")
	seq, hasSeq := g.optInt64("sequence_number")
	fseq, hasFseq := g.optInt64("file_sequence_number")
	inherit := func(v int64, ok bool, inherited int64, name string) int64 {
		if ok {
			return v
		}
		if e.Status != StatusAdded && name != "snapshot_id" {
			g.fail("%s is null on a %v entry; only ADDED entries inherit it", name, e.Status)
		}
		return inherited
	}
	e.SnapshotID = inherit(snap, hasSnap, from.AddedSnapshotID, "snapshot_id")
	e.SequenceNumber = inherit(seq, hasSeq, from.SequenceNumber, "sequence_number")
	if _, present := rec["file_sequence_number"]; present {
		e.FileSequenceNumber = inherit(fseq, hasFseq, from.SequenceNumber, "file_sequence_number")
	} else {
		e.FileSequenceNumber = e.SequenceNumber // written before the field existed
	}
	df := g.record("data_file")
	if g.err != nil {
		return e, g.err
	}
	d := getter{rec: df, path: "data_file."}
	f := &e.DataFile
	if _, present := df["content"]; present {
		f.Content = d.int32("content")
	}
	f.Path = d.string("file_path")
	f.Format = d.string("file_format")
	part := d.record("partition")
	// Another spec's partition record (several fields, not an int, null)
	// is skipped and the entry marked.
	if len(part) > 1 {
		f.OtherPartition = true
	}
	for _, pv := range part {
		if x, ok := pv.(int32); ok && len(part) == 1 {
			f.Partition = x
		} else {
			f.OtherPartition = true
		}
	}
	if f.OtherPartition {
		// The values, in the record's field order, widened as the typed
		// reader gives them.
		f.PartitionValues = []any{}
		for _, name := range partOrder {
			switch x := part[name].(type) {
			case int32:
				f.PartitionValues = append(f.PartitionValues, int64(x))
			case float32:
				f.PartitionValues = append(f.PartitionValues, float64(x))
			default:
				f.PartitionValues = append(f.PartitionValues, x)
			}
		}
	}
	f.RecordCount = d.int64("record_count")
	f.FileSize = d.int64("file_size_in_bytes")
	f.ColumnSizes = d.longMap("column_sizes")
	f.ValueCounts = d.longMap("value_counts")
	f.NullCounts = d.longMap("null_value_counts")
	f.NaNCounts = d.longMap("nan_value_counts")
	f.Lower = d.bytesMap("lower_bounds")
	f.Upper = d.bytesMap("upper_bounds")
	f.KeyMetadata = d.optBytes("key_metadata")
	f.SplitOffsets = d.longList("split_offsets")
	for _, id := range d.longList("equality_ids") {
		f.EqualityIDs = append(f.EqualityIDs, int32(id))
	}
	if id, ok := d.optInt64("sort_order_id"); ok {
		id32 := int32(id)
		f.SortOrderID = &id32
	}
	if g.err != nil {
		return e, g.err
	}
	return e, d.err
}

// mapWhereRecord says whether s has an Avro map where a manifest entry has
// a record (the entry, data_file, partition, or an int-keyed map's
// key/value pair). The generic decoder gives a map value and a record value
// the same Go type, so the reference reads such a map as the record; the
// typed decoder refuses it. No Iceberg writer writes one (Iceberg's maps
// are arrays of records), so the comparison leaves these schemas out.
func mapWhereRecord(s *avro.Schema) bool {
	branches := func(s *avro.Schema) []*avro.Schema {
		if s.Type == avro.TypeUnion {
			return s.Branches
		}
		return []*avro.Schema{s}
	}
	for _, top := range branches(s) {
		if top.Type == avro.TypeMap {
			return true
		}
		if top.Type != avro.TypeRecord {
			continue
		}
		for _, f := range top.Fields {
			if f.Name != "data_file" {
				continue
			}
			for _, df := range branches(f.Type) {
				if df.Type == avro.TypeMap {
					return true
				}
				if df.Type != avro.TypeRecord {
					continue
				}
				for _, g := range df.Fields {
					for _, t := range branches(g.Type) {
						if g.Name == "partition" && t.Type == avro.TypeMap {
							return true
						}
						if strings.HasSuffix(g.Name, "_counts") || strings.HasSuffix(g.Name, "_sizes") || strings.HasSuffix(g.Name, "_bounds") {
							if t.Type == avro.TypeArray {
								for _, it := range branches(t.Items) {
									if it.Type == avro.TypeMap {
										return true
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return false
}

// partitionFieldOrder names the fields of the manifest entry schema's
// data_file.partition record, in order.
func partitionFieldOrder(s *avro.Schema) []string {
	find := func(s *avro.Schema, name string) *avro.Schema {
		for s != nil && s.Type == avro.TypeUnion {
			var next *avro.Schema
			for _, b := range s.Branches {
				if b.Type != avro.TypeNull {
					next = b
				}
			}
			s = next
		}
		if s == nil || s.Type != avro.TypeRecord {
			return nil
		}
		for _, f := range s.Fields {
			if f.Name == name {
				return f.Type
			}
		}
		return nil
	}
	p := find(find(s, "data_file"), "partition")
	if p == nil || p.Type != avro.TypeRecord {
		return nil
	}
	var names []string
	for _, f := range p.Fields {
		names = append(names, f.Name)
	}
	return names
}
