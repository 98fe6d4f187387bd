package rows

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// Error codes. Users match on them in scripts. persisted: must not change.
const (
	CodeUnknownColumn   = "UNKNOWN_COLUMN"    // a column that is not in the schema (or _ingest_ts)
	CodeMissingColumn   = "MISSING_COLUMN"    // a required column absent or null
	CodeTypeMismatch    = "TYPE_MISMATCH"     // a value that does not convert to the column type
	CodeBadTime         = "BAD_TIME"          // a time string that is not RFC 3339 / ISO 8601
	CodeTimeOutOfRange  = "TIME_OUT_OF_RANGE" // outside schema.MinMicros..MaxMicros, or NaN/±Inf
	CodeDuplicateColumn = "DUPLICATE_COLUMN"  // a CSV header name or NDJSON key given twice
	CodeInvalidUTF8     = "INVALID_UTF8"      // a string or name that is not valid UTF-8
	CodeFieldCount      = "FIELD_COUNT"       // a CSV line with more or fewer fields than the header
	CodeEmptyInput      = "EMPTY_INPUT"       // no rows at all
	CodeSyntax          = "SYNTAX"            // malformed CSV (quotes) or a line that is not a JSON object
	CodeValueTooLarge   = "VALUE_TOO_LARGE"   // a string value longer than MaxValueBytes
)

// MaxValueBytes is the longest string value a table takes (16 MiB): the
// Parquet writer cuts pages by bytes, and a page of one such value stays far
// below the 64 MiB every reader accepts (package parquet, MaxPageBytes).
const MaxValueBytes = 16 << 20

// tooLarge is the error of a string value past MaxValueBytes.
func tooLarge(col string, n int) *Error {
	return &Error{Code: CodeValueTooLarge, Column: col,
		Msg: fmt.Sprintf("a value of %d bytes, over the %d a table takes (Parquet pages must stay readable)", n, MaxValueBytes)}
}

// CheckValueSizes refuses a string value past MaxValueBytes in b, naming its
// row (1-based within b) and column, and a nested value that is not JSON
// of the column's type (a batch built in Go, not by the readers, which
// check both): TYPE_MISMATCH, before the writer meets it. A nested value
// is made the text the reader prints, in place.
func CheckValueSizes(b *Batch) error {
	for c, f := range b.Schema.Fields {
		if f.Type == schema.Nested && !b.checked && !f.Nested.IsVariant() {
			if err := checkNested(&b.Schema.Fields[c], &b.Cols[c]); err != nil {
				return err
			}
		}
		if f.Type == schema.Nested && f.Nested.IsVariant() {
			if err := checkVariants(f.Name, &b.Cols[c]); err != nil {
				return err
			}
		}
		if f.Type != schema.String {
			continue
		}
		for i, s := range b.Cols[c].Strs {
			if len(s) > MaxValueBytes {
				e := tooLarge(f.Name, len(s))
				e.Row = i + 1
				return e
			}
		}
	}
	return nil
}

// Error is why input could not be aligned to the schema. Any Error fails the
// whole input: the caller must discard every batch already read from it.
type Error struct {
	Code   string // one of the Code constants
	Row    int    // 1-based data row within the input; 0 for the header or the whole input
	Line   int    // 1-based line of the file where the problem is; 0 when not from a file
	Column string // the column's name, if one is concerned
	Value  string // the offending value (at most maxErrValue bytes), if any
	Msg    string // what was wrong, e.g. `cannot parse "abc" as double`
}

// maxErrValue bounds Error.Value so one huge field does not make a huge error.
const maxErrValue = 128

// Error reads like `row 17 (line 18), column "cpu": cannot parse "abc" as double`.
func (e *Error) Error() string {
	var sb strings.Builder
	switch {
	case e.Row > 0 && e.Line > 0:
		fmt.Fprintf(&sb, "row %d (line %d)", e.Row, e.Line)
	case e.Row > 0:
		fmt.Fprintf(&sb, "row %d", e.Row)
	case e.Line > 0:
		fmt.Fprintf(&sb, "line %d", e.Line)
	}
	if e.Column != "" {
		if sb.Len() > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "column %q", e.Column)
	}
	if sb.Len() > 0 {
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// errValue copies v for an Error: it may alias a reused buffer, and a long
// value is cut (on a rune boundary when possible) so messages stay readable.
func errValue(v string) string {
	if len(v) > maxErrValue {
		cut := maxErrValue
		for cut > maxErrValue-utf8.UTFMax && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return strings.Clone(v[:cut]) + "…"
	}
	return strings.Clone(v)
}

// convErr is a conversion failure before the reader adds row, line and column.
type convErr struct {
	code string
	msg  string
}

func mismatch(format string, a ...any) *convErr {
	return &convErr{CodeTypeMismatch, fmt.Sprintf(format, a...)}
}

// shortValue cuts a value for quoting inside a message.
func shortValue(v string) string { return errValue(v) }
