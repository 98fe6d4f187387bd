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
	"strings"
	"time"
	"unicode/utf8"

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
	Other  Tag = 8 // any other value; Str holds a description such as "Set"
	// Json is a plain object, Map or array, its JSON text in Str (the
	// client's nested.ts): the value of a map, list or struct column.
	Json Tag = 9

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
	// Idx, when given, makes Str and Off a dictionary: row r's string is
	// entry Idx[r], Str[Off[Idx[r]]:Off[Idx[r]+1]], and Off has one offset
	// more than there are entries. Series columns repeat a few values.
	Idx []int32
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
				if Tag(t) > Json {
					return bad("column %q row %d: unknown tag %d", c.Name, r+1, t)
				}
				uses[Tag(t)] = true
			}
		} else {
			if c.Tag > Json {
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
		if uses[String] || uses[Other] || uses[Json] {
			if c.Idx != nil {
				if len(c.Idx) != in.Len {
					return bad("column %q: %d string indexes for %d rows", c.Name, len(c.Idx), in.Len)
				}
				if len(c.Off) == 0 {
					return bad("column %q: no string offsets", c.Name)
				}
				for r, k := range c.Idx {
					if t := c.tag(r); (t == String || t == Other || t == Json) && (k < 0 || int(k) >= len(c.Off)-1) {
						return bad("column %q row %d: string index %d outside %d entries", c.Name, r+1, k, len(c.Off)-1)
					}
				}
			} else if len(c.Off) != in.Len+1 {
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
	p, err := newPlan(t, in, opt)
	if err != nil {
		return nil, err
	}
	if bt, ok := buildFast(t, in, opt.TimeUnit, p); ok {
		return bt, nil
	}
	return buildSlow(t, in, opt, p)
}

// plan says where each input column goes.
type plan struct {
	byField    []int   // input column of each field, or -1
	unknown    []int   // input columns that fail when a row sets them
	unknownErr []error // the error of each
}

func newPlan(t *schema.Table, in *Input, opt rows.Options) (*plan, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	if in.Len == 0 {
		return nil, &rows.Error{Code: rows.CodeEmptyInput, Msg: "no rows"}
	}
	p := &plan{byField: make([]int, len(t.Fields))}
	for i := range p.byField {
		p.byField[i] = -1
	}
	for i := range in.Cols {
		name := in.Cols[i].Name
		col, err := rows.LookupColumn(t, name, opt)
		if err != nil {
			p.unknown = append(p.unknown, i)
			p.unknownErr = append(p.unknownErr, err)
			continue
		}
		if col < 0 {
			continue // ignored
		}
		if p.byField[col] >= 0 {
			return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: name, Msg: "is given twice"}
		}
		p.byField[col] = i
	}
	return p, nil
}

// buildSlow goes row by row, value by value through rows.Builder: the
// reference conversion, and the one that finds the first error in order.
func buildSlow(t *schema.Table, in *Input, opt rows.Options, p *plan) (*rows.Batch, error) {
	byField, unknown, unknownErr := p.byField, p.unknown, p.unknownErr
	b := rows.NewBuilder(t, opt)
	b.Grow(in.Len)
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

// str returns row r's string.
func (c *Column) str(r int) string {
	if c.Idx != nil {
		r = int(c.Idx[r])
	}
	return c.Str[c.Off[r]:c.Off[r+1]]
}

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
	case Json:
		s := c.str(r)
		if typ == schema.Nested {
			return b.AppendString(f, s) // checked and stored as the reader prints it
		}
		what := "object"
		if strings.HasPrefix(s, "[") {
			what = "array"
		}
		return &rows.Error{Code: rows.CodeTypeMismatch, Column: c.Name, Value: errValue(s),
			Msg: fmt.Sprintf("a JavaScript %s given for a %s column (objects, Maps and arrays are for map, list and struct columns)", what, typ)}
	default: // Other
		what := c.str(r)
		return &rows.Error{Code: rows.CodeTypeMismatch, Column: c.Name, Value: what,
			Msg: fmt.Sprintf("a JavaScript %s given for a %s column", what, typ)}
	}
}

// buildFast converts column by column, straight into the batch's slices, when
// every value converts: the common case, where a column holds one JavaScript
// type (and maybe nulls). ok is false as soon as a value would fail or is of a
// kind it does not cover (strings parsed as numbers or times, bigints for
// times, mixed types); Build then goes value by value (buildSlow), which gives
// the same batch or the first error in its order. The fuzz test holds the two
// to the same result.
func buildFast(t *schema.Table, in *Input, unit rows.TimeUnit, p *plan) (*rows.Batch, bool) {
	n := in.Len
	for _, i := range p.unknown {
		if c := &in.Cols[i]; c.Tag != Absent && (c.Tag != Mixed || anyTag(c.Tags, func(t Tag) bool { return t != Absent })) {
			return nil, false
		}
	}
	bt := &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields)), Len: n}
	for f, i := range p.byField {
		var c *Column
		if i >= 0 {
			c = &in.Cols[i]
		}
		if !fastColumn(&bt.Cols[f], c, n, t.Fields[f], f == t.Ingest, unit) {
			return nil, false
		}
	}
	return bt, true
}

func anyTag(tags []byte, f func(Tag) bool) bool {
	for _, t := range tags {
		if f(Tag(t)) {
			return true
		}
	}
	return false
}

// isNull reports whether a row with tag t is null (or absent) in its column.
func isNull(t Tag) bool { return t == Absent || t == Null }

// valueTag returns the one non-null tag of c's rows (True for booleans, both
// values), Absent when every row is null or absent, and ok false when rows
// hold values of different types. hasNull is whether a row is null or absent.
func (c *Column) valueTag() (val Tag, hasNull, ok bool) {
	class := func(t Tag) Tag {
		if t == False {
			return True
		}
		return t
	}
	if c.Tag != Mixed {
		if isNull(c.Tag) {
			return Absent, true, true
		}
		return class(c.Tag), false, true
	}
	for _, b := range c.Tags {
		t := Tag(b)
		if isNull(t) {
			hasNull = true
			continue
		}
		switch t = class(t); {
		case val == Absent:
			val = t
		case t != val:
			return 0, false, false
		}
	}
	return val, hasNull, true
}

// fastColumn fills dst with n rows of field fld from c (nil: no input column);
// false when a value would fail or is not covered (see buildFast).
func fastColumn(dst *rows.Column, c *Column, n int, fld schema.Field, ingest bool, unit rows.TimeUnit) bool {
	val, hasNull, ok := Absent, true, true
	if c != nil {
		val, hasNull, ok = c.valueTag()
	}
	if !ok || hasNull && fld.Required && !ingest {
		return false
	}
	if fld.WriteDefault != nil && (c == nil || hasNull) {
		return false // absent cells take the write-default: the builder's path
	}
	if ingest {
		val, hasNull = Absent, false // the writer sets it later; 0 until then, not null
	}
	typ := fld.Type
	var ints []int64
	var floats []float64
	switch {
	case typ.IsInteger():
		ints = make([]int64, n)
		dst.Ints = ints
	case typ.IsFloat():
		floats = make([]float64, n)
		dst.Floats = floats
	case typ == schema.Boolean:
		dst.Bools = make([]bool, n)
	default:
		dst.Strs = make([]string, n)
	}
	switch val {
	case Absent: // every row null: zero values
	case Number:
		vs := c.F64[:n]
		if typ == schema.String || typ == schema.Boolean {
			return false
		}
		if typ.IsFloat() {
			// NaN is refused for every type (see appendCell), also in a null
			// row; the integer and time conversions refuse it themselves
			for _, v := range vs {
				if math.IsNaN(v) {
					return false
				}
			}
		}
		if rows.ConvertFloat64s(typ, unit, vs, ints, floats) >= 0 {
			return false
		}
	case Date:
		if !typ.IsTime() {
			return false
		}
		// the column's unit per millisecond: 1000 µs, or 1e6 ns
		perMs := 1000 * typ.PerMicro()
		tlo, thi := typ.TimeBounds()
		lo, hi := float64(tlo/perMs), float64(thi/perMs)
		for r, ms := range c.F64[:n] {
			if !(ms >= lo && ms <= hi) { // also NaN: an invalid Date
				return false
			}
			ints[r] = int64(ms) * perMs // as time.UnixMilli(int64(ms)) in µs or ns
		}
	case BigInt:
		vs := c.I64[:n]
		switch typ {
		case schema.Long:
			copy(ints, vs)
		case schema.Int:
			for r, v := range vs {
				if v < math.MinInt32 || v > math.MaxInt32 {
					return false
				}
				ints[r] = v
			}
		case schema.Double:
			for r, v := range vs {
				floats[r] = float64(v)
			}
		default:
			return false
		}
	case Json:
		if typ != schema.Nested || !fastNested(dst.Strs, c, n, fld) {
			return false
		}
	case String:
		if typ == schema.Nested { // a JSON text given as a string: the Go API's form
			if !fastNested(dst.Strs, c, n, fld) {
				return false
			}
			break
		}
		if typ != schema.String {
			return false
		}
		strs := dst.Strs
		if c.Idx != nil {
			// Each entry once; the rows share its string.
			dict := make([]string, len(c.Off)-1)
			for k := range dict {
				if dict[k] = c.Str[c.Off[k]:c.Off[k+1]]; !utf8.ValidString(dict[k]) {
					return false
				}
			}
			if c.Tag != Mixed {
				for r, k := range c.Idx[:n] {
					strs[r] = dict[k]
				}
				break
			}
			for r, k := range c.Idx[:n] {
				if Tag(c.Tags[r]) == String {
					strs[r] = dict[k]
				}
			}
			break
		}
		for r := range strs {
			if c.Tag == Mixed && Tag(c.Tags[r]) != String {
				continue
			}
			s := c.str(r)
			if !utf8.ValidString(s) {
				return false
			}
			strs[r] = s
		}
	case True:
		if typ != schema.Boolean {
			return false
		}
		for r := range dst.Bools {
			dst.Bools[r] = c.tag(r) == True
		}
	default: // Other: always an error
		return false
	}
	if !hasNull {
		return true
	}
	dst.Nulls = make([]bool, n)
	for r := range n {
		if c != nil && !isNull(c.tag(r)) {
			continue
		}
		dst.Nulls[r] = true
		switch {
		case ints != nil:
			ints[r] = 0
		case floats != nil:
			floats[r] = 0
		case dst.Bools != nil:
			dst.Bools[r] = false
		default:
			dst.Strs[r] = ""
		}
	}
	return true
}

// errValue is s cut to 128 bytes, for an error's Value.
func errValue(s string) string {
	if len(s) <= 128 {
		return s
	}
	return strings.ToValidUTF8(s[:128], "")
}
