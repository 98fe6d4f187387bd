package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

func openForRead(ctx context.Context, argv []string, cmd string, spec flagSpec) (*table.Table, *args, error) {
	a, err := parseArgs(argv, spec)
	if err != nil {
		return nil, nil, err
	}
	if len(a.pos) != 1 {
		return nil, nil, usageErr("%s takes one TABLE", cmd)
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return nil, nil, err
	}
	return tb, a, nil
}

func cmdInfo(ctx context.Context, argv []string, io *io_) error {
	tb, a, err := openForRead(ctx, argv, "info", infoFlags)
	if err != nil {
		return err
	}
	info, err := tb.Info(ctx)
	if err != nil {
		return err
	}
	cat, id := tb.Catalog()
	if a.bools["json"] {
		if cat == nil {
			return writeJSON(io.stdout, info)
		}
		// A catalog table: info's fields and the catalog's (never a secret).
		raw, err := json.Marshal(info)
		if err != nil {
			return err
		}
		var out map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // 64-bit counts stay exact
		if err := dec.Decode(&out); err != nil {
			return err
		}
		out["catalog"], out["table"], out["metadata-location"] = cat.URI(), id.String(), tb.MetadataLocation()
		return writeJSON(io.stdout, out)
	}
	for _, warn := range info.Warnings {
		fmt.Fprintf(io.stderr, "warning: %s\n", warn)
	}
	w := tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', 0)
	if cat != nil {
		fmt.Fprintf(w, "catalog\t%s\n", cat.URI())
		fmt.Fprintf(w, "table\t%s\n", id)
		fmt.Fprintf(w, "metadata\t%s\n", tb.MetadataLocation())
	}
	snap := info.SnapshotID
	if snap == "" {
		snap = "(none: empty table)"
	}
	fmt.Fprintf(w, "location\t%s\n", info.Location)
	fmt.Fprintf(w, "version\t%d\n", info.Version)
	fmt.Fprintf(w, "snapshot\t%s (%d in history)\n", snap, info.Snapshots)
	fmt.Fprintf(w, "rows\t%s\n", rowsText(info))
	fmt.Fprintf(w, "files\t%s\n", grouped(info.Files))
	fmt.Fprintf(w, "bytes\t%s\n", grouped(info.Bytes))
	if info.DeleteFiles > 0 {
		fmt.Fprintf(w, "delete files\t%d (%d position deletes, %d equality deletes)\n", info.DeleteFiles, info.PositionDeletes, info.EqualityDeletes)
	}
	if info.MinTime != "" {
		fmt.Fprintf(w, "time range\t%s .. %s\n", info.MinTime, info.MaxTime)
	}
	var cols []string
	for _, c := range info.Columns {
		opt := ""
		if !c.Required {
			opt = "?"
		}
		cols = append(cols, fmt.Sprintf("%s:%s%s", c.Name, c.Type, opt))
	}
	fmt.Fprintf(w, "columns\t%s\n", strings.Join(cols, " "))
	if info.Key == "" {
		fmt.Fprintf(w, "key\tnone: another engine's table, read as stored (timelake adopt TABLE --time COL [--series COL,…] to write it)\n")
	} else {
		fmt.Fprintf(w, "key\t%s\n", info.Key)
	}
	if len(info.UnreadColumns) > 0 {
		fmt.Fprintf(w, "unread columns\t%s (types Timelake does not read yet)\n", strings.Join(info.UnreadColumns, ", "))
	}
	fmt.Fprintf(w, "partitioned by\t%s (%d partitions)\n", info.Partition, len(info.Partitions))
	w.Flush()
	if len(info.Partitions) > 0 {
		fmt.Fprintln(io.stdout, "\npartitions:")
		w = tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(w, "name\trows\tfiles\tbytes\t")
		for _, p := range info.Partitions {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t\n", p.Name, p.Rows, p.Files, p.Bytes)
		}
		w.Flush()
	}
	printSchemaHistory(io.stdout, info.Schemas)
	printProperties(io.stdout, info.Properties, a.bools["verbose"])
	return nil
}

func cmdLatest(ctx context.Context, argv []string, io *io_) error {
	tb, a, err := openForRead(ctx, argv, "latest", latestFlags)
	if err != nil {
		return err
	}
	idx, err := tb.Latest(ctx)
	if err != nil {
		return err
	}
	if a.bools["json"] {
		out := make([]map[string]any, idx.Len)
		for i := range out {
			m := map[string]any{}
			for c, f := range idx.Schema.Fields {
				m[f.Name] = jsonValue(f, &idx.Cols[c], i)
			}
			out[i] = m
		}
		return writeJSON(io.stdout, out)
	}
	id := tb.Metadata().CurrentSnapshotID
	if id == nil {
		fmt.Fprintf(io.stdout, "latest row of each series: none, the table is empty (version %d)\n", tb.Version())
		return nil
	}
	fmt.Fprintf(io.stdout, "latest row of each series: %d series (snapshot %d, version %d)\n", idx.Len, *id, tb.Version())
	if idx.Len == 0 {
		return nil
	}
	w := tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', 0)
	for _, f := range idx.Schema.Fields {
		fmt.Fprintf(w, "%s\t", f.Name)
	}
	fmt.Fprintln(w)
	for i := 0; i < idx.Len; i++ {
		for c, f := range idx.Schema.Fields {
			v := "null"
			if !idx.Cols[c].IsNull(i) {
				v = csvValue(f, &idx.Cols[c], i) // as scan prints it
			}
			fmt.Fprintf(w, "%s\t", v)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

// jsonValue renders a cell for --json: times as RFC 3339 strings, 64-bit
// integers as JSON numbers (scripts in JavaScript should read them as
// strings when they may pass 2^53: the text output prints them exactly).
func jsonValue(f schema.Field, c *rows.Column, i int) any {
	if c.IsNull(i) {
		return nil
	}
	switch {
	case f.Type == schema.Timestamptz:
		return time.UnixMicro(c.Ints[i]).UTC().Format(time.RFC3339Nano)
	case f.Type == schema.Timestamp:
		return time.UnixMicro(c.Ints[i]).UTC().Format("2006-01-02T15:04:05.999999")
	case f.Type.Nanos(): // all 9 digits, as scan prints them
		return timeText(f.Type, c.Ints[i])
	case f.Type.IsInteger():
		return c.Ints[i]
	case f.Type.IsFloat():
		if v := c.Floats[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return floatText(v, 64) // JSON has no NaN or infinities: "NaN", "Infinity", "-Infinity", as scan writes them
		}
		return c.Floats[i]
	case f.Type == schema.Boolean:
		return c.Bools[i]
	case f.Type == schema.Nested:
		return json.RawMessage(c.Strs[i]) // a map, list or struct: its JSON
	default:
		return c.Strs[i]
	}
}
