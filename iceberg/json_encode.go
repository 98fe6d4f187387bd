// The fast path's writer of table metadata (json.go has the design note and
// the member names).

package iceberg

import (
	"encoding/json"
	"slices"
	"strconv"
)

// metadataEncoder writes table metadata as encoding/json would: members in
// field order, map keys sorted, strings escaped for HTML, raw JSON
// compacted, Extra members last in key order. bad is set when a raw value
// is not valid JSON; the caller then lets encoding/json report it.
type metadataEncoder struct {
	b    []byte
	bad  bool
	keys []string // scratch for sorting map keys
	// verbatim names an Extra member whose value is already compact,
	// HTML-escaped JSON (the statistics Marshal encodes itself), written as
	// it is rather than compacted again: a table keeps a statistics entry
	// per snapshot, and compacting them all again was a commit's largest
	// use of encoding/json.
	verbatim string
}

func (e *metadataEncoder) metadata(m *Metadata) {
	e.b = append(e.b, '{')
	e.name(0, metadataNames)
	e.int(int64(m.FormatVersion))
	e.name(1, metadataNames)
	e.string(m.TableUUID)
	e.name(2, metadataNames)
	e.string(m.Location)
	e.name(3, metadataNames)
	e.int(m.LastSequenceNumber)
	e.name(4, metadataNames)
	e.int(m.LastUpdatedMs)
	e.name(5, metadataNames)
	e.int(int64(m.LastColumnID))
	e.name(6, metadataNames)
	encodeArray(e, m.Schemas, e.schema)
	e.name(7, metadataNames)
	e.int(int64(m.CurrentSchemaID))
	e.name(8, metadataNames)
	encodeArray(e, m.PartitionSpecs, e.partitionSpec)
	e.name(9, metadataNames)
	e.int(int64(m.DefaultSpecID))
	e.name(10, metadataNames)
	e.int(int64(m.LastPartitionID))
	e.name(11, metadataNames)
	e.stringMap(m.Properties)
	if m.CurrentSnapshotID != nil {
		e.name(12, metadataNames)
		e.int(*m.CurrentSnapshotID)
	}
	e.name(13, metadataNames)
	encodeArray(e, m.Snapshots, e.snapshot)
	e.name(14, metadataNames)
	encodeArray(e, m.SnapshotLog, e.snapshotLogEntry)
	e.name(15, metadataNames)
	encodeArray(e, m.MetadataLog, e.metadataLogEntry)
	e.name(16, metadataNames)
	encodeArray(e, m.SortOrders, e.sortOrder)
	e.name(17, metadataNames)
	e.int(int64(m.DefaultSortOrderID))
	e.name(18, metadataNames)
	e.refs(m.Refs)
	e.extra(m.Extra, metadataNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) schema(s *Schema) {
	e.b = append(e.b, '{')
	e.name(0, schemaNames)
	e.string(s.Type)
	e.name(1, schemaNames)
	e.int(int64(s.SchemaID))
	if len(s.IdentifierFieldIDs) > 0 {
		e.name(2, schemaNames)
		encodeArray(e, s.IdentifierFieldIDs, func(id *int) { e.int(int64(*id)) })
	}
	e.name(3, schemaNames)
	encodeArray(e, s.Fields, e.schemaField)
	e.extra(s.Extra, schemaNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) schemaField(f *SchemaField) {
	e.b = append(e.b, '{')
	e.name(0, schemaFieldNames)
	e.int(int64(f.ID))
	e.name(1, schemaFieldNames)
	e.string(f.Name)
	e.name(2, schemaFieldNames)
	e.b = strconv.AppendBool(e.b, f.Required)
	e.name(3, schemaFieldNames)
	e.raw(f.Type)
	if f.Doc != "" {
		e.name(4, schemaFieldNames)
		e.string(f.Doc)
	}
	e.extra(f.Extra, schemaFieldNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) partitionSpec(s *PartitionSpec) {
	e.b = append(e.b, '{')
	e.name(0, partitionSpecNames)
	e.int(int64(s.SpecID))
	e.name(1, partitionSpecNames)
	encodeArray(e, s.Fields, e.partitionField)
	e.extra(s.Extra, partitionSpecNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) partitionField(f *PartitionField) {
	e.b = append(e.b, '{')
	e.name(0, partitionFieldNames)
	e.string(f.Name)
	e.name(1, partitionFieldNames)
	e.string(f.Transform)
	e.name(2, partitionFieldNames)
	e.int(int64(f.SourceID))
	e.name(3, partitionFieldNames)
	e.int(int64(f.FieldID))
	e.extra(f.Extra, partitionFieldNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) sortOrder(s *SortOrder) {
	e.b = append(e.b, '{')
	e.name(0, sortOrderNames)
	e.int(int64(s.OrderID))
	e.name(1, sortOrderNames)
	encodeArray(e, s.Fields, e.sortField)
	e.extra(s.Extra, sortOrderNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) sortField(f *SortField) {
	e.b = append(e.b, '{')
	e.name(0, sortFieldNames)
	e.string(f.Transform)
	e.name(1, sortFieldNames)
	e.int(int64(f.SourceID))
	e.name(2, sortFieldNames)
	e.string(f.Direction)
	e.name(3, sortFieldNames)
	e.string(f.NullOrder)
	e.extra(f.Extra, sortFieldNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) snapshot(s *Snapshot) {
	e.b = append(e.b, '{')
	e.name(0, snapshotNames)
	e.int(s.SnapshotID)
	if s.ParentSnapshotID != nil {
		e.name(1, snapshotNames)
		e.int(*s.ParentSnapshotID)
	}
	e.name(2, snapshotNames)
	e.int(s.SequenceNumber)
	e.name(3, snapshotNames)
	e.int(s.TimestampMs)
	e.name(4, snapshotNames)
	e.string(s.ManifestList)
	e.name(5, snapshotNames)
	e.stringMap(s.Summary)
	if s.SchemaID != nil {
		e.name(6, snapshotNames)
		e.int(int64(*s.SchemaID))
	}
	e.extra(s.Extra, snapshotNames)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) snapshotLogEntry(l *SnapshotLogEntry) {
	e.b = append(e.b, '{')
	e.name(0, snapshotLogEntryNames)
	e.int(l.TimestampMs)
	e.name(1, snapshotLogEntryNames)
	e.int(l.SnapshotID)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) metadataLogEntry(l *MetadataLogEntry) {
	e.b = append(e.b, '{')
	e.name(0, metadataLogEntryNames)
	e.int(l.TimestampMs)
	e.name(1, metadataLogEntryNames)
	e.string(l.MetadataFile)
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) refs(refs map[string]SnapshotRef) {
	if refs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '{')
	// a copy: e.extra below reuses the scratch slice
	for i, k := range slices.Clone(sortedMemberKeys(e, refs)) {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.string(k)
		e.b = append(e.b, ':', '{')
		r := refs[k]
		e.name(0, snapshotRefNames)
		e.int(r.SnapshotID)
		e.name(1, snapshotRefNames)
		e.string(r.Type)
		e.extra(r.Extra, snapshotRefNames)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}

func (e *metadataEncoder) stringMap(m map[string]string) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '{')
	for i, k := range sortedMemberKeys(e, m) {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.string(k)
		e.b = append(e.b, ':')
		e.string(m[k])
	}
	e.b = append(e.b, '}')
}

// extra writes the members of x that names does not declare, by key.
func (e *metadataEncoder) extra(x Extra, names []string) {
	if len(x) == 0 {
		return
	}
	for _, k := range sortedMemberKeys(e, x) {
		if slices.Contains(names, k) {
			continue
		}
		e.b = append(e.b, ',')
		e.string(k)
		e.b = append(e.b, ':')
		if k == e.verbatim && e.verbatim != "" {
			e.b = append(e.b, x[k]...)
			continue
		}
		e.raw(x[k])
	}
}

// sortedMemberKeys returns the keys of m sorted, in a scratch slice valid until the
// next call.
func sortedMemberKeys[V any](e *metadataEncoder, m map[string]V) []string {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	return e.keys
}

// encodeArray writes s with elem writing each element (nil is null).
func encodeArray[T any](e *metadataEncoder, s []T, elem func(*T)) {
	if s == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		elem(&s[i])
	}
	e.b = append(e.b, ']')
}

// int writes v. It and name are kept out of line: inlined into every
// member they would grow the WebAssembly build by tens of kilobytes.
//
//go:noinline
func (e *metadataEncoder) int(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

// name writes the separator (none before member 0, which every struct
// writes) and the quoted name of member i.
//
//go:noinline
func (e *metadataEncoder) name(i int, names []string) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, names[i]...)
	e.b = append(e.b, '"', ':')
}

// string writes s quoted. Printable ASCII other than " \ < > & is written
// as is; anything else goes through encoding/json, whose escaping (HTML
// characters, U+2028, invalid UTF-8) the output must match.
func (e *metadataEncoder) string(s string) {
	for i := 0; i < len(s); i++ {
		if !htmlSafeByte[s[i]] {
			q, _ := json.Marshal(s) // a string always marshals
			e.b = append(e.b, q...)
			return
		}
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
}

// raw writes raw JSON compacted and HTML-escaped, as encoding/json writes a
// json.RawMessage (nil is null). Invalid JSON sets e.bad.
func (e *metadataEncoder) raw(r json.RawMessage) {
	if r == nil {
		e.b = append(e.b, "null"...)
		return
	}
	if plainJSONString(r) {
		e.b = append(e.b, r...)
		return
	}
	c, err := json.Marshal(r)
	if err != nil {
		e.bad = true
		return
	}
	e.b = append(e.b, c...)
}

// plainJSONString reports whether r is a string of printable ASCII with no
// escapes and nothing encoding/json would escape: such a value is written
// unchanged.
func plainJSONString(r []byte) bool {
	if len(r) < 2 || r[0] != '"' || r[len(r)-1] != '"' {
		return false
	}
	for _, c := range r[1 : len(r)-1] {
		if !htmlSafeByte[c] {
			return false
		}
	}
	return true
}
