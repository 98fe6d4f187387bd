package iceberg

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/internal/core/textcache"
)

// The Avro schemas of manifests and manifest lists, with the Iceberg field
// ids of spec section "Manifests" / "Manifest Lists" (format v2). Names,
// ids and order are what Java, pyiceberg and iceberg-go write and read.
// persisted: must not change.

func field(name string, id int, t *avro.Schema) *avro.Field {
	return &avro.Field{Name: name, Type: t, Attrs: []avro.Attr{avro.IntAttr("field-id", id)}}
}

// optField is an optional field: union ["null", t] with a null default.
func optField(name string, id int, t *avro.Schema) *avro.Field {
	f := field(name, id, avro.Optional(t))
	f.Default = json.RawMessage("null")
	return f
}

func prim(t avro.Type) *avro.Schema { return avro.Primitive(t) }

// intMap is Iceberg's map<int, V> in Avro: an array of key/value records
// with logicalType "map", since Avro maps only have string keys.
func intMap(keyID, valueID int, value avro.Type) *avro.Schema {
	return &avro.Schema{Type: avro.TypeArray, LogicalType: "map", Items: &avro.Schema{
		Type: avro.TypeRecord, Name: fmt.Sprintf("k%d_v%d", keyID, valueID),
		Fields: []*avro.Field{field("key", keyID, prim(avro.TypeInt)), field("value", valueID, prim(value))},
	}}
}

func list(elementID int, t *avro.Schema) *avro.Schema {
	return &avro.Schema{Type: avro.TypeArray, Items: t, Attrs: []avro.Attr{avro.IntAttr("element-id", elementID)}}
}

// manifestEntrySchema is manifest_entry for a data manifest of spec over
// table schema s (the partition fields' types follow their sources').
func manifestEntrySchema(spec PartitionSpec, s *Schema, v3 bool) (*avro.Schema, error) {
	part := &avro.Schema{Type: avro.TypeRecord, Name: "r102"}
	for _, pf := range spec.Fields {
		t, err := partitionAvroFieldType(pf, s)
		if err != nil {
			return nil, err
		}
		part.Fields = append(part.Fields, optField(pf.Name, pf.FieldID, t))
	}
	dataFile := &avro.Schema{Type: avro.TypeRecord, Name: "r2", Fields: []*avro.Field{
		field("content", 134, prim(avro.TypeInt)),
		field("file_path", 100, prim(avro.TypeString)),
		field("file_format", 101, prim(avro.TypeString)),
		field("partition", 102, part),
		field("record_count", 103, prim(avro.TypeLong)),
		field("file_size_in_bytes", 104, prim(avro.TypeLong)),
		optField("column_sizes", 108, intMap(117, 118, avro.TypeLong)),
		optField("value_counts", 109, intMap(119, 120, avro.TypeLong)),
		optField("null_value_counts", 110, intMap(121, 122, avro.TypeLong)),
		optField("nan_value_counts", 137, intMap(138, 139, avro.TypeLong)),
		optField("lower_bounds", 125, intMap(126, 127, avro.TypeBytes)),
		optField("upper_bounds", 128, intMap(129, 130, avro.TypeBytes)),
		optField("key_metadata", 131, prim(avro.TypeBytes)),
		optField("split_offsets", 132, list(133, prim(avro.TypeLong))),
		optField("equality_ids", 135, list(136, prim(avro.TypeInt))),
		optField("sort_order_id", 140, prim(avro.TypeInt)),
	}}
	if v3 {
		dataFile.Fields = append(dataFile.Fields,
			optField("first_row_id", 142, prim(avro.TypeLong)),
			optField("referenced_data_file", 143, prim(avro.TypeString)),
			optField("content_offset", 144, prim(avro.TypeLong)),
			optField("content_size_in_bytes", 145, prim(avro.TypeLong)),
		)
	}
	return &avro.Schema{Type: avro.TypeRecord, Name: "manifest_entry", Fields: []*avro.Field{
		field("status", 0, prim(avro.TypeInt)),
		optField("snapshot_id", 1, prim(avro.TypeLong)),
		optField("sequence_number", 3, prim(avro.TypeLong)),
		optField("file_sequence_number", 4, prim(avro.TypeLong)),
		field("data_file", 2, dataFile),
	}}, nil
}

// writerSchema is an Avro schema a writer uses and its JSON for the file
// header. Every append writes a manifest and a manifest list: building and
// encoding their schemas each time was a few percent of a small append's
// CPU (more in WebAssembly, where the allocations cost more), so they are
// built once and shared, never modified.
type writerSchema struct {
	schema *avro.Schema
	json   []byte
}

var (
	// entrySchemas are manifest_entry schemas by partition spec fields' JSON.
	entrySchemas textcache.Cache[writerSchema]
	// listSchema is manifest_file's.
	listSchema = sync.OnceValue(func() writerSchema {
		s := manifestFileSchema(false)
		return writerSchema{s, s.AppendJSON(nil)}
	})
	listSchemaV3 = sync.OnceValue(func() writerSchema {
		s := manifestFileSchema(true)
		return writerSchema{s, s.AppendJSON(nil)}
	})
)

// manifestFileSchema is manifest_file, one entry of a v2 manifest list
// (v3: with first_row_id).
func manifestFileSchema(v3 bool) *avro.Schema {
	summary := &avro.Schema{Type: avro.TypeRecord, Name: "r508", Fields: []*avro.Field{
		field("contains_null", 509, prim(avro.TypeBoolean)),
		optField("contains_nan", 518, prim(avro.TypeBoolean)),
		optField("lower_bound", 510, prim(avro.TypeBytes)),
		optField("upper_bound", 511, prim(avro.TypeBytes)),
	}}
	mf := &avro.Schema{Type: avro.TypeRecord, Name: "manifest_file", Fields: []*avro.Field{
		field("manifest_path", 500, prim(avro.TypeString)),
		field("manifest_length", 501, prim(avro.TypeLong)),
		field("partition_spec_id", 502, prim(avro.TypeInt)),
		field("content", 517, prim(avro.TypeInt)),
		field("sequence_number", 515, prim(avro.TypeLong)),
		field("min_sequence_number", 516, prim(avro.TypeLong)),
		field("added_snapshot_id", 503, prim(avro.TypeLong)),
		field("added_files_count", 504, prim(avro.TypeInt)),
		field("existing_files_count", 505, prim(avro.TypeInt)),
		field("deleted_files_count", 506, prim(avro.TypeInt)),
		field("added_rows_count", 512, prim(avro.TypeLong)),
		field("existing_rows_count", 513, prim(avro.TypeLong)),
		field("deleted_rows_count", 514, prim(avro.TypeLong)),
		optField("partitions", 507, list(508, summary)),
		optField("key_metadata", 519, prim(avro.TypeBytes)),
	}}
	if v3 {
		mf.Fields = append(mf.Fields, optField("first_row_id", 520, prim(avro.TypeLong)))
	}
	return mf
}
