//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall/js"
)

// findCommit(handle, commitId) looks the id up in the newest version's
// retained snapshots (table.FindCommit): JSON {snapshotId (a decimal
// string: 64 bits), sequenceNumber, timestampMs, operation, addedRows,
// version}, or null when no retained snapshot holds it.
func findCommit(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	id, err := argString(args, 1, "commit id")
	if err != nil {
		return nil, err
	}
	c, err := tb.FindCommit(ctx, id)
	if err != nil || c == nil {
		return nil, err
	}
	b, err := json.Marshal(map[string]any{
		"snapshotId":     strconv.FormatInt(c.SnapshotID, 10),
		"sequenceNumber": c.SequenceNumber,
		"timestampMs":    c.TimestampMs,
		"operation":      c.Operation,
		"addedRows":      c.AddedRows,
		"version":        c.Version,
	})
	return string(b), err
}
