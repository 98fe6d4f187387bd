package rows

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/timelake/timelake/schema"
)

// NDJSONReader reads newline-delimited JSON: one object per line, keys naming
// columns. A missing key or null is null; blank lines are skipped; a UTF-8
// byte order mark and CRLF line ends are accepted.
//
// It is a hand scanner rather than encoding/json: values go straight from
// the line buffer into typed columns (no map, no interface boxing), integers
// are read exactly (a long above 2^53 keeps every digit), and a key given
// twice is caught.
type NDJSONReader struct {
	src     *bufio.Reader
	b       *Builder
	opt     Options
	byName  map[string]int // key → schema column; -1 to ignore, -2 for _ingest_ts
	line    int            // lines read so far
	rows    int            // data rows read so far
	long    []byte         // a line longer than the bufio buffer, assembled
	scratch []byte         // unescaped strings
	// keyAt[k] remembers the k-th key of the previous line and its column:
	// lines of one file mostly repeat their keys in order, and comparing
	// bytes is cheaper than hashing them.
	keyAt   []keyCol
	started bool
	done    bool
	err     error // sticky
}

// NewNDJSONReader returns a reader of NDJSON rows for table t. It reads
// nothing until the first Next.
func NewNDJSONReader(r io.Reader, t *schema.Table, opt Options) *NDJSONReader {
	byName := make(map[string]int, len(t.Fields))
	for i, f := range t.Fields {
		byName[f.Name] = i
	}
	byName[schema.IngestColumn] = -2
	return &NDJSONReader{src: bufio.NewReaderSize(newLineLimiter(r, opt, false), 64<<10), b: NewBuilder(t, opt), opt: opt, byName: byName}
}

// Next returns the next batch of at most max rows (all the rest if max <= 0),
// or io.EOF after the last. The batch is reused by the following call to
// Next; copy what must outlive it (SortDedup and Take make copies). Input
// without a row fails with EMPTY_INPUT. Any other error is an *Error (or the
// source's I/O error) and fails the whole input, including batches already
// returned.
// EndLine is the line (1-based) of the last row returned: a caller that
// committed the rows so far resumes after it.
func (r *NDJSONReader) EndLine() int { return r.line }

func (r *NDJSONReader) Next(max int) (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if !r.started {
		r.started = true
		skipBOM(r.src)
	}
	r.b.Reset()
	for max <= 0 || r.b.Len() < max {
		p, err := r.readLine()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		r.line++
		if isBlank(p) {
			continue
		}
		r.rows++
		if e := r.parseLine(p); e != nil {
			e.Row, e.Line = r.rows, r.line
			r.err = e
			return nil, e
		}
	}
	if r.b.Len() == 0 {
		if r.rows == 0 {
			r.err = &Error{Code: CodeEmptyInput, Msg: "the NDJSON input has no rows"}
			return nil, r.err
		}
		return nil, io.EOF
	}
	return r.b.Batch(), nil
}

// readLine returns the next line without its '\n'; it is valid until the
// next call. io.EOF means no more lines.
func (r *NDJSONReader) readLine() ([]byte, error) {
	p, err := r.src.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], p...)
		for err == bufio.ErrBufferFull {
			p, err = r.src.ReadSlice('\n')
			r.long = append(r.long, p...)
		}
		p = r.long
	}
	if err == io.EOF {
		if len(p) == 0 {
			return nil, io.EOF
		}
		err = nil // a last line without '\n'
	}
	if err != nil {
		return nil, err
	}
	if n := len(p); n > 0 && p[n-1] == '\n' {
		p = p[:n-1]
	}
	return p, nil
}

type keyCol struct {
	key []byte
	col int
}

func isBlank(p []byte) bool {
	for _, c := range p {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(p []byte, i int) int {
	for i < len(p) && isSpace(p[i]) {
		i++
	}
	return i
}

// transient views p as a string without copying, for parsing only: the
// result must not be kept, since p is the reused line buffer.
func transient(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(p), len(p))
}

func syntaxErr(format string, a ...any) *Error {
	return &Error{Code: CodeSyntax, Msg: fmt.Sprintf(format, a...)}
}

func (r *NDJSONReader) parseLine(p []byte) *Error {
	b := r.b
	i := skipSpace(p, 0)
	if p[i] != '{' {
		return syntaxErr("line is not a JSON object (it starts with %q)", p[i])
	}
	i = skipSpace(p, i+1)
	if i < len(p) && p[i] == '}' {
		i++
	} else {
		for k := 0; ; k++ {
			if i >= len(p) || p[i] != '"' {
				return syntaxErr("expected a quoted key at byte %d", i+1)
			}
			key, next, e := r.scanString(p, i)
			if e != nil {
				return e
			}
			if !utf8.Valid(key) {
				return &Error{Code: CodeInvalidUTF8, Value: errValue(string(key)),
					Msg: fmt.Sprintf("key %q is not valid UTF-8", shortValue(string(key)))}
			}
			var col int
			if k < len(r.keyAt) && bytes.Equal(r.keyAt[k].key, key) {
				col = r.keyAt[k].col
			} else {
				c, known := r.byName[string(key)]
				if !known || c == -2 {
					var e *Error
					if c, e = lookupColumn(b.table, string(key), r.opt); e != nil {
						return e
					}
				}
				col = c
				if k < len(r.keyAt) {
					r.keyAt[k] = keyCol{append(r.keyAt[k].key[:0], key...), col}
				} else if k == len(r.keyAt) && k < 256 {
					r.keyAt = append(r.keyAt, keyCol{slices.Clone(key), col})
				}
			}
			i = skipSpace(p, next)
			if i >= len(p) || p[i] != ':' {
				return syntaxErr("expected ':' after key %q", string(key))
			}
			i = skipSpace(p, i+1)
			if col < 0 {
				if i, e = skipValue(p, i, 0); e != nil {
					return e
				}
			} else {
				if b.Has(col) {
					return &Error{Code: CodeDuplicateColumn, Column: b.table.Fields[col].Name, Msg: "key given twice in the object"}
				}
				if i, e = r.value(p, i, col); e != nil {
					return e
				}
			}
			i = skipSpace(p, i)
			if i < len(p) && p[i] == ',' {
				i = skipSpace(p, i+1)
				continue
			}
			if i < len(p) && p[i] == '}' {
				i++
				break
			}
			return syntaxErr("expected ',' or '}' at byte %d", i+1)
		}
	}
	if i = skipSpace(p, i); i != len(p) {
		return syntaxErr("text after the JSON object at byte %d (one object per line)", i+1)
	}
	return b.endRow()
}

// value reads the JSON value at p[i:] into column col.
func (r *NDJSONReader) value(p []byte, i, col int) (int, *Error) {
	b := r.b
	if i >= len(p) {
		return i, syntaxErr("line ends before a value")
	}
	if b.table.Fields[col].Nested.IsVariant() && p[i] != 'n' {
		return r.variantValue(p, i, col) // any JSON value; null is a null row
	}
	switch c := p[i]; {
	case c == '"':
		s, next, e := r.scanString(p, i)
		if e != nil {
			e.Column = b.table.Fields[col].Name
			return next, e
		}
		if b.kinds[col] == kindStr {
			if f := &b.table.Fields[col]; f.Type == schema.Nested {
				return next, &Error{Code: CodeTypeMismatch, Column: f.Name, Value: errValue(string(s)),
					Msg: fmt.Sprintf("a string given for a %s column (give its JSON value)", f.Nested)}
			}
			if len(s) > MaxValueBytes {
				return next, tooLarge(b.table.Fields[col].Name, len(s))
			}
			if !utf8.Valid(s) {
				return next, &Error{Code: CodeInvalidUTF8, Column: b.table.Fields[col].Name, Value: errValue(string(s)),
					Msg: fmt.Sprintf("value %q is not valid UTF-8", shortValue(string(s)))}
			}
			b.putStr(col, b.internBytes(col, s))
			return next, nil
		}
		return next, b.appendText(col, transient(s))
	case c == '-' || (c >= '0' && c <= '9'):
		end := scanJSONNumber(p, i)
		if end < 0 {
			return i, syntaxErr("malformed number at byte %d", i+1)
		}
		return end, b.appendNumber(col, transient(p[i:end]))
	case c == 't' || c == 'f':
		if bytes.HasPrefix(p[i:], []byte("true")) {
			return i + 4, b.appendBool(col, true)
		}
		if bytes.HasPrefix(p[i:], []byte("false")) {
			return i + 5, b.appendBool(col, false)
		}
	case c == 'n':
		if bytes.HasPrefix(p[i:], []byte("null")) {
			b.AppendNull(col)
			return i + 4, nil
		}
	case (c == '{' || c == '[') && b.table.Fields[col].Type == schema.Nested:
		// a nested column's object or array, taken as its text: read in
		// place; what does not parse is reported as before, below
		if end, ok := b.appendNestedAt(col, p, i); ok {
			return end, nil
		}
		end, e := skipValue(p, i, 0)
		if e != nil {
			e.Column = b.table.Fields[col].Name
			return end, e
		}
		return end, b.appendNested(col, string(p[i:end]))
	case c == '{' || c == '[':
		f := b.table.Fields[col]
		what := "an object"
		if c == '[' {
			what = "an array"
		}
		return i, &Error{Code: CodeTypeMismatch, Column: f.Name, Msg: fmt.Sprintf("%s given for a %s column", what, f.Type)}
	}
	return i, syntaxErr("malformed value at byte %d", i+1)
}

// scanJSONNumber returns the end of the JSON number at p[i:], or -1.
func scanJSONNumber(p []byte, i int) int {
	if p[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(p) && p[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(p) && p[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(p) && (p[i] == 'e' || p[i] == 'E') {
		i++
		if i < len(p) && (p[i] == '+' || p[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

// scanString reads the JSON string starting at the quote p[i]. It returns
// its content (unescaped into r.scratch if it has escapes, else a slice of
// p) and the index after the closing quote.
func (r *NDJSONReader) scanString(p []byte, i int) ([]byte, int, *Error) {
	start := i + 1
	j := start
	for j < len(p) {
		c := p[j]
		if c == '"' {
			return p[start:j], j + 1, nil
		}
		if c == '\\' {
			return r.unescape(p, start, j)
		}
		if c < 0x20 {
			return nil, j, syntaxErr("control character %q in a string at byte %d", c, j+1)
		}
		j++
	}
	return nil, j, syntaxErr("unterminated string at byte %d", i+1)
}

func (r *NDJSONReader) unescape(p []byte, start, j int) ([]byte, int, *Error) {
	out, end, err := unescapeJSON(append(r.scratch[:0], p[start:j]...), p, j)
	if out != nil {
		r.scratch = out[:0]
	}
	return out, end, err
}

// unescapeJSON appends to out the rest of the JSON string whose
// escape-free start the caller copied, from p[j] (an escape) to its
// closing quote, decoding escapes (UTF-16 pairs too); it returns the
// string and the index after the quote. Shared by the NDJSON reader and
// the string-map reader (stringmap.go).
func unescapeJSON(out, p []byte, j int) ([]byte, int, *Error) {
	for j < len(p) {
		c := p[j]
		switch {
		case c == '"':
			return out, j + 1, nil
		case c < 0x20:
			return nil, j, syntaxErr("control character %q in a string at byte %d", c, j+1)
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(p) {
			break
		}
		esc := p[j+1]
		j += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r1, ok := hex4(p, j)
			if !ok {
				return nil, j, syntaxErr("bad \\u escape at byte %d", j-1)
			}
			j += 4
			if utf16.IsSurrogate(r1) {
				var r2 rune = -1
				if j+1 < len(p) && p[j] == '\\' && p[j+1] == 'u' {
					r2, ok = hex4(p, j+2)
					if !ok {
						return nil, j, syntaxErr("bad \\u escape at byte %d", j+1)
					}
				}
				if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
					r1 = d
					j += 6
				} else {
					return nil, j, &Error{Code: CodeInvalidUTF8,
						Msg: fmt.Sprintf("string has a lone UTF-16 surrogate \\u%04x, which is not valid UTF-8", r1)}
				}
			}
			out = utf8.AppendRune(out, r1)
		default:
			return nil, j, syntaxErr("bad escape \\%c at byte %d", esc, j-1)
		}
	}
	return nil, j, syntaxErr("unterminated string")
}

func hex4(p []byte, i int) (rune, bool) {
	if i+4 > len(p) {
		return 0, false
	}
	var v rune
	for _, c := range p[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	return v, true
}

// maxDepth bounds nesting in ignored values, so a hostile line cannot
// exhaust the stack.
const maxDepth = 1000

// skipValue checks and skips the JSON value at p[i:] (for an ignored key).
func skipValue(p []byte, i, depth int) (int, *Error) {
	if i >= len(p) {
		return i, syntaxErr("line ends before a value")
	}
	if depth > maxDepth {
		return i, syntaxErr("value nested more than %d deep", maxDepth)
	}
	var scratch NDJSONReader // strings of ignored values are not kept
	switch c := p[i]; {
	case c == '"':
		_, next, e := scratch.scanString(p, i)
		return next, e
	case c == '-' || (c >= '0' && c <= '9'):
		if end := scanJSONNumber(p, i); end >= 0 {
			return end, nil
		}
	case bytes.HasPrefix(p[i:], []byte("true")), bytes.HasPrefix(p[i:], []byte("null")):
		return i + 4, nil
	case bytes.HasPrefix(p[i:], []byte("false")):
		return i + 5, nil
	case c == '[' || c == '{':
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		i = skipSpace(p, i+1)
		if i < len(p) && p[i] == closing {
			return i + 1, nil
		}
		for {
			var e *Error
			if c == '{' {
				if i >= len(p) || p[i] != '"' {
					return i, syntaxErr("expected a quoted key at byte %d", i+1)
				}
				if _, i, e = scratch.scanString(p, i); e != nil {
					return i, e
				}
				if i = skipSpace(p, i); i >= len(p) || p[i] != ':' {
					return i, syntaxErr("expected ':' at byte %d", i+1)
				}
				i = skipSpace(p, i+1)
			}
			if i, e = skipValue(p, i, depth+1); e != nil {
				return i, e
			}
			i = skipSpace(p, i)
			if i < len(p) && p[i] == ',' {
				i = skipSpace(p, i+1)
				continue
			}
			if i < len(p) && p[i] == closing {
				return i + 1, nil
			}
			return i, syntaxErr("expected ',' or %q at byte %d", closing, i+1)
		}
	}
	return i, syntaxErr("malformed value at byte %d", i+1)
}

// NumericTimes names the time columns given numbers so far (Builder.NumericTimes).
func (r *NDJSONReader) NumericTimes() []string { return r.b.NumericTimes() }
