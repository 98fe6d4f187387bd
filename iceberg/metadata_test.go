package iceberg

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

// fixtureMetadata is the table after one append (snapshot fixtureSnapshot).
func fixtureMetadata(t testing.TB) *Metadata {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs,
		map[string]string{"write.parquet.compression-codec": "zstd"})
	id := fixtureSnapshot
	schemaID := 0
	m.Snapshots = []Snapshot{{SnapshotID: id, SequenceNumber: 1, TimestampMs: fixtureNowMs + 1000,
		ManifestList: fixtureLocation + "/metadata/snap-3051729675574597004-1-0b5e4f3a.avro",
		Summary:      map[string]string{"operation": "append", "added-data-files": "2", "total-records": "8"}, SchemaID: &schemaID}}
	m.CurrentSnapshotID = &id
	m.LastSequenceNumber = 1
	m.LastUpdatedMs = fixtureNowMs + 1000
	m.SnapshotLog = []SnapshotLogEntry{{TimestampMs: fixtureNowMs + 1000, SnapshotID: id}}
	m.MetadataLog = []MetadataLogEntry{{TimestampMs: fixtureNowMs, MetadataFile: fixtureLocation + "/metadata/v1.metadata.json"}}
	m.Refs = map[string]SnapshotRef{MainBranch: {SnapshotID: id, Type: "branch"}}
	return m
}

func TestNewTableMetadataGolden(t *testing.T) {
	for name, m := range map[string]*Metadata{
		"v1.metadata.json": NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil),
		"v2.metadata.json": fixtureMetadata(t),
	} {
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, b)
		back, err := ParseMetadata(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("%s: parse of marshal differs:\n got %+v\nwant %+v", name, back, m)
		}
	}
}

func TestTableSchemaParts(t *testing.T) {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	b, _ := json.Marshal(m.Schemas[0])
	want := `{"type":"struct","schema-id":0,"identifier-field-ids":[2,1],"fields":[` +
		`{"id":1,"name":"ts","required":true,"type":"timestamptz"},{"id":2,"name":"host","required":true,"type":"string"},` +
		`{"id":3,"name":"cpu","required":false,"type":"double"},{"id":4,"name":"mem","required":false,"type":"long"},` +
		`{"id":5,"name":"ok","required":false,"type":"boolean"},{"id":6,"name":"_ingest_ts","required":false,"type":"timestamptz"}]}`
	if string(b) != want {
		t.Errorf("schema:\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(m.PartitionSpecs[0])
	if want := `{"spec-id":0,"fields":[{"name":"ts_day","transform":"day","source-id":1,"field-id":1000}]}`; string(b) != want {
		t.Errorf("spec:\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(m.SortOrders)
	if want := `[{"order-id":1,"fields":[{"transform":"identity","source-id":2,"direction":"asc","null-order":"nulls-first"},` +
		`{"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}]`; string(b) != want {
		t.Errorf("sort orders:\n got %s\nwant %s", b, want)
	}
	if m.LastColumnID != 6 || m.LastPartitionID != 1000 || m.DefaultSortOrderID != 1 || m.CurrentSnapshotID != nil {
		t.Errorf("ids: last-column-id %d last-partition-id %d default-sort-order-id %d current %v",
			m.LastColumnID, m.LastPartitionID, m.DefaultSortOrderID, m.CurrentSnapshotID)
	}
	if m.Properties[PropTimeColumn] != "ts" || m.Properties[PropSeriesColumns] != "host" {
		t.Errorf("properties: got %v", m.Properties)
	}
}

func TestTableFromMetadata(t *testing.T) {
	for _, tr := range []schema.Transform{schema.Day, schema.Hour, schema.Month} {
		tbl, err := schema.New("time", []string{"region", "id"}, []schema.Field{
			{Name: "id", Type: schema.Long}, {Name: "v", Type: schema.Float, Required: true}, {Name: "s", Type: schema.String},
		}, tr)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewTableMetadata(tbl, fixtureUUID, fixtureLocation, 1, nil).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseMetadata(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TableFromMetadata(m)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tbl) {
			t.Errorf("%v: reopened table differs:\n got %+v\nwant %+v", tr, got, tbl)
		}
	}
	// Without the series property the table is one series.
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil)
	delete(m.Properties, PropSeriesColumns)
	if got, err := TableFromMetadata(m); err != nil || len(got.Series) != 0 || !got.HasKey() {
		t.Errorf("missing series property: got %+v, %v; want a table of one series", got, err)
	}
}

// TestTableFromForeignMetadata: any valid table gives a schema to read it
// by; WriteSupport says why a writer may not commit to it.
func TestTableFromForeignMetadata(t *testing.T) {
	base := func() *Metadata { return NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil) }
	tests := []struct {
		name      string
		edit      func(m *Metadata)
		check     func(t *testing.T, got *schema.Table)
		writeWant string // WriteSupport's error, "" for none
	}{
		{"not adopted", func(m *Metadata) { delete(m.Properties, PropTimeColumn) }, func(t *testing.T, got *schema.Table) {
			if got.HasKey() || len(got.Series) != 0 {
				t.Errorf("got time %d series %v, want no key", got.Time, got.Series)
			}
		}, "table not adopted"},
		{"nested column", func(m *Metadata) {
			m.LastColumnID++
			m.Schemas[0].Fields = append(m.Schemas[0].Fields, SchemaField{ID: m.LastColumnID, Name: "tags", Type: json.RawMessage(`{"type":"map","key-id":90,"key":"string","value-id":91,"value":"string","value-required":false}`)})
			m.LastColumnID = 91
		}, func(t *testing.T, got *schema.Table) {
			i := got.Index("tags")
			if len(got.Unread) != 0 || i < 0 || got.Fields[i].Type != schema.Nested || got.Fields[i].TypeText() != "map<string, string>" ||
				got.Fields[i].Nested.Key.ID != 90 || got.Fields[i].Nested.Value.ID != 91 || got.Fields[i].Nested.Value.Required {
				t.Errorf("unread %q, fields %+v: want tags read as map<string, string> with key id 90, optional value id 91", got.Unread, got.Fields)
			}
		}, ""}, // map<string, string> is written
		{"nested column not written: a map keyed by a list", func(m *Metadata) {
			m.Schemas[0].Fields = append(m.Schemas[0].Fields,
				SchemaField{ID: 90, Name: "tags", Type: json.RawMessage(`{"type":"map","key-id":91,"key":"string","value-id":92,"value":"string","value-required":false}`)},
				SchemaField{ID: 93, Name: "xs", Type: json.RawMessage(`{"type":"list","element-id":94,"element":"long","element-required":false}`)},
				SchemaField{ID: 95, Name: "m", Type: json.RawMessage(`{"type":"map","key-id":96,"key":{"type":"list","element-id":98,"element":"long","element-required":false},"value-id":97,"value":"long","value-required":false}`)})
			m.LastColumnID = 98
		}, nil, "column m map<list<long>, long>: a map keyed by list<long> is not written: Timelake reads it but does not write it"},
		{"nested column of a type not read", func(m *Metadata) {
			m.Schemas[0].Fields = append(m.Schemas[0].Fields, SchemaField{ID: 90, Name: "prices", Type: json.RawMessage(`{"type":"list","element-id":91,"element":"decimal(9,2)","element-required":false}`)})
			m.LastColumnID = 91
		}, func(t *testing.T, got *schema.Table) {
			if len(got.Unread) != 1 || !strings.HasPrefix(got.Unread[0], "prices ") || got.Index("prices") >= 0 {
				t.Errorf("unread %q, want prices left out", got.Unread)
			}
		}, "column prices list"},
		{"bucket spec", func(m *Metadata) {
			m.PartitionSpecs = append(m.PartitionSpecs, PartitionSpec{SpecID: 1, Fields: []PartitionField{
				m.PartitionSpecs[0].Fields[0], {Name: "host_bucket", Transform: "bucket[4]", SourceID: 2, FieldID: 1001}}})
			m.DefaultSpecID, m.LastPartitionID = 1, 1001
		}, func(t *testing.T, got *schema.Table) {
			if got.Partition != 0 || !got.HasKey() {
				t.Errorf("partition %v key %v, want no transform of ours and a key", got.Partition, got.HasKey())
			}
		}, ""},
		{"identity of a value column", func(m *Metadata) {
			m.PartitionSpecs = append(m.PartitionSpecs, PartitionSpec{SpecID: 1, Fields: []PartitionField{
				m.PartitionSpecs[0].Fields[0], {Name: "mem", Transform: "identity", SourceID: 4, FieldID: 1001}}})
			m.DefaultSpecID, m.LastPartitionID = 1, 1001
		}, nil, "field mem is of column mem, which is not the time or a series column"},
		{"void of a value column", func(m *Metadata) {
			m.PartitionSpecs = append(m.PartitionSpecs, PartitionSpec{SpecID: 1, Fields: []PartitionField{
				m.PartitionSpecs[0].Fields[0], {Name: "mem_null", Transform: "void", SourceID: 4, FieldID: 1001}}})
			m.DefaultSpecID, m.LastPartitionID = 1, 1001
		}, nil, ""},
		{"unknown transform", func(m *Metadata) {
			m.PartitionSpecs[0].Fields[0].Transform = "zorder"
		}, nil, "zorder"},
		{"foreign sort order", func(m *Metadata) {
			m.SortOrders = []SortOrder{{OrderID: 3, Fields: []SortField{{Transform: "identity", SourceID: 2, Direction: "desc", NullOrder: "nulls-last"}}}}
			m.DefaultSortOrderID = 3
		}, nil, "sort order 3"},
		{"our order beside the default", func(m *Metadata) {
			ours := m.SortOrders[0]
			ours.OrderID = 4
			m.SortOrders = []SortOrder{{OrderID: 3, Fields: []SortField{{Transform: "identity", SourceID: 2, Direction: "desc", NullOrder: "nulls-last"}}}, ours}
			m.DefaultSortOrderID = 3
		}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.edit(m)
			got, err := TableFromMetadata(m)
			if err != nil {
				t.Fatalf("TableFromMetadata: %v", err)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
			err = WriteSupport(m, got)
			switch {
			case tc.writeWant == "" && err != nil:
				t.Errorf("WriteSupport: %v, want nil", err)
			case tc.writeWant != "" && (err == nil || !strings.Contains(err.Error(), tc.writeWant)):
				t.Errorf("WriteSupport: %v, want an error containing %q", err, tc.writeWant)
			}
		})
	}
	m := base()
	m.SortOrders = append(m.SortOrders, SortOrder{OrderID: 7, Fields: m.SortOrders[0].Fields})
	m.DefaultSortOrderID = 7
	tbl, _ := TableFromMetadata(m)
	if id, ok := OurSortOrderID(m, tbl); !ok || id != 7 {
		t.Errorf("OurSortOrderID = %d, %v; want the default (7) among two equal orders", id, ok)
	}
}

// TestTableFromRenamedKeyColumns: another engine renamed the time and
// series columns (a new schema, the properties untouched) and added a
// column under the series column's old name: the key columns are followed
// by field id, from the oldest schema that has each property's name.
func TestTableFromRenamedKeyColumns(t *testing.T) {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil)
	next := m.Schemas[0]
	next.SchemaID = 1
	next.Fields = append([]SchemaField(nil), next.Fields...)
	for i := range next.Fields {
		switch next.Fields[i].Name {
		case "ts":
			next.Fields[i].Name = "time"
		case "host":
			next.Fields[i].Name = "hostname"
		}
	}
	m.LastColumnID++
	next.Fields = append(next.Fields, SchemaField{ID: m.LastColumnID, Name: "host", Type: json.RawMessage(`"string"`)})
	m.Schemas = append(m.Schemas, next)
	m.CurrentSchemaID = 1
	got, err := TableFromMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	if tf, sf := got.TimeField(), got.Fields[got.Series[0]]; tf.Name != "time" || tf.ID != 1 || sf.Name != "hostname" || sf.ID != 2 {
		t.Errorf("time %+v, series %+v; want time (id 1), hostname (id 2)", tf, sf)
	}
	if err := WriteSupport(m, got); err != nil {
		t.Errorf("WriteSupport: %v", err)
	}
}

// TestParseKeepsUnknownMembers: members another engine wrote survive
// Parse → Marshal, at the top level and inside snapshots and fields.
func TestParseKeepsUnknownMembers(t *testing.T) {
	b, _ := fixtureMetadata(t).Marshal()
	var doc map[string]any
	json.Unmarshal(b, &doc)
	doc["statistics"] = []any{map[string]any{"snapshot-id": 1, "statistics-path": "s3://x/stats.puffin"}}
	doc["partition-statistics"] = []any{}
	doc["x-engine"] = map[string]any{"nested": []any{1.5, "a"}}
	doc["snapshots"].([]any)[0].(map[string]any)["first-row-id"] = 0
	doc["schemas"].([]any)[0].(map[string]any)["fields"].([]any)[2].(map[string]any)["write-default"] = 1.5
	in, _ := json.Marshal(doc)
	m, err := ParseMetadata(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var a, c any
	json.Unmarshal(in, &a)
	json.Unmarshal(out, &c)
	if !reflect.DeepEqual(a, c) {
		t.Errorf("round trip lost or changed members:\n in  %s\n out %s", in, out)
	}
}

func TestParseMetadataCurrentSnapshotForms(t *testing.T) {
	b, _ := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil).Marshal()
	if bytes.Contains(b, []byte("current-snapshot-id")) {
		t.Errorf("empty table metadata writes current-snapshot-id: %s", b)
	}
	for _, form := range []string{`-1`, `null`} {
		in := bytes.Replace(b, []byte(`"snapshots":`), []byte(`"current-snapshot-id":`+form+`,"snapshots":`), 1)
		m, err := ParseMetadata(in)
		if err != nil {
			t.Fatalf("current-snapshot-id %s: %v", form, err)
		}
		if m.CurrentSnapshotID != nil || m.CurrentSnapshot() != nil {
			t.Errorf("current-snapshot-id %s: got %v, want nil", form, *m.CurrentSnapshotID)
		}
	}
}

func TestParseMetadataErrors(t *testing.T) {
	good, _ := fixtureMetadata(t).Marshal()
	edit := func(f func(map[string]any)) []byte {
		var doc map[string]any
		json.Unmarshal(good, &doc)
		f(doc)
		b, _ := json.Marshal(doc)
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"truncated", good[:len(good)/2], "truncated"},
		{"empty", nil, "truncated"},
		{"corrupt", append([]byte(`{"format-version":2,,`), good[20:]...), "corrupt at byte 21"},
		{"not an object", []byte(`[1,2]`), "table metadata"},
		{"wrong type", edit(func(d map[string]any) { d["last-sequence-number"] = "one" }), `"last-sequence-number"`},
		{"missing member", edit(func(d map[string]any) { delete(d, "table-uuid") }), `"table-uuid" is missing`},
		{"v4", edit(func(d map[string]any) { d["format-version"] = 4 }), "unsupported table: format-version 4"},
		{"no current schema", edit(func(d map[string]any) { d["current-schema-id"] = 5 }), "current-schema-id 5"},
		{"dangling current snapshot", edit(func(d map[string]any) { d["current-snapshot-id"] = 99 }), "current-snapshot-id 99"},
		{"dangling ref", edit(func(d map[string]any) {
			d["refs"] = map[string]any{"main": map[string]any{"snapshot-id": 98, "type": "branch"}}
		}), `ref "main" names snapshot 98`},
		{"field id above last", edit(func(d map[string]any) { d["last-column-id"] = 3 }), "above last-column-id"},
		{"no operation", edit(func(d map[string]any) {
			d["snapshots"].([]any)[0].(map[string]any)["summary"] = map[string]any{}
		}), "no operation"},
		{"sequence above last", edit(func(d map[string]any) { d["last-sequence-number"] = 0 }), "above last-sequence-number"},
	} {
		_, err := ParseMetadata(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestSnapshotIDsKeepAllBits(t *testing.T) {
	m := fixtureMetadata(t)
	big := int64(9223372036854775807)
	m.Snapshots[0].SnapshotID = big
	m.CurrentSnapshotID = &big
	m.Refs[MainBranch] = SnapshotRef{SnapshotID: big, Type: "branch"}
	m.SnapshotLog[0].SnapshotID = big
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"snapshot-id":9223372036854775807`)) {
		t.Errorf("snapshot id not written as an exact integer: %s", b)
	}
	back, err := ParseMetadata(b)
	if err != nil || *back.CurrentSnapshotID != big {
		t.Errorf("read back: got %v %v", back.CurrentSnapshotID, err)
	}
}

func FuzzParseMetadata(f *testing.F) {
	for _, m := range []*Metadata{fixtureMetadata(f), NewTableMetadata(fixtureTable(f), fixtureUUID, fixtureLocation, 1, nil)} {
		b, _ := m.Marshal()
		f.Add(b)
	}
	f.Add(pyicebergFile(f, "metadata.json"))
	b, _ := benchMetadata(f, 3).Marshal()
	f.Add(b)
	f.Add([]byte(`{"format-version":2,"table-uuid":"u","location":"l","last-sequence-number":0,"last-updated-ms":0,` +
		`"last-column-id":1,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a\u00e9","required":true,` +
		`"type":{"type":"list"},"x":[1, "<"]}]}],"current-schema-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],` +
		`"default-spec-id":0,"last-partition-id":999,"current-snapshot-id":-1,"sort-orders":[],"default-sort-order-id":0,` +
		`"refs":{},"Location":"x","statistics":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast path and the encoding/json reference agree on the
		// error or on the metadata and its bytes.
		checkParseSame(t, "fuzz input", data)
		m, err := ParseMetadata(data)
		if err != nil {
			return
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatalf("parsed metadata does not marshal: %v", err)
		}
		if _, err := ParseMetadata(out); err != nil {
			t.Fatalf("marshalled metadata does not parse: %v\n%s", err, out)
		}
	})
}
