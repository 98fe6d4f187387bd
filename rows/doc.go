// Package rows holds rows in columnar form and aligns input (CSV, NDJSON,
// Go values) to a table schema: names matched, types converted, nulls checked,
// then sorted by (partition, series…, time), deduplicated and split by
// partition.
//
//	r := rows.NewCSVReader(f, table, rows.Options{TimeUnit: rows.Seconds})
//	for {
//		b, err := r.Next(100_000)
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // *rows.Error: discard everything read so far
//		}
//		rows.SetIngest(b, nowMicros)
//		sorted := rows.SortDedup(b)
//		for _, p := range rows.SplitByPartition(sorted) {
//			write(p.Value, rows.Slice(sorted, p.Start, p.End))
//		}
//	}
//
// # Errors
//
// A value that cannot be aligned fails the whole input with an *Error naming
// the row (1-based, data rows only), the line of the file, the column and the
// value, and a Code users can match on (UNKNOWN_COLUMN, MISSING_COLUMN,
// TYPE_MISMATCH, BAD_TIME, TIME_OUT_OF_RANGE, DUPLICATE_COLUMN, INVALID_UTF8,
// FIELD_COUNT, EMPTY_INPUT, SYNTAX). Nothing partial is returned; a streaming
// caller discards the batches it already has.
//
// # Columns
//
// Input names columns by name: a CSV header (in any order), NDJSON keys, map
// keys. A name not in the schema is UNKNOWN_COLUMN unless
// Options.IgnoreUnknown. _ingest_ts is never accepted in the input: the
// writer sets it (SetIngest). A required column (time, series) that is absent
// or null is MISSING_COLUMN; an absent nullable column is null. In CSV an
// empty field, quoted or not, is null, so CSV cannot give an empty string.
//
// # Conversions
//
// Text below is a CSV field, an NDJSON string, or a Go string. "Number" is an
// NDJSON number, a json.Number, or a Go integer or float.
//
//	long, int    an integer number, or text of one ([+-]digits); a number
//	             with a point or exponent only when its value is a whole
//	             number within ±2^53 ("3.0", 1e3), else TYPE_MISMATCH.
//	             int is range-checked. NDJSON integers are read exactly,
//	             so a long above 2^53 keeps every digit.
//	double,      a number, or decimal text ("1.5", "-2e-3", ".5"), or NaN,
//	float        Inf, Infinity with an optional sign, any case. A float is
//	             range-checked: a value that would round to ±Inf is
//	             TYPE_MISMATCH.
//	boolean      true/false; text "true"/"false" (any case), "1"/"0".
//	             An NDJSON number is TYPE_MISMATCH.
//	string       NDJSON: strings only (a number or boolean is TYPE_MISMATCH).
//	             CSV: any field. Must be valid UTF-8 (INVALID_UTF8); a lone
//	             \ud800-style surrogate escape is INVALID_UTF8 too.
//	timestamptz  text in RFC 3339 / ISO 8601 (see ParseTime): T, t or space
//	             between date and time, 1 to 9 fraction digits after '.' or
//	             ',', zone Z, ±hh:mm, ±hhmm or ±hh; no zone means UTC; a
//	             date alone (2026-11-29) is midnight UTC. Or a number, or
//	             text of a number, in Options.TimeUnit (s, ms, us, ns;
//	             default ms, as JavaScript's Date.now()). A Go time.Time.
//
// Sub-microsecond precision is dropped by floor (toward the past) for text
// fractions, integer nanoseconds and time.Time alike: ...59.9999999Z becomes
// ...59.999999Z, and -1 ns becomes -1 µs. Numbers with a point or exponent
// (floats, e.g. 1700000000.5 in seconds) are rounded to the nearest
// microsecond, half away from zero, because their decimal digits are not
// exact in binary. A time outside years 0001 to 9999
// (schema.MinMicros..MaxMicros), or a NaN or infinite number, is
// TIME_OUT_OF_RANGE; text that is not a time is BAD_TIME.
//
// # Sorting and duplicates
//
// SortDedup orders rows by (partition, series…, time) and keeps, of the rows
// with one key (series…, time), the last in input order. Rows of a partition
// are then contiguous: SplitByPartition finds the runs and Slice cuts them
// without copying.
package rows
