package rows

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// CSVReader reads CSV (RFC 4180: quoted fields, CRLF or LF line ends, an
// optional UTF-8 byte order mark) whose first record is a header naming the
// columns, in any order. An empty field, quoted or not, is null.
type CSVReader struct {
	src     *bufio.Reader
	csv     *csv.Reader
	b       *Builder
	opt     Options
	cols    []int    // header position → schema column, -1 for an ignored one
	names   []string // header names
	rows    int      // data rows read so far
	endLine int      // the line on which the last data row read ended
	started bool
	done    bool
	err     error // sticky: once failed, always failed
}

// NewCSVReader returns a reader of CSV rows for table t. It reads nothing
// until the first Next.
func NewCSVReader(r io.Reader, t *schema.Table, opt Options) *CSVReader {
	src := bufio.NewReaderSize(&quotedCR{src: newLineLimiter(r, opt, true)}, 64<<10)
	c := csv.NewReader(src)
	c.ReuseRecord = true
	c.FieldsPerRecord = -1 // counted here, to report FIELD_COUNT with the row
	return &CSVReader{src: src, csv: c, b: NewBuilder(t, opt), opt: opt}
}

// Next returns the next batch of at most max rows (all the rest if max <= 0),
// or io.EOF after the last. The batch is reused by the following call to
// Next; copy what must outlive it (SortDedup and Take make copies). Input with
// no data row fails with EMPTY_INPUT. Any other error is an *Error, and fails
// the whole input, including batches already returned.
func (r *CSVReader) Next(max int) (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if !r.started {
		r.started = true
		skipBOM(r.src)
		if err := r.readHeader(); err != nil {
			r.err = err
			return nil, err
		}
	}
	r.b.Reset()
	for max <= 0 || r.b.Len() < max {
		rec, err := r.csv.Read()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			r.err = r.syntax(err)
			return nil, r.err
		}
		r.rows++
		keepCR(rec)
		if err := r.row(rec); err != nil {
			r.err = err
			return nil, err
		}
		if n := len(rec); n > 0 {
			// A quoted field may span lines: the record ends on the line
			// its last field starts on, plus the line breaks inside it.
			line, _ := r.csv.FieldPos(n - 1)
			r.endLine = line + strings.Count(rec[n-1], "\n")
		}
	}
	if r.b.Len() == 0 {
		if r.rows == 0 {
			r.err = &Error{Code: CodeEmptyInput, Msg: "the CSV input has a header but no rows"}
			return nil, r.err
		}
		return nil, io.EOF
	}
	return r.b.Batch(), nil
}

// EndLine is the line (1-based, the header counted) on which the last data
// row returned ended: a caller that committed the rows so far resumes after it.
func (r *CSVReader) EndLine() int { return r.endLine }

func (r *CSVReader) syntax(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{Code: CodeSyntax, Row: r.rows + 1, Line: pe.Line, Msg: "malformed CSV: " + pe.Err.Error()}
	}
	var le *Error
	if errors.As(err, &le) { // a limit of the input (limits.go)
		return le
	}
	return err // an I/O error from the source, passed through
}

func (r *CSVReader) readHeader() error {
	rec, err := r.csv.Read()
	if err == io.EOF {
		return &Error{Code: CodeEmptyInput, Msg: "the CSV input is empty (no header, no rows)"}
	}
	if err != nil {
		return r.syntax(err)
	}
	t := r.b.table
	line, _ := r.csv.FieldPos(0)
	keepCR(rec)
	r.names = append([]string(nil), rec...) // rec is reused by the next Read
	r.cols = make([]int, len(rec))
	seen := make(map[string]bool, len(rec))
	for j, name := range r.names {
		if !utf8.ValidString(name) {
			return &Error{Code: CodeInvalidUTF8, Line: line, Value: errValue(name),
				Msg: fmt.Sprintf("header name %q is not valid UTF-8", shortValue(name))}
		}
		if seen[name] {
			return &Error{Code: CodeDuplicateColumn, Line: line, Column: name, Msg: "named twice in the header"}
		}
		seen[name] = true
		col, e := lookupColumn(t, name, r.opt)
		if e != nil {
			e.Line = line
			return e
		}
		r.cols[j] = col
	}
	for i, f := range t.Fields {
		if f.Required && i != t.Ingest && f.WriteDefault == nil && !seen[f.Name] {
			return &Error{Code: CodeMissingColumn, Line: line, Column: f.Name,
				Msg: fmt.Sprintf("required %s column is not in the header", f.Type)}
		}
	}
	return nil
}

// lookupColumn finds the schema column for an input name: -1 to ignore it,
// or an UNKNOWN_COLUMN error.
func lookupColumn(t *schema.Table, name string, opt Options) (int, *Error) {
	col := t.Index(name)
	switch {
	case name == schema.IngestColumn && t.Ingest < 0:
		return 0, &Error{Code: CodeUnknownColumn, Column: name,
			Msg: "is not in this table, created without it (a duplicate key: the later append wins)"}
	case name == schema.IngestColumn:
		return 0, &Error{Code: CodeUnknownColumn, Column: name,
			Msg: "is set by the writer to the append's time and cannot be given in the input"}
	case col >= 0:
		return col, nil
	case opt.IgnoreUnknown:
		return -1, nil
	}
	return 0, &Error{Code: CodeUnknownColumn, Column: name, Msg: fmt.Sprintf("is not in the table schema (columns: %s)", columnList(t))}
}

func columnList(t *schema.Table) string {
	s := ""
	for i, f := range t.Fields {
		if i == t.Ingest {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += f.Name
	}
	return s
}

func (r *CSVReader) row(rec []string) error {
	if len(rec) != len(r.cols) {
		line, _ := r.csv.FieldPos(0)
		return &Error{Code: CodeFieldCount, Row: r.rows, Line: line,
			Msg: fmt.Sprintf("line has %d fields, the header has %d", len(rec), len(r.cols))}
	}
	b := r.b
	for j, v := range rec {
		col := r.cols[j]
		if col < 0 {
			continue
		}
		if v == "" {
			b.AppendNull(col)
			continue
		}
		if e := b.appendText(col, v); e != nil {
			e.Row = r.rows
			e.Line, _ = r.csv.FieldPos(j)
			return e
		}
	}
	if e := b.endRow(); e != nil {
		e.Row = r.rows
		e.Line, _ = r.csv.FieldPos(0)
		if j := r.position(e.Column); j >= 0 {
			e.Line, _ = r.csv.FieldPos(j)
		}
		return e
	}
	return nil
}

func (r *CSVReader) position(name string) int {
	for j, n := range r.names {
		if n == name {
			return j
		}
	}
	return -1
}

// skipBOM drops a UTF-8 byte order mark, which spreadsheet exports put first.
func skipBOM(r *bufio.Reader) {
	if p, _ := r.Peek(3); len(p) == 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		r.Discard(3)
	}
}

// NumericTimes names the time columns given numbers so far (Builder.NumericTimes).
func (r *CSVReader) NumericTimes() []string { return r.b.NumericTimes() }
