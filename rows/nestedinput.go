package rows

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// The input paths' use of NestedTree: a Builder's nested values (CSV
// cells, Go values, NDJSON values read in place) and a batch built by hand
// (CheckValueSizes), checked and made the reader's text.

// nestedError is the TYPE_MISMATCH of a nested value s of column f, naming
// the path inside it ("attrs.b", "nums[3]").
func nestedError(f *schema.Field, s string, err error) *Error {
	msg := err.Error()
	if pe, ok := err.(*NestedPathError); ok {
		msg = pe.Msg
		if pe.Path != "" {
			msg = "at " + f.Name + pe.Path + ": " + pe.Msg
		}
	}
	return &Error{Code: CodeTypeMismatch, Column: f.Name, Value: errValue(s),
		Msg: fmt.Sprintf("value %q for a %s column: %s", shortValue(s), f.Nested, msg)}
}

// appendNested sets nested column col from the JSON text s, checked
// against the column's type and stored as the reader prints it.
func (b *Builder) appendNested(col int, s string) *Error {
	f := &b.table.Fields[col]
	if f.Nested.IsVariant() {
		return b.appendVariant(col, s) // a variant column (variant.go)
	}
	if len(s) > MaxValueBytes {
		return tooLarge(f.Name, len(s))
	}
	if b.nested == nil {
		b.nested = new(NestedTree)
	}
	text, buf, err := CanonicalNested(b.nested, f.Nested, s, b.nestedBuf)
	b.nestedBuf = buf
	if err != nil {
		return nestedError(f, s, err)
	}
	b.putStr(col, text)
	return nil
}

// appendNestedAt sets nested column col from the JSON value at p[i:] (an
// NDJSON line's), returning where it ends: parsed in place, copied once
// (the reader's text as it is, or as printed). ok is false when the value
// does not parse, for the caller to report it as it always has.
func (b *Builder) appendNestedAt(col int, p []byte, i int) (end int, ok bool) {
	f := &b.table.Fields[col]
	if b.nested == nil {
		b.nested = new(NestedTree)
	}
	tr := b.nested
	n, err := tr.parsePrefix(f.Nested, transient(p[i:]))
	if err != nil || n > MaxValueBytes {
		return 0, false
	}
	value := p[i : i+n]
	if tr.valueCanon {
		b.putStr(col, string(value))
	} else {
		b.nestedBuf = tr.AppendText(b.nestedBuf[:0], f.Nested)
		b.putStr(col, string(b.nestedBuf))
	}
	return i + n, true
}

// checkNested checks each non-null value of nested column f
// (CheckValueSizes), making it the reader's text in place.
//
// Labels repeat, so a text checked before is not parsed again: the last
// one, and up to checkMemo distinct texts (looked up while they answer
// at least as often as they miss).
func checkNested(f *schema.Field, col *Column) *Error {
	const checkMemo = 1024
	var tr NestedTree
	var buf []byte
	var memo map[string]string
	hits, misses := 0, 0
	haveLast, last, lastText := false, "", ""
	for i, s := range col.Strs {
		if col.IsNull(i) {
			continue
		}
		if len(s) > MaxValueBytes {
			e := tooLarge(f.Name, len(s))
			e.Row = i + 1
			return e
		}
		if haveLast && s == last {
			col.Strs[i] = lastText
			continue
		}
		if len(memo) < checkMemo || hits >= misses {
			if text, ok := memo[s]; ok {
				hits++
				haveLast, last, lastText = true, s, text
				col.Strs[i] = text
				continue
			}
			misses++
		}
		text, b, err := CanonicalNested(&tr, f.Nested, s, buf)
		buf = b
		if err != nil {
			e := nestedError(f, s, err)
			e.Row = i + 1
			return e
		}
		if len(memo) < checkMemo {
			if memo == nil {
				memo = make(map[string]string)
			}
			memo[s] = text
		}
		haveLast, last, lastText = true, s, text
		col.Strs[i] = text
	}
	return nil
}
