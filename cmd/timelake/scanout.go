package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// scanOut writes a scan's batches in one output format to a buffered
// writer. Every format but Parquet streams: a batch is written out before
// the next is read, so memory holds one batch whatever the result's size.
type scanOut interface {
	write(b *rows.Batch) error
	// finish ends the output; proj is the projected schema, for an
	// output that had no batch.
	finish(proj *schema.Table) error
}

func newScanOut(format string, w *bufio.Writer) scanOut {
	switch format {
	case "ndjson":
		return &ndjsonOut{w: w}
	case "parquet":
		return &parquetOut{w: w}
	case "arrow":
		return &arrowOut{w: w}
	}
	return &csvOut{w: csv.NewWriter(w)}
}

// csvOut is CSV with a header row; a null is an empty cell.
type csvOut struct {
	w      *csv.Writer
	header bool
	rec    []string
}

func (o *csvOut) write(b *rows.Batch) error {
	if !o.header {
		o.header = true
		if err := o.w.Write(fieldNames(b.Schema)); err != nil {
			return err
		}
	}
	o.rec = append(o.rec[:0], make([]string, len(b.Schema.Fields))...)
	for i := 0; i < b.Len; i++ {
		for c, f := range b.Schema.Fields {
			o.rec[c] = csvValue(f, &b.Cols[c], i)
		}
		if err := o.w.Write(o.rec); err != nil {
			return err
		}
	}
	return nil
}

func (o *csvOut) finish(proj *schema.Table) error {
	if !o.header {
		o.header = true
		if err := o.w.Write(fieldNames(proj)); err != nil {
			return err
		}
	}
	o.w.Flush()
	return o.w.Error()
}

// ndjsonOut is one JSON object per row.
type ndjsonOut struct {
	w    *bufio.Writer
	line []byte
}

func (o *ndjsonOut) write(b *rows.Batch) error {
	names := make([][]byte, len(b.Schema.Fields))
	for c, f := range b.Schema.Fields {
		names[c], _ = json.Marshal(f.Name)
	}
	for i := 0; i < b.Len; i++ {
		line := append(o.line[:0], '{')
		for c, f := range b.Schema.Fields {
			if c > 0 {
				line = append(line, ',')
			}
			line = append(append(line, names[c]...), ':')
			line = appendJSONValue(line, f, &b.Cols[c], i)
		}
		o.line = append(line, '}', '\n')
		if _, err := o.w.Write(o.line); err != nil {
			return err
		}
	}
	return nil
}

func (o *ndjsonOut) finish(*schema.Table) error { return nil }

// arrowOut is an Arrow IPC stream (arrowipc.StreamWriter): the schema,
// one record batch per scan batch, the end marker.
type arrowOut struct {
	w   *bufio.Writer
	sw  *arrowipc.StreamWriter
	buf []byte // one batch's message, reused
}

func (o *arrowOut) start(s *schema.Table) (err error) {
	o.sw, err = arrowipc.NewStreamWriter(s) // nested columns as Arrow maps, lists and structs
	return err
}

func (o *arrowOut) write(b *rows.Batch) error {
	if o.sw == nil {
		if err := o.start(b.Schema); err != nil {
			return err
		}
	}
	var err error
	if o.buf, err = o.sw.Append(o.buf[:0], b); err != nil {
		return err
	}
	_, err = o.w.Write(o.buf)
	return err
}

func (o *arrowOut) finish(proj *schema.Table) error {
	if o.sw == nil {
		if err := o.start(proj); err != nil {
			return err
		}
	}
	_, err := o.w.Write(o.sw.End(o.buf[:0]))
	return err
}

// parquetOut writes the scan's rows as one Parquet file, declared sorted
// by (series…, time). The file is built in memory (parquet.Writer), so
// it suits results that fit there.
type parquetOut struct {
	flat flatOnly
	w    *bufio.Writer
	pw   *parquet.Writer
}

func (p *parquetOut) start(s *schema.Table) error {
	s = p.flat.schemaOf(s)
	specs := make([]parquet.ColumnSpec, len(s.Fields))
	for i, f := range s.Fields {
		specs[i] = parquet.SpecOf(f)
	}
	var sorting []parquet.SortingColumn
	for _, c := range append(append([]int(nil), s.Series...), s.Time) {
		if !s.HasKey() {
			break // rows as stored: in no declared order
		}
		sorting = append(sorting, parquet.SortingColumn{Column: c, NullsFirst: true})
	}
	w, err := parquet.NewWriter(specs, parquet.Options{Sorting: sorting, CreatedBy: "timelake scan"})
	p.pw = w
	return err
}

func (p *parquetOut) write(b *rows.Batch) error {
	if p.pw == nil {
		if err := p.start(b.Schema); err != nil {
			return err
		}
	}
	b = p.flat.batch(b)
	return p.pw.Write(b.Cols, b.Len)
}

// finish writes the file (an empty one, of the projected columns, when no
// row passed).
func (p *parquetOut) finish(proj *schema.Table) error {
	if p.pw == nil {
		if err := p.start(proj); err != nil {
			return err
		}
	}
	data, _, err := p.pw.Finish()
	if err != nil {
		return err
	}
	_, err = p.w.Write(data)
	return err
}

func fieldNames(s *schema.Table) []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

// formatScanTime is RFC 3339 in UTC with microseconds.
func formatScanTime(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// formatLocalTime prints a timestamp without a zone: its wall clock, no Z.
func formatLocalTime(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000")
}

// timeText prints a value of time type t: microseconds with 6 fraction
// digits, a nanosecond column's values with 9; Z for a zoned type.
func timeText(t schema.Type, v int64) string {
	switch t {
	case schema.TimestamptzNs:
		return time.Unix(0, v).UTC().Format("2006-01-02T15:04:05.000000000Z")
	case schema.TimestampNs:
		return time.Unix(0, v).UTC().Format("2006-01-02T15:04:05.000000000")
	case schema.Timestamp:
		return formatLocalTime(v)
	}
	return formatScanTime(v)
}

func floatText(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// floatBits is the precision a float column's values print at: a float is
// held widened, and prints as the float it is.
func floatBits(t schema.Type) int {
	if t == schema.Float {
		return 32
	}
	return 64
}

// csvValue is a cell of the CSV output: a null is empty.
func csvValue(f schema.Field, c *rows.Column, i int) string {
	if c.IsNull(i) {
		return ""
	}
	switch {
	case f.Type.IsTime():
		return timeText(f.Type, c.Ints[i])
	case f.Type.IsInteger():
		return strconv.FormatInt(c.Ints[i], 10)
	case f.Type.IsFloat():
		return floatText(c.Floats[i], floatBits(f.Type))
	case f.Type == schema.Boolean:
		return strconv.FormatBool(c.Bools[i])
	}
	return c.Strs[i]
}

// appendJSONValue appends a cell of the NDJSON output: times as RFC 3339
// strings, integers exact, NaN and ±Inf as strings, null as null.
func appendJSONValue(b []byte, f schema.Field, c *rows.Column, i int) []byte {
	if c.IsNull(i) {
		return append(b, "null"...)
	}
	switch {
	case f.Type.IsTime():
		return strconv.AppendQuote(b, timeText(f.Type, c.Ints[i]))
	case f.Type.IsInteger():
		return strconv.AppendInt(b, c.Ints[i], 10)
	case f.Type.IsFloat():
		v := c.Floats[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.AppendQuote(b, floatText(v, 64))
		}
		return strconv.AppendFloat(b, v, 'g', -1, floatBits(f.Type))
	case f.Type == schema.Boolean:
		return strconv.AppendBool(b, c.Bools[i])
	case f.Type == schema.Nested:
		return append(b, c.Strs[i]...) // JSON text already
	}
	s, _ := json.Marshal(c.Strs[i])
	return append(b, s...)
}
