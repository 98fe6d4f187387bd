package table

import (
	"context"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/schema"
)

// Time range of a snapshot that lacks our summary keys.
//
// Our snapshots carry the table's time range in their summaries
// (SummaryMinTime, SummaryMaxTime); another engine's do not. For those the
// range is what Iceberg itself records: the time column's lower and upper
// bounds of every live data file. A file without both bounds (a writer whose
// metrics mode is "none" or "counts") leaves the range unknown rather than
// wrong, and it stays unknown until a compaction rewrites that file; our
// summaries then say so (SummaryTimeUnknown), so that later appends carry
// it forward instead of reading every manifest again.

// hasTimeKeys reports whether s carries our time-range summary keys.
func hasTimeKeys(s *iceberg.Snapshot) bool {
	_, lo := s.Summary[SummaryMinTime]
	_, hi := s.Summary[SummaryMaxTime]
	return lo && hi
}

// totalsAt is totalsOf(s), with the time range taken from the live data
// files' bounds when s lacks our keys and holds rows. It reads s's manifests
// only then.
func (tb *Table) totalsAt(ctx context.Context, s *iceberg.Snapshot) (totals, error) {
	t := totalsOf(s)
	if hasTimeKeys(s) || t.unknownTime || t.records == 0 {
		return t, nil // known, or known to be unknown (SummaryTimeUnknown)
	}
	sf, err := tb.readSnapshotFiles(ctx, s)
	if err != nil {
		return totals{}, err
	}
	t.hasTime = false
	files := make([]iceberg.DataFile, 0, len(sf.live))
	for _, e := range sf.live {
		files = append(files, e.DataFile)
	}
	tb.widenByBounds(&t, files)
	return t, nil
}

// widenByBounds widens t by the time bounds of files. A file without both
// bounds makes the range unknown (t.hasTime false, and it stays so).
func (tb *Table) widenByBounds(t *totals, files []iceberg.DataFile) (known bool) {
	timeID := int32(tb.schema.TimeField().ID)
	for _, df := range files {
		if df.Content != 0 {
			continue // delete files bound what they delete, not the table
		}
		lo, ok1 := decodeLong(df.Lower[timeID])
		hi, ok2 := decodeLong(df.Upper[timeID])
		if !ok1 || !ok2 {
			t.hasTime, t.unknownTime = false, true
			return false
		}
		if !t.unknownTime { // totals are µs, the bounds in the column's unit
			per := tb.schema.TimeField().Type.PerMicro()
			t.widen(schema.FloorMicros(lo, per), schema.FloorMicros(hi, per))
		}
	}
	return !t.unknownTime
}
