//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/table"
)

// scanOptions are the options table.scan sends, times as text the bridge
// parses by the append's rules (scan.ParseTime: RFC 3339, a date, or
// epoch milliseconds; the client turns Dates and numbers into these).
type scanOptions struct {
	From    *string                      `json:"from"`
	To      *string                      `json:"to"`
	Series  map[string][]json.RawMessage `json:"series"`
	Where   []string                     `json:"where"` // label filters (scan.ParseWheres), the CLI's --where text
	Columns []string                     `json:"columns"`
	// AsOfSnapshot (decimal digits) or AsOf (a time): time travel.
	AsOfSnapshot *string `json:"asOfSnapshot"`
	AsOf         *string `json:"asOf"`
	Raw          bool    `json:"raw"`
	Limit        int     `json:"limit"`
	BatchRows    int     `json:"batchRows"`
	// Arrow: each gets the Arrow IPC stream (scanarrow.go) instead of
	// column batches.
	Arrow bool `json:"arrow"`
}

// errScanStopped is what each returns when the consumer stopped early
// (break in for await): the scan ends without error.
var errScanStopped = errors.New("scan stopped by the consumer")

func (o *scanOptions) build() (table.ScanOptions, error) {
	opt := table.ScanOptions{Columns: o.Columns, Where: o.Where, Raw: o.Raw, Limit: o.Limit, BatchRows: o.BatchRows}
	for _, p := range []struct {
		name string
		v    *string
		dst  **int64
		ns   **int64
	}{{"from", o.From, &opt.FromUS, &opt.FromNS}, {"to", o.To, &opt.ToUS, &opt.ToNS}} {
		if p.v == nil {
			continue
		}
		us, err := scan.ParseTime(*p.v)
		if err != nil {
			return opt, fmt.Errorf("%s: %w", p.name, err)
		}
		*p.dst = &us
		if ns, ok := scan.ParseTimeNanos(*p.v); ok { // every digit, for a nanosecond time column
			*p.ns = &ns
		}
	}
	if o.AsOfSnapshot != nil {
		id, err := strconv.ParseInt(*o.AsOfSnapshot, 10, 64)
		if err != nil || strings.Trim(*o.AsOfSnapshot, "0123456789") != "" {
			return opt, &rows.Error{Code: scan.CodeNoSnapshot, Value: *o.AsOfSnapshot, Msg: fmt.Sprintf("asOf %q is not a snapshot id", *o.AsOfSnapshot)}
		}
		opt.AsOfSnapshot = &id
	}
	if o.AsOf != nil {
		us, err := scan.ParseTime(*o.AsOf)
		if err != nil {
			return opt, fmt.Errorf("asOf: %w", err)
		}
		ms := us / 1000
		if us%1000 < 0 {
			ms--
		}
		opt.AsOfMs = &ms
	}
	if o.Series != nil {
		opt.Series = map[string][]any{}
	}
	for col, vals := range o.Series {
		out := make([]any, 0, len(vals))
		for _, raw := range vals {
			v, err := seriesValue(raw)
			if err != nil {
				return opt, &rows.Error{Code: scan.CodeBadFilter, Column: col, Value: string(raw), Msg: err.Error()}
			}
			out = append(out, v)
		}
		opt.Series[col] = out
	}
	return opt, nil
}

// seriesValue reads one filter value: a string, an integer (a JSON number,
// or {"int": "digits"} for a bigint); anything else goes to the core as it
// is, which refuses it by type.
func seriesValue(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return n, nil
		}
		return nil, fmt.Errorf("a filter value must be a string or an integer, not the number %s", x)
	case map[string]any:
		if s, ok := x["int"].(string); ok && len(x) == 1 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("the integer %s is out of the 64-bit range", s)
			}
			return n, nil
		}
		return nil, fmt.Errorf("a filter value must be a string or an integer, not an object")
	case nil:
		return nil, fmt.Errorf("a filter value must be a string or an integer, not null")
	}
	return v, nil
}

// scanTable runs table.Scan, handing each batch to the JavaScript function
// each(columns) — or, with the option arrow, each(Uint8Array): the Arrow
// IPC stream in chunks, the schema and a record batch per scan batch, then
// the end of the stream — and waiting for the Promise it returns before
// reading on:
// a resolution of false (the consumer stopped) ends the scan without
// error, a rejection ends it with that error. Resolves with the stats JSON
// plus "stopped".
//
//	scan(handle, optionsJSON, each) → stats JSON string

// scanCollectAfter is the garbage a streamed scan leaves between
// collections (checked at each batch): a whole-day scan of 1.2M rows
// allocates hundreds of MiB, and without it the WebAssembly memory grew to
// the runtime's limit (44.5 MiB, the target is 32 MiB). Chosen by
// the scan bench (docs/decisions/scan.md). A scan whose live heap is
// larger leaves more, in proportion (collectScan, scanpace.go).
const scanCollectAfter = 8 << 20

// scansRunning counts the scans under way: while one runs, the store's
// range reads collect too (jsStore.GetRange).
var scansRunning int

func scanTable(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	raw, err := argString(args, 1, "scan options JSON")
	if err != nil {
		return nil, err
	}
	if len(args) < 3 || args[2].Type() != js.TypeFunction {
		return nil, badArg("argument 3 must be the batch callback")
	}
	each := args[2]
	var so scanOptions
	d := json.NewDecoder(strings.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&so); err != nil {
		return nil, badArg("scan options JSON: %v", err)
	}
	opt, err := so.build()
	if err != nil {
		return nil, err
	}
	// each batch is copied into JavaScript (columnsToJS, or the Arrow
	// chunk) before each returns: the scan's output is allocated once
	opt.Reuse = true
	stopped := false
	// send hands one value to each and waits for the consumer
	send := func(v js.Value) error {
		r, err := settle(ctx, each.Invoke(v))
		if err != nil {
			return err
		}
		if !r.ok {
			return fmt.Errorf("the scan's consumer failed: %s", jsMessage(r.v))
		}
		if r.v.Type() == js.TypeBoolean && !r.v.Bool() {
			stopped = true
			return errScanStopped
		}
		return nil
	}
	var aw *arrowChunks
	if so.Arrow {
		aw = &arrowChunks{}
	}
	scansRunning++
	defer func() { scansRunning--; scanEnded() }()
	st, err := tb.Scan(ctx, opt, func(b *rows.Batch) error {
		collectScan()
		if aw != nil {
			chunk, err := aw.batch(b)
			if err != nil {
				return err
			}
			return send(chunk)
		}
		return send(columnsToJS(b))
	})
	if err == nil && aw != nil {
		var chunk js.Value
		if chunk, err = aw.end(scan.Projection(tb.Schema(), opt.Columns)); err == nil {
			err = send(chunk)
		}
	}
	if errors.Is(err, errScanStopped) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(struct {
		*table.ScanStats
		Stopped bool `json:"stopped"`
	}{st, stopped})
	return string(b), err
}
