package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
)

// batchReader yields aligned batches of at most max rows; io.EOF at the end.
type batchReader interface {
	Next(max int) (*rows.Batch, error)
}

func cmdAppend(ctx context.Context, argv []string, io_ *io_) error {
	a, err := parseArgs(argv, flagSpec{"format": true, "batch-rows": true, "time-unit": true, "ignore-unknown": false, "json": false})
	if err != nil {
		return err
	}
	if len(a.pos) < 2 {
		return usageErr("append takes TABLE and at least one FILE ('-' for stdin)")
	}
	format := a.one("format", "")
	switch format {
	case "", "csv", "ndjson", "parquet", "arrow":
	default:
		return usageErr("--format %q: want csv, ndjson, parquet or arrow", format)
	}
	batchRows, err := strconv.Atoi(a.one("batch-rows", "100000"))
	if err != nil || batchRows < 1 {
		return usageErr("--batch-rows %q: want a whole number of at least 1", a.one("batch-rows", ""))
	}
	unit, err := rows.ParseTimeUnit(a.one("time-unit", "ms"))
	if err != nil {
		return usageErr("--time-unit: %v", err)
	}
	opt := rows.Options{TimeUnit: unit, IgnoreUnknown: a.bools["ignore-unknown"]}

	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	progress := isTerminal(io_.stderr) && !a.bools["json"]
	var results []*table.AppendResult
	var total struct {
		rows, input, files int
		bytes              int64
	}
	start := time.Now()
	for _, name := range a.pos[1:] {
		r, closeFn, err := openInput(name, format, tb, opt, io_.stdin)
		if err != nil {
			return err
		}
		for {
			b, err := r.Next(batchRows)
			if err == io.EOF {
				break
			}
			if err != nil {
				closeFn()
				return fmt.Errorf("%s: %w", name, err)
			}
			res, err := tb.Append(ctx, b)
			if err != nil {
				closeFn()
				return fmt.Errorf("%s: %w", name, err)
			}
			results = append(results, res)
			total.rows += res.Rows
			total.input += res.InputRows
			total.files += res.Files
			total.bytes += res.Bytes
			for _, w := range res.Warnings {
				fmt.Fprintf(io_.stderr, "timelake append: warning: %s\n", w)
			}
			if progress {
				el := time.Since(start).Seconds()
				fmt.Fprintf(io_.stderr, "\r%s: %d rows committed (version %d, %.0f rows/s)   ", name, total.input, res.Version, float64(total.input)/max(el, 1e-9))
			}
		}
		closeFn()
	}
	if progress {
		fmt.Fprintln(io_.stderr)
	}
	// timelake.rollup.inline: refresh every rollup now; the append stands
	// whatever the refresh does (a failure is a warning; the next refresh
	// catches up).
	refreshes, warn := inlineRefresh(ctx, a, tb)
	if warn != "" {
		fmt.Fprintf(io_.stderr, "timelake append: warning: %s\n", warn)
	}
	if a.bools["json"] {
		out := map[string]any{"version": tb.Version(), "commits": len(results), "input_rows": total.input,
			"rows": total.rows, "files": total.files, "bytes": total.bytes, "results": results}
		if refreshes != nil {
			out["rollup-refreshes"] = refreshes
		}
		if warn != "" {
			out["warnings"] = []string{warn}
		}
		return writeJSON(io_.stdout, out)
	}
	fmt.Fprintf(io_.stdout, "appended %d rows (%d after deduplication) in %d commit(s): %d files, %d bytes; table at version %d\n",
		total.input, total.rows, len(results), total.files, total.bytes, tb.Version())
	return nil
}

// openInput opens FILE ('-' is stdin) as a batch reader. The format comes
// from --format, else the file extension, else the first bytes.
func openInput(name, format string, tb *table.Table, opt rows.Options, stdin io.Reader) (batchReader, func(), error) {
	var r io.Reader
	closeFn := func() {}
	if name == "-" {
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		r, closeFn = f, func() { f.Close() }
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if format == "" {
		format = sniffFormat(name, br)
	}
	switch format {
	case "csv":
		return rows.NewCSVReader(br, tb.Schema(), opt), closeFn, nil
	case "ndjson":
		return rows.NewNDJSONReader(br, tb.Schema(), opt), closeFn, nil
	default:
		data, err := io.ReadAll(br)
		closeFn()
		if err != nil {
			return nil, nil, err
		}
		if format == "arrow" {
			ar, err := newArrowInput(data, tb.Schema(), opt)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			return ar, func() {}, nil
		}
		pr, err := newParquetInput(data, tb.Schema(), opt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return pr, func() {}, nil
	}
}

func sniffFormat(name string, br *bufio.Reader) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return "csv"
	case ".ndjson", ".jsonl", ".json":
		return "ndjson"
	case ".parquet":
		return "parquet"
	case ".arrow", ".arrows", ".feather", ".ipc":
		return "arrow"
	}
	head, _ := br.Peek(6)
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "parquet"
	case arrowipc.IsArrow(head): // a stream's continuation marker, or a file's "ARROW1"
		return "arrow"
	case len(bytes.TrimLeft(head, " \t\r\n")) > 0 && bytes.TrimLeft(head, " \t\r\n")[0] == '{':
		return "ndjson"
	}
	return "csv"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
