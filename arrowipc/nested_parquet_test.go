package arrowipc

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// readNestedPy is what testdata/readnested.py says pyarrow read from path
// (an Arrow stream, or a Parquet file read by pyarrow itself).
func readNestedPy(t *testing.T, path string) *pyNested {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(python(t), filepath.Join("testdata", "readnested.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow could not read %s: %v\n%s", path, err, stderr.String())
	}
	var got pyNested
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return &got
}

// TestWriterNestedAsPyarrowReadsParquet: the nested columns of pyarrow's
// Parquet files (parquet/testdata/nested: maps, lists, structs, lists of
// lists, a struct of a list and a map; three row groups), read by
// Timelake's reader as JSON text and written as an Arrow stream, are what
// pyarrow reads from the Parquet file itself: the same Arrow types (but
// for the name of a map's entries), field ids and nullability at every level, and the same values row for row.
func TestWriterNestedAsPyarrowReadsParquet(t *testing.T) {
	for _, name := range []string{"v2_dict.parquet", "v1_plain.parquet"} {
		path := filepath.Join("..", "parquet", "testdata", "nested", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		m := f.Meta()
		sch := &schema.Table{Time: 0, Ingest: -1, Fields: []schema.Field{{ID: 1, Name: "ts", Type: schema.Long, Required: true}}}
		for k, nc := range m.Nested {
			sch.Fields = append(sch.Fields, schema.Field{ID: int(nc.FieldID), Name: nc.Name, Type: schema.Nested, Required: nc.Required, Nested: m.Shape(k)})
		}
		w, err := NewStreamWriter(sch)
		if err != nil {
			t.Fatal(err)
		}
		var stream []byte
		for rg := range f.NumRowGroups() {
			ts, err := f.ReadColumn(rg, 0)
			if err != nil {
				t.Fatal(err)
			}
			b := &rows.Batch{Schema: sch, Len: int(m.RowGroups[rg].NumRows), Cols: []rows.Column{ts}}
			for k := range m.Nested {
				c, err := f.ReadNested(rg, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				b.Cols = append(b.Cols, c)
			}
			if stream, err = w.Append(stream, b); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "n.arrows")
		if err := os.WriteFile(out, w.End(stream), 0o644); err != nil {
			t.Fatal(err)
		}
		ours, theirs := readNestedPy(t, out), readNestedPy(t, path)
		// pyarrow names a map's entries after the Parquet group it read
		// them from ("map<string, string ('tags')>"); the stream, as
		// pyiceberg's schema and pa.map_, names them "entries"
		for i := range theirs.Schema {
			theirs.Schema[i].Type = entriesName.ReplaceAllString(theirs.Schema[i].Type, "")
		}
		if !reflect.DeepEqual(ours.Schema, theirs.Schema) {
			t.Errorf("%s: the stream's schema\n%+v\npyarrow's of the Parquet file\n%+v", name, ours.Schema, theirs.Schema)
		}
		if len(ours.Rows) != len(theirs.Rows) || len(ours.Rows) == 0 {
			t.Fatalf("%s: %d rows, pyarrow reads %d", name, len(ours.Rows), len(theirs.Rows))
		}
		for i := range ours.Rows {
			for j := range ours.Rows[i] {
				a, b := ours.Rows[i][j], theirs.Rows[i][j]
				if (a == nil) != (b == nil) || (a != nil && canonical(t, *a) != canonical(t, *b)) {
					t.Errorf("%s row %d column %d: stream %v, Parquet %v", name, i+1, j, deref(a), deref(b))
				}
			}
		}
	}
}

var entriesName = regexp.MustCompile(` \('[a-z]+'\)`)

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
