package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/table"
)

// historyEntry is one snapshot in `timelake history --json`. Ids are
// decimal strings, as info prints them: 64-bit safe in JavaScript.
type historyEntry struct {
	SnapshotID  string `json:"snapshot-id"`
	ParentID    string `json:"parent-id,omitempty"`
	Time        string `json:"time"` // RFC 3339, UTC, milliseconds
	TimestampMs int64  `json:"timestamp-ms"`
	Operation   string `json:"operation"`
	// The counts of the snapshot's summary; a count the summary leaves
	// out is 0 (Iceberg writers leave out the zero ones).
	AddedRows    int64             `json:"added-records"`
	DeletedRows  int64             `json:"deleted-records"`
	AddedFiles   int64             `json:"added-data-files"`
	DeletedFiles int64             `json:"deleted-data-files"`
	Writer       string            `json:"writer"`
	Current      bool              `json:"current"`
	Summary      map[string]string `json:"summary"`
}

// Writers a snapshot's summary names: only keys that writer is known to
// put there. pyiceberg (0.12) and DuckDB write no key of their own: their
// snapshots are "unknown", as any other writer's.
const (
	writerTimelake = "Timelake" // table.SummaryCommitID: every append, compaction, retention and rollup refresh
	writerSpark    = "Spark"    // spark.app.id: Iceberg's Spark writes
	writerUnknown  = "unknown"
)

// writerOf says who wrote a snapshot, from its summary's keys.
func writerOf(summary map[string]string) string {
	switch {
	case summary[table.SummaryCommitID] != "":
		return writerTimelake
	case summary["spark.app.id"] != "":
		return writerSpark
	}
	return writerUnknown
}

// cmdHistory runs `timelake history TABLE [--json] [--limit N]`: the
// snapshots of the current metadata, newest first. It reads the metadata
// only, so it works on any table Timelake reads, adopted or not.
func cmdHistory(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, historyFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("history takes one TABLE")
	}
	limit := 0
	if v := a.one("limit", ""); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			return usageErr("--limit %q: want a whole number of snapshots (0: all)", v)
		}
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	md := tb.Metadata()
	entries := historyOf(md)
	total := len(entries)
	if limit > 0 && limit < total {
		entries = entries[:limit]
	}
	if a.bools["json"] {
		out := map[string]any{"snapshots": entries, "total": total}
		if md.CurrentSnapshotID != nil {
			out["current-snapshot-id"] = strconv.FormatInt(*md.CurrentSnapshotID, 10)
		}
		return writeJSON(io.stdout, out)
	}
	if total == 0 {
		fmt.Fprintln(io.stdout, "no snapshots: the table is empty")
		return nil
	}
	w := tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "  snapshot\tparent\ttime (UTC)\toperation\trows +/-\tfiles +/-\twriter")
	for _, e := range entries {
		mark, parent := " ", e.ParentID
		if e.Current {
			mark = "*"
		}
		if parent == "" {
			parent = "-"
		}
		fmt.Fprintf(w, "%s %s\t%s\t%s\t%s\t+%d -%d\t+%d -%d\t%s\n", mark, e.SnapshotID, parent, e.Time, e.Operation,
			e.AddedRows, e.DeletedRows, e.AddedFiles, e.DeletedFiles, e.Writer)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(entries) < total {
		fmt.Fprintf(io.stdout, "(the newest %d of %d snapshots)\n", len(entries), total)
	}
	return nil
}

// historyOf lists md's snapshots newest first (by time, then sequence
// number: the order they were committed in).
func historyOf(md *iceberg.Metadata) []historyEntry {
	snaps := slices.Clone(md.Snapshots)
	slices.SortStableFunc(snaps, func(a, b iceberg.Snapshot) int {
		if c := cmp.Compare(b.TimestampMs, a.TimestampMs); c != 0 {
			return c
		}
		return cmp.Compare(b.SequenceNumber, a.SequenceNumber)
	})
	out := make([]historyEntry, 0, len(snaps))
	for _, s := range snaps {
		n := func(k string) int64 { v, _ := strconv.ParseInt(s.Summary[k], 10, 64); return v }
		e := historyEntry{
			SnapshotID:  strconv.FormatInt(s.SnapshotID, 10),
			Time:        time.UnixMilli(s.TimestampMs).UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			TimestampMs: s.TimestampMs,
			Operation:   s.Summary["operation"],
			AddedRows:   n("added-records"), DeletedRows: n("deleted-records"),
			AddedFiles: n("added-data-files"), DeletedFiles: n("deleted-data-files"),
			Writer:  writerOf(s.Summary),
			Current: md.CurrentSnapshotID != nil && *md.CurrentSnapshotID == s.SnapshotID,
			Summary: s.Summary,
		}
		if e.Summary == nil {
			e.Summary = map[string]string{}
		}
		if s.ParentSnapshotID != nil {
			e.ParentID = strconv.FormatInt(*s.ParentSnapshotID, 10)
		}
		out = append(out, e)
	}
	return out
}
