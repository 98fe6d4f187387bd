// Package colrows aligns rows that arrive from JavaScript in columnar form to
// a table schema, through the same rows.Builder (and so the same conversions
// and error codes) as CSV and NDJSON input.
//
// The TypeScript client turns an array of JavaScript objects into one Column
// per key: a tag per row saying which JavaScript type the value had, and
// dense arrays holding the values of each type. The bridge copies each array
// into Go with one js.CopyBytesToGo, so a batch costs a few calls per column
// instead of one per cell:
//
//	column "cpu", 4 rows:   tags  [Number, Null, Number, String]   (or one Tag for all rows)
//	                        f64   [0.5, 0, 0.75, 0]                 Number and Date (ms) values
//	                        i64   nil                               BigInt values
//	                        str   "12.5"  off [0, 0, 0, 0, 4]       UTF-8 of String (and Other) values
//
//	b, err := colrows.Build(sch, &colrows.Input{Len: 4, Cols: cols}, rows.Options{})
//
// Why tags rather than a typed column and a null bitmap: JavaScript values are
// dynamically typed, and the schema decides how each one converts (a string
// "2026-11-29T10:00:00Z" for a timestamptz, "9007199254740993" for a long), so
// the client sends what it was given and the core converts, as it does for
// CSV text. A column whose rows all have one type sends one Tag and no tags.
package colrows

import (
	"fmt"
	"math"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Tag is the JavaScript type of one value. persisted (in the client's
// columns.ts): values must not change.
type Tag uint8

const (
	Absent Tag = 0 // undefined or a missing key: the column is not set in this row
	Null   Tag = 1 // null
	Number Tag = 2 // a number, in F64
	BigInt Tag = 3 // a bigint within int64, in I64
	String Tag = 4 // a string, in Str[Off[i]:Off[i+1]]
	False  Tag = 5
	True   Tag = 6
	Date   Tag = 7 // a Date, its getTime() in F64 (NaN for an invalid Date)
	Other  Tag = 8 // any other value; Str holds a description such as "object"

	// Mixed in Column.Tag says the per-row Tags are given.
	Mixed Tag = 255
)

// Column is one input key's values for every row.
type Column struct {
	Name string
	Tag  Tag    // the tag of every row, or Mixed when Tags is given
	Tags []byte // per row when Tag is Mixed
	F64  []float64
	I64  []int64
	Str  string  // every String and Other value, concatenated
	Off  []int32 // Len+1 offsets into Str; nil when the column has no strings
}

// Input is a batch of rows in columnar form.
type Input struct {
	Len  int
	Cols []Column
}

// InputError is a malformed Input (wrong array lengths, a bad tag): a bug in
// the code that built it, not bad data.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return "malformed columnar rows: " + e.Msg }

// Check validates the shape of in: every array long enough for Len rows,
// offsets increasing within Str, known tags.
func (in *Input) Check() error {
	bad := func(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }
	if in.Len < 0 {
		return bad("negative length %d", in.Len)
	}
	for i := range in.Cols {
		c := &in.Cols[i]
		uses := map[Tag]bool{}
		if c.Tag == Mixed {
			if len(c.Tags) != in.Len {
				return bad("column %q: %d tags for %d rows", c.Name, len(c.Tags), in.Len)
			}
			for r, t := range c.Tags {
				if Tag(t) > Other {
					return bad("column %q row %d: unknown tag %d", c.Name, r+1, t)
				}
				uses[Tag(t)] = true
			}
		} else {
			if c.Tag > Other {
				return bad("column %q: unknown tag %d", c.Name, c.Tag)
			}
			uses[c.Tag] = in.Len > 0
		}
		if (uses[Number] || uses[Date]) && len(c.F64) < in.Len {
			return bad("column %q: %d float values for %d rows", c.Name, len(c.F64), in.Len)
		}
		if uses[BigInt] && len(c.I64) < in.Len {
			return bad("column %q: %d int64 values for %d rows", c.Name, len(c.I64), in.Len)
		}
		if uses[String] || uses[Other] {
			if len(c.Off) != in.Len+1 {
				return bad("column %q: %d string offsets for %d rows", c.Name, len(c.Off), in.Len)
			}
			prev := int32(0)
			for r, o := range c.Off {
				if o < prev || int(o) > len(c.Str) {
					return bad("column %q: string offset %d (%d) out of order or past %d bytes", c.Name, r, o, len(c.Str))
				}
				prev = o
			}
		}
	}
	return nil
}

// Build aligns in to t. Errors are *rows.Error with Row (1-based) and Column
// set, found in the order FromMaps reports them: row by row, the schema's
// columns in order, then unknown keys in input order. A malformed Input is an
// *InputError.
func Build(t *schema.Table, in *Input, opt rows.Options) (*rows.Batch, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	if in.Len == 0 {
		return nil, &rows.Error{Code: rows.CodeEmptyInput, Msg: "no rows"}
	}
	// target[i] is the schema index of input column i; -1 ignores it.
	target := make([]int, len(in.Cols))
	byField := make([]int, len(t.Fields)) // input column of each field, or -1
	for i := range byField {
		byField[i] = -1
	}
	var unknown []int // input columns that fail when a row sets them
	var unknownErr []error
	for i := range in.Cols {
		name := in.Cols[i].Name
		col, err := rows.LookupColumn(t, name, opt)
		if err != nil {
			target[i] = -1
			unknown = append(unknown, i)
			unknownErr = append(unknownErr, err)
			continue
		}
		target[i] = col
		if col < 0 {
			continue
		}
		if byField[col] >= 0 {
			return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: name, Msg: "is given twice"}
		}
		byField[col] = i
	}
	b := rows.NewBuilder(t, opt)
	for r := 0; r < in.Len; r++ {
		for f, i := range byField {
			if i < 0 {
				continue
			}
			if err := appendCell(b, f, &in.Cols[i], r, t.Fields[f].Type); err != nil {
				if re, ok := err.(*rows.Error); ok {
					re.Row = r + 1
				}
				return nil, err
			}
		}
		for k, i := range unknown {
			if in.Cols[i].tag(r) != Absent {
				re := unknownErr[k].(*rows.Error)
				cp := *re
				cp.Row = r + 1
				return nil, &cp
			}
		}
		if err := b.EndRow(); err != nil {
			err.(*rows.Error).Row = r + 1
			return nil, err
		}
	}
	return b.Batch(), nil
}

func (c *Column) tag(r int) Tag {
	if c.Tag == Mixed {
		return Tag(c.Tags[r])
	}
	return c.Tag
}

func (c *Column) str(r int) string { return c.Str[c.Off[r]:c.Off[r+1]] }

// appendCell converts row r of c into field f.
func appendCell(b *rows.Builder, f int, c *Column, r int, typ schema.Type) error {
	switch c.tag(r) {
	case Absent:
		return nil // EndRow makes it null, or fails a required column
	case Null:
		b.AppendNull(f)
		return nil
	case Number:
		v := c.F64[r]
		if math.IsNaN(v) {
			// In JavaScript NaN is what a failed computation gives (a
			// parseFloat of garbage), so it is refused; the string "NaN"
			// stores a NaN double, as in CSV.
			return &rows.Error{Code: rows.CodeTypeMismatch, Column: c.Name, Value: "NaN",
				Msg: fmt.Sprintf("NaN given for a %s column (pass the string \"NaN\" to store one in a double column)", typ)}
		}
		return b.AppendFloat64(f, v)
	case BigInt:
		return b.AppendInt64(f, c.I64[r])
	case String:
		return b.AppendString(f, c.str(r))
	case False:
		return b.AppendBool(f, false)
	case True:
		return b.AppendBool(f, true)
	case Date:
		ms := c.F64[r]
		if math.IsNaN(ms) {
			return &rows.Error{Code: rows.CodeBadTime, Column: c.Name, Value: "Invalid Date", Msg: "an invalid Date (getTime() is NaN)"}
		}
		return b.AppendTime(f, time.UnixMilli(int64(ms)).UTC())
	default: // Other
		what := c.str(r)
		return &rows.Error{Code: rows.CodeTypeMismatch, Column: c.Name, Value: what,
			Msg: fmt.Sprintf("a JavaScript %s given for a %s column", what, typ)}
	}
}
