//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/table"
)

// deleteOptions is deleteRows' options JSON (client/src/delete.ts).
type deleteOptions struct {
	Series map[string][]json.Number `json:"series"` // numbers as they were written; strings below
	Names  map[string][]string      `json:"seriesStrings"`
	From   string                   `json:"from"` // RFC 3339 (the client formats Dates and numbers)
	To     string                   `json:"to"`
	DryRun bool                     `json:"dryRun"`
	Purge  bool                     `json:"purge"`
	Now    bool                     `json:"now"`
}

// deleteRows(handle, optionsJSON) runs table.Delete and resolves with the
// result as a JSON string.
func deleteRows(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	raw, err := argString(args, 1, "delete options JSON")
	if err != nil {
		return nil, err
	}
	var do deleteOptions
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	if err := dec.Decode(&do); err != nil {
		return nil, badArg("delete options JSON: %v", err)
	}
	opt := table.DeleteOptions{DryRun: do.DryRun, Purge: do.Purge, Now: do.Now}
	for _, t := range []struct {
		text string
		dst  **int64
		ns   **int64
	}{{do.From, &opt.FromUS, &opt.FromNS}, {do.To, &opt.ToUS, &opt.ToNS}} {
		if t.text == "" {
			continue
		}
		us, err := scan.ParseTime(t.text)
		if err != nil {
			return nil, err
		}
		*t.dst = &us
		if ns, ok := scan.ParseTimeNanos(t.text); ok { // every digit, for a nanosecond time column
			*t.ns = &ns
		}
	}
	if len(do.Series)+len(do.Names) > 0 {
		opt.Series = map[string][]any{}
	}
	for col, vals := range do.Series {
		for _, v := range vals {
			n, err := v.Int64()
			if err != nil {
				return nil, badArg("series %q: %s is not an integer", col, v)
			}
			opt.Series[col] = append(opt.Series[col], n)
		}
	}
	for col, vals := range do.Names {
		for _, v := range vals {
			opt.Series[col] = append(opt.Series[col], v)
		}
	}
	res, err := tb.Delete(ctx, opt)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("delete result: %w", err)
	}
	return string(b), nil
}
