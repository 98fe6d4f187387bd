package rows

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// kind says which Column slice a field uses.
type kind uint8

const (
	kindInt kind = iota
	kindFloat
	kindBool
	kindStr
)

func kindOf(t schema.Type) kind {
	switch {
	case t.IsInteger():
		return kindInt
	case t.IsFloat():
		return kindFloat
	case t == schema.Boolean:
		return kindBool
	}
	return kindStr
}

// Builder appends rows to a Batch one value at a time, converting each value
// to its column's type. A row is the values appended since the last EndRow;
// EndRow makes absent columns null and checks required ones. Reset empties the
// batch but keeps its buffers, so a reader filling batches of a fixed size
// allocates them once.
//
//	b := rows.NewBuilder(t, rows.Options{})
//	if err := b.AppendString(0, "2026-11-29T10:00:00Z"); err != nil { … }
//	if err := b.AppendString(1, "web-1"); err != nil { … }
//	if err := b.EndRow(); err != nil { … }
//	batch := b.Batch()
//
// Errors are *Error with Code, Column, Value and Msg set; Row and Line are
// left to the caller, who knows where the value came from.
//
// The _ingest_ts column is never appended to: EndRow fills it with 0 and
// SetIngest sets it later.
type Builder struct {
	table *schema.Table
	opt   Options
	batch Batch
	kinds []kind
	// set[c] == batch.Len+1 when column c has a value in the current row.
	set []int
	// spare holds each column's Nulls buffer across Reset, so that Nulls can
	// be nil again (no row null) without losing the allocation.
	spare [][]bool
	// intern maps recent string values to one copy per column, so repeated
	// series values from a reused line buffer cost no allocation.
	intern []map[string]string
	// numericTime[c]: time column c was given a number (read in
	// Options.TimeUnit) since the Builder was made; kept across Reset.
	numericTime []bool
	// nested parses nested columns' values (nestedjson.go); nestedBuf is
	// its text scratch.
	nested    *NestedTree
	nestedBuf []byte
}

// NewBuilder returns an empty Builder for rows of t.
func NewBuilder(t *schema.Table, opt Options) *Builder {
	n := len(t.Fields)
	b := &Builder{
		table:  t,
		opt:    opt,
		batch:  Batch{Schema: t, Cols: make([]Column, n)},
		kinds:  make([]kind, n),
		set:    make([]int, n),
		spare:  make([][]bool, n),
		intern: make([]map[string]string, n),

		numericTime: make([]bool, n),
	}
	for i, f := range t.Fields {
		b.kinds[i] = kindOf(f.Type)
	}
	return b
}

// NumericTimes names, in schema order, the time columns that were given
// a number since the Builder was made: each read as a count of
// Options.TimeUnit since 1970-01-01 UTC. A number of another unit makes a
// plausible but wrong time, so a driver may warn about it.
func (b *Builder) NumericTimes() []string {
	var names []string
	for c, ok := range b.numericTime {
		if ok {
			names = append(names, b.table.Fields[c].Name)
		}
	}
	return names
}

// Reset empties the batch, keeping its buffers. A Batch obtained from Batch
// before is overwritten by the rows appended after.
func (b *Builder) Reset() {
	for i := range b.batch.Cols {
		c := &b.batch.Cols[i]
		c.Ints, c.Floats, c.Bools, c.Strs = c.Ints[:0], c.Floats[:0], c.Bools[:0], c.Strs[:0]
		clear(c.Strs[:cap(c.Strs)]) // let the old strings go
		if c.Nulls != nil {
			b.spare[i] = c.Nulls[:0]
			c.Nulls = nil
		}
		b.set[i] = 0
	}
	b.batch.Len = 0
}

// Grow makes room for n more rows in every column, so that appending them
// does not reallocate: a reader that knows its row count calls it once.
func (b *Builder) Grow(n int) {
	for i := range b.batch.Cols {
		c := &b.batch.Cols[i]
		switch b.kinds[i] {
		case kindInt:
			c.Ints = slices.Grow(c.Ints, n)
		case kindFloat:
			c.Floats = slices.Grow(c.Floats, n)
		case kindBool:
			c.Bools = slices.Grow(c.Bools, n)
		default:
			c.Strs = slices.Grow(c.Strs, n)
		}
	}
}

// Len returns the number of complete rows.
func (b *Builder) Len() int { return b.batch.Len }

// Batch returns the complete rows. It shares the Builder's buffers: it is
// valid until the next Reset.
func (b *Builder) Batch() *Batch {
	out := b.batch
	out.checked = true
	out.Cols = append([]Column(nil), b.batch.Cols...)
	for i := range out.Cols { // drop a partial row left by a failed one
		c := &out.Cols[i]
		n := out.Len
		switch b.kinds[i] {
		case kindInt:
			c.Ints = c.Ints[:n]
		case kindFloat:
			c.Floats = c.Floats[:n]
		case kindBool:
			c.Bools = c.Bools[:n]
		default:
			c.Strs = c.Strs[:n]
		}
		if c.Nulls != nil {
			c.Nulls = c.Nulls[:n]
		}
	}
	return &out
}

// Has reports whether column col already has a value in the current row.
func (b *Builder) Has(col int) bool { return b.set[col] == b.batch.Len+1 }

// mark records that col has a value in the current row and keeps Nulls, if
// any, as long as the value slice.
func (b *Builder) mark(col int, null bool) {
	b.set[col] = b.batch.Len + 1
	c := &b.batch.Cols[col]
	if c.Nulls == nil {
		if !null {
			return
		}
		c.Nulls = append(b.spare[col][:0], make([]bool, b.batch.Len)...)
		b.spare[col] = nil
	}
	c.Nulls = append(c.Nulls, null)
}

func (b *Builder) putInt(col int, v int64) {
	c := &b.batch.Cols[col]
	c.Ints = append(c.Ints, v)
	b.mark(col, false)
}

func (b *Builder) putFloat(col int, v float64) {
	c := &b.batch.Cols[col]
	c.Floats = append(c.Floats, v)
	b.mark(col, false)
}

func (b *Builder) putBool(col int, v bool) {
	c := &b.batch.Cols[col]
	c.Bools = append(c.Bools, v)
	b.mark(col, false)
}

func (b *Builder) putStr(col int, v string) {
	c := &b.batch.Cols[col]
	c.Strs = append(c.Strs, v)
	b.mark(col, false)
}

// AppendNull sets column col of the current row to null. A required column
// left null fails EndRow.
func (b *Builder) AppendNull(col int) {
	c := &b.batch.Cols[col]
	switch b.kinds[col] {
	case kindInt:
		c.Ints = append(c.Ints, 0)
	case kindFloat:
		c.Floats = append(c.Floats, 0)
	case kindBool:
		c.Bools = append(c.Bools, false)
	default:
		c.Strs = append(c.Strs, "")
	}
	b.mark(col, true)
}

// EndRow completes the current row: absent columns become null, _ingest_ts
// becomes 0. A required column that is absent or null is a MISSING_COLUMN
// error, and the row is not added.
func (b *Builder) EndRow() error {
	if e := b.endRow(); e != nil {
		return e
	}
	return nil
}

func (b *Builder) endRow() *Error {
	n := b.batch.Len
	for i := range b.batch.Cols {
		if b.set[i] == n+1 {
			if c := &b.batch.Cols[i]; c.Nulls != nil && c.Nulls[n] && b.table.Fields[i].Required {
				return b.missing(i, "is required but null")
			}
			continue
		}
		if i == b.table.Ingest {
			b.putInt(i, 0)
			continue
		}
		if v := b.table.Fields[i].WriteDefault; v != nil {
			b.putDefault(i, v) // format 3: what a row that leaves the column out stores
			continue
		}
		if b.table.Fields[i].Required {
			return b.missing(i, "is required but absent")
		}
		b.AppendNull(i)
	}
	b.batch.Len++
	return nil
}

// putDefault sets column col of the current row to v.
func (b *Builder) putDefault(col int, v *schema.Value) {
	switch t := b.table.Fields[col].Type; {
	case t.IsInteger():
		b.putInt(col, v.Int)
	case t.IsFloat():
		b.putFloat(col, v.Float)
	case t == schema.Boolean:
		b.putBool(col, v.Bool)
	default:
		b.putStr(col, v.Str)
	}
}

func (b *Builder) missing(col int, why string) *Error {
	f := b.table.Fields[col]
	return &Error{Code: CodeMissingColumn, Column: f.Name, Msg: fmt.Sprintf("%s column %s", f.Type, why)}
}

func (b *Builder) fail(col int, value string, ce *convErr) *Error {
	return &Error{Code: ce.code, Column: b.table.Fields[col].Name, Value: errValue(value), Msg: ce.msg}
}

// AppendString sets column col of the current row from a string: as is for
// a string column, parsed for the others (see the package doc).
func (b *Builder) AppendString(col int, s string) error {
	if e := b.appendText(col, s); e != nil {
		return e
	}
	return nil
}

// appendText converts s to column col's type. For a string column s itself is
// kept, so the caller passes a string it does not reuse.
func (b *Builder) appendText(col int, s string) *Error {
	f := &b.table.Fields[col]
	switch f.Type {
	case schema.Nested:
		return b.appendNested(col, s)
	case schema.String:
		if len(s) > MaxValueBytes {
			return tooLarge(f.Name, len(s))
		}
		if !utf8.ValidString(s) {
			return &Error{Code: CodeInvalidUTF8, Column: f.Name, Value: errValue(s),
				Msg: fmt.Sprintf("value %q is not valid UTF-8", shortValue(s))}
		}
		b.putStr(col, s)
	case schema.Long, schema.Int:
		v, ce := textInt(s, f.Type)
		if ce != nil {
			return b.fail(col, s, ce)
		}
		b.putInt(col, v)
	case schema.Double, schema.Float:
		v, ce := textFloat(s, f.Type)
		if ce != nil {
			return b.fail(col, s, ce)
		}
		b.putFloat(col, v)
	case schema.Boolean:
		v, ok := textBool(s)
		if !ok {
			return b.fail(col, s, mismatch("cannot parse %q as boolean (want true, false, 1 or 0)", shortValue(s)))
		}
		b.putBool(col, v)
	case schema.Timestamptz, schema.Timestamp:
		var us int64
		var ce *convErr
		if isInt, ok := scanNumber(s); ok {
			us, ce = numberTime(s, isInt, b.opt.TimeUnit)
			b.numericTime[col] = true
		} else {
			us, ce = parseTime(s)
		}
		if ce != nil {
			return b.fail(col, s, ce)
		}
		b.putInt(col, us)
	case schema.TimestamptzNs, schema.TimestampNs:
		var ns int64
		var ce *convErr
		if isInt, ok := scanNumber(s); ok {
			ns, ce = numberTimeNs(s, isInt, b.opt.TimeUnit)
		} else {
			ns, ce = parseTimeNs(s)
		}
		if ce != nil {
			return b.fail(col, s, ce)
		}
		b.putInt(col, ns)
	}
	return nil
}

// appendNumber converts a number written in JSON syntax (from NDJSON or a
// json.Number) to column col's type. Integers are read exactly.
func (b *Builder) appendNumber(col int, tok string) *Error {
	f := &b.table.Fields[col]
	isInt, ok := scanNumber(tok)
	if !ok {
		return b.fail(col, tok, mismatch("cannot parse %q as a number", shortValue(tok)))
	}
	switch f.Type {
	case schema.String:
		return b.fail(col, tok, mismatch("number %s given for a string column (quote it)", shortValue(tok)))
	case schema.Boolean:
		return b.fail(col, tok, mismatch("number %s given for a boolean column (want true or false)", shortValue(tok)))
	case schema.Long, schema.Int:
		v, ce := textInt(tok, f.Type)
		if ce != nil {
			return b.fail(col, tok, ce)
		}
		b.putInt(col, v)
	case schema.Double, schema.Float:
		v, ce := textFloat(tok, f.Type)
		if ce != nil {
			return b.fail(col, tok, ce)
		}
		b.putFloat(col, v)
	case schema.Timestamptz, schema.Timestamp:
		us, ce := numberTime(tok, isInt, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, tok, ce)
		}
		b.numericTime[col] = true
		b.putInt(col, us)
	case schema.TimestamptzNs, schema.TimestampNs:
		ns, ce := numberTimeNs(tok, isInt, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, tok, ce)
		}
		b.putInt(col, ns)
	}
	return nil
}

// AppendBool sets column col of the current row from a boolean; only a
// boolean column takes one.
func (b *Builder) AppendBool(col int, v bool) error {
	if e := b.appendBool(col, v); e != nil {
		return e
	}
	return nil
}

func (b *Builder) appendBool(col int, v bool) *Error {
	f := &b.table.Fields[col]
	if f.Type != schema.Boolean {
		return b.fail(col, fmt.Sprint(v), mismatch("boolean %v given for a %s column", v, f.Type))
	}
	b.putBool(col, v)
	return nil
}

// AppendInt64 sets column col of the current row from an integer: exact for
// long, range-checked for int, widened for double and float, a time in
// Options.TimeUnit for timestamptz.
func (b *Builder) AppendInt64(col int, v int64) error {
	f := &b.table.Fields[col]
	switch f.Type {
	case schema.Long:
		b.putInt(col, v)
	case schema.Int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return b.fail(col, fmt.Sprint(v), mismatch("%d is out of range for int", v))
		}
		b.putInt(col, v)
	case schema.Double:
		b.putFloat(col, float64(v))
	case schema.Float:
		b.putFloat(col, float64(float32(v)))
	case schema.Timestamptz, schema.Timestamp:
		us, ce := intTime(v, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, fmt.Sprint(v), ce)
		}
		b.numericTime[col] = true
		b.putInt(col, us)
	case schema.TimestamptzNs, schema.TimestampNs:
		ns, ce := intTimeNs(v, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, fmt.Sprint(v), ce)
		}
		b.putInt(col, ns)
	default:
		return b.fail(col, fmt.Sprint(v), mismatch("number %d given for a %s column", v, f.Type))
	}
	return nil
}

// AppendFloat64 sets column col of the current row from a float: integral
// values only for long and int, range-checked for float, a time in
// Options.TimeUnit (rounded to the microsecond) for timestamptz.
func (b *Builder) AppendFloat64(col int, v float64) error {
	f := &b.table.Fields[col]
	val := func() string { return fmt.Sprint(v) }
	switch f.Type {
	case schema.Long, schema.Int:
		n, ce := floatInt(v, f.Type)
		if ce != nil {
			return b.fail(col, val(), ce)
		}
		b.putInt(col, n)
	case schema.Double:
		b.putFloat(col, v)
	case schema.Float:
		n, ce := narrow(v)
		if ce != nil {
			return b.fail(col, val(), ce)
		}
		b.putFloat(col, n)
	case schema.Timestamptz, schema.Timestamp:
		us, ce := floatTime(v, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, val(), ce)
		}
		b.numericTime[col] = true
		b.putInt(col, us)
	case schema.TimestamptzNs, schema.TimestampNs:
		ns, ce := floatTimeNs(v, b.opt.TimeUnit)
		if ce != nil {
			return b.fail(col, val(), ce)
		}
		b.putInt(col, ns)
	default:
		return b.fail(col, val(), mismatch("number %v given for a %s column", v, f.Type))
	}
	return nil
}

// AppendTime sets a time column of the current row: every nanosecond for
// a timestamp_ns or timestamptz_ns column, else the microseconds
// (sub-microsecond digits dropped, floor).
func (b *Builder) AppendTime(col int, t time.Time) error {
	f := &b.table.Fields[col]
	if !f.Type.IsTime() {
		return b.fail(col, t.String(), mismatch("time %s given for a %s column", t.Format(time.RFC3339Nano), f.Type))
	}
	if f.Type.Nanos() {
		// UnixNano is undefined outside int64: check by the seconds first.
		sec := t.Unix()
		if sec < schema.MinNanos/1e9-1 || sec > schema.MaxNanos/1e9 {
			return b.fail(col, t.String(), nsRange(t.Format(time.RFC3339Nano)))
		}
		ns, ok := nanosOf(t.UnixMicro(), int64(t.Nanosecond()%1000))
		if !ok {
			return b.fail(col, t.String(), nsRange(t.Format(time.RFC3339Nano)))
		}
		b.putInt(col, ns)
		return nil
	}
	us := t.UnixMicro()
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return b.fail(col, t.String(), &convErr{CodeTimeOutOfRange,
			fmt.Sprintf("time %s is outside years 0001 to 9999", t.Format(time.RFC3339Nano))})
	}
	b.putInt(col, us)
	return nil
}
