package parquet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/timelake/timelake/rows"
)

// Writing a map<string, string> column (the labels case: Prometheus labels,
// OpenTelemetry attributes), the one nested shape the writer handles. A row
// holds the map as the compact JSON text of an object (rows.Column.Strs,
// as the reader gives it); it is written in Parquet's 3-level MAP layout:
//
//	<optional|required> group NAME (MAP)  field_id = the column's
//	  repeated group key_value
//	    required binary key (UTF8)        field_id = MapSpec.KeyID
//	    <optional|required> binary value (UTF8) field_id = MapSpec.ValueID
//
// as two leaf column writers sharing the column's rows, each with
// repetition and definition levels. A null row is a null map (unless
// the column is required), {} an empty map, a null value a null value
// (unless the value is required). The leaves get no min/max statistics and
// no column index: a key's or value's bounds say nothing of a row's.

// MapSpec makes a ColumnSpec of Type schema.Nested a map<string, string>.
type MapSpec struct {
	KeyID, ValueID int32 // Iceberg field ids of the key and the value
	ValueRequired  bool
}

// Leaf kinds of a colWriter.
const (
	leafFlat  = 0
	leafKey   = 1
	leafValue = 2
)

// mapEntry is one key and value of a row's map.
type mapEntry struct {
	key, value string
	null       bool
}

// parseStringMap reads a JSON object of string (or null) values, keeping
// the entries in the text's order. A duplicate key, a value of another
// type, anything that is not one object is refused.
func parseStringMap(text string, dst []mapEntry) ([]mapEntry, error) {
	dst = dst[:0]
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	t, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		k := t.(string) // object keys are always strings
		if seen[k] {
			return nil, fmt.Errorf("key %q appears twice", k)
		}
		seen[k] = true
		t, err = dec.Token()
		if err != nil {
			return nil, fmt.Errorf("key %q: %v", k, err)
		}
		switch v := t.(type) {
		case string:
			dst = append(dst, mapEntry{key: k, value: v})
		case nil:
			dst = append(dst, mapEntry{key: k, null: true})
		default:
			if _, ok := v.(json.Delim); ok {
				return nil, fmt.Errorf("key %q: value is not a string or null", k)
			}
			return nil, fmt.Errorf("key %q: value %v is not a string or null", k, v)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	return dst, nil
}

// checkMap validates the rows of a map column before anything is written.
func (cw *colWriter) checkMap(c *rows.Column, n int, firstRow int64) error {
	name := cw.spec.Name
	var es []mapEntry
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			if cw.spec.Required {
				return fmt.Errorf("parquet: row %d: column %q is required but null", firstRow+int64(i), name)
			}
			continue
		}
		var err error
		if es, err = parseStringMap(c.Strs[i], es); err != nil {
			return fmt.Errorf("parquet: row %d: column %q: %v", firstRow+int64(i), name, err)
		}
		if cw.spec.Map.ValueRequired {
			for _, e := range es {
				if e.null {
					return fmt.Errorf("parquet: row %d: column %q: key %q: value is required but null", firstRow+int64(i), name, e.key)
				}
			}
		}
	}
	return nil
}

// addMap appends rows [a,b) of a map column to this leaf's page: a
// repetition and a definition level per entry (one for a null or empty
// map), and the keys or the non-null values.
func (cw *colWriter) addMap(c *rows.Column, a, b int) {
	base := uint32(1) // definition level of a present map
	if cw.spec.Required {
		base = 0
	}
	var es []mapEntry
	var vs []string
	var nulls []bool
	for r := a; r < b; r++ {
		if c.IsNull(r) {
			cw.reps, cw.defs = append(cw.reps, 0), append(cw.defs, 0)
			cw.pageNulls++
			continue
		}
		es, _ = parseStringMap(c.Strs[r], es) // checked by checkMap
		if len(es) == 0 {
			cw.reps, cw.defs = append(cw.reps, 0), append(cw.defs, base)
			if base < cw.maxDef {
				cw.pageNulls++
			}
			continue
		}
		for i, e := range es {
			rep := uint32(1)
			if i == 0 {
				rep = 0
			}
			cw.reps = append(cw.reps, rep)
			def := base + 1 // the entry is there: the key is
			if cw.leaf == leafKey {
				vs, nulls = append(vs, e.key), append(nulls, false)
			} else {
				if !e.null {
					def = cw.maxDef
				} else {
					cw.pageNulls++
				}
				vs, nulls = append(vs, e.value), append(nulls, e.null)
			}
			cw.defs = append(cw.defs, def)
		}
	}
	cw.addStrings(vs, nulls)
}

// mapLevels appends a map leaf's page levels to dst: repetition levels
// (width 1), then definition levels, each with a 4-byte length prefix in
// data pages v1. It returns the bytes and the repetition levels' length.
func (cw *colWriter) mapLevels(dst []byte) ([]byte, int) {
	compat := cw.w.opt.Compat
	section := func(dst []byte, v []uint32, width uint) []byte {
		at := len(dst)
		if compat {
			dst = append(dst, 0, 0, 0, 0)
		}
		dst = appendHybrid(dst, v, width)
		if compat {
			binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		}
		return dst
	}
	dst = section(dst, cw.reps, 1)
	repLen := len(dst)
	dst = section(dst, cw.defs, uint(bits.Len32(cw.maxDef)))
	return dst, repLen
}

// mapSchema is the schema elements of map column cw (its key leaf).
func mapSchema(cw *colWriter) []schemaElement {
	s := cw.spec
	rep := repOptional
	if s.Required {
		rep = repRequired
	}
	valRep := repOptional
	if s.Map.ValueRequired {
		valRep = repRequired
	}
	leaf := func(name string, id int32, rep int32) schemaElement {
		return schemaElement{
			Name: name, Type: TypeByteArray, HasType: true,
			HasRepetition: true, Repetition: rep, FieldID: id, HasFieldID: true,
			Logical: logicalType{Kind: logicalString}, Converted: convUTF8, HasConverted: true,
		}
	}
	return []schemaElement{
		{Name: s.Name, HasRepetition: true, Repetition: rep, NumChildren: 1,
			Converted: convMap, HasConverted: true, Logical: logicalType{Kind: logicalMap},
			FieldID: s.FieldID, HasFieldID: true},
		{Name: "key_value", HasRepetition: true, Repetition: repRepeated, NumChildren: 2},
		leaf("key", s.Map.KeyID, repRequired),
		leaf("value", s.Map.ValueID, valRep),
	}
}

// path is the column chunk's path in the schema.
func (cw *colWriter) path() []string {
	switch cw.leaf {
	case leafKey:
		return []string{cw.spec.Name, "key_value", "key"}
	case leafValue:
		return []string{cw.spec.Name, "key_value", "value"}
	}
	return []string{cw.spec.Name}
}
