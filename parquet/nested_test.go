package parquet

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadNestedPyarrow reads testdata/nested (nested_write.py: pyarrow's
// maps, lists, structs, lists of lists and a struct of a list and a map,
// in data pages v1 and v2, dictionary and plain, several row groups and
// pages, and the "item" element names) and compares every row with the
// JSON pyarrow's own values give.
func TestReadNestedPyarrow(t *testing.T) {
	raw, err := os.ReadFile("testdata/nested/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]*string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/nested/*.parquet")
	if len(files) != 6 {
		t.Fatalf("%d files in testdata/nested, want 6", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatal(err)
			}
			m := f.Meta()
			if len(m.Nested) != 5 || len(m.RowGroups) != 3 {
				t.Fatalf("%d nested columns, %d row groups; want 5 and 3", len(m.Nested), len(m.RowGroups))
			}
			// the flat column reads as before, beside the nested ones
			ts, err := f.ReadColumn(0, 0)
			if err != nil || len(ts.Ints) != 16 || ts.Ints[15] != 15 {
				t.Fatalf("ts: %v %v", ts.Ints, err)
			}
			for k, nc := range m.Nested {
				var got []*string
				for rg := range m.RowGroups {
					col, err := f.ReadNested(rg, k, nil)
					if err != nil {
						t.Fatalf("%s: %v", nc.Name, err)
					}
					for i, s := range col.Strs {
						if col.IsNull(i) {
							got = append(got, nil)
						} else {
							got = append(got, &s)
						}
					}
				}
				exp := want[nc.Name]
				if len(got) != len(exp) {
					t.Fatalf("%s: %d rows, want %d", nc.Name, len(got), len(exp))
				}
				for i := range exp {
					if (got[i] == nil) != (exp[i] == nil) || got[i] != nil && *got[i] != *exp[i] {
						t.Errorf("%s row %d: got %v, want %v", nc.Name, i, show(got[i]), show(exp[i]))
					}
				}
				if nc.FieldID != int32(k+2) {
					t.Errorf("%s: field id %d, want %d", nc.Name, nc.FieldID, k+2)
				}
			}
			// a struct field renamed in the table (id 14, "a") reads under
			// its new name
			col, err := f.ReadNested(0, 2, func(id int32) (string, bool) { return "alpha", id == 14 })
			if err != nil || col.Strs[0] != `{"alpha":1,"b":"x"}` {
				t.Errorf("renamed: %q %v", col.Strs[0], err)
			}
		})
	}
}

func show(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestReadNestedFlippedBytes reads a nested file with each byte in turn
// inverted: an error or rows, never a panic, and never a row count that
// is not the row group's.
func TestReadNestedFlippedBytes(t *testing.T) {
	orig, err := os.ReadFile("testdata/nested/v2_plain.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for i := range orig {
		b := append([]byte(nil), orig...)
		b[i] ^= 0xff
		f, err := Open(b)
		if err != nil {
			continue
		}
		for rg := range f.NumRowGroups() {
			for k := range f.Meta().Nested {
				col, err := f.ReadNested(rg, k, nil)
				if err == nil && int64(len(col.Strs)) != f.Meta().RowGroups[rg].NumRows {
					t.Fatalf("byte %d: %d rows, row group has %d", i, len(col.Strs), f.Meta().RowGroups[rg].NumRows)
				}
			}
		}
	}
}

// TestReadNestedEntryBound: pages holding more entries than their chunk's
// num_values are refused (ErrCorrupt) before their levels are held.
func TestReadNestedEntryBound(t *testing.T) {
	data, err := os.ReadFile("testdata/nested/v1_plain.parquet")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	leaf := f.Meta().Nested[1].Leaves()[0] // nums' element
	f.Meta().RowGroups[0].Columns[leaf].Meta.NumValues = 3
	if _, err := f.ReadNested(0, 1, nil); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "num_values") {
		t.Errorf("err = %v, want ErrCorrupt naming num_values", err)
	}
}
