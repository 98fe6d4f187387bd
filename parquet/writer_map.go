package parquet

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
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

// SpecOf is the ColumnSpec of a table's field: a nested field's is a
// map<string, string>'s (MapSpec) whatever it is, for NewWriter to refuse
// any other shape.
func SpecOf(f schema.Field) ColumnSpec {
	s := ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	s.Variant = f.Nested.IsVariant()
	if f.Type == schema.Nested && f.Nested.IsStringMap() {
		s.Map = &MapSpec{KeyID: int32(f.Nested.Key.ID), ValueID: int32(f.Nested.Value.ID), ValueRequired: f.Nested.Value.Required}
	}
	return s
}

// Leaf kinds of a colWriter.
const (
	leafFlat  = 0
	leafKey   = 1
	leafValue = 2
)

// addMapColumn adds map column cw.spec's two leaves: cw the key's, and
// the value's.
func (w *Writer) addMapColumn(cw *colWriter) error {
	c := cw.spec
	if c.Map == nil {
		return fmt.Errorf("parquet: column %q is nested: only a map<string, string> is written", c.Name)
	}
	base := uint32(1) // definition level of a present map
	if c.Required {
		base = 0
	}
	val := &colWriter{spec: c, w: w, in: cw.in, bufs: bufPool.Get().(*bufs), phys: TypeByteArray,
		dict: map[string]uint32{}, leaf: leafValue, maxDef: base + 2}
	if c.Map.ValueRequired {
		val.maxDef = base + 1
	}
	cw.phys, cw.dict, cw.leaf, cw.maxDef = TypeByteArray, map[string]uint32{}, leafKey, base+1
	w.strCols = append(w.strCols, cw.in)
	w.cols = append(w.cols, cw, val)
	return nil
}

// mapStats adds leaf cw's file statistics to its map's (FileStats has one
// per input column): its size over both leaves, its rows; no counts or
// bounds (Iceberg's are of the leaves, by their ids).
func mapStats(cols []ColumnStats, cw *colWriter, nrows int64) []ColumnStats {
	if cw.leaf == leafKey {
		cols = append(cols, ColumnStats{Values: nrows})
	}
	cols[len(cols)-1].CompressedSize += cw.file.CompressedSize
	return cols
}

// checkMap validates the rows of a map column before anything is written.
func (cw *colWriter) checkMap(c *rows.Column, n int, firstRow int64) error {
	name := cw.spec.Name
	var es []rows.MapEntry
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			if cw.spec.Required {
				return fmt.Errorf("parquet: row %d: column %q is required but null", firstRow+int64(i), name)
			}
			continue
		}
		var err error
		if es, err = rows.StringMapEntries(c.Strs[i], es); err != nil {
			return fmt.Errorf("parquet: row %d: column %q: %v", firstRow+int64(i), name, err)
		}
		if cw.spec.Map.ValueRequired {
			for _, e := range es {
				if e.Null {
					return fmt.Errorf("parquet: row %d: column %q: key %q: value is required but null", firstRow+int64(i), name, e.Key)
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
	var es []rows.MapEntry
	var vs []string
	var nulls []bool
	for r := a; r < b; r++ {
		if c.IsNull(r) {
			cw.reps, cw.defs = append(cw.reps, 0), append(cw.defs, 0)
			cw.pageNulls++
			continue
		}
		es, _ = rows.StringMapEntries(c.Strs[r], es) // checked by checkMap
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
				vs, nulls = append(vs, e.Key), append(nulls, false)
			} else {
				if !e.Null {
					def = cw.maxDef
				} else {
					cw.pageNulls++
				}
				vs, nulls = append(vs, e.Value), append(nulls, e.Null)
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
	if cw.variant != nil {
		return cw.variantPath()
	}
	switch cw.leaf {
	case leafKey:
		return []string{cw.spec.Name, "key_value", "key"}
	case leafValue:
		return []string{cw.spec.Name, "key_value", "value"}
	}
	return []string{cw.spec.Name}
}
