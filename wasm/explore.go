//go:build js && wasm

package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"syscall/js"
	"time"
)

// history answers the client's TableWriter.history(): the retained
// snapshots of the table's current version, oldest first, as JSON
// [{snapshotId, parentId, sequenceNumber, timestampMs, operation,
// addedRows, addedFiles, removedFiles, current, summary}] (ids as decimal strings:
// 64 bits). It reads the metadata already loaded, nothing more.
func history(_ context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	md := tb.Metadata()
	out := make([]map[string]any, 0, len(md.Snapshots))
	for _, s := range md.Snapshots {
		parent := ""
		if s.ParentSnapshotID != nil {
			parent = strconv.FormatInt(*s.ParentSnapshotID, 10)
		}
		num := func(k string) int64 { n, _ := strconv.ParseInt(s.Summary[k], 10, 64); return n }
		out = append(out, map[string]any{
			"snapshotId":     strconv.FormatInt(s.SnapshotID, 10),
			"parentId":       parent,
			"sequenceNumber": s.SequenceNumber,
			"timestampMs":    s.TimestampMs,
			"operation":      s.Summary["operation"],
			"addedRows":      num("added-records"),
			"addedFiles":     num("added-data-files"),
			"removedFiles":   num("deleted-data-files"),
			"current":        md.CurrentSnapshotID != nil && *md.CurrentSnapshotID == s.SnapshotID,
			"summary":        s.Summary,
		})
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// files answers TableWriter.files(): the live data files of the current
// snapshot (table.DataFiles) as JSON [{path, rows, bytes, minTime,
// maxTime}], the times from the files' bounds on the time column (RFC 3339,
// "" when a file has none).
func files(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	dfs, err := tb.DataFiles(ctx)
	if err != nil {
		return nil, err
	}
	timeID := int32(-1)
	if sch := tb.Schema(); sch.HasKey() {
		timeID = int32(sch.TimeField().ID)
	}
	bound := func(b []byte) string {
		if len(b) != 8 { // a timestamptz bound is 8 bytes, little endian microseconds
			return ""
		}
		us := int64(binary.LittleEndian.Uint64(b))
		return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999Z07:00")
	}
	out := make([]map[string]any, 0, len(dfs))
	for _, df := range dfs {
		out = append(out, map[string]any{
			"path":    df.Path,
			"rows":    df.RecordCount,
			"bytes":   df.FileSize,
			"minTime": bound(df.Lower[timeID]),
			"maxTime": bound(df.Upper[timeID]),
		})
	}
	b, err := json.Marshal(out)
	return string(b), err
}
