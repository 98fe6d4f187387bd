//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"strconv"
	"syscall/js"

	"github.com/timelake/timelake/table"
)

// maintainOptions are the options TableWriter.maintain sends; none set means
// every step, as in table.MaintainOptions.
type maintainOptions struct {
	Compact   bool `json:"compact"`
	Retention bool `json:"retention"`
	Expire    bool `json:"expire"`
	Orphans   bool `json:"orphans"`
	DryRun    bool `json:"dryRun"`
}

// maintainJSON is a table.MaintainResult as the client receives it: the
// result's own JSON plus the snapshot id after the run, as a decimal string
// (64-bit; the client makes it a bigint).
func maintainJSON(tb *table.Table, r *table.MaintainResult) string {
	type withSnapshot struct {
		*table.MaintainResult
		SnapshotID string `json:"snapshot-id,omitempty"`
	}
	w := withSnapshot{MaintainResult: r}
	if md := tb.Metadata(); md != nil && md.CurrentSnapshotID != nil {
		w.SnapshotID = strconv.FormatInt(*md.CurrentSnapshotID, 10)
	}
	b, err := json.Marshal(w)
	if err != nil { // only plain fields: cannot happen
		panic(err)
	}
	return string(b)
}

// maintain(handle, optionsJSON) runs table.Maintain and resolves with the
// result as a JSON string.
func maintain(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	var mo maintainOptions
	if len(args) > 1 && args[1].Type() == js.TypeString {
		if err := json.Unmarshal([]byte(args[1].String()), &mo); err != nil {
			return nil, badArg("maintain options JSON: %v", err)
		}
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{
		Compact: mo.Compact, Retention: mo.Retention, Expire: mo.Expire, Orphans: mo.Orphans, DryRun: mo.DryRun,
	})
	if err != nil {
		return nil, err
	}
	return maintainJSON(tb, res), nil
}

// autoMaintain runs after a committed append when the table has
// timelake.auto-maintain=true: compaction and retention, within
// timelake.maintain-byte-cap, and once in table.CleanupEvery versions
// snapshot expiry and file cleanup too (they list the table and read every
// retained snapshot's manifests: table.AutoMaintainOptions). A failure here
// never fails the append (its commit stands): it comes back as a warning,
// with what was done before it.
func autoMaintain(ctx context.Context, tb *table.Table) (result any, warnings []string) {
	if !tb.Settings().AutoMaintain {
		return nil, nil
	}
	res, err := maintainSafely(ctx, tb)
	if err != nil {
		warnings = append(warnings, "auto-maintenance failed after the append committed: "+err.Error())
	}
	if res == nil {
		return nil, warnings
	}
	for _, w := range res.Warnings {
		warnings = append(warnings, "auto-maintenance: "+w)
	}
	return maintainJSON(tb, res), warnings
}

// maintainSafely is tb.Maintain with a panic turned into an error, so that a
// bug in maintenance cannot turn a committed append into a rejection.
func maintainSafely(ctx context.Context, tb *table.Table) (res *table.MaintainResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &panicError{op: "auto-maintain", value: r, stack: string(debug.Stack())}
		}
	}()
	return tb.Maintain(ctx, tb.AutoMaintainOptions())
}
