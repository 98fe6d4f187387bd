package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

// cmdScan runs `timelake scan TABLE [--from TIME] [--to TIME] [--series
// COL=V[,V…]]… [--columns C,…] [--as-of SNAPSHOT|TIME] [--raw] [--limit N]
// [--format csv|ndjson|parquet] [-o FILE] [--stats]`: the rows, sorted by
// (series…, time), deduplicated unless --raw, as CSV with a header,
// NDJSON or one Parquet file; --stats prints the plan and cost as one JSON line on stderr.
func cmdScan(ctx context.Context, argv []string, std *io_) error {
	for i, s := range argv {
		if s == "-o" {
			argv[i] = "--output"
		}
	}
	a, err := parseArgs(argv, flagSpec{"from": true, "to": true, "series": true, "columns": true, "as-of": true,
		"raw": false, "limit": true, "format": true, "output": true, "stats": false})
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("scan takes one TABLE")
	}
	format := a.one("format", "csv")
	switch format {
	case "csv", "ndjson", "parquet":
	case "arrow":
		return usageErr("scan --format arrow: not yet (csv, ndjson or parquet)")
	default:
		return usageErr("scan --format %q: want csv, ndjson or parquet", format)
	}
	var opt table.ScanOptions
	if v := a.one("limit", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usageErr("--limit %q: want a whole number of rows (0: no limit)", v)
		}
		opt.Limit = n
	}
	opt.Raw = a.bools["raw"]
	for _, name := range []string{"from", "to"} {
		v := a.one(name, "")
		if v == "" {
			continue
		}
		us, err := scan.ParseTime(v)
		if err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
		if name == "from" {
			opt.FromUS = &us
		} else {
			opt.ToUS = &us
		}
	}
	if v := a.one("as-of", ""); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && strings.Trim(v, "0123456789") == "" && n > 1e12 {
			opt.AsOfSnapshot = &n
		} else {
			us, err := scan.ParseTime(v)
			if err != nil {
				return fmt.Errorf("--as-of: %w", err)
			}
			ms := us / 1000
			if us%1000 < 0 {
				ms--
			}
			opt.AsOfMs = &ms
		}
	}
	for _, c := range a.flags["columns"] {
		for _, name := range strings.Split(c, ",") {
			if name = strings.TrimSpace(name); name != "" {
				opt.Columns = append(opt.Columns, name)
			}
		}
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	for _, s := range a.flags["series"] {
		col, vals, ok := strings.Cut(s, "=")
		if !ok || col == "" {
			return usageErr("--series %q: want COL=V[,V…]", s)
		}
		if opt.Series == nil {
			opt.Series = map[string][]any{}
		}
		if _, seen := opt.Series[col]; !seen {
			opt.Series[col] = []any{} // COL= alone: no values, which the scan refuses by name
		}
		for _, v := range strings.Split(vals, ",") {
			if v == "" {
				continue
			}
			x, err := scan.ParseSeriesValue(tb.Schema(), col, v)
			if err != nil {
				return fmt.Errorf("--series: %w", err)
			}
			opt.Series[col] = append(opt.Series[col], x)
		}
	}
	var w io.Writer = std.stdout
	if path := a.one("output", ""); path != "" && path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var sink func(*rows.Batch) error
	var cw *csv.Writer
	var pw *parquetOut
	header := false
	switch format {
	case "csv":
		cw = csv.NewWriter(bw)
		sink = func(b *rows.Batch) error {
			if !header {
				header = true
				if err := cw.Write(fieldNames(b.Schema)); err != nil {
					return err
				}
			}
			rec := make([]string, len(b.Schema.Fields))
			for i := 0; i < b.Len; i++ {
				for c, f := range b.Schema.Fields {
					rec[c] = csvValue(f, &b.Cols[c], i)
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
			return nil
		}
	case "parquet":
		pw = &parquetOut{}
		sink = pw.write
	default:
		var line []byte
		sink = func(b *rows.Batch) error {
			names := make([][]byte, len(b.Schema.Fields))
			for c, f := range b.Schema.Fields {
				names[c], _ = json.Marshal(f.Name)
			}
			for i := 0; i < b.Len; i++ {
				line = append(line[:0], '{')
				for c, f := range b.Schema.Fields {
					if c > 0 {
						line = append(line, ',')
					}
					line = append(append(line, names[c]...), ':')
					line = appendJSONValue(line, f, &b.Cols[c], i)
				}
				line = append(line, '}', '\n')
				if _, err := bw.Write(line); err != nil {
					return err
				}
			}
			return nil
		}
	}
	stats, err := tb.Scan(ctx, opt, sink)
	if err == nil && cw != nil && !header {
		// no rows: the header alone, from the projected schema
		if names, herr := scanHeader(tb.Schema(), opt.Columns); herr == nil {
			err = cw.Write(names)
		}
	}
	if err == nil && pw != nil {
		err = pw.finish(bw, tb.Schema(), opt.Columns)
	}
	if cw != nil {
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if a.bools["stats"] && stats != nil {
		b, _ := json.Marshal(stats)
		fmt.Fprintf(std.stderr, "%s\n", b)
	}
	return err
}

func fieldNames(s *schema.Table) []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

// scanHeader is the columns a scan of cols hands out (for an empty result).
func scanHeader(t *schema.Table, cols []string) ([]string, error) {
	var names []string
	for i, f := range t.Fields {
		keep := i == t.Time || len(cols) == 0 && i != t.Ingest
		for _, s := range t.Series {
			keep = keep || s == i
		}
		for _, c := range cols {
			keep = keep || c == f.Name
		}
		if keep {
			names = append(names, f.Name)
		}
	}
	return names, nil
}

// formatScanTime is RFC 3339 in UTC with microseconds.
func formatScanTime(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
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
	case f.Type == schema.Timestamptz:
		return formatScanTime(c.Ints[i])
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
	case f.Type == schema.Timestamptz:
		return strconv.AppendQuote(b, formatScanTime(c.Ints[i]))
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
	}
	s, _ := json.Marshal(c.Strs[i])
	return append(b, s...)
}

// parquetOut writes the scan's rows as one Parquet file, declared sorted
// by (series…, time). The file is built in memory (parquet.Writer), so
// it suits results that fit there.
type parquetOut struct {
	w *parquet.Writer
}

func (p *parquetOut) start(s *schema.Table) error {
	specs := make([]parquet.ColumnSpec, len(s.Fields))
	for i, f := range s.Fields {
		specs[i] = parquet.ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	}
	var sorting []parquet.SortingColumn
	for _, c := range append(append([]int(nil), s.Series...), s.Time) {
		sorting = append(sorting, parquet.SortingColumn{Column: c, NullsFirst: true})
	}
	w, err := parquet.NewWriter(specs, parquet.Options{Sorting: sorting, CreatedBy: "timelake scan"})
	p.w = w
	return err
}

func (p *parquetOut) write(b *rows.Batch) error {
	if p.w == nil {
		if err := p.start(b.Schema); err != nil {
			return err
		}
	}
	return p.w.Write(b.Cols, b.Len)
}

// finish writes the file to w (an empty one, of the projected columns,
// when no row passed).
func (p *parquetOut) finish(w io.Writer, t *schema.Table, cols []string) error {
	if p.w == nil {
		names, _ := scanHeader(t, cols)
		s := &schema.Table{Partition: t.Partition, Ingest: -1}
		for _, n := range names {
			i := t.Index(n)
			switch {
			case i == t.Time:
				s.Time = len(s.Fields)
			case i == t.Ingest:
				s.Ingest = len(s.Fields)
			}
			for _, x := range t.Series {
				if x == i {
					s.Series = append(s.Series, len(s.Fields))
				}
			}
			s.Fields = append(s.Fields, t.Fields[i])
		}
		if err := p.start(s); err != nil {
			return err
		}
	}
	data, _, err := p.w.Finish()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
