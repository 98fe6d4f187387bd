//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"syscall/js"

	"github.com/timelake/timelake/table"
)

// adoptSpec is what TableWriter.adopt() sends (adopt.ts).
type adoptSpec struct {
	Time   string   `json:"time"`
	Series []string `json:"series"`
	DryRun bool     `json:"dryRun"`
}

// adoptTable(handle, optionsJSON) runs table.Adopt and resolves with its
// result as a JSON string.
func adoptTable(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	raw, err := argString(args, 1, "adopt options JSON")
	if err != nil {
		return nil, err
	}
	var spec adoptSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return nil, badArg("adopt options JSON: %v", err)
	}
	res, err := tb.Adopt(ctx, table.AdoptOptions{Time: spec.Time, Series: spec.Series, DryRun: spec.DryRun})
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	return string(b), err
}

// suggestKey(handle) resolves with table.SuggestKey's answer as JSON.
func suggestKey(_ context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(tb.SuggestKey())
	return string(b), err
}
