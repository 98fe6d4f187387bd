package rows

import (
	"bytes"
	"fmt"
	"io"
)

// Input limits of the text formats.
//
// CSV and NDJSON are read a line at a time, but a line (or a quoted CSV
// field) is held whole while it is parsed: without a bound, one 50 MB
// field took a gigabyte and a stream without newlines all the memory there
// is. A line is at most MaxLineBytes (the header line at most
// MaxHeaderBytes); past it the input fails with INPUT_TOO_LARGE naming the
// line, having held no more than the limit.
const (
	// DefaultMaxLineBytes: two values of MaxValueBytes and their neighbours.
	DefaultMaxLineBytes = 2*MaxValueBytes + 1<<20
	// DefaultMaxHeaderBytes: a header of thousands of column names.
	DefaultMaxHeaderBytes = 1 << 20
	// CodeInputTooLarge: a line, header or input file past its limit.
	CodeInputTooLarge = "INPUT_TOO_LARGE"
)

// lineLimiter passes its source's bytes through and fails once a line
// (bytes between newlines) passes its limit: the first line's limit is
// header (0: the same as the others).
type lineLimiter struct {
	src         io.Reader
	max, header int64
	n           int64 // bytes of the current line so far
	line        int   // 1-based line being read
	err         error
}

func newLineLimiter(src io.Reader, opt Options, hasHeader bool) *lineLimiter {
	l := &lineLimiter{src: src, max: opt.MaxLineBytes, line: 1}
	if l.max <= 0 {
		l.max = DefaultMaxLineBytes
	}
	if hasHeader {
		l.header = opt.MaxHeaderBytes
		if l.header <= 0 {
			l.header = DefaultMaxHeaderBytes
		}
	}
	return l
}

func (l *lineLimiter) limit() int64 {
	if l.line == 1 && l.header > 0 {
		return l.header
	}
	return l.max
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.src.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.n += int64(len(b))
			break
		}
		l.n += int64(i)
		if l.n > l.limit() {
			break
		}
		l.n, l.line, b = 0, l.line+1, b[i+1:]
	}
	if l.n > l.limit() {
		what := "line"
		if l.line == 1 && l.header > 0 {
			what = "header line"
		}
		l.err = &Error{Code: CodeInputTooLarge, Line: l.line,
			Msg: fmt.Sprintf("the %s is longer than %d bytes (the limit of one line)", what, l.limit())}
		return 0, l.err
	}
	return n, err
}
