package parquet

import (
	"fmt"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/variant"
)

// Writing a variant column (Iceberg format 3). A row holds the value as
// its JSON text (rows.Column.Strs, as the reader gives it); each Write
// encodes every row into Parquet's Variant binary encoding (package
// variant) and writes it unshredded:
//
//	<optional|required> group NAME (VARIANT(1))  field_id = the column's
//	  required binary metadata
//	  required binary value
//
// Neither leaf is repeated and both are required inside the group, so
// each is written as a flat binary column would be (a definition level
// per row, 0 for a null variant when the group is optional): the leaves
// are two colWriters of the flat kind, fed the encoded bytes instead of
// the input column. The metadata of rows of one shape repeats, which the
// dictionary encoding stores once per chunk. Like a map's leaves, they add
// no Iceberg metrics (FileStats has sizes and rows only).

// variantLeaf is the state of a variant leaf's colWriter: which leaf, and
// the current Write's encoded bytes it takes its values from.
type variantLeaf struct {
	value bool        // the value leaf; else the metadata leaf
	col   rows.Column // this Write's bytes, one per row (null for a null variant)
	enc   variant.Encoder
}

// addVariantColumn adds variant column cw.spec's two leaves: cw the
// metadata's, and the value's.
func (w *Writer) addVariantColumn(cw *colWriter) {
	cw.spec.Type = schema.String // flat byte-array pages; the schema says binary
	cw.phys, cw.dict, cw.variant = TypeByteArray, map[string]uint32{}, &variantLeaf{}
	val := &colWriter{spec: cw.spec, w: w, in: cw.in, bufs: bufPool.Get().(*bufs), phys: TypeByteArray,
		dict: map[string]uint32{}, variant: &variantLeaf{value: true}}
	w.strCols = append(w.strCols, cw.in) // pages cut by the JSON's size, near the bytes'
	w.cols = append(w.cols, cw, val)
}

// input is the column cw writes from: the encoded leaf of a variant, else
// its input column.
func (cw *colWriter) input(cols []rows.Column) *rows.Column {
	if cw.variant != nil {
		return &cw.variant.col
	}
	return &cols[cw.in]
}

// encodeVariants encodes rows [0,n) of every variant column into its two
// leaves' inputs; JSON that is not one value is refused naming its row.
func (w *Writer) encodeVariants(cols []rows.Column, n int) error {
	for i := 0; i < len(w.cols); i++ {
		meta := w.cols[i]
		if meta.variant == nil || meta.variant.value {
			continue
		}
		val := w.cols[i+1]
		c := &cols[meta.in]
		if len(c.Strs) < n || (c.Nulls != nil && len(c.Nulls) < n) {
			return fmt.Errorf("parquet: column %q has %d values, want %d", meta.spec.Name, len(c.Strs), n)
		}
		mc, vc := &meta.variant.col, &val.variant.col
		mc.Strs, vc.Strs = mc.Strs[:0], vc.Strs[:0]
		mc.Nulls, vc.Nulls = nil, nil
		if c.Nulls != nil {
			mc.Nulls, vc.Nulls = c.Nulls[:n], c.Nulls[:n]
		}
		last := ""
		for r := range n {
			if c.IsNull(r) {
				mc.Strs, vc.Strs = append(mc.Strs, ""), append(vc.Strs, "")
				continue
			}
			m, v, err := meta.variant.enc.Encode(c.Strs[r])
			if err != nil {
				return fmt.Errorf("parquet: row %d: column %q: not a JSON value for a variant: %v", w.totalRows+w.rgRowsPending()+int64(r), meta.spec.Name, err)
			}
			if string(m) != last { // rows of one shape share one metadata string
				last = string(m)
			}
			mc.Strs, vc.Strs = append(mc.Strs, last), append(vc.Strs, string(v))
		}
	}
	return nil
}

// variantSchema is the schema elements of variant column cw (its metadata
// leaf).
func variantSchema(cw *colWriter) []schemaElement {
	s := cw.spec
	rep := repOptional
	if s.Required {
		rep = repRequired
	}
	leaf := func(name string) schemaElement {
		return schemaElement{Name: name, Type: TypeByteArray, HasType: true, HasRepetition: true, Repetition: repRequired}
	}
	return []schemaElement{
		{Name: s.Name, HasRepetition: true, Repetition: rep, NumChildren: 2,
			Logical: logicalType{Kind: logicalVariant, VariantVersion: 1}, FieldID: s.FieldID, HasFieldID: true},
		leaf("metadata"),
		leaf("value"),
	}
}

// variantStats adds leaf cw's file statistics to its variant's: the size
// over both leaves and the rows, no bounds.
func variantStats(cols []ColumnStats, cw *colWriter, nrows int64) []ColumnStats {
	if !cw.variant.value {
		cols = append(cols, ColumnStats{Values: nrows, Nulls: cw.file.Nulls})
	}
	cols[len(cols)-1].CompressedSize += cw.file.CompressedSize
	return cols
}

// variantPath is a variant leaf's path in the schema.
func (cw *colWriter) variantPath() []string {
	if cw.variant.value {
		return []string{cw.spec.Name, "value"}
	}
	return []string{cw.spec.Name, "metadata"}
}
