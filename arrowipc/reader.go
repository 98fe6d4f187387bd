// Package arrowipc reads Apache Arrow IPC data — the streaming format and the
// file (random access, "Feather v2") format — from memory and aligns its rows
// to a table schema through rows.Builder, so Arrow input converts and fails
// exactly as CSV, NDJSON and JavaScript objects do (same codes, row, column).
//
//	r, err := arrowipc.NewReader(data, table, rows.Options{})
//	if err != nil { … }            // *rows.Error: UNKNOWN_COLUMN, TYPE_MISMATCH (unsupported type), SYNTAX (malformed)
//	for {
//		b, err := r.Next(100_000)
//		if err == io.EOF {
//			break
//		}
//		if err != nil { … }        // discard every batch already read
//		append(b)
//	}
//
// Read(data, table, opt) returns every row in one batch.
//
// Layout of the input (little-endian; see format.go for each part):
//
//	stream:  [0xFFFFFFFF int32 len  Message(Schema)]                      the schema first
//	         [0xFFFFFFFF int32 len  Message(DictionaryBatch)  body]…      dictionaries before use;
//	         [0xFFFFFFFF int32 len  Message(RecordBatch)      body]…      deltas append, others replace
//	         [0xFFFFFFFF 0x00000000]                                      end of stream (optional here)
//	file:    "ARROW1\0\0"  stream…  Footer  int32 footerLen  "ARROW1"    the footer lists the messages
//
//	RecordBatch: length, nodes [{length, nullCount}], buffers [{offset, length}] into the body,
//	             in depth-first field order: validity bitmap, then offsets and/or values.
//
// Types read: int8…int64, uint8…uint64 (refused past 2^63-1), float16/32/64,
// bool, utf8, large_utf8, timestamp (s, ms, us, ns; with or without a time
// zone — the values are UTC either way), date32 and date64 (midnight UTC),
// null, and dictionaries of these (int indices, deltas too). Each value
// reaches the builder typed as Arrow has it: an int64 column into a
// timestamptz column is a time in Options.TimeUnit, a utf8 one is parsed as
// text, and so on. Into a table's nested column (map, list, struct): map,
// list, large_list and struct fields, to any depth, with those leaves, each
// row as the JSON text the table's readers print (nested_read.go). Columns
// of other types (decimals, fixed-size lists, unions, a nested field for a
// flat column, …) are refused with TYPE_MISMATCH naming the column and its
// Arrow type, or skipped without being decoded when Options.IgnoreUnknown
// drops their name.
//
// Bodies compressed with ZSTD or LZ4 (frame) are read; every length from the
// input is checked before it is used or allocated, and decompressed bytes
// are capped per batch. Malformed input is a SYNTAX error saying where.
//
// StreamWriter (writer.go) goes the other way, for scan output: batches of
// a table schema to an Arrow IPC stream, appended to the caller's buffers.
//
//	w, _ := arrowipc.NewStreamWriter(batchSchema)
//	buf, err := w.Append(buf[:0], batch) // the schema first, then a record batch
//	buf = w.End(buf[:0])                 // end of stream
package arrowipc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// maxNestedText ends a batch of Next early once its rows' nested values
// come to this much JSON text: a few bytes of Arrow (a struct whose
// fields the input lacks, a list of the null type) may stand for many
// bytes of text, which the batch holds.
var maxNestedText = 64 << 20 // a variable for its test

// maxBatchBytes caps the bytes one record batch may decompress to (a body
// that expands past it is refused, not allocated).
const maxBatchBytes = 512 << 20

// Reader aligns the rows of Arrow IPC data to a table, batch by batch.
type Reader struct {
	data   []byte
	t      *schema.Table
	fields []field
	target []int // per Arrow field: the table column, or -1 to skip it
	b      *rows.Builder

	dicts map[int64]*dictionary // by id, only those of read fields
	// dictField gives the field each dictionary id holds values of.
	dictField map[int64]*field

	file    *footer // nil for a stream
	pos     int     // stream: where the next message starts
	block   int     // file: the next record batch block
	started bool    // file: dictionaries read

	// plans are how nested Arrow fields fill the table's nested columns
	// (nil for the others), nested their arrays in the current batch and
	// text a row's JSON text (nested_read.go).
	plans     []*nplan
	nested    []*nvec
	text      []byte
	textBytes int // nested text handed to the builder in this Next

	cols    []*vector // the current record batch, per Arrow field (nil: skipped)
	n, at   int       // its length and the next row
	rowBase int       // rows in the batches before it
	err     error     // sticky: the input is abandoned after an error
}

// NewReader reads the schema of data (a stream or a file) and matches its
// fields to t's columns by name.
func NewReader(data []byte, t *schema.Table, opt rows.Options) (*Reader, error) {
	r := &Reader{data: data, t: t, dicts: map[int64]*dictionary{}, dictField: map[int64]*field{}}
	var err error
	if strings.HasPrefix(string(data[:min(len(data), 6)]), fileMagic) {
		if r.file, err = readFooter(data); err != nil {
			return nil, syntax(err)
		}
		r.fields = r.file.schema
	} else {
		m, next, err := readMessage(data, 0)
		if err != nil {
			return nil, syntax(err)
		}
		if m == nil {
			return nil, &rows.Error{Code: rows.CodeEmptyInput, Msg: "the Arrow input is empty (no schema)"}
		}
		if m.kind != headerSchema {
			return nil, syntax(fmt.Errorf("the stream starts with a message of type %d, not a schema", m.kind))
		}
		if r.fields, err = readSchema(m.header); err != nil {
			return nil, syntax(fmt.Errorf("schema: %w", err))
		}
		r.pos = next
	}
	r.target = make([]int, len(r.fields))
	seen := make([]bool, len(t.Fields))
	for j := range r.fields {
		f := &r.fields[j]
		col, err := rows.LookupColumn(t, f.name, opt)
		if err != nil {
			return nil, err
		}
		r.target[j] = col
		if col < 0 {
			continue
		}
		if seen[col] {
			return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: f.name, Msg: "appears twice in the Arrow schema"}
		}
		seen[col] = true
		if tf := &t.Fields[col]; tf.Type == schema.Nested && tf.Nested != nil && isNestedField(f) {
			if r.plans == nil {
				r.plans = make([]*nplan, len(r.fields))
				r.nested = make([]*nvec, len(r.fields))
			}
			if r.plans[j], err = planNested(f, tf.Nested, f.name, tf.Required, opt, r.dictField); err != nil {
				return nil, err
			}
			continue
		}
		if k, _, why := planKind(f); k == vUnsupported {
			if why != "" {
				why = " (" + why + ")"
			}
			return nil, &rows.Error{Code: rows.CodeTypeMismatch, Column: f.name, Value: f.typeString(),
				Msg: fmt.Sprintf("Arrow type %s is not supported%s; supported: int8…int64, uint8…uint64, float16/32/64, bool, utf8, large_utf8, timestamp, date32, date64 and dictionaries of them", f.typeString(), why)}
		}
		if f.dict != nil {
			if r.dictField[f.dict.id] != nil {
				return nil, syntax(fmt.Errorf("fields %q and %q share dictionary %d", r.dictField[f.dict.id].name, f.name, f.dict.id))
			}
			r.dictField[f.dict.id] = f
		}
	}
	r.cols = make([]*vector, len(r.fields))
	r.b = rows.NewBuilder(t, opt)
	return r, nil
}

// Read aligns every row of data to t, in one batch.
func Read(data []byte, t *schema.Table, opt rows.Options) (*rows.Batch, error) {
	r, err := NewReader(data, t, opt)
	if err != nil {
		return nil, err
	}
	return r.Next(math.MaxInt)
}

func syntax(err error) error {
	return &rows.Error{Code: rows.CodeSyntax, Msg: "malformed Arrow IPC input: " + err.Error()}
}

// Next returns the next at most max rows; io.EOF after the last. Errors are
// *rows.Error with Row counted from the start of the input; after one, the
// input is abandoned. An input without rows is EMPTY_INPUT.
func (r *Reader) Next(max int) (*rows.Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.b.Reset()
	r.textBytes = 0
	for r.b.Len() < max && r.textBytes < maxNestedText {
		if r.at == r.n {
			more, err := r.nextBatch()
			if err != nil {
				r.err = err
				return nil, err
			}
			if !more {
				break
			}
			continue
		}
		if err := r.row(r.at); err != nil {
			var re *rows.Error
			if errors.As(err, &re) {
				re.Row = r.rowBase + r.at + 1
			}
			r.err = err
			return nil, err
		}
		r.at++
	}
	if r.b.Len() == 0 {
		if r.rowBase+r.n == 0 {
			r.err = &rows.Error{Code: rows.CodeEmptyInput, Msg: "the Arrow input has no rows"}
			return nil, r.err
		}
		return nil, io.EOF
	}
	return r.b.Batch(), nil
}

func (r *Reader) row(i int) error {
	for j, v := range r.cols {
		if v == nil {
			if nv := r.nestedAt(j); nv != nil {
				if err := r.nestedValue(nv, r.target[j], i); err != nil {
					return err
				}
			}
			continue
		}
		if err := v.appendTo(r.b, r.t, r.target[j], i); err != nil {
			return err
		}
	}
	return r.b.EndRow()
}

// nextBatch loads the next record batch, reading dictionary batches on the
// way; false at the end of the input.
func (r *Reader) nextBatch() (bool, error) {
	for {
		var m *message
		var err error
		if r.file != nil {
			if !r.started {
				r.started = true
				for _, off := range r.file.dicts {
					if err := r.readAt(off, headerDictionaryBatch); err != nil {
						return false, err
					}
				}
			}
			if r.block == len(r.file.batches) {
				return false, nil
			}
			off := r.file.batches[r.block]
			r.block++
			if m, _, err = readMessage(r.data, int(off)); err == nil && m == nil {
				err = fmt.Errorf("block at byte %d is an end-of-stream marker", off)
			}
		} else {
			m, r.pos, err = readMessage(r.data, r.pos)
		}
		if err != nil {
			return false, syntax(err)
		}
		if m == nil {
			return false, nil
		}
		switch m.kind {
		case headerDictionaryBatch:
			if r.file != nil {
				return false, syntax(fmt.Errorf("message at byte %d: a file's record batch block holds a dictionary", m.at))
			}
			if err := r.dictionaryBatch(m); err != nil {
				return false, err
			}
		case headerRecordBatch:
			return true, r.recordBatch(m)
		case headerSchema:
			return false, syntax(fmt.Errorf("message at byte %d: a second schema", m.at))
		default:
			return false, syntax(fmt.Errorf("message at byte %d: type %d is not a dictionary or record batch", m.at, m.kind))
		}
	}
}

// readAt reads the file block at off, which must be a message of kind.
func (r *Reader) readAt(off int64, kind uint8) error {
	m, _, err := readMessage(r.data, int(off))
	if err == nil && (m == nil || m.kind != kind) {
		err = fmt.Errorf("block at byte %d is not a dictionary batch", off)
	}
	if err != nil {
		return syntax(err)
	}
	return r.dictionaryBatch(m)
}

func (r *Reader) dictionaryBatch(m *message) error {
	d, err := readDictionaryBatch(m.header)
	if err != nil {
		return syntax(fmt.Errorf("dictionary batch at byte %d: %w", m.at, err))
	}
	f := r.dictField[d.id]
	if f == nil {
		return nil // a dictionary of a skipped field (or a nested one): not needed
	}
	bb := &batchBody{rb: d.data, body: m.body, budget: maxBatchBytes}
	v, err := bb.read(&field{name: f.name, typ: f.typ}, nil)
	if err != nil {
		return syntax(fmt.Errorf("dictionary %d (field %q) at byte %d: %w", d.id, f.name, m.at, err))
	}
	dict := r.dicts[d.id]
	switch {
	case d.delta && dict == nil:
		return syntax(fmt.Errorf("dictionary %d at byte %d: a delta before the dictionary", d.id, m.at))
	case !d.delta:
		// a new dictionary, not a reset one: vectors of the loaded batch keep the old
		dict = &dictionary{}
		r.dicts[d.id] = dict
	}
	if int64(dict.n)+int64(v.n) > math.MaxInt32 {
		return syntax(fmt.Errorf("dictionary %d grows past %d values", d.id, math.MaxInt32))
	}
	dict.chunks = append(dict.chunks, v)
	dict.n += v.n
	return nil
}

func (r *Reader) recordBatch(m *message) error {
	rb, err := readRecordBatch(m.header)
	if err != nil {
		return syntax(fmt.Errorf("record batch at byte %d: %w", m.at, err))
	}
	if rb.length < 0 || rb.length > math.MaxInt32 {
		return syntax(fmt.Errorf("record batch at byte %d: length %d", m.at, rb.length))
	}
	bb := &batchBody{rb: rb, body: m.body, budget: maxBatchBytes}
	for j := range r.fields {
		f := &r.fields[j]
		if r.target[j] < 0 {
			if err := bb.skip(f, 0); err != nil {
				return syntax(fmt.Errorf("record batch at byte %d: %w", m.at, err))
			}
			r.cols[j] = nil
			continue
		}
		if r.plans != nil && r.plans[j] != nil {
			nv, err := bb.readNested(r.plans[j], r.dicts)
			if err != nil {
				return syntax(fmt.Errorf("record batch at byte %d: %w", m.at, err))
			}
			if int64(nv.n) != rb.length {
				return syntax(fmt.Errorf("record batch at byte %d: field %q has %d values, the batch %d rows", m.at, f.name, nv.n, rb.length))
			}
			r.cols[j], r.nested[j] = nil, nv
			continue
		}
		v, err := bb.read(f, r.dicts)
		if err != nil {
			return syntax(fmt.Errorf("record batch at byte %d: %w", m.at, err))
		}
		if int64(v.n) != rb.length {
			return syntax(fmt.Errorf("record batch at byte %d: field %q has %d values, the batch %d rows", m.at, f.name, v.n, rb.length))
		}
		r.cols[j] = v
	}
	r.rowBase += r.n
	r.n, r.at = int(rb.length), 0
	return nil
}

func (r *Reader) nestedAt(j int) *nvec {
	if r.nested == nil {
		return nil
	}
	return r.nested[j]
}

// nestedValue hands row i of nv to the builder as column col: its JSON
// text, or a null.
func (r *Reader) nestedValue(nv *nvec, col, i int) error {
	if nv.null(i) {
		r.b.AppendNull(col)
		return nil
	}
	var err error
	if r.text, err = nv.appendJSON(r.text[:0], i, false); err != nil {
		return err
	}
	r.textBytes += len(r.text)
	return r.b.AppendString(col, string(r.text))
}

// NumericTimes names the time columns given numbers (Arrow integers or
// floats, read in Options.TimeUnit) so far: rows.Builder.NumericTimes.
func (r *Reader) NumericTimes() []string {
	if r.b == nil {
		return nil
	}
	return r.b.NumericTimes()
}
