package parquet

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// duckdbVariants are the values of testdata/variant/duckdb-shredded.parquet
// (written by DuckDB 1.5.5: interop/variant.py write-fixture) by id, as
// Timelake prints them. DuckDB shreds what it writes: the objects' fields
// are typed columns (some left in value, merged back), the primitives of
// other types are in value. DuckDB writes a SQL NULL variant as a variant
// null (id 2), as it reads both alike.
var duckdbVariants = map[int64]string{
	1:  `{"a":1,"b":[1.5,"x",null],"c":{"d":true}}`,
	2:  `null`,
	3:  `null`,
	4:  `"2024-03-01"`,
	5:  `"2024-03-01T12:00:00.123456"`,
	6:  `"2024-03-01T12:00:00.500000Z"`,
	7:  `"f24f9b64-81fa-49d1-b74e-8c09a6e31c56"`,
	8:  `"AQID"`,
	9:  `12.340`,
	10: `1.5`,
	11: `2.25`,
	12: `"13:46:40.250000"`,
	13: `{"k":[1,2],"z":{"y":"deep"}}`,
	14: `123456789012`,
	15: `"` + strings.Repeat("x", 70) + `"`,
	16: `"short"`,
	17: `-7`,
	18: `300`,
	19: `[]`,
	20: `{}`,
}

// TestReadVariantDuckDB: a shredded variant column DuckDB wrote (every
// primitive type, objects partly shredded, arrays of typed elements) is
// read row for row as the JSON above.
func TestReadVariantDuckDB(t *testing.T) {
	b, err := os.ReadFile("testdata/variant/duckdb-shredded.parquet")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Meta().Nested) != 1 || f.Meta().Nested[0].FieldID != 2 {
		t.Fatalf("nested: %+v", f.Meta().Nested)
	}
	got := map[int64]string{}
	for rg := range f.Meta().RowGroups {
		c, err := f.ReadNested(rg, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := f.ReadColumn(rg, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range c.Strs {
			if c.IsNull(i) {
				s = "SQL NULL"
			}
			got[ids.Ints[i]] = s
		}
	}
	if len(got) != len(duckdbVariants) {
		t.Errorf("%d rows, want %d", len(got), len(duckdbVariants))
	}
	for id, want := range duckdbVariants {
		if got[id] != want {
			t.Errorf("id %d: %s, want %s", id, got[id], want)
		}
	}
	// flipped bytes: an error or rows, never a panic
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0xff
		if f, err := Open(c); err == nil {
			for rg := range f.Meta().RowGroups {
				_, _ = f.ReadNested(rg, 0, nil)
			}
		}
	}
}

// TestReadVariantDuckDBAgrees: DuckDB reads the fixture as the same values
// TestReadVariantDuckDB expects (numbers by value), so that the JSON above
// is DuckDB's reading and not only ours.
func TestReadVariantDuckDBAgrees(t *testing.T) {
	py := interoptest.PythonV3(t)
	want := map[string][2]any{}
	for id, s := range duckdbVariants {
		var v any = s
		if s == "null" {
			v = nil // DuckDB reads a variant null as NULL
		}
		want[strconv.FormatInt(id, 10)] = [2]any{v, ""}
	}
	exp := filepath.Join(t.TempDir(), "want.json")
	raw, _ := json.Marshal(want)
	if err := os.WriteFile(exp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs("testdata/variant/duckdb-shredded.parquet")
	out, err := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "variant.py"), "compare", "parquet:"+path, "id", "v", exp).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got struct {
		Rows       int
		Mismatches []map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Rows != len(want) || len(got.Mismatches) > 0 {
		t.Errorf("DuckDB read %d rows (want %d); mismatches: %v", got.Rows, len(want), got.Mismatches)
	}
}

// TestReadVariantShreddedRefusals: a shredded field of a type Timelake
// does not read (a uuid in FIXED_LEN_BYTE_ARRAY) is ErrUnsupported naming
// it; a VARIANT group without metadata is ErrCorrupt.
func TestReadVariantShreddedRefusals(t *testing.T) {
	for _, c := range []struct {
		els  []schemaElement
		want error
		text string
	}{
		{[]schemaElement{
			{Name: "v", HasRepetition: true, Repetition: repOptional, NumChildren: 3, Logical: logicalType{Kind: logicalVariant}},
			{Name: "metadata", Type: TypeByteArray, HasType: true, HasRepetition: true, Repetition: repRequired},
			{Name: "value", Type: TypeByteArray, HasType: true, HasRepetition: true, Repetition: repOptional},
			{Name: "typed_value", Type: TypeFixedLenByteArray, TypeLength: 16, HasType: true, HasRepetition: true, Repetition: repOptional, Logical: logicalType{Kind: logicalUUID}},
		}, ErrUnsupported, `shredded variant field "v.typed_value"`},
		{[]schemaElement{
			{Name: "v", HasRepetition: true, Repetition: repOptional, NumChildren: 1, Logical: logicalType{Kind: logicalVariant}},
			{Name: "value", Type: TypeByteArray, HasType: true, HasRepetition: true, Repetition: repRequired},
		}, ErrCorrupt, `lacks its metadata`},
	} {
		m := &FileMeta{schema: append([]schemaElement{{Name: "root", NumChildren: 1}}, c.els...)}
		err := m.columns()
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("got %v, want %v: %s", err, c.want, c.text)
		}
	}
}
