package rows

import (
	"errors"
	"fmt"
	"sync"

	"github.com/timelake/timelake/variant"
)

// A variant column (Iceberg format 3) takes any JSON value per row: an
// NDJSON value of any kind (null is a null row), a CSV cell or a Go
// string holding the value's JSON text. It is checked by encoding it
// (package variant: one JSON value, no key twice in an object, at most
// variant.MaxDepth deep) and kept as the text the reader prints of that
// encoding (compact, object keys sorted, numbers as the variant types
// print), so that what is appended scans back byte for byte; the Parquet
// writer encodes that text again.

// VariantText is the canonical JSON text of the JSON value s: what a
// variant column holds of it and a scan prints.
func VariantText(s string) (string, error) {
	c := variantScratch.Get().(*variantCodec)
	defer variantScratch.Put(c)
	m, v, err := c.enc.Encode(s)
	if err != nil {
		return "", err
	}
	c.out, err = variant.AppendJSON(c.out[:0], m, v)
	return string(c.out), err
}

// variantCodec is an encoder and a text buffer, pooled: a column's rows
// are encoded one after another.
type variantCodec struct {
	enc variant.Encoder
	out []byte
}

var variantScratch = sync.Pool{New: func() any { return new(variantCodec) }}

// appendVariant sets variant column col from the JSON text s.
func (b *Builder) appendVariant(col int, s string) *Error {
	f := &b.table.Fields[col]
	if len(s) > MaxValueBytes {
		return tooLarge(f.Name, len(s))
	}
	text, err := VariantText(s)
	if err != nil {
		return &Error{Code: CodeTypeMismatch, Column: f.Name, Value: errValue(s),
			Msg: fmt.Sprintf("value %q for a variant column: %v (want one JSON value)", shortValue(s), err)}
	}
	b.putStr(col, text)
	return nil
}

// variantValue reads the NDJSON value at p[i:] (not null) into variant
// column col as its text.
func (r *NDJSONReader) variantValue(p []byte, i, col int) (int, *Error) {
	end, e := skipValue(p, i, 0)
	if e != nil {
		e.Column = r.b.table.Fields[col].Name
		return end, e
	}
	return end, r.b.appendVariant(col, string(p[i:end]))
}

// checkVariants checks each non-null value of a variant column
// (CheckValueSizes): one JSON value, within the size bound.
func checkVariants(name string, col *Column) *Error {
	var enc variant.Encoder
	for i, s := range col.Strs {
		if col.IsNull(i) {
			continue
		}
		if len(s) > MaxValueBytes {
			e := tooLarge(name, len(s))
			e.Row = i + 1
			return e
		}
		if err := enc.Valid(s); err != nil {
			return &Error{Code: CodeTypeMismatch, Row: i + 1, Column: name, Value: errValue(s),
				Msg: fmt.Sprintf("value %q for a variant column: %v (want one JSON value)", shortValue(s), err)}
		}
	}
	return nil
}

// variant reads a variant nested in a struct, list or map (KindVariant,
// not null) at the parser's position into node at: any one JSON value,
// checked by encoding it and kept in Str as its canonical text
// (VariantText), which AppendText prints and the Parquet writer encodes.
func (tr *NestedTree) variant(at int32) error {
	p := &tr.p
	start, canon := p.i, tr.canon
	if err := tr.skip(0); err != nil {
		if pe, ok := err.(*NestedPathError); ok {
			err = errors.New(pe.Msg)
		}
		return tr.fail("not a JSON value for a variant: %v", err)
	}
	raw := p.s[start:p.i]
	if tr.RawVariants {
		tr.Nodes[at].Str = raw
		tr.canon = false
		return nil
	}
	text, err := VariantText(raw)
	if err != nil {
		return tr.fail("not a JSON value for a variant: %v", err)
	}
	tr.Nodes[at].Str = text
	tr.canon = canon && text == raw
	return nil
}
