package iceberg

import "encoding/json"

// Encodings an append makes on every commit, through the metadata encoder
// rather than encoding/json's reflection: a manifest header's schema and
// partition fields, and the statistics entry of the new snapshot's
// last-value index. Under WebAssembly reflection is several times slower than
// natively and its many functions are more code for the engine to compile
// before a Worker's appends run at speed. Each falls back to encoding/json
// when the encoder meets raw JSON it cannot pass through (e.bad), so that
// encoding/json reports the error; the output is byte for byte encoding/json's
// (TestFastJSONMatchesReflection).

// schemaJSON is json.Marshal(s).
func schemaJSON(s *Schema) ([]byte, error) {
	e := metadataEncoder{}
	e.schema(s)
	if e.bad {
		return json.Marshal(*s)
	}
	return e.b, nil
}

// partitionFieldsJSON is json.Marshal(fields).
func partitionFieldsJSON(fields []PartitionField) ([]byte, error) {
	e := metadataEncoder{}
	encodeArray(&e, fields, e.partitionField)
	if e.bad {
		return json.Marshal(fields)
	}
	return e.b, nil
}

var (
	statisticsFileNames = []string{"snapshot-id", "statistics-path", "file-size-in-bytes", "file-footer-size-in-bytes", "blob-metadata"} // persisted: must not change
	blobMetadataNames   = []string{"type", "snapshot-id", "sequence-number", "fields", "properties"}                                     // persisted: must not change
)

// statisticsFileJSON is json.Marshal(s), for an entry built here.
func statisticsFileJSON(s *StatisticsFile) []byte {
	e := metadataEncoder{}
	e.b = append(e.b, '{')
	e.name(0, statisticsFileNames)
	e.int(s.SnapshotID)
	e.name(1, statisticsFileNames)
	e.string(s.StatisticsPath)
	e.name(2, statisticsFileNames)
	e.int(s.FileSizeInBytes)
	e.name(3, statisticsFileNames)
	e.int(s.FileFooterSizeInBytes)
	e.name(4, statisticsFileNames)
	encodeArray(&e, s.BlobMetadata, func(b *BlobMetadata) {
		e.b = append(e.b, '{')
		e.name(0, blobMetadataNames)
		e.string(b.Type)
		e.name(1, blobMetadataNames)
		e.int(b.SnapshotID)
		e.name(2, blobMetadataNames)
		e.int(b.SequenceNumber)
		e.name(3, blobMetadataNames)
		encodeArray(&e, b.Fields, func(id *int) { e.int(int64(*id)) })
		if len(b.Properties) > 0 { // omitempty
			e.name(4, blobMetadataNames)
			e.stringMap(b.Properties)
		}
		e.b = append(e.b, '}')
	})
	e.b = append(e.b, '}')
	return e.b
}
