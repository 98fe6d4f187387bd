package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/table"
)

// cmdScan runs `timelake scan TABLE [--from TIME] [--to TIME] [--series
// COL=V[,V…]]… [--where EXPR]… [--columns C,…] [--as-of SNAPSHOT|TIME] [--raw] [--limit N]
// [--format csv|ndjson|parquet|arrow] [-o FILE] [--stats]`: the rows, sorted by
// (series…, time), deduplicated unless --raw, as CSV with a header,
// NDJSON, one Parquet file or an Arrow IPC stream (scanout.go); --stats
// prints the plan and cost as one JSON line on stderr.
func cmdScan(ctx context.Context, argv []string, std *io_) error {
	for i, s := range argv {
		if s == "-o" {
			argv[i] = "--output"
		}
	}
	a, err := parseArgs(argv, scanFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("scan takes one TABLE")
	}
	format := a.one("format", "csv")
	switch format {
	case "csv", "ndjson", "parquet", "arrow":
	default:
		return usageErr("scan --format %q: want csv, ndjson, parquet or arrow", format)
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
	opt.Where = a.flags["where"]
	if opt.FromUS, opt.ToUS, err = timeRangeFlags(a); err != nil {
		return err
	}
	opt.FromNS, opt.ToNS = timeRangeNanos(a)
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
	if opt.Series, err = seriesFlags(a, tb.Schema()); err != nil {
		return err
	}
	var w io.Writer = std.stdout
	if path := a.one("output", ""); path != "" && path != "-" {
		if inside(tb.Metadata().Location, path) {
			return usageErr("-o %s is inside the table's directory: a scan's output would overwrite or add to the table's files", path)
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if !tb.Schema().HasKey() {
		fmt.Fprintln(std.stderr, "timelake scan: rows as stored, file by file, not sorted or deduplicated: the table has no time column Timelake knows (adopt it: timelake adopt TABLE --time COL [--series COL,…])")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	out := newScanOut(format, bw)
	stats, err := tb.Scan(ctx, opt, out.write)
	if err == nil {
		// no rows: the header (CSV), an empty file (Parquet) or the schema (Arrow) of the projected columns
		err = out.finish(scan.Projection(tb.Schema(), opt.Columns))
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

// inside reports whether path lies in the directory of the file:// table
// location loc (written as it is, or percent-encoded).
func inside(loc, path string) bool {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme != "file" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, dir := range []string{u.Path, strings.TrimPrefix(loc, "file://")} {
		dir = filepath.Clean(dir)
		if abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
