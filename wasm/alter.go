//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// changeSpec is one schema change as the client sends it (alter.ts).
type changeSpec struct {
	Op     string `json:"op"`
	Column string `json:"column"`
	To     string `json:"to"`
	Type   string `json:"type"`
}

// change reads a changeSpec: a bad op or type is evolve's coded error.
func (c changeSpec) change() (evolve.Change, error) {
	op, err := evolve.ParseOp(c.Op)
	if err != nil {
		return evolve.Change{}, err
	}
	ch := evolve.Change{Op: op, Column: c.Column, To: c.To}
	if op == evolve.Add || op == evolve.Widen {
		// a primitive's name or a nested type's text (an added nested
		// column, or an added struct field: column "attrs.c")
		if ch.Type, ch.Nested, err = schema.ParseTypeText(c.Type); err == nil && ch.Nested != nil && op == evolve.Widen {
			err = fmt.Errorf("a nested type is not widened")
		}
		if err != nil {
			return evolve.Change{}, &rows.Error{Code: evolve.CodeBadType, Column: c.Column, Value: c.Type, Msg: err.Error()}
		}
	}
	return ch, nil
}

// alterTable(handle, changesJSON) runs table.Alter and resolves with its
// result as a JSON string.
func alterTable(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	raw, err := argString(args, 1, "changes JSON")
	if err != nil {
		return nil, err
	}
	var specs []changeSpec
	if err := json.Unmarshal([]byte(raw), &specs); err != nil {
		return nil, badArg("changes JSON: %v", err)
	}
	changes := make([]evolve.Change, len(specs))
	for i, s := range specs {
		if changes[i], err = s.change(); err != nil {
			return nil, err
		}
	}
	res, err := tb.Alter(ctx, changes)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	return string(b), err
}
