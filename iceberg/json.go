package iceberg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Design note: a fast path beside encoding/json.
//
// ParseMetadata and Metadata.Marshal run on every commit, and a table's
// metadata grows with every snapshot. The per-type JSON methods
// (metadata.go, over unmarshalKeeping and marshalWith below) go through
// encoding/json twice per object and by reflection; metadataDecoder and
// metadataEncoder below read and write the metadata shape in one pass over
// the bytes instead (decoded strings are substrings of one copy of the
// input; integers are read in place).
//
// They are an optimisation, not a second definition of the format: on
// anything outside the shape writers produce — any syntax or type error, a
// duplicate member, a member name that differs from a declared one only in
// case (encoding/json matches those), a member name with escapes or
// non-ASCII bytes, a null top-level member, current-snapshot-id -1, raw JSON
// that does not compact — they give up, and the encoding/json path runs on
// the same bytes. Results and error messages are therefore those of the
// encoding/json path; json_test.go checks the fast path against it on
// random, edited and fuzzed documents. The per-type methods stay on the
// encoding/json path: they are that fallback and that reference.

// Extra holds the members of a JSON object that the Go struct does not
// declare, so that metadata written by another engine (statistics,
// partition-statistics, v3 row lineage, …) survives Parse → Marshal.
type Extra map[string]json.RawMessage

var knownKeysCache sync.Map // reflect.Type → map[string]bool

// knownKeys lists the JSON member names of struct type t.
func knownKeys(t reflect.Type) map[string]bool {
	if k, ok := knownKeysCache.Load(t); ok {
		return k.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	knownKeysCache.Store(t, keys)
	return keys
}

// unmarshalKeeping decodes data into v (a pointer to a struct whose
// declared fields are plain, without custom methods) and returns the
// members v does not declare.
func unmarshalKeeping(data []byte, v any) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	known := knownKeys(reflect.TypeOf(v).Elem())
	var extra Extra
	for k, raw := range all {
		if !known[k] {
			if extra == nil {
				extra = Extra{}
			}
			extra[k] = raw
		}
	}
	return extra, nil
}

// marshalWith encodes v and appends the extra members (sorted by key)
// that v does not already declare.
func marshalWith(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	known := knownKeys(reflect.TypeOf(v))
	buf := bytes.NewBuffer(b[:len(b)-1]) // drop the closing brace
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if known[k] {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// describeJSONError turns a decoding error into one that says what is wrong
// with the document and where.
func describeJSONError(what string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))),
		strings.Contains(err.Error(), "unexpected end of JSON input"):
		// encoding/json has no sentinel for a document cut short
		return fmt.Errorf("iceberg: %s is truncated (%d bytes): %w", what, len(data), err)
	case errors.As(err, &syn):
		return fmt.Errorf("iceberg: %s is corrupt at byte %d of %d: %w", what, syn.Offset, len(data), err)
	case errors.As(err, &typ):
		return fmt.Errorf("iceberg: %s: %q has a JSON %s where a %s belongs (byte %d)", what, typ.Field, typ.Value, typ.Type, typ.Offset)
	}
	return fmt.Errorf("iceberg: %s: %w", what, err)
}

// Member names in the order of the struct fields, which is the order
// Marshal writes them in. persisted: must not change.
var (
	metadataNames = []string{"format-version", "table-uuid", "location", "last-sequence-number",
		"last-updated-ms", "last-column-id", "schemas", "current-schema-id", "partition-specs",
		"default-spec-id", "last-partition-id", "properties", "current-snapshot-id", "snapshots",
		"snapshot-log", "metadata-log", "sort-orders", "default-sort-order-id", "refs"}
	schemaNames           = []string{"type", "schema-id", "identifier-field-ids", "fields"}
	schemaFieldNames      = []string{"id", "name", "required", "type", "doc"}
	partitionSpecNames    = []string{"spec-id", "fields"}
	partitionFieldNames   = []string{"name", "transform", "source-id", "field-id"}
	sortOrderNames        = []string{"order-id", "fields"}
	sortFieldNames        = []string{"transform", "source-id", "direction", "null-order"}
	snapshotNames         = []string{"snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "manifest-list", "summary", "schema-id"}
	snapshotRefNames      = []string{"snapshot-id", "type"}
	snapshotLogEntryNames = []string{"timestamp-ms", "snapshot-id"}
	metadataLogEntryNames = []string{"timestamp-ms", "metadata-file"}
)

// maxSkipDepth bounds the nesting of unknown members the fast path reads;
// deeper documents go to encoding/json, which has its own limit.
const maxSkipDepth = 1000

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

// peek skips whitespace and returns the next byte, 0 at the end.
func (d *metadataDecoder) peek() byte {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return c
		}
	}
	return 0
}

func (d *metadataDecoder) consume(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.pos++
	return true
}

// literal reads lit if it is next (a following letter is left for the
// caller to trip over).
func (d *metadataDecoder) literal(lit string) bool {
	if d.peek() == lit[0] && strings.HasPrefix(d.text[d.pos:], lit) {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *metadataDecoder) null() bool { return d.literal("null") }

// scanString finds the end of the string at d.pos, checking its escapes and
// that it has no control characters, as encoding/json's scanner does.
func (d *metadataDecoder) scanString() (end int, escaped, nonASCII, ok bool) {
	for i := d.pos + 1; i < len(d.data); {
		if plainStringByte[d.data[i]] {
			i++
			continue
		}
		switch c := d.data[i]; {
		case c == '"':
			return i + 1, escaped, nonASCII, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d.data) {
				return 0, false, false, false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d.data) {
					return 0, false, false, false
				}
				for _, h := range d.data[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, false, false, false
					}
				}
				i += 6
			default:
				return 0, false, false, false
			}
		case c < 0x20:
			return 0, false, false, false
		default:
			nonASCII = nonASCII || c >= utf8.RuneSelf
			i++
		}
	}
	return 0, false, false, false
}

// plainStringByte marks the bytes that stand for themselves in a JSON
// string and that encoding/json writes unchanged: printable ASCII but for
// " and \.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// htmlSafeByte marks the bytes encoding/json writes into a string as they
// are: plainStringByte but for < > &.
var htmlSafeByte = func() (t [256]bool) {
	t = plainStringByte
	t['<'], t['>'], t['&'] = false, false, false
	return t
}()

// memberName reads the name of a struct member: plain ASCII only, since
// encoding/json unescapes names and folds non-ASCII ones before matching.
func (d *metadataDecoder) memberName() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	end, escaped, nonASCII, ok := d.scanString()
	if !ok || escaped || nonASCII {
		return "", false
	}
	s := d.text[d.pos+1 : end-1]
	d.pos = end
	return s, true
}

// stringValue reads a string (not null).
func (d *metadataDecoder) stringValue() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.pos
	end, escaped, nonASCII, ok := d.scanString()
	if !ok {
		return "", false
	}
	d.pos = end
	if !escaped && (!nonASCII || utf8.Valid(d.data[start+1:end-1])) {
		return d.text[start+1 : end-1], true
	}
	// Escapes, or invalid UTF-8 that encoding/json replaces with U+FFFD.
	return unquote(d.data[start:end])
}

// unquote decodes a JSON string as encoding/json does.
func unquote(quoted []byte) (string, bool) {
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err == nil
}

// string reads a string, or null (leaving *p unchanged).
func (d *metadataDecoder) string(p *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.stringValue()
	*p = s
	return ok
}

func (d *metadataDecoder) bool(p *bool) bool {
	switch {
	case d.literal("true"):
		*p = true
	case d.literal("false"):
		*p = false
	default:
		return d.null()
	}
	return true
}

// integer reads a JSON number that is an integer of the given bit size. A
// fraction or an exponent gives up: encoding/json refuses them for Go
// integers.
func (d *metadataDecoder) integer(bitSize int) (int64, bool) {
	d.peek()
	start, i := d.pos, d.pos
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digits := i
	var n uint64
	for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
		n = n*10 + uint64(d.data[i]-'0')
		i++
	}
	switch {
	case i == digits, d.data[digits] == '0' && i > digits+1:
		return 0, false
	case i < len(d.data) && (d.data[i] == '.' || d.data[i] == 'e' || d.data[i] == 'E'):
		return 0, false
	}
	d.pos = i
	if i-digits > 18 || bitSize < 64 { // may overflow: let strconv decide
		v, err := strconv.ParseInt(d.text[start:i], 10, bitSize)
		return v, err == nil
	}
	if digits > start {
		return -int64(n), true
	}
	return int64(n), true
}

// int64 reads an integer, or null (leaving *p unchanged).
func (d *metadataDecoder) int64(p *int64) bool {
	if d.null() {
		return true
	}
	v, ok := d.integer(64)
	*p = v
	return ok
}

func (d *metadataDecoder) int(p *int) bool {
	if d.null() {
		return true
	}
	v, ok := d.integer(strconv.IntSize)
	*p = int(v)
	return ok
}

// int64Ptr reads an integer into a new *int64, or null (nil).
func (d *metadataDecoder) int64Ptr(p **int64) bool {
	if d.null() {
		return true
	}
	if len(d.int64s) == cap(d.int64s) {
		d.int64s = make([]int64, 0, 64)
	}
	d.int64s = d.int64s[:len(d.int64s)+1]
	*p = &d.int64s[len(d.int64s)-1]
	return d.int64(*p)
}

func (d *metadataDecoder) intPtr(p **int) bool {
	if d.null() {
		return true
	}
	if len(d.ints) == cap(d.ints) {
		d.ints = make([]int, 0, 64)
	}
	d.ints = d.ints[:len(d.ints)+1]
	*p = &d.ints[len(d.ints)-1]
	return d.int(*p)
}

// raw reads any value (null included) and stores a copy of its bytes.
func (d *metadataDecoder) raw(p *[]byte) bool {
	d.peek()
	start := d.pos
	if !d.skip(0) {
		return false
	}
	*p = append([]byte(nil), d.data[start:d.pos]...)
	return true
}

// skip reads over one value, checking its syntax.
func (d *metadataDecoder) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch d.peek() {
	case '"':
		end, _, _, ok := d.scanString()
		d.pos = end
		return ok
	case '{':
		d.pos++
		if d.peek() == '}' {
			d.pos++
			return true
		}
		for {
			if d.peek() != '"' {
				return false
			}
			end, _, _, ok := d.scanString()
			if d.pos = end; !ok || !d.consume(':') || !d.skip(depth+1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.pos++
			case '}':
				d.pos++
				return true
			default:
				return false
			}
		}
	case '[':
		d.pos++
		if d.peek() == ']' {
			d.pos++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return true
			default:
				return false
			}
		}
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.number()
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *metadataDecoder) number() bool {
	i := d.pos
	digits := func() bool {
		start := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	if i < len(d.data) && d.data[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	d.pos = i
	return true
}

// metadataEncoder writes table metadata as encoding/json would: members in
// field order, map keys sorted, strings escaped for HTML, raw JSON
// compacted, Extra members last in key order. bad is set when a raw value
// is not valid JSON; the caller then lets encoding/json report it.
type metadataEncoder struct {
	b    []byte
	bad  bool
	keys []string // scratch for sorting map keys
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
