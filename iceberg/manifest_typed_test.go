package iceberg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/timelake/timelake/avro"
)

// sameManifestAsGeneric checks that the typed readers agree with the
// generic one on data: both fail, or both give the same manifest. For
// ManifestDataFiles, which skips the stats maps' bytes without checking
// their items: where the generic reader reads data it gives the same
// statuses and paths (and so where ReadManifest does), and where it reads
// what the generic reader refuses, the refusal was in a stats map. It
// says whether data read.
func sameManifestAsGeneric(t *testing.T, data []byte) bool {
	t.Helper()
	from := ManifestFile{ManifestPath: "m.avro", AddedSnapshotID: 99, SequenceNumber: 7}
	if r, err := avro.NewReader(data); err == nil && mapWhereRecord(r.Schema) {
		return false
	}
	want, werr := readManifestGeneric(data, from, true)
	got, gerr := ReadManifest(data, from)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("ReadManifest: generic error %v; typed %v", werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadManifest: typed and generic differ:\n typed   %+v\n generic %+v", got, want)
	}
	files, ferr := readManifestGeneric(data, from, false)
	type statusPath struct {
		Status EntryStatus
		Path   string
	}
	var wantFiles, gotFiles []statusPath
	if ferr == nil {
		for _, e := range files.Entries {
			wantFiles = append(wantFiles, statusPath{e.Status, e.DataFile.Path})
		}
	}
	var c avro.Cache
	derr := ManifestDataFiles(&c, data, from, func(st EntryStatus, p string) error {
		gotFiles = append(gotFiles, statusPath{st, p})
		return nil
	})
	if ferr == nil && derr != nil {
		t.Fatalf("ManifestDataFiles: generic read it; typed %v", derr)
	}
	if ferr != nil && derr == nil && !inStatsMap(ferr) {
		t.Fatalf("ManifestDataFiles: generic error %v (not in a stats map); typed read it", ferr)
	}
	if ferr == nil && !reflect.DeepEqual(gotFiles, wantFiles) {
		t.Fatalf("ManifestDataFiles: typed %v, generic %v", gotFiles, wantFiles)
	}
	if gerr == nil {
		var fromFull []statusPath
		for _, e := range got.Entries {
			fromFull = append(fromFull, statusPath{e.Status, e.DataFile.Path})
		}
		if derr != nil || !reflect.DeepEqual(gotFiles, fromFull) {
			t.Fatalf("ManifestDataFiles: %v, %v; ReadManifest %v", gotFiles, derr, fromFull)
		}
	}
	return werr == nil
}

// sampleValue is a value of s for the generic writer, chosen by the field's
// name where the manifest reader cares (i varies it between records).
func sampleValue(s *avro.Schema, name string, i int) any {
	switch s.Type {
	case avro.TypeUnion:
		if name == "snapshot_id" && i%2 == 0 {
			return nil // inherited
		}
		for _, b := range s.Branches {
			if b.Type != avro.TypeNull {
				return sampleValue(b, name, i)
			}
		}
		return nil
	case avro.TypeRecord:
		m := map[string]any{}
		for _, f := range s.Fields {
			m[f.Name] = sampleValue(f.Type, f.Name, i)
		}
		return m
	case avro.TypeArray:
		var l []any
		for j := range i%3 + 1 {
			l = append(l, sampleValue(s.Items, name, i*10+j))
		}
		return l
	case avro.TypeMap:
		return map[string]any{"a": sampleValue(s.Values, name, i)}
	case avro.TypeInt:
		switch name {
		case "status":
			return int32(i % 3)
		case "content":
			return int32(0)
		}
		return int32(i + 1)
	case avro.TypeLong:
		return int64(i*1000 + 7)
	case avro.TypeString:
		switch name {
		case "file_path":
			return fmt.Sprintf("s3://b/t/data/%d.parquet", i)
		case "file_format":
			return FormatParquet
		}
		return "x"
	case avro.TypeEnum:
		return s.Symbols[i%len(s.Symbols)]
	case avro.TypeBytes:
		return []byte{byte(i), 1, 2}
	case avro.TypeFixed:
		return bytes.Repeat([]byte{byte(i)}, s.Size)
	case avro.TypeBoolean:
		return i%2 == 0
	case avro.TypeDouble:
		return 1.5
	case avro.TypeFloat:
		return float32(2.5)
	}
	return nil
}

// manifestVariant writes three sample entries with schema s and the header
// of a Timelake manifest.
func manifestVariant(t testing.TB, s *avro.Schema, records func(i int) any) []byte {
	var buf bytes.Buffer
	w, err := avro.NewWriter(&buf, s, avro.WriterOptions{Codec: avro.Deflate, Sync: sync16(6), Meta: map[string][]byte{
		metaSchema:          []byte(`{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"ts","required":true,"type":"timestamptz"}]}`),
		metaSchemaID:        []byte("0"),
		metaPartitionSpec:   []byte(`[{"name":"ts_day","transform":"day","source-id":1,"field-id":1000}]`),
		metaPartitionSpecID: []byte("0"),
		metaFormatVersion:   []byte("2"),
		metaContent:         []byte("data"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		v := sampleValue(s, "", i)
		if records != nil {
			v = records(i)
		}
		if err := w.Append(v); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// entrySchema is Timelake's manifest_entry schema (day-partitioned) with
// edit applied to it and to its data_file record.
func entrySchema(t testing.TB, edit func(entry, dataFile *avro.Schema)) *avro.Schema {
	s, err := manifestEntrySchema(PartitionSpec{Fields: []PartitionField{{Name: "ts_day", Transform: "day", SourceID: 1, FieldID: 1000}}},
		&Schema{Fields: []SchemaField{{ID: 1, Name: "ts", Type: json.RawMessage(`"timestamptz"`)}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	edit(s, s.Field("data_file").Type)
	return s
}

func setType(s *avro.Schema, name string, t *avro.Schema) {
	s.Field(name).Type = t
}

func dropField(s *avro.Schema, name string) {
	for i, f := range s.Fields {
		if f.Name == name {
			s.Fields = append(s.Fields[:i:i], s.Fields[i+1:]...)
			return
		}
	}
}

// manifestSeeds are manifests of several writers and schema forms: ours,
// pyiceberg's, and hand-built ones with other engines' liberties (extra
// and reordered fields, int for long, enums for strings, fixed bounds,
// optional required fields, unions of records) and with
// schemas the reader refuses.
func manifestSeeds(t testing.TB) (good, bad map[string][]byte) {
	good, bad = map[string][]byte{}, map[string][]byte{}
	for _, name := range []string{"manifest.avro", "pyiceberg/manifest-1.avro", "pyiceberg/manifest-2.avro", "../../avro/testdata/pyiceberg-manifest.avro"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		good[name] = b
	}
	good["ours, 5 entries"], _ = benchManifest(t, 5)
	unpartitioned := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	var buf bytes.Buffer
	entries := fixtureEntries()
	entries[0].DataFile.EqualityIDs, entries[0].DataFile.KeyMetadata, entries[0].DataFile.SortOrderID = []int32{}, []byte{}, nil
	entries[1].DataFile.EqualityIDs, entries[1].DataFile.SplitOffsets, entries[1].DataFile.ColumnSizes = []int32{1, 2}, []int64{}, map[int32]int64{}
	entries[2].Status = StatusDeleted
	if _, err := WriteManifest(&buf, unpartitioned.Schemas[0], PartitionSpec{}, entries, sync16(2)); err != nil {
		t.Fatal(err)
	}
	good["ours, unpartitioned, empty lists"] = bytes.Clone(buf.Bytes())

	long, integer, str := avro.Primitive(avro.TypeLong), avro.Primitive(avro.TypeInt), avro.Primitive(avro.TypeString)
	extra := func(name string) *avro.Field {
		return &avro.Field{Name: name, Type: &avro.Schema{Type: avro.TypeMap, Values: avro.Optional(avro.Primitive(avro.TypeDouble))}}
	}
	variants := map[string]func(entry, df *avro.Schema){
		"as written": func(entry, df *avro.Schema) {},
		"reordered and extra fields": func(entry, df *avro.Schema) {
			entry.Fields[0], entry.Fields[4] = entry.Fields[4], entry.Fields[0]
			entry.Fields = append([]*avro.Field{extra("x")}, entry.Fields...)
			df.Fields[1], df.Fields[9] = df.Fields[9], df.Fields[1]
			df.Fields = append(df.Fields, extra("y"), &avro.Field{Name: "tail", Type: &avro.Schema{Type: avro.TypeArray, Items: str}})
			kv := df.Field("lower_bounds").Type.Branches[1].Items
			kv.Fields = append([]*avro.Field{{Name: "note", Type: str}}, kv.Fields[1], kv.Fields[0])
		},
		"int for long, enum strings, fixed bounds": func(entry, df *avro.Schema) {
			setType(df, "record_count", integer)
			setType(entry, "sequence_number", avro.Optional(integer))
			setType(df, "file_format", &avro.Schema{Type: avro.TypeEnum, Name: "format", Symbols: []string{"PARQUET", "AVRO"}})
			setType(df, "file_path", &avro.Schema{Type: avro.TypeEnum, Name: "paths", Symbols: []string{"a", "b"}})
			df.Field("upper_bounds").Type.Branches[1].Items.Fields[1].Type = &avro.Schema{Type: avro.TypeFixed, Name: "f8", Size: 8}
			setType(df, "key_metadata", avro.Optional(&avro.Schema{Type: avro.TypeFixed, Name: "f2", Size: 2}))
			setType(df, "split_offsets", avro.Optional(&avro.Schema{Type: avro.TypeArray, Items: integer}))
			setType(df, "equality_ids", avro.Optional(&avro.Schema{Type: avro.TypeArray, Items: long}))
			setType(df, "sort_order_id", avro.Optional(long))
			df.Field("column_sizes").Type.Branches[1].Items.Fields[1].Type = integer
		},
		"optional required fields, unions of records": func(entry, df *avro.Schema) {
			setType(entry, "status", avro.Optional(integer))
			setType(entry, "data_file", avro.Optional(df))
			setType(df, "partition", avro.Optional(df.Field("partition").Type))
			setType(df, "content", avro.Optional(integer))
			setType(df, "record_count", avro.Optional(long))
			items := df.Field("value_counts").Type.Branches[1]
			items.Items = avro.Optional(items.Items)
		},
		"no content, no file_sequence_number, no optional fields": func(entry, df *avro.Schema) {
			dropField(entry, "file_sequence_number")
			for _, n := range []string{"content", "column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata", "split_offsets", "equality_ids", "sort_order_id"} {
				dropField(df, n)
			}
		},
		"unpartitioned": func(entry, df *avro.Schema) {
			df.Field("partition").Type.Fields = nil
		},
	}
	for name, edit := range variants {
		good[name] = manifestVariant(t, entrySchema(t, edit), nil)
	}
	good["top-level union"] = manifestVariant(t, avro.Optional(entrySchema(t, func(entry, df *avro.Schema) {})), nil)

	// Partitions of another engine's spec: read, marked OtherPartition.
	for name, edit := range map[string]func(entry, df *avro.Schema){
		"two partition fields": func(entry, df *avro.Schema) {
			part := df.Field("partition").Type
			part.Fields = append(part.Fields, &avro.Field{Name: "h", Type: integer})
		},
		"string partition": func(entry, df *avro.Schema) { df.Field("partition").Type.Fields[0].Type = str },
	} {
		good[name] = manifestVariant(t, entrySchema(t, edit), nil)
	}
	refused := map[string]func(entry, df *avro.Schema){
		"long status":     func(entry, df *avro.Schema) { setType(entry, "status", long) },
		"bytes path":      func(entry, df *avro.Schema) { setType(df, "file_path", avro.Primitive(avro.TypeBytes)) },
		"no data_file":    func(entry, df *avro.Schema) { dropField(entry, "data_file") },
		"no record_count": func(entry, df *avro.Schema) { dropField(df, "record_count") },
		"string counts": func(entry, df *avro.Schema) {
			df.Field("null_value_counts").Type.Branches[1].Items.Fields[1].Type = str
		},
		"long keys":            func(entry, df *avro.Schema) { df.Field("column_sizes").Type.Branches[1].Items.Fields[0].Type = long },
		"no value":             func(entry, df *avro.Schema) { dropField(df.Field("lower_bounds").Type.Branches[1].Items, "value") },
		"string bounds":        func(entry, df *avro.Schema) { df.Field("lower_bounds").Type.Branches[1].Items.Fields[1].Type = str },
		"double sort order id": func(entry, df *avro.Schema) { setType(df, "sort_order_id", avro.Primitive(avro.TypeDouble)) },
		"record list items": func(entry, df *avro.Schema) {
			setType(df, "split_offsets", &avro.Schema{Type: avro.TypeArray, Items: &avro.Schema{Type: avro.TypeRecord, Name: "o", Fields: []*avro.Field{{Name: "o", Type: long}}}})
		},
	}
	for name, edit := range refused {
		bad[name] = manifestVariant(t, entrySchema(t, edit), nil)
	}
	// Values the schema allows but the reader refuses.
	s := entrySchema(t, func(entry, df *avro.Schema) {})
	bad["null sequence number on an EXISTING entry"] = manifestVariant(t, s, func(i int) any {
		v := sampleValue(s, "", i).(map[string]any)
		v["status"], v["sequence_number"] = int32(StatusExisting), nil
		return v
	})
	bad["status 3"] = manifestVariant(t, s, func(i int) any {
		v := sampleValue(s, "", i).(map[string]any)
		v["status"] = int32(3)
		return v
	})
	good["null partition value"] = manifestVariant(t, s, func(i int) any {
		v := sampleValue(s, "", i).(map[string]any)
		v["data_file"].(map[string]any)["partition"] = map[string]any{"ts_day": nil}
		return v
	})
	opt := entrySchema(t, func(entry, df *avro.Schema) { setType(entry, "data_file", avro.Optional(df)) })
	bad["null data_file"] = manifestVariant(t, opt, func(i int) any {
		v := sampleValue(opt, "", i).(map[string]any)
		v["data_file"] = nil
		return v
	})
	return good, bad
}

func TestManifestTypedMatchesGeneric(t *testing.T) {
	good, bad := manifestSeeds(t)
	for name, data := range good {
		t.Run(name, func(t *testing.T) {
			if !sameManifestAsGeneric(t, data) {
				_, err := ReadManifest(data, ManifestFile{ManifestPath: "m.avro"})
				t.Fatalf("seed does not read: %v", err)
			}
			m, _ := ReadManifest(data, ManifestFile{ManifestPath: "m.avro"})
			if len(m.Entries) == 0 {
				t.Fatal("no entries")
			}
		})
	}
	for name, data := range bad {
		t.Run("refused/"+name, func(t *testing.T) {
			if sameManifestAsGeneric(t, data) {
				t.Error("read without error")
			}
		})
	}
}

// A callback's error comes back from ManifestDataFiles as it is.
func TestManifestDataFilesCallbackError(t *testing.T) {
	data, mf := writeFixtureManifest(t)
	stop := errors.New("stop")
	n := 0
	err := ManifestDataFiles(nil, data, mf, func(EntryStatus, string) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("got %v after %d calls, want the callback's error after 1", err, n)
	}
}

// FuzzManifestTyped: on any bytes, the typed readers fail exactly when the
// generic one does, and otherwise read the same entries.
func FuzzManifestTyped(f *testing.F) {
	good, bad := manifestSeeds(f)
	for _, data := range good {
		f.Add(data)
	}
	for _, data := range bad {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameManifestAsGeneric(t, data)
	})
}
