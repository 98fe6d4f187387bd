package iceberg

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/avro"
)

// Typed decoding of manifest_entry records, as manifestfile_decode.go does
// for manifest lists: the fields of each record schema of the writer's are
// matched by name once (per file, and again only if a union switches to
// another record schema) to the ManifestEntry field they fill, then each
// record is read straight into the struct, skipping what it does not know.
// It reads what the generic decoder (Reader.Next into maps, then fields by
// name; kept in the tests as the reference) read: optional fields may be
// absent, unions are followed, an int field
// must be an Avro int, a long an int or long, a string a string or enum,
// bytes bytes or fixed, and a required field must not be null.

// meSlot is the ManifestEntry or DataFile field a writer's field fills.
type meSlot uint8

const (
	meSkip meSlot = iota
	meStatus
	meSnapshotID
	meSeq
	meFileSeq
	meDataFile

	dfContent
	dfPath
	dfFormat
	dfPartition
	dfRecordCount
	dfFileSize
	dfColumnSizes // the six int-keyed maps, in this order
	dfValueCounts
	dfNullCounts
	dfNaNCounts
	dfLower
	dfUpper
	dfKeyMetadata
	dfSplitOffsets
	dfEqualityIDs
	dfSortOrderID
	dfFirstRowID
	dfReferencedDataFile
	dfContentOffset
	dfContentSize

	kvKey
	kvValue

	partValue

	numSlots
)

// slotFields names the fields of each record; required ones must be
// present in the writer's schema.
var (
	entryFields = []slotField{
		{"status", meStatus, true},
		{"snapshot_id", meSnapshotID, false},
		{"sequence_number", meSeq, false},
		{"file_sequence_number", meFileSeq, false},
		{"data_file", meDataFile, true},
	}
	dataFileFields = []slotField{
		{"content", dfContent, false},
		{"file_path", dfPath, true},
		{"file_format", dfFormat, true},
		{"partition", dfPartition, true},
		{"record_count", dfRecordCount, true},
		{"file_size_in_bytes", dfFileSize, true},
		{"column_sizes", dfColumnSizes, false},
		{"value_counts", dfValueCounts, false},
		{"null_value_counts", dfNullCounts, false},
		{"nan_value_counts", dfNaNCounts, false},
		{"lower_bounds", dfLower, false},
		{"upper_bounds", dfUpper, false},
		{"key_metadata", dfKeyMetadata, false},
		{"split_offsets", dfSplitOffsets, false},
		{"equality_ids", dfEqualityIDs, false},
		{"sort_order_id", dfSortOrderID, false},
		{"first_row_id", dfFirstRowID, false},
		{"referenced_data_file", dfReferencedDataFile, false},
		{"content_offset", dfContentOffset, false},
		{"content_size_in_bytes", dfContentSize, false},
	}
	kvFields = []slotField{{"key", kvKey, true}, {"value", kvValue, true}}
)

type slotField struct {
	name     string
	slot     meSlot
	required bool
}

// recordPlan is how to read one record schema: the slot of each field.
type recordPlan struct {
	schema  *avro.Schema
	slots   []meSlot
	names   []string // of the fields, for errors
	present [numSlots]bool
	err     error // the record cannot give what is wanted: reported when one is read
}

// planFor resolves rec's fields against want (avro.ParseSchema refuses a
// name repeated in a record, so each is found once).
func planFor(p *recordPlan, rec *avro.Schema, want []slotField, path string) *recordPlan {
	if p.schema == rec {
		return p
	}
	*p = recordPlan{schema: rec, slots: make([]meSlot, len(rec.Fields)), names: make([]string, len(rec.Fields))}
	index := make(map[string]int, len(rec.Fields))
	for i, f := range rec.Fields {
		index[f.Name] = i
	}
	for _, w := range want {
		i, ok := index[w.name]
		if !ok {
			if w.required && p.err == nil {
				p.err = fmt.Errorf("field %s%s is missing", path, w.name)
			}
			continue
		}
		p.slots[i], p.names[i], p.present[w.slot] = w.slot, path+w.name, true
	}
	return p
}

// entryReader reads the manifest_entry records of one file.
type entryReader struct {
	schema *avro.Schema
	from   ManifestFile // what ADDED entries inherit
	keep   bool         // fill the DataFile; without it only Status and the path are read (and everything checked)
	// light: skip the six stats maps (column_sizes ... upper_bounds) as
	// Avro values of their writer's schema, without looking at their
	// entries. For a reader that only wants each entry's status and path
	// (cleanup's reachability): walking every key and value was the
	// largest part of reading such a manifest under WebAssembly. Skipping
	// is still bounds-checked (a block count must fit in the bytes left, a
	// length in the block), so a truncated or corrupt map is still an
	// error, never a panic or a large allocation; what it no longer checks
	// is that a map's items are {key: int, value} records of the right
	// types, which only matters to a reader that keeps them.
	light bool
	// v1: a format v1 manifest. Its entries have no sequence numbers:
	// every one is 0 (spec: v1 files are read with sequence number 0).
	v1 bool

	entry, dataFile, partition recordPlan
	kv                         [6]recordPlan // per int-keyed map field
	// kvValue names each int-keyed map's values in errors ("<field>
	// value"), made once per manifest rather than for every key and value
	// read: that concatenation was nearly all the allocations of reading
	// a manifest's entries.
	kvValue [6]string
}

// resolveAt follows union branches to the schema of the value that
// follows, counting each as a level of nesting.
func resolveAt(d *avro.Decoder, s *avro.Schema, depth int) (*avro.Schema, int, error) {
	for s.Type == avro.TypeUnion {
		var err error
		if s, err = d.Branch(s); err != nil {
			return nil, 0, err
		}
		depth++
	}
	return s, depth, nil
}

func typeError(name string, t *avro.Schema, want string) error {
	if t.Type == avro.TypeNull {
		return fmt.Errorf("field %s is null", name)
	}
	return fmt.Errorf("field %s is a %v, want %s", name, t.Type, want)
}

// optLong reads an optional int or long; ok is false for null.
func optLong(d *avro.Decoder, t *avro.Schema, name string) (v int64, ok bool, err error) {
	switch t.Type {
	case avro.TypeNull:
		return 0, false, nil
	case avro.TypeLong:
		v, err = d.Long()
	case avro.TypeInt:
		var v32 int32
		v32, err = d.Int()
		v = int64(v32)
	default:
		return 0, false, typeError(name, t, "long")
	}
	return v, err == nil, err
}

// read reads one entry. When path is not nil it is set to the data file's
// path, aliasing the block.
func (er *entryReader) read(d *avro.Decoder, e *ManifestEntry, path *[]byte) error {
	*e = ManifestEntry{}
	t, depth, err := resolveAt(d, er.schema, 0)
	if err != nil {
		return err
	}
	if t.Type != avro.TypeRecord {
		return fmt.Errorf("not a record")
	}
	p := planFor(&er.entry, t, entryFields, "")
	if p.err != nil {
		return p.err
	}
	var snap, seq, fseq int64
	var hasSnap, hasSeq, hasFseq bool
	for i, f := range t.Fields {
		slot := p.slots[i]
		if slot == meSkip {
			if err := d.SkipAt(f.Type, depth+1); err != nil {
				return err
			}
			continue
		}
		ft, fdepth, err := resolveAt(d, f.Type, depth+1)
		if err != nil {
			return err
		}
		name := p.names[i]
		switch slot {
		case meStatus:
			s, err := readInt(d, ft, name)
			if err != nil {
				return err
			}
			e.Status = EntryStatus(s)
		case meSnapshotID:
			snap, hasSnap, err = optLong(d, ft, name)
		case meSeq:
			seq, hasSeq, err = optLong(d, ft, name)
		case meFileSeq:
			fseq, hasFseq, err = optLong(d, ft, name)
		case meDataFile:
			if ft.Type != avro.TypeRecord {
				return typeError(name, ft, "record")
			}
			err = er.readDataFile(d, ft, fdepth, &e.DataFile, path)
		}
		if err != nil {
			return err
		}
	}
	if e.Status < StatusExisting || e.Status > StatusDeleted {
		return fmt.Errorf("status %d is not 0, 1 or 2", e.Status)
	}
	inherit := func(v int64, ok bool, inherited int64, name string) (int64, error) {
		if ok {
			return v, nil
		}
		if er.v1 {
			return 0, nil
		}
		if e.Status != StatusAdded {
			return 0, fmt.Errorf("%s is null on a %v entry; only ADDED entries inherit it", name, e.Status)
		}
		return inherited, nil
	}
	e.SnapshotID = er.from.AddedSnapshotID
	if hasSnap {
		e.SnapshotID = snap
	}
	if e.SequenceNumber, err = inherit(seq, hasSeq, er.from.SequenceNumber, "sequence_number"); err != nil {
		return err
	}
	e.FileSequenceNumber = e.SequenceNumber // written before the field existed
	if p.present[meFileSeq] {
		if e.FileSequenceNumber, err = inherit(fseq, hasFseq, er.from.SequenceNumber, "file_sequence_number"); err != nil {
			return err
		}
	}
	return nil
}

func (er *entryReader) readDataFile(d *avro.Decoder, rec *avro.Schema, depth int, f *DataFile, path *[]byte) error {
	p := planFor(&er.dataFile, rec, dataFileFields, "data_file.")
	if p.err != nil {
		return p.err
	}
	for i, fld := range rec.Fields {
		slot := p.slots[i]
		if slot == meSkip || er.light && slot >= dfColumnSizes && slot <= dfUpper {
			if err := d.SkipAt(fld.Type, depth+1); err != nil {
				return err
			}
			continue
		}
		t, tdepth, err := resolveAt(d, fld.Type, depth+1)
		if err != nil {
			return err
		}
		name := p.names[i]
		switch slot {
		case dfContent:
			f.Content, err = readInt(d, t, name)
		case dfPath:
			var b []byte
			if b, err = readString(d, t, name); err == nil {
				if path != nil {
					*path = b
				}
				if er.keep {
					f.Path = string(b)
				}
			}
		case dfFormat:
			var b []byte
			if b, err = readString(d, t, name); err == nil && er.keep {
				switch {
				case string(b) == FormatParquet:
					f.Format = FormatParquet // every entry of a table has it: no copy
				default:
					// Iceberg reads the name in any case (Java's
					// FileFormat.fromString); DuckDB writes "parquet".
					f.Format = strings.ToUpper(string(b))
				}
			}
		case dfPartition:
			if t.Type != avro.TypeRecord {
				return typeError(name, t, "record")
			}
			err = er.readPartition(d, t, tdepth, f)
		case dfRecordCount:
			f.RecordCount, err = readLong(d, t, name)
		case dfFileSize:
			f.FileSize, err = readLong(d, t, name)
		case dfColumnSizes, dfValueCounts, dfNullCounts, dfNaNCounts, dfLower, dfUpper:
			err = er.readIntMap(d, t, tdepth, slot, name, f)
		case dfKeyMetadata:
			var b []byte
			var ok bool
			if b, ok, err = readOptBytes(d, t, name); ok && er.keep {
				f.KeyMetadata = clone(b)
			}
		case dfSplitOffsets, dfEqualityIDs:
			err = er.readLongList(d, t, tdepth, slot, name, f)
		case dfSortOrderID:
			var id int64
			var ok bool
			if id, ok, err = optLong(d, t, name); ok && er.keep {
				id32 := int32(id)
				f.SortOrderID = &id32
			}
		case dfFirstRowID, dfContentOffset, dfContentSize:
			var v int64
			var ok bool
			if v, ok, err = optLong(d, t, name); ok && er.keep {
				switch slot {
				case dfFirstRowID:
					f.FirstRowID = &v
				case dfContentOffset:
					f.ContentOffset = &v
				default:
					f.ContentSizeInBytes = &v
				}
			}
		case dfReferencedDataFile:
			if t.Type == avro.TypeNull {
				break
			}
			var b []byte
			if b, err = readString(d, t, name); err == nil && er.keep {
				f.ReferencedDataFile = string(b)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (er *entryReader) readIntMap(d *avro.Decoder, t *avro.Schema, depth int, slot meSlot, name string, f *DataFile) error {
	switch t.Type {
	case avro.TypeNull:
		return nil
	case avro.TypeArray:
	default:
		return typeError(name, t, "array")
	}
	bytesValues := slot == dfLower || slot == dfUpper
	var longs map[int32]int64
	var bytes map[int32][]byte
	if er.keep {
		switch slot {
		case dfColumnSizes:
			f.ColumnSizes = map[int32]int64{}
			longs = f.ColumnSizes
		case dfValueCounts:
			f.ValueCounts = map[int32]int64{}
			longs = f.ValueCounts
		case dfNullCounts:
			f.NullCounts = map[int32]int64{}
			longs = f.NullCounts
		case dfNaNCounts:
			f.NaNCounts = map[int32]int64{}
			longs = f.NaNCounts
		case dfLower:
			f.Lower = map[int32][]byte{}
			bytes = f.Lower
		case dfUpper:
			f.Upper = map[int32][]byte{}
			bytes = f.Upper
		}
	}
	plan := &er.kv[slot-dfColumnSizes]
	vname := &er.kvValue[slot-dfColumnSizes]
	if len(*vname) != len(name)+len(" value") || (*vname)[:len(name)] != name {
		*vname = name + " value"
	}
	notKV := func() error { return fmt.Errorf("field %s: entry is not a {key: int, value} record", name) }
	for {
		n, err := d.ArrayBlock(t)
		if err != nil || n == 0 {
			return err
		}
		for ; n > 0; n-- {
			it, idepth, err := resolveAt(d, t.Items, depth+1)
			if err != nil {
				return err
			}
			if it.Type != avro.TypeRecord {
				return notKV()
			}
			p := planFor(plan, it, kvFields, "")
			if !p.present[kvKey] {
				return notKV()
			}
			var key int32
			var long int64
			var b []byte
			var hasValue bool
			for i, fld := range it.Fields {
				if p.slots[i] == meSkip {
					if err := d.SkipAt(fld.Type, idepth+1); err != nil {
						return err
					}
					continue
				}
				ft, _, err := resolveAt(d, fld.Type, idepth+1)
				if err != nil {
					return err
				}
				if p.slots[i] == kvKey {
					if ft.Type != avro.TypeInt {
						return notKV()
					}
					if key, err = d.Int(); err != nil {
						return err
					}
					continue
				}
				hasValue = true
				if bytesValues {
					var ok bool
					if b, ok, err = readOptBytes(d, ft, *vname); err == nil && !ok {
						err = typeError(*vname, ft, "bytes")
					}
				} else {
					long, err = readLong(d, ft, *vname)
				}
				if err != nil {
					return err
				}
			}
			if !hasValue {
				return fmt.Errorf("field %s value is missing", name)
			}
			switch {
			case longs != nil:
				longs[key] = long
			case bytes != nil:
				bytes[key] = clone(b)
			}
		}
	}
}

// readLongList reads split_offsets or equality_ids: an optional array of
// ints or longs.
func (er *entryReader) readLongList(d *avro.Decoder, t *avro.Schema, depth int, slot meSlot, name string, f *DataFile) error {
	switch t.Type {
	case avro.TypeNull:
		return nil
	case avro.TypeArray:
	default:
		return typeError(name, t, "array")
	}
	if er.keep && slot == dfSplitOffsets {
		f.SplitOffsets = []int64{}
	}
	for {
		n, err := d.ArrayBlock(t)
		if err != nil || n == 0 {
			return err
		}
		for ; n > 0; n-- {
			it, _, err := resolveAt(d, t.Items, depth+1)
			if err != nil {
				return err
			}
			v, err := readLong(d, it, name+"[]")
			if err != nil {
				return err
			}
			if !er.keep {
				continue
			}
			if slot == dfSplitOffsets {
				f.SplitOffsets = append(f.SplitOffsets, v)
			} else {
				f.EqualityIDs = append(f.EqualityIDs, int32(v)) // an empty list reads as nil
			}
		}
	}
}
