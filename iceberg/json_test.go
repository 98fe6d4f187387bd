package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The reference is the encoding/json implementation ParseMetadata and
// Marshal used before the fast path: decodeMetadataReflect and
// marshalReflect (kept in metadata.go as the fallback, unchanged) over the
// per-type UnmarshalJSON/MarshalJSON methods (metadata.go, over json.go's
// unmarshalKeeping and marshalWith).

func referenceParse(data []byte) (*Metadata, error) {
	m, err := decodeMetadataReflect(data)
	if err != nil {
		return nil, err
	}
	if err := m.takeStatistics(); err != nil { // a layer above both decoders
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func referenceMarshal(m *Metadata) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	out := *m
	var err error
	if out.Extra, err = m.withStatistics(); err != nil {
		return nil, err
	}
	if out.Snapshots == nil {
		out.Snapshots = []Snapshot{}
	}
	if out.SnapshotLog == nil {
		out.SnapshotLog = []SnapshotLogEntry{}
	}
	if out.MetadataLog == nil {
		out.MetadataLog = []MetadataLogEntry{}
	}
	if out.Properties == nil {
		out.Properties = map[string]string{}
	}
	if out.Refs == nil {
		out.Refs = map[string]SnapshotRef{}
	}
	return marshalReflect(out)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// checkParseSame parses data with ParseMetadata and with the reference and
// fails unless both give the same error, or deeply equal metadata that
// marshals to the same bytes both ways. It reports whether the fast path
// accepted the document.
func checkParseSame(t testing.TB, what string, data []byte) (fast bool) {
	t.Helper()
	got, gotErr := ParseMetadata(data)
	want, wantErr := referenceParse(data)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("%s: error differs:\n got %v\nwant %v\ninput %q", what, gotErr, wantErr, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: parse differs:\n got %#v\nwant %#v\ninput %q", what, got, want, data)
	}
	_, fast = decodeMetadata(data)
	if got != nil {
		checkMarshalSame(t, what, got)
	}
	return fast
}

// checkMarshalSame fails unless Marshal and the reference give the same
// bytes or the same error.
func checkMarshalSame(t testing.TB, what string, m *Metadata) {
	t.Helper()
	got, gotErr := m.Marshal()
	want, wantErr := referenceMarshal(m)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("%s: marshal error differs:\n got %v\nwant %v", what, gotErr, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: marshal differs:\n got %s\nwant %s", what, got, want)
	}
}

// TestMemberNamesMatchTags: the fast path's member lists are the struct
// tags, in field order (the order both paths write).
func TestMemberNamesMatchTags(t *testing.T) {
	for _, tc := range []struct {
		v     any
		names []string
	}{
		{Metadata{}, metadataNames}, {Schema{}, schemaNames}, {SchemaField{}, schemaFieldNames},
		{PartitionSpec{}, partitionSpecNames}, {PartitionField{}, partitionFieldNames},
		{SortOrder{}, sortOrderNames}, {SortField{}, sortFieldNames}, {Snapshot{}, snapshotNames},
		{SnapshotRef{}, snapshotRefNames}, {SnapshotLogEntry{}, snapshotLogEntryNames},
		{MetadataLogEntry{}, metadataLogEntryNames},
	} {
		typ := reflect.TypeOf(tc.v)
		var tags []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "-" {
				tags = append(tags, name)
			}
		}
		if !reflect.DeepEqual(tags, tc.names) {
			t.Errorf("%s: names %q, struct tags %q", typ.Name(), tc.names, tags)
		}
	}
}

// metadataFiles are the metadata documents of the repository's fixtures.
func metadataFiles(t testing.TB) map[string][]byte {
	files := map[string][]byte{"pyiceberg/metadata.json": pyicebergFile(t, "metadata.json")}
	for _, name := range []string{"v1.metadata.json", "v2.metadata.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for _, n := range []int{0, 1, 10, 100} {
		b, err := benchMetadata(t, n).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		files[fmt.Sprintf("bench-%d", n)] = b
	}
	return files
}

// TestParseFastPathFixtures: the fixtures parse on the fast path, with the
// reference's result, and marshal to the reference's bytes; indenting them
// changes nothing.
func TestParseFastPathFixtures(t *testing.T) {
	for name, b := range metadataFiles(t) {
		if !checkParseSame(t, name, b) {
			t.Errorf("%s: the fast path gave up on it", name)
		}
		var ind bytes.Buffer
		json.Indent(&ind, b, "", "\t")
		if !checkParseSame(t, name+" indented", ind.Bytes()) {
			t.Errorf("%s indented: the fast path gave up on it", name)
		}
	}
}

// TestParseEdgeCases: documents at the edges of what the fast path takes,
// each compared with the reference; fast says whether the fast path must
// take it (the rest it must give up on, or agree anyway).
func TestParseEdgeCases(t *testing.T) {
	good, _ := fixtureMetadata(t).Marshal()
	empty, _ := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil).Marshal()
	sub := func(doc []byte, old, new string) []byte {
		if !bytes.Contains(doc, []byte(old)) {
			t.Fatalf("edit: %q not in the document", old)
		}
		return bytes.Replace(doc, []byte(old), []byte(new), 1)
	}
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	for _, tc := range []struct {
		name string
		in   []byte
		fast bool
	}{
		{"fixture", good, true},
		{"empty table", empty, true},
		{"current-snapshot-id -1", sub(empty, `"snapshots":`, `"current-snapshot-id":-1,"snapshots":`), false},
		{"current-snapshot-id null", sub(empty, `"snapshots":`, `"current-snapshot-id":null,"snapshots":`), false},
		{"parent null", sub(good, `"sequence-number":1`, `"parent-snapshot-id":null,"sequence-number":1`), true},
		{"type null", sub(good, `"type":"double"`, `"type":null`), true},
		{"type nested", sub(good, `"type":"double"`, `"type": {"type":"list", "element-id":7,"element":"int","element-required":false}`), true},
		{"summary null value", sub(good, `"operation":"append"`, `"operation":"append","x":null`), true},
		{"summary empty key", sub(good, `"operation":"append"`, `"operation":"append","":"e"`), true},
		{"summary duplicate", sub(good, `"operation":"append"`, `"operation":"append","operation":"x"`), false},
		{"identifier ids empty", sub(good, `"identifier-field-ids":[2,1]`, `"identifier-field-ids":[]`), true},
		{"identifier ids null", sub(good, `"identifier-field-ids":[2,1]`, `"identifier-field-ids":null`), true},
		{"identifier ids null element", sub(good, `"identifier-field-ids":[2,1]`, `"identifier-field-ids":[null,1]`), true},
		{"schema null", sub(good, `"schemas":[`, `"schemas":[null,`), true},
		{"log entry null", sub(good, `"snapshot-log":[`, `"snapshot-log":[null,`), true},
		{"log entry unknown member", sub(good, `"snapshot-log":[{`, `"snapshot-log":[{"x":[1,{"y":2}],`), true},
		{"log entry member case", sub(good, `"snapshot-log":[{`, `"snapshot-log":[{"Timestamp-MS":5,`), false},
		{"ref extra", sub(good, `"type":"branch"`, `"type":"branch","max-ref-age-ms":1000`), true},
		{"ref null", sub(good, `"refs":{`, `"refs":{"t":null,`), true},
		{"refs empty", sub(empty, `"refs":{}`, `"refs": { }`), true},
		{"properties null", sub(good, `"properties":{`, `"properties":null,"p":{`), false},
		{"extra named Extra", sub(good, `"location"`, `"Extra":1,"location"`), true},
		{"member case", sub(good, `"location":"s3://bucket/tables/metrics",`, `"location":"s3://bucket/tables/metrics","Location":"s3://x",`), false},
		{"member case only", sub(good, `"location"`, `"LOCATION"`), false},
		{"member escaped", sub(good, `"location"`, `"loc\u0061tion"`), false},
		{"member non-ASCII", sub(good, `"location"`, `"ſchemas":1,"location"`), false},
		{"member duplicate", sub(good, `"last-column-id":6`, `"last-column-id":6,"last-column-id":6`), false},
		{"extra duplicate", sub(good, `"location"`, `"x":1,"x":2,"location"`), false},
		{"string escapes", sub(good, `"s3://bucket/tables/metrics"`, `"s3:\/\/bucket\/tables\/metrics"`), true},
		{"string unicode escapes", sub(good, `"ts_day"`, `"ts\u005fday\ud800x\u00e9"`), true},
		{"string non-ASCII", sub(good, `"ts_day"`, "\"ts_d\u00e4y\u2028\""), true},
		{"string invalid UTF-8", sub(good, `"ts_day"`, "\"ts_\xffday\""), true},
		{"string HTML", sub(good, `"ts_day"`, `"<ts>&day"`), true},
		{"string control", sub(good, `"ts_day"`, "\"ts\tday\""), false},
		{"extra HTML and U+2028", sub(good, `"location"`, "\"x\": [\"<a>\u2028\", 1.5e3 ],\"location\""), true},
		{"extra invalid UTF-8", sub(good, `"location"`, "\"x\":\"\xff\",\"location\""), true},
		{"number -0", sub(good, `"default-spec-id":0`, `"default-spec-id":-0`), true},
		{"number fraction", sub(good, `"default-spec-id":0`, `"default-spec-id":0.0`), false},
		{"number exponent", sub(good, `"default-spec-id":0`, `"default-spec-id":0e0`), false},
		{"number leading zero", sub(good, `"default-spec-id":0`, `"default-spec-id":00`), false},
		{"number overflow", sub(good, `"last-updated-ms":1795000001000`, `"last-updated-ms":9223372036854775808`), false},
		{"number min", sub(good, `"last-updated-ms":1795000001000`, `"last-updated-ms":-9223372036854775808`), true},
		{"number 19 digits", sub(good, `"last-updated-ms":1795000001000`, `"last-updated-ms":1000000000000000000`), true},
		{"bool as number", sub(good, `"required":true`, `"required":1`), false},
		{"string as number", sub(good, `"schema-id":0`, `"schema-id":"0"`), false},
		{"deep extra", sub(good, `"location"`, `"x":`+deep+`,"location"`), false},
		{"trailing space", append(append([]byte{}, good...), " \n"...), true},
		{"trailing garbage", append(append([]byte{}, good...), " x"...), false},
		{"two documents", append(append([]byte{}, good...), good...), false},
		{"leading BOM", append([]byte("\xef\xbb\xbf"), good...), false},
		{"null", []byte("null"), false},
		{"nothing", nil, false},
		{"top-level null member", sub(good, `"location"`, `"sort-orders":null,"location"`), false},
	} {
		if fast := checkParseSame(t, tc.name, tc.in); tc.fast && !fast {
			t.Errorf("%s: the fast path gave up on it", tc.name)
		}
	}
}

// randomMetadata builds metadata with random strings (HTML characters,
// control characters, non-ASCII, invalid UTF-8), random extra members
// (sometimes not valid JSON), nil and empty lists and maps. Most of it
// validates.
func randomMetadata(r *rand.Rand) *Metadata {
	pieces := []string{"a", "Z", "0", "-", "/", ".", " ", "<", ">", "&", `"`, `\`, "\n", "\t", "\x01", "\x7f",
		"é", "\u2028", "\u2029", "😀", "\xff", "\xe2\x80"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	raws := []string{`1`, `-2.5e3`, `"s"`, `"<&>"`, "\"\u2028\"", `null`, `true`, `[]`, `{}`, ` [ 1 , { "a" : "b" } ] `,
		"\t{\"k\":\n[null]}", `{"nested":{"x":[1,2,3]}}`, `"\u00e9\n"`}
	bad := []string{``, `{`, `[1,]`, `"x`, `01`, `nul`}
	extra := func() Extra {
		if r.IntN(3) > 0 {
			return nil
		}
		x := Extra{}
		for range r.IntN(4) {
			v := raws[r.IntN(len(raws))]
			if r.IntN(40) == 0 {
				v = bad[r.IntN(len(bad))]
			}
			// Mostly names the fast path takes; a declared name is never
			// written from Extra; other names make it give up.
			k := []string{"x-engine", "statistics", "first-row-id", "type"}[r.IntN(4)]
			if r.IntN(30) == 0 {
				k = str()
			}
			x[k] = json.RawMessage(v)
		}
		return x
	}
	m := NewTableMetadata(fixtureTable(r2tb{}), fixtureUUID, fixtureLocation, 1, nil)
	m.Extra = extra()
	m.TableUUID, m.Location = fixtureUUID+str(), fixtureLocation+str()
	m.Properties[str()] = str()
	if r.IntN(4) == 0 {
		m.Properties = nil
	}
	for i := range m.Schemas[0].Fields {
		f := &m.Schemas[0].Fields[i]
		f.Name, f.Doc, f.Extra = str(), str(), extra()
		switch r.IntN(6) {
		case 0:
			f.Type = nil
		case 1:
			f.Type = json.RawMessage(raws[r.IntN(len(raws))])
		}
	}
	m.Schemas[0].Extra = extra()
	if r.IntN(3) == 0 {
		m.Schemas[0].IdentifierFieldIDs = []int{}
	}
	m.PartitionSpecs[0].Fields[0].Name, m.PartitionSpecs[0].Fields[0].Extra = str(), extra()
	m.PartitionSpecs[0].Extra = extra()
	m.SortOrders[0].Fields[0].Direction, m.SortOrders[0].Fields[0].Extra = str(), extra()
	m.SortOrders[0].Extra = extra()
	if r.IntN(5) == 0 {
		m.SortOrders, m.DefaultSortOrderID = nil, 0
	}
	var parent *int64
	for i := range r.IntN(4) {
		id := int64(r.Uint64()>>1) + 1
		s := Snapshot{SnapshotID: id, ParentSnapshotID: parent, SequenceNumber: int64(i + 1), TimestampMs: r.Int64(),
			ManifestList: "s3://m/" + str(), Summary: map[string]string{"operation": str()}, Extra: extra()}
		for range r.IntN(5) {
			s.Summary[str()] = str()
		}
		if r.IntN(2) == 0 {
			sid := r.IntN(3) - 1
			s.SchemaID = &sid
		}
		m.Snapshots = append(m.Snapshots, s)
		m.SnapshotLog = append(m.SnapshotLog, SnapshotLogEntry{TimestampMs: r.Int64(), SnapshotID: id})
		m.MetadataLog = append(m.MetadataLog, MetadataLogEntry{TimestampMs: r.Int64(), MetadataFile: str()})
		m.LastSequenceNumber = int64(i + 1)
		m.CurrentSnapshotID = &id
		m.Refs = map[string]SnapshotRef{MainBranch: {SnapshotID: id, Type: "branch", Extra: extra()}}
		if r.IntN(2) == 0 {
			m.Refs[str()] = SnapshotRef{SnapshotID: id, Type: "tag"}
		}
		parent = &id
	}
	if r.IntN(3) == 0 {
		m.Snapshots, m.SnapshotLog, m.MetadataLog = []Snapshot{}, nil, []MetadataLogEntry{}
		m.CurrentSnapshotID, m.Refs = nil, nil
	}
	return m
}

// r2tb lets randomMetadata use fixtureTable outside a test.
type r2tb struct{ testing.TB }

func (r2tb) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// editDocument makes a few random edits to a metadata document: whitespace,
// nulls, duplicated or re-cased members, other numbers, escaped strings,
// cut or inserted bytes.
func editDocument(r *rand.Rand, doc []byte) []byte {
	out := append([]byte(nil), doc...)
	for range 1 + r.IntN(3) {
		i := r.IntN(len(out) + 1)
		var ins string
		switch r.IntN(12) {
		case 0:
			ins = []string{" ", "\n", "\t", "\r", "\x00", "\xa0"}[r.IntN(6)]
		case 1:
			ins = []string{"null", "-1", "0", "-0", "1.0", "1e3", "99999999999999999999", `""`, "[]", "{}", "true"}[r.IntN(11)]
		case 2:
			ins = []string{",", ":", "{", "}", "[", "]", `"`, `\`}[r.IntN(8)]
		case 3: // duplicate or re-case a member name
			if j := bytes.IndexByte(out[i:], '"'); j >= 0 {
				k := bytes.IndexByte(out[i+j+1:], '"')
				if k >= 0 {
					name := out[i+j : i+j+k+2]
					if r.IntN(2) == 0 {
						out = append(out[:i+j], append(bytes.ToUpper(name), out[i+j+len(name):]...)...)
					} else {
						out = append(out[:i+j], append(append(append([]byte{}, name...), ':', '1', ','), out[i+j:]...)...)
					}
				}
			}
			continue
		case 4: // escape a letter
			if j := bytes.IndexAny(out[i:], "abcdefghijklmnopqrstuvwxyz"); j >= 0 {
				c := out[i+j]
				out = append(out[:i+j], append([]byte(fmt.Sprintf(`\u%04x`, c)), out[i+j+1:]...)...)
			}
			continue
		case 5: // cut
			j := min(len(out), i+r.IntN(20))
			out = append(out[:i], out[j:]...)
			continue
		case 6: // an unknown member
			if j := bytes.IndexByte(out[i:], '{'); j >= 0 {
				out = append(out[:i+j+1], append([]byte(`"x-`+strconv.Itoa(r.IntN(3))+`":[1, "<\u2028>"],`), out[i+j+1:]...)...)
			}
			continue
		case 7: // a digit
			if j := bytes.IndexAny(out[i:], "0123456789"); j >= 0 {
				out[i+j] = "0123456789"[r.IntN(10)]
			}
			continue
		default:
			ins = string(rune(r.IntN(0x80)))
		}
		out = append(out[:i], append([]byte(ins), out[i:]...)...)
	}
	return out
}

// TestDifferentialRandom compares the fast path with the reference on
// random metadata and on random edits of its documents.
func TestDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 1000
	if testing.Short() {
		n = 100
	}
	var fastDocs, edited, editedFast int
	for i := range n {
		m := randomMetadata(r)
		what := fmt.Sprintf("random %d", i)
		checkMarshalSame(t, what, m)
		doc, err := m.Marshal()
		if err != nil {
			continue
		}
		if checkParseSame(t, what, doc) {
			fastDocs++
		}
		for j := range 5 {
			edited++
			if checkParseSame(t, fmt.Sprintf("%s edit %d", what, j), editDocument(r, doc)) {
				editedFast++
			}
		}
	}
	t.Logf("%d random documents, %d on the fast path; %d edits, %d on the fast path", n, fastDocs, edited, editedFast)
	if fastDocs < n/2 {
		t.Errorf("only %d of %d random documents took the fast path", fastDocs, n)
	}
}

// TestParseDoesNotAliasInput: the caller may reuse its buffer after
// ParseMetadata (the fast path slices strings from its own copy).
func TestParseDoesNotAliasInput(t *testing.T) {
	b, _ := benchMetadata(t, 3).Marshal()
	b = bytes.Replace(b, []byte(`"type":"double"`), []byte(`"type":"double","x-doc":{"a":[1]}`), 1)
	want, err := ParseMetadata(bytes.Clone(b))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := ParseMetadata(b)
	for i := range b {
		b[i] = 'X'
	}
	if !reflect.DeepEqual(got, want) || got.Schemas[0].Fields[2].Extra == nil {
		t.Errorf("metadata changed with the input buffer:\n got %+v\nwant %+v", got, want)
	}
}
