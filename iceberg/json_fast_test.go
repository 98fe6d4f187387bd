package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestFastJSONMatchesReflection: the encodings an append makes on every
// commit (a manifest header's schema and partition fields, a statistics
// entry built here) are byte for byte encoding/json's, for random metadata
// with every awkward string, raw type and extra member randomMetadata makes,
// and for statistics entries with awkward paths and properties.
func TestFastJSONMatchesReflection(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	same := func(what string, got []byte, gotErr error, want []byte, wantErr error) {
		t.Helper()
		if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s (%v)\nwant %s (%v)", what, got, gotErr, want, wantErr)
		}
	}
	for i := range 2000 {
		m := randomMetadata(r)
		s := m.Schemas[0]
		got, gotErr := schemaJSON(&s)
		want, wantErr := json.Marshal(s)
		same(fmt.Sprintf("schema %d", i), got, gotErr, want, wantErr)
		fields := m.PartitionSpecs[0].Fields
		got, gotErr = partitionFieldsJSON(fields)
		want, wantErr = json.Marshal(fields)
		same(fmt.Sprintf("partition fields %d", i), got, gotErr, want, wantErr)
		got, gotErr = partitionFieldsJSON([]PartitionField{})
		want, wantErr = json.Marshal([]PartitionField{})
		same("no partition fields", got, gotErr, want, wantErr)
	}
	pieces := []string{"a", "/", "<", ">", "&", `"`, `\`, "\n", "\x01", "é", "\u2028", "😀", "\xff"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 2000 {
		s := StatisticsFile{SnapshotID: r.Int64() - r.Int64(), StatisticsPath: "s3://b/" + str(),
			FileSizeInBytes: r.Int64N(1 << 40), FileFooterSizeInBytes: r.Int64N(1 << 20)}
		for range r.IntN(3) {
			b := BlobMetadata{Type: str(), SnapshotID: r.Int64(), SequenceNumber: r.Int64N(1000)}
			for range r.IntN(3) {
				b.Fields = append(b.Fields, r.IntN(100)-5)
			}
			if r.IntN(2) == 0 {
				b.Properties = map[string]string{}
				for range r.IntN(3) {
					b.Properties[str()] = str()
				}
			}
			s.BlobMetadata = append(s.BlobMetadata, b)
		}
		got, err := s.JSON()
		// JSON writes empty lists where Go has nil ones, as the spec requires.
		ref := s
		if ref.BlobMetadata == nil {
			ref.BlobMetadata = []BlobMetadata{}
		}
		for j := range ref.BlobMetadata {
			if ref.BlobMetadata[j].Fields == nil {
				ref.BlobMetadata = append([]BlobMetadata(nil), ref.BlobMetadata...)
				ref.BlobMetadata[j].Fields = []int{}
			}
		}
		want, wantErr := json.Marshal(ref)
		same(fmt.Sprintf("statistics %d", i), got, err, want, wantErr)
	}
}

// TestFastJSONNamesMatchTags: the statistics encoder's member names are the
// struct tags, in field order.
func TestFastJSONNamesMatchTags(t *testing.T) {
	for _, tc := range []struct {
		v     any
		names []string
	}{{StatisticsFile{}, statisticsFileNames}, {BlobMetadata{}, blobMetadataNames}} {
		typ := reflect.TypeOf(tc.v)
		var tags []string
		for i := range typ.NumField() {
			if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "" {
				tags = append(tags, name)
			}
		}
		if !reflect.DeepEqual(tags, tc.names) {
			t.Errorf("%T: tags %q, encoder names %q", tc.v, tags, tc.names)
		}
	}
}

// TestFastReadsMatchDecoder: the shortcuts that read a field's primitive
// type name and an integer member without encoding/json read what
// encoding/json reads, and refuse what it refuses.
func TestFastReadsMatchDecoder(t *testing.T) {
	for _, raw := range []string{`"long"`, `"timestamptz"`, `"decimal(9,2)"`, ` "long"`, `"long" `, `"lo\u006eg"`, `"<x>"`, `"a\"b"`,
		`""`, `"é"`, `null`, `{"type":"struct","fields":[]}`, `7`, ``, `"`} {
		var want string
		if json.Unmarshal([]byte(raw), &want) != nil {
			want = ""
		}
		if got := (SchemaField{Type: json.RawMessage(raw)}).PrimitiveType(); got != want {
			t.Errorf("PrimitiveType(%s) = %q, want %q", raw, got, want)
		}
	}
	for _, raw := range []string{"0", "1", "42", "-5", "-0", "007", "1e3", "1.0", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", " 12", "12 ", "", "null", `"3"`} {
		var want int64
		wantOK := json.Unmarshal([]byte(raw), &want) == nil
		got, ok := extraInt(Extra{"x": json.RawMessage(raw)}, "x")
		if ok != wantOK || got != want {
			t.Errorf("extraInt(%s) = %d, %v; want %d, %v", raw, got, ok, want, wantOK)
		}
	}
}

// TestStatisticsWrittenVerbatim: statistics entries read from a document
// (indented, with characters encoding/json escapes) and entries built here
// are written as encoding/json writes them, though Marshal no longer
// compacts the member again.
func TestStatisticsWrittenVerbatim(t *testing.T) {
	base, err := benchMetadata(t, 1).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	id := *benchMetadata(t, 1).CurrentSnapshotID
	stats := fmt.Sprintf(`, "statistics" : [ {
		"snapshot-id" : %d, "statistics-path" : "s3://b/a<b>&c\u2028.puffin",
		"file-size-in-bytes" : 10, "file-footer-size-in-bytes" : 4,
		"blob-metadata" : [ { "type" : "x<y", "snapshot-id" : %d, "sequence-number" : 1, "fields" : [ 1, 2 ],
			"properties" : { "k" : "v&w", "é" : "\u00e9" } } ], "x-other" : { "a" : [ 1 , 2 ] } } ]`, id, id)
	doc := append(append(append([]byte(nil), base[:len(base)-1]...), stats...), '}')
	m, err := ParseMetadata(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Statistics) != 1 {
		t.Fatalf("statistics: %d entries, want 1", len(m.Statistics))
	}
	checkMarshalSame(t, "read entry", m)
	m.Statistics = append(m.Statistics, StatisticsFile{SnapshotID: id, StatisticsPath: "s3://b/<new>.puffin", FileSizeInBytes: 5,
		BlobMetadata: []BlobMetadata{{Type: "t", SnapshotID: id, Fields: []int{1}, Properties: map[string]string{"a": "<b>"}}}})
	checkMarshalSame(t, "read and built entries", m)
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"statistics-path":"s3://b/a\u003cb\u003e\u0026c\u2028.puffin"`)) {
		t.Errorf("the read entry is not compact and escaped:\n%s", out)
	}
	again, err := ParseMetadata(out)
	if err != nil {
		t.Fatal(err)
	}
	checkMarshalSame(t, "reread", again)
}
