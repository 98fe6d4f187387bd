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
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// batchReader yields aligned batches of at most max rows; io.EOF at the end.
type batchReader interface {
	Next(max int) (*rows.Batch, error)
}

func cmdAppend(ctx context.Context, argv []string, io_ *io_) error {
	a, err := parseArgs(argv, appendFlags)
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
	declared, err := parseColumnTypes(a.flags["column"])
	if err != nil {
		return err
	}
	if len(declared) > 0 && !a.bools["evolve"] {
		return usageErr("--column types the columns --evolve adds; give --evolve too")
	}

	commitEvery := 0 // 0: one commit for the whole append
	if v := a.one("commit-every", ""); v != "" {
		if commitEvery, err = strconv.Atoi(v); err != nil || commitEvery < 1 {
			return usageErr("--commit-every %q: want a whole number of batches, at least 1", v)
		}
	}

	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	ap := &appendProgress{tb: tb, io: io_, progress: isTerminal(io_.stderr) && !a.bools["json"], commitEvery: commitEvery, start: time.Now()}
	if err := ap.run(ctx, a, format, batchRows, opt, declared); err != nil {
		if a.bools["json"] {
			// Scripts read what was committed, and where to resume, from
			// stdout; the message and code go to stderr as for any error.
			_ = writeJSON(io_.stdout, ap.failureJSON(err))
		}
		if ap.committed.commits > 0 {
			return &partialAppendError{err: err, msg: ap.describeCommitted()}
		}
		return err
	}
	if ap.progress {
		fmt.Fprintln(io_.stderr)
	}
	results, total := ap.results, ap.committed
	// timelake.rollup.inline: refresh every rollup now; the append stands
	// whatever the refresh does (a failure is a warning; the next refresh
	// catches up).
	refreshes, warns := inlineRefresh(ctx, a, tb)
	for _, w := range warns {
		fmt.Fprintf(io_.stderr, "timelake append: warning: %s\n", w)
	}
	if a.bools["json"] {
		out := map[string]any{"version": tb.Version(), "commits": len(results), "batches": total.batches, "input_rows": total.input,
			"rows": total.rows, "files": total.files, "bytes": total.bytes, "results": results}
		if refreshes != nil {
			out["rollup-refreshes"] = refreshes
		}
		if len(warns) > 0 {
			out["warnings"] = warns
		}
		return writeJSON(io_.stdout, out)
	}
	fmt.Fprintf(io_.stdout, "appended %s (%d after deduplication) in %s: %s, %s; table at version %d\n",
		count(total.input, "row", "rows"), total.rows, count(len(results), "commit", "commits"), count(total.files, "file", "files"),
		count(total.bytes, "byte", "bytes"), tb.Version())
	return nil
}

// openInput opens FILE ('-' is stdin) as a batch reader. The format comes
// from --format, else the file extension, else the first bytes.
//
// evolveTo, when not nil, is given the input's columns (append --evolve;
// declared types the text formats' new columns) and returns the schema to
// align to.
func openInput(name, format string, tb *table.Table, opt rows.Options, stdin io.Reader,
	evolveTo func([]evolve.Column) (*schema.Table, error), declared map[string]schema.Type) (batchReader, func(), error) {
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
	sch := tb.Schema()
	evolved := func(cols []evolve.Column, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if sch, err = evolveTo(cols); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	switch format {
	case "csv", "ndjson":
		if evolveTo != nil {
			if err := evolved(textColumns(format, br, declared)); err != nil {
				closeFn()
				return nil, nil, err
			}
		}
		if format == "csv" {
			return rows.NewCSVReader(br, sch, opt), closeFn, nil
		}
		return rows.NewNDJSONReader(br, sch, opt), closeFn, nil
	case "parquet":
		pf, closeFn, err := openParquetInput(r, br, closeFn)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if evolveTo != nil {
			if err := evolved(parquetColumns(pf), nil); err != nil {
				closeFn()
				return nil, nil, err
			}
		}
		pr, err := newParquetInput(pf, sch, opt)
		if err != nil {
			closeFn()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return pr, closeFn, nil
	default:
		data, err := readWhole(br, format)
		closeFn()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if evolveTo != nil {
			if err := evolved(binaryColumns(format, data)); err != nil {
				return nil, nil, err
			}
		}
		ar, err := newArrowInput(data, sch, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return ar, func() {}, nil
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

// count writes n and the noun: "1 row", "2 rows", "0 rows".
func count[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
