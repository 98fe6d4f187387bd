// The fast path's reader of table metadata: one method a JSON object of the
// format (json.go has the design note and the member names).

package iceberg

import (
	"slices"
	"strings"
)

// metadataDecoder reads table metadata in one pass. Every method returns
// false when it meets something it does not handle exactly as encoding/json
// would; the caller then gives up on the whole document.
type metadataDecoder struct {
	data []byte
	text string // string(data): decoded strings are substrings of this one copy
	pos  int

	int64s []int64 // backing store for *int64 members, in chunks
	ints   []int   // backing store for *int members, in chunks
	pairs  []stringPair
}

type stringPair struct{ key, value string }

// decodeMetadata is the fast path of ParseMetadata (before Validate).
func decodeMetadata(data []byte) (*Metadata, bool) {
	d := &metadataDecoder{data: data, text: string(data)}
	m := &Metadata{}
	if d.peek() != '{' { // null and other values: encoding/json says what is wrong
		return nil, false
	}
	seen, ok := d.object(metadataNames, &m.Extra, func(i int) bool {
		if d.peek() == 'n' { // null: missing if required, nil otherwise
			return false
		}
		switch i {
		case 0:
			return d.int(&m.FormatVersion)
		case 1:
			return d.string(&m.TableUUID)
		case 2:
			return d.string(&m.Location)
		case 3:
			return d.int64(&m.LastSequenceNumber)
		case 4:
			return d.int64(&m.LastUpdatedMs)
		case 5:
			return d.int(&m.LastColumnID)
		case 6:
			return decodeArray(d, &m.Schemas, d.schema)
		case 7:
			return d.int(&m.CurrentSchemaID)
		case 8:
			return decodeArray(d, &m.PartitionSpecs, d.partitionSpec)
		case 9:
			return d.int(&m.DefaultSpecID)
		case 10:
			return d.int(&m.LastPartitionID)
		case 11:
			return d.stringMap(&m.Properties)
		case 12:
			// -1 is Java's "no snapshot"; ParseMetadata's other path drops it
			return d.int64Ptr(&m.CurrentSnapshotID) && *m.CurrentSnapshotID != -1
		case 13:
			return decodeArray(d, &m.Snapshots, d.snapshot)
		case 14:
			return decodeArray(d, &m.SnapshotLog, d.snapshotLogEntry)
		case 15:
			return decodeArray(d, &m.MetadataLog, d.metadataLogEntry)
		case 16:
			return decodeArray(d, &m.SortOrders, d.sortOrder)
		case 17:
			return d.int(&m.DefaultSortOrderID)
		case 18:
			return d.refs(&m.Refs)
		}
		return false
	})
	if !ok || d.peek() != 0 || d.pos != len(data) {
		return nil, false
	}
	for _, k := range requiredMembers {
		if seen&(1<<slices.Index(metadataNames, k)) == 0 {
			return nil, false
		}
	}
	return m, true
}

func (d *metadataDecoder) schema(s *Schema) bool {
	_, ok := d.object(schemaNames, &s.Extra, func(i int) bool {
		switch i {
		case 0:
			return d.string(&s.Type)
		case 1:
			return d.int(&s.SchemaID)
		case 2:
			return decodeArray(d, &s.IdentifierFieldIDs, d.int)
		case 3:
			return decodeArray(d, &s.Fields, d.schemaField)
		}
		return false
	})
	return ok
}

func (d *metadataDecoder) schemaField(f *SchemaField) bool {
	_, ok := d.object(schemaFieldNames, &f.Extra, func(i int) bool {
		switch i {
		case 0:
			return d.int(&f.ID)
		case 1:
			return d.string(&f.Name)
		case 2:
			return d.bool(&f.Required)
		case 3:
			return d.raw((*[]byte)(&f.Type))
		case 4:
			return d.string(&f.Doc)
		}
		return false
	})
	return ok
}

func (d *metadataDecoder) partitionSpec(s *PartitionSpec) bool {
	_, ok := d.object(partitionSpecNames, &s.Extra, func(i int) bool {
		if i == 0 {
			return d.int(&s.SpecID)
		}
		return decodeArray(d, &s.Fields, d.partitionField)
	})
	return ok
}

func (d *metadataDecoder) partitionField(f *PartitionField) bool {
	_, ok := d.object(partitionFieldNames, &f.Extra, func(i int) bool {
		switch i {
		case 0:
			return d.string(&f.Name)
		case 1:
			return d.string(&f.Transform)
		case 2:
			return d.int(&f.SourceID)
		case 3:
			return d.int(&f.FieldID)
		}
		return false
	})
	return ok
}

func (d *metadataDecoder) sortOrder(s *SortOrder) bool {
	_, ok := d.object(sortOrderNames, &s.Extra, func(i int) bool {
		if i == 0 {
			return d.int(&s.OrderID)
		}
		return decodeArray(d, &s.Fields, d.sortField)
	})
	return ok
}

func (d *metadataDecoder) sortField(f *SortField) bool {
	_, ok := d.object(sortFieldNames, &f.Extra, func(i int) bool {
		switch i {
		case 0:
			return d.string(&f.Transform)
		case 1:
			return d.int(&f.SourceID)
		case 2:
			return d.string(&f.Direction)
		case 3:
			return d.string(&f.NullOrder)
		}
		return false
	})
	return ok
}

func (d *metadataDecoder) snapshot(s *Snapshot) bool {
	_, ok := d.object(snapshotNames, &s.Extra, func(i int) bool {
		switch i {
		case 0:
			return d.int64(&s.SnapshotID)
		case 1:
			return d.int64Ptr(&s.ParentSnapshotID)
		case 2:
			return d.int64(&s.SequenceNumber)
		case 3:
			return d.int64(&s.TimestampMs)
		case 4:
			return d.string(&s.ManifestList)
		case 5:
			return d.stringMap(&s.Summary)
		case 6:
			return d.intPtr(&s.SchemaID)
		}
		return false
	})
	return ok
}

func (d *metadataDecoder) snapshotRef(r *SnapshotRef) bool {
	_, ok := d.object(snapshotRefNames, &r.Extra, func(i int) bool {
		if i == 0 {
			return d.int64(&r.SnapshotID)
		}
		return d.string(&r.Type)
	})
	return ok
}

// The log entries have no Extra: encoding/json drops their unknown members.

func (d *metadataDecoder) snapshotLogEntry(e *SnapshotLogEntry) bool {
	_, ok := d.object(snapshotLogEntryNames, nil, func(i int) bool {
		if i == 0 {
			return d.int64(&e.TimestampMs)
		}
		return d.int64(&e.SnapshotID)
	})
	return ok
}

func (d *metadataDecoder) metadataLogEntry(e *MetadataLogEntry) bool {
	_, ok := d.object(metadataLogEntryNames, nil, func(i int) bool {
		if i == 0 {
			return d.int64(&e.TimestampMs)
		}
		return d.string(&e.MetadataFile)
	})
	return ok
}

// object reads an object (or null, leaving everything zero) into a fresh
// struct whose members are names: member decodes the value of names[i];
// other members are kept in extra, or dropped if extra is nil. It returns
// the set of names seen.
func (d *metadataDecoder) object(names []string, extra *Extra, member func(i int) bool) (seen uint32, ok bool) {
	if d.null() {
		return 0, true
	}
	if !d.consume('{') {
		return 0, false
	}
	if d.peek() == '}' {
		d.pos++
		return 0, true
	}
	for {
		key, ok := d.memberName()
		if !ok || !d.consume(':') {
			return 0, false
		}
		switch i := slices.Index(names, key); {
		case i >= 0:
			if seen&(1<<i) != 0 { // a duplicate: encoding/json merges them
				return 0, false
			}
			seen |= 1 << i
			if !member(i) {
				return 0, false
			}
		case slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, key) }):
			return 0, false // encoding/json would decode it into the field too
		case extra == nil:
			if !d.skip(0) {
				return 0, false
			}
		default:
			if _, dup := (*extra)[key]; dup {
				return 0, false
			}
			var raw []byte
			if !d.raw(&raw) {
				return 0, false
			}
			if *extra == nil {
				*extra = Extra{}
			}
			(*extra)[key] = raw
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return seen, true
		default:
			return 0, false
		}
	}
}

// decodeArray reads an array (or null, leaving *p nil) with elem reading
// each element into a zero T. An empty array gives an empty, non-nil slice,
// as encoding/json does.
func decodeArray[T any](d *metadataDecoder, p *[]T, elem func(*T) bool) bool {
	if d.null() {
		return true
	}
	if !d.consume('[') {
		return false
	}
	s := []T{}
	if d.peek() == ']' {
		d.pos++
		*p = s
		return true
	}
	for {
		var zero T
		s = append(s, zero)
		if !elem(&s[len(s)-1]) {
			return false
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			*p = s
			return true
		default:
			return false
		}
	}
}

// stringMap reads an object of strings (null leaves *p nil; a null value
// is "", as encoding/json has it).
func (d *metadataDecoder) stringMap(p *map[string]string) bool {
	if d.null() {
		return true
	}
	if !d.consume('{') {
		return false
	}
	pairs := d.pairs[:0]
	if d.peek() == '}' {
		d.pos++
	} else {
		for {
			key, ok := d.stringValue()
			if !ok || !d.consume(':') {
				return false
			}
			var value string // null is ""
			if !d.null() {
				if value, ok = d.stringValue(); !ok {
					return false
				}
			}
			pairs = append(pairs, stringPair{key, value})
			if c := d.peek(); c == '}' {
				d.pos++
				break
			} else if c != ',' {
				return false
			}
			d.pos++
		}
	}
	d.pairs = pairs
	m := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		m[kv.key] = kv.value
	}
	if len(m) != len(pairs) { // a duplicate key
		return false
	}
	*p = m
	return true
}

func (d *metadataDecoder) refs(p *map[string]SnapshotRef) bool {
	if d.null() {
		return true
	}
	if !d.consume('{') {
		return false
	}
	m := map[string]SnapshotRef{}
	if d.peek() == '}' {
		d.pos++
		*p = m
		return true
	}
	for {
		name, ok := d.stringValue()
		var r SnapshotRef
		if !ok || !d.consume(':') || !d.snapshotRef(&r) {
			return false
		}
		if _, dup := m[name]; dup {
			return false
		}
		m[name] = r
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			*p = m
			return true
		default:
			return false
		}
	}
}
