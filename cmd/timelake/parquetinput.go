package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// parquetInput aligns a Parquet file's columns to the table by name, a row
// group at a time, through the same rows.Builder (and so the same conversions
// and errors) as CSV and NDJSON.
type parquetInput struct {
	f      *parquet.File
	t      *schema.Table
	b      *rows.Builder
	src    []int // for each table field, the file column, or -1
	nested []int // for each table field, the file's nested column, or -1
	// skipFields says, by table field, that its nested column holds a
	// struct field the table lacks (--ignore-unknown): its rows' text is
	// re-read without it.
	skipFields []bool
	rg         int
	cols       []rows.Column // the current row group's columns
	// nestedCols are the current row group's nested columns, by table
	// field: each row's JSON text.
	nestedCols []rows.Column
	pos, n     int // next row within the row group, and its rows
	rowBase    int // rows before the current row group
}

// openParquetInput opens a Parquet input: a regular file by range (its
// footer, then one row group's column chunks at a time, so a file on disk
// is never held whole), anything else (stdin, a pipe) read whole under
// maxWholeInput. closeFn closes the file; the returned one closes it when
// the input was read by range and is done.
func openParquetInput(r io.Reader, br *bufio.Reader, closeFn func()) (*parquet.File, func(), error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			pf, err := parquet.OpenReaderAt(f, fi.Size())
			if err != nil {
				closeFn()
				return nil, nil, &rows.Error{Code: rows.CodeSyntax, Msg: err.Error()}
			}
			return pf, closeFn, nil
		}
	}
	data, err := readWhole(br, "parquet")
	closeFn()
	if err != nil {
		return nil, nil, err
	}
	pf, err := parquet.Open(data)
	if err != nil {
		// A malformed input file, not a storage failure.
		return nil, nil, &rows.Error{Code: rows.CodeSyntax, Msg: err.Error()}
	}
	return pf, func() {}, nil
}

// parquetColumns are a Parquet input's columns, for append --evolve.
func parquetColumns(f *parquet.File) []evolve.Column {
	var cols []evolve.Column
	for _, c := range f.Schema() {
		if c.InNested {
			continue // a nested column is not added (newParquetInput names it)
		}
		// A nanosecond column (pandas' default) is added as a
		// microsecond one, which a format 2 table can hold: a
		// timestamp_ns column is declared, not inferred.
		cols = append(cols, evolve.Column{Name: c.Name, Type: c.Type.InMicros()})
	}
	return cols
}

func newParquetInput(f *parquet.File, t *schema.Table, opt rows.Options) (*parquetInput, error) {
	p := &parquetInput{f: f, t: t, src: make([]int, len(t.Fields))}
	for i := range p.src {
		p.src[i] = -1
	}
	p.nested = make([]int, len(t.Fields))
	for i := range p.nested {
		p.nested[i] = -1
	}
	seen := map[string]bool{}
	for k, nc := range f.Meta().Nested {
		// A nested column fills the table's nested column of its name
		// (parquetnested.go); one the table lacks is left out with
		// --ignore-unknown, else refused by name (--evolve adds no nested
		// column).
		if seen[nc.Name] {
			return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: nc.Name, Msg: "column appears twice in the Parquet schema"}
		}
		seen[nc.Name] = true
		i := t.Index(nc.Name)
		if i < 0 {
			if opt.IgnoreUnknown {
				continue
			}
			return nil, &rows.Error{Code: rows.CodeUnknownColumn, Column: nc.Name, Msg: "is a nested column (map, list or struct) the table lacks; --evolve does not add nested columns (--ignore-unknown leaves it out)"}
		}
		tf := t.Fields[i]
		if tf.Type != schema.Nested || tf.Nested == nil {
			return nil, &rows.Error{Code: rows.CodeTypeMismatch, Column: nc.Name,
				Msg: fmt.Sprintf("is %s in the Parquet input, %s in the table", shapeText(f.Meta().Shape(k)), tf.TypeText())}
		}
		skipped, err := nestedFits(f.Meta().Shape(k), tf.Nested, nc.Name, opt.IgnoreUnknown)
		if err != nil {
			return nil, err
		}
		p.nested[i] = k
		if skipped {
			if p.skipFields == nil {
				p.skipFields = make([]bool, len(t.Fields))
			}
			p.skipFields[i] = true
		}
	}
	for j, c := range f.Schema() {
		if c.InNested {
			continue
		}
		if seen[c.Name] {
			return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: c.Name, Msg: "column appears twice in the Parquet schema"}
		}
		seen[c.Name] = true
		i := t.Index(c.Name)
		ingest := c.Name == schema.IngestColumn
		if i < 0 || ingest {
			if opt.IgnoreUnknown && !ingest {
				continue
			}
			msg := "is not a column of the table"
			if ingest && t.Ingest >= 0 {
				msg = "is set by the writer and cannot be given"
			}
			return nil, &rows.Error{Code: rows.CodeUnknownColumn, Column: c.Name, Msg: msg}
		}
		p.src[i] = j
	}
	p.b = rows.NewBuilder(t, opt)
	return p, nil
}

func (p *parquetInput) Next(max int) (*rows.Batch, error) {
	p.b.Reset()
	for p.b.Len() < max {
		if p.pos == p.n {
			if p.rg == p.f.NumRowGroups() {
				break
			}
			if err := p.loadRowGroup(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.row(p.pos); err != nil {
			var re *rows.Error
			if errors.As(err, &re) {
				re.Row = p.rowBase + p.pos + 1
			}
			return nil, err
		}
		p.pos++
	}
	if p.b.Len() == 0 {
		if p.rowBase+p.n == 0 {
			return nil, &rows.Error{Code: rows.CodeEmptyInput, Msg: "the Parquet input has no rows"}
		}
		return nil, io.EOF
	}
	return p.b.Batch(), nil
}

func (p *parquetInput) loadRowGroup() error {
	p.rowBase += p.n
	p.cols = make([]rows.Column, len(p.f.Schema()))
	if p.nestedCols == nil {
		p.nestedCols = make([]rows.Column, len(p.nested))
	}
	for i, k := range p.nested {
		if k < 0 {
			continue
		}
		c, err := p.f.ReadNested(p.rg, k, nil) // the file's names, which matched the table's
		if err != nil {
			return &rows.Error{Code: rows.CodeSyntax, Column: p.t.Fields[i].Name,
				Msg: fmt.Sprintf("row group %d of the Parquet input: %v", p.rg, err)}
		}
		if p.skipFields != nil && p.skipFields[i] {
			dropUnknownFields(&c, p.t.Fields[i].Nested)
		}
		p.nestedCols[i] = c
	}
	for j := range p.cols {
		if p.f.Schema()[j].InNested {
			continue // a nested column's leaf: left out (newParquetInput)
		}
		c, err := p.f.ReadColumn(p.rg, j)
		if err != nil {
			// A malformed or hostile input (a truncated page, a zstd
			// bomb): bad input, not a storage failure.
			return &rows.Error{Code: rows.CodeSyntax, Column: p.f.Schema()[j].Name,
				Msg: fmt.Sprintf("row group %d of the Parquet input: %v", p.rg, err)}
		}
		p.cols[j] = c
	}
	p.n = int(p.f.Meta().RowGroups[p.rg].NumRows)
	p.pos = 0
	p.rg++
	return nil
}

func (p *parquetInput) row(r int) error {
	info := p.f.Schema()
	for i, j := range p.src {
		if k := p.nested[i]; k >= 0 {
			c := &p.nestedCols[i]
			if c.IsNull(r) {
				p.b.AppendNull(i)
			} else if err := p.b.AppendString(i, c.Strs[r]); err != nil {
				return err
			}
			continue
		}
		if j < 0 {
			continue
		}
		c := &p.cols[j]
		if c.IsNull(r) {
			p.b.AppendNull(i)
			continue
		}
		var err error
		switch st := info[j].Type; {
		case st.Nanos(): // pandas' and pyarrow's default: every nanosecond kept for an ns column
			err = p.b.AppendTime(i, time.Unix(0, c.Ints[r]))
		case st.IsTime():
			err = p.b.AppendTime(i, time.UnixMicro(c.Ints[r]))
		case st.IsInteger():
			err = p.b.AppendInt64(i, c.Ints[r])
		case st.IsFloat():
			err = p.b.AppendFloat64(i, c.Floats[r])
		case st == schema.Boolean:
			err = p.b.AppendBool(i, c.Bools[r])
		default:
			err = p.b.AppendString(i, c.Strs[r])
		}
		if err != nil {
			return err
		}
	}
	return p.b.EndRow()
}

// NumericTimes names the time columns given numbers (Parquet integers or
// floats, read in --time-unit) so far.
func (p *parquetInput) NumericTimes() []string { return p.b.NumericTimes() }
