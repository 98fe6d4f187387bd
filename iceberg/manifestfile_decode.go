package iceberg

import (
	"fmt"

	"github.com/timelake/timelake/avro"
)

// Typed decoding of manifest_file records (manifest list entries): each
// field of the writer's schema is matched by name, once per file, to the
// ManifestFile field it fills, and each record is then read straight into
// the struct, with the checks the spec's types call for (an int field must
// be an Avro int, a long an int or long, a required field not null).
// Fields it does not know are skipped; the v1-era count names are read when
// the v2 ones are absent.

// mfSlot is the ManifestFile field a writer's field fills.
type mfSlot uint8

const (
	mfSkip mfSlot = iota
	mfPath
	mfLength
	mfSpecID
	mfContent
	mfSeq
	mfMinSeq
	mfAddedSnapshot
	mfAddedFiles
	mfExistingFiles
	mfDeletedFiles
	mfAddedRows
	mfExistingRows
	mfDeletedRows
	mfPartitions
	mfKeyMetadata
	mfFirstRowID
)

// manifestFileSlots names the fields of manifest_file; required ones must
// be present in the writer's schema and not null.
var manifestFileSlots = []struct {
	name, old string // old: the v1-era name, read when name is absent
	slot      mfSlot
	required  bool
}{
	{"manifest_path", "", mfPath, true},
	{"manifest_length", "", mfLength, true},
	{"partition_spec_id", "", mfSpecID, true},
	{"content", "", mfContent, true},
	{"sequence_number", "", mfSeq, true},
	{"min_sequence_number", "", mfMinSeq, true},
	{"added_snapshot_id", "", mfAddedSnapshot, true},
	{"added_files_count", "added_data_files_count", mfAddedFiles, true},
	{"existing_files_count", "existing_data_files_count", mfExistingFiles, true},
	{"deleted_files_count", "deleted_data_files_count", mfDeletedFiles, true},
	{"added_rows_count", "", mfAddedRows, true},
	{"existing_rows_count", "", mfExistingRows, true},
	{"deleted_rows_count", "", mfDeletedRows, true},
	{"partitions", "", mfPartitions, false},
	{"key_metadata", "", mfKeyMetadata, false},
	{"first_row_id", "", mfFirstRowID, false},
}

// Slots of field_summary.
const (
	fsSkip mfSlot = iota
	fsContainsNull
	fsContainsNaN
	fsLower
	fsUpper
)

type manifestFileReader struct {
	schema *avro.Schema
	slots  []mfSlot // one per field of schema
	names  []string // the field name, for errors
	err    error    // the schema cannot give a manifest_file: reported at the first record
	keep   bool     // copy paths, bounds and key metadata out of the block
	// v1: a format v1 list, whose sequence numbers and content do not
	// exist (0: data, sequence number 0) and whose counts may be null.
	v1 bool

	summary      *avro.Schema // the field_summary record slots were resolved for
	summarySlots []mfSlot
	summaryNames []string // partitions[].<field>, for errors
	summaryErr   error
}

func newManifestFileReader(s *avro.Schema, keep, v1 bool) *manifestFileReader {
	mr := &manifestFileReader{schema: s, keep: keep, v1: v1}
	if s.Type != avro.TypeRecord {
		mr.err = fmt.Errorf("not a record")
		return mr
	}
	mr.slots = make([]mfSlot, len(s.Fields))
	mr.names = make([]string, len(s.Fields))
	index := map[string]int{} // the last field of each name, as a decoded record map keeps it
	for i, f := range s.Fields {
		index[f.Name] = i
	}
	for _, want := range manifestFileSlots {
		name := want.name
		i, ok := index[name]
		if !ok && want.old != "" {
			name = want.old
			i, ok = index[name]
		}
		if !ok {
			if want.required && !(v1 && v1Optional(want.slot)) && mr.err == nil {
				mr.err = fmt.Errorf("field %s is missing", name)
			}
			continue
		}
		mr.slots[i], mr.names[i] = want.slot, name
	}
	return mr
}

// v1Optional says whether a required field of a v2 manifest_file may be
// absent or null in a v1 manifest list: v1 has no content or sequence
// numbers, and its counts are optional.
func v1Optional(slot mfSlot) bool {
	switch slot {
	case mfContent, mfSeq, mfMinSeq, mfAddedFiles, mfExistingFiles, mfDeletedFiles, mfAddedRows, mfExistingRows, mfDeletedRows:
		return true
	}
	return false
}

// readLong reads a required int or long.
func readLong(d *avro.Decoder, t *avro.Schema, name string) (int64, error) {
	switch t.Type {
	case avro.TypeLong:
		return d.Long()
	case avro.TypeInt:
		v, err := d.Int()
		return int64(v), err
	}
	return 0, typeError(name, t, "long")
}

// readInt reads a required int.
func readInt(d *avro.Decoder, t *avro.Schema, name string) (int32, error) {
	if t.Type == avro.TypeInt {
		return d.Int()
	}
	return 0, typeError(name, t, "int")
}

// readOptBytes reads optional bytes or fixed, aliasing the block; ok is
// false for null.
func readOptBytes(d *avro.Decoder, t *avro.Schema, name string) (b []byte, ok bool, err error) {
	switch t.Type {
	case avro.TypeNull:
		return nil, false, nil
	case avro.TypeBytes:
		b, err = d.Bytes()
	case avro.TypeFixed:
		b, err = d.Fixed(t.Size)
	default:
		return nil, false, typeError(name, t, "bytes")
	}
	return b, err == nil, err
}

// readString reads a required string (or enum symbol), aliasing the block.
func readString(d *avro.Decoder, t *avro.Schema, name string) ([]byte, error) {
	switch t.Type {
	case avro.TypeString:
		return d.Bytes()
	case avro.TypeEnum:
		s, err := d.Enum(t)
		return []byte(s), err
	}
	return nil, typeError(name, t, "string")
}

// clone copies b out of the block; an empty value stays non-nil.
func clone(b []byte) []byte { return append([]byte{}, b...) }

// read decodes one record into mf. When path is not nil it is set to the
// manifest path (aliasing the block). Without keep, mf gets no path,
// partition summaries or key metadata, and nothing is allocated.
func (mr *manifestFileReader) read(d *avro.Decoder, mf *ManifestFile, path *[]byte) error {
	if mr.err != nil {
		return mr.err
	}
	*mf = ManifestFile{}
	for i, f := range mr.schema.Fields {
		slot := mr.slots[i]
		if slot == mfSkip {
			if err := d.SkipAt(f.Type, 1); err != nil {
				return err
			}
			continue
		}
		t, _, err := resolveAt(d, f.Type, 0)
		if err != nil {
			return err
		}
		name := mr.names[i]
		var i32 *int32
		var i64 *int64
		switch slot {
		case mfPath:
			b, err := readString(d, t, name)
			if err != nil {
				return err
			}
			if mr.keep {
				mf.ManifestPath = string(b)
			}
			if path != nil {
				*path = b
			}
		case mfLength:
			i64 = &mf.ManifestLength
		case mfSpecID:
			i32 = &mf.PartitionSpecID
		case mfContent:
			i32 = &mf.Content
		case mfSeq:
			i64 = &mf.SequenceNumber
		case mfMinSeq:
			i64 = &mf.MinSequenceNumber
		case mfAddedSnapshot:
			i64 = &mf.AddedSnapshotID
		case mfAddedFiles:
			i32 = &mf.AddedFilesCount
		case mfExistingFiles:
			i32 = &mf.ExistingFilesCount
		case mfDeletedFiles:
			i32 = &mf.DeletedFilesCount
		case mfAddedRows:
			i64 = &mf.AddedRowsCount
		case mfExistingRows:
			i64 = &mf.ExistingRowsCount
		case mfDeletedRows:
			i64 = &mf.DeletedRowsCount
		case mfPartitions:
			if err := mr.readPartitions(d, t, mf); err != nil {
				return err
			}
		case mfKeyMetadata:
			b, ok, err := readOptBytes(d, t, name)
			if err != nil {
				return err
			}
			if ok && mr.keep {
				mf.KeyMetadata = clone(b)
			}
		case mfFirstRowID:
			v, ok, err := optLong(d, t, name)
			if err != nil {
				return err
			}
			if ok {
				mf.FirstRowID = &v
			}
		}
		if (i32 != nil || i64 != nil) && t.Type == avro.TypeNull && mr.v1 && v1Optional(slot) {
			continue // a v1 count left null: 0
		}
		if i32 != nil {
			if *i32, err = readInt(d, t, name); err != nil {
				return err
			}
		}
		if i64 != nil {
			if *i64, err = readLong(d, t, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// readPartitions reads the optional list of field summaries.
func (mr *manifestFileReader) readPartitions(d *avro.Decoder, t *avro.Schema, mf *ManifestFile) error {
	switch t.Type {
	case avro.TypeNull:
		return nil
	case avro.TypeArray:
	default:
		return typeError("partitions", t, "array")
	}
	if mr.keep {
		mf.Partitions = []FieldSummary{}
	}
	for {
		n, err := d.ArrayBlock(t)
		if err != nil || n == 0 {
			return err
		}
		for ; n > 0; n-- {
			it, _, err := resolveAt(d, t.Items, 0)
			if err != nil {
				return err
			}
			if it.Type != avro.TypeRecord {
				return fmt.Errorf("partitions: element is a %v, want a record", it.Type)
			}
			s, err := mr.readSummary(d, it)
			if err != nil {
				return err
			}
			if mr.keep {
				mf.Partitions = append(mf.Partitions, s)
			}
		}
	}
}

func (mr *manifestFileReader) summaryFor(rec *avro.Schema) ([]mfSlot, error) {
	if mr.summary == rec {
		return mr.summarySlots, mr.summaryErr
	}
	slots := make([]mfSlot, len(rec.Fields))
	mr.summaryNames = make([]string, len(rec.Fields))
	var err error
	index := map[string]int{}
	for i, f := range rec.Fields {
		index[f.Name] = i
		mr.summaryNames[i] = "partitions[]." + f.Name
	}
	for name, slot := range map[string]mfSlot{"contains_null": fsContainsNull, "contains_nan": fsContainsNaN, "lower_bound": fsLower, "upper_bound": fsUpper} {
		if i, ok := index[name]; ok {
			slots[i] = slot
		}
	}
	if _, ok := index["contains_null"]; !ok {
		err = fmt.Errorf("field partitions[].contains_null is missing")
	}
	mr.summary, mr.summarySlots, mr.summaryErr = rec, slots, err
	return slots, err
}

func (mr *manifestFileReader) readSummary(d *avro.Decoder, rec *avro.Schema) (FieldSummary, error) {
	var s FieldSummary
	slots, err := mr.summaryFor(rec)
	if err != nil {
		return s, err
	}
	for i, f := range rec.Fields {
		if slots[i] == fsSkip {
			if err := d.Skip(f.Type); err != nil {
				return s, err
			}
			continue
		}
		t, _, err := resolveAt(d, f.Type, 0)
		if err != nil {
			return s, err
		}
		name := mr.summaryNames[i]
		switch slots[i] {
		case fsContainsNull:
			if t.Type != avro.TypeBoolean {
				return s, typeError(name, t, "boolean")
			}
			if s.ContainsNull, err = d.Boolean(); err != nil {
				return s, err
			}
		case fsContainsNaN:
			switch t.Type {
			case avro.TypeNull:
			case avro.TypeBoolean:
				b, err := d.Boolean()
				if err != nil {
					return s, err
				}
				if mr.keep {
					s.ContainsNaN = new(bool)
					*s.ContainsNaN = b
				}
			default:
				return s, typeError(name, t, "boolean")
			}
		case fsLower, fsUpper:
			b, ok, err := readOptBytes(d, t, name)
			if err != nil {
				return s, err
			}
			if ok && mr.keep {
				if slots[i] == fsLower {
					s.LowerBound = clone(b)
				} else {
					s.UpperBound = clone(b)
				}
			}
		}
	}
	return s, nil
}
