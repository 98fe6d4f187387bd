package table_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/table"
)

// foreignSummary makes the current snapshot look like another engine's: no
// timelake.* summary keys, only Iceberg's own.
func foreignSummary(s *iceberg.Snapshot) {
	for k := range s.Summary {
		if len(k) > 9 && k[:9] == "timelake." {
			delete(s.Summary, k)
		}
	}
}

// TestTimeRangeOfForeignSnapshot: when the current snapshot lacks our
// time-range keys, info, the next append and the next maintenance take the
// range from the data files' bounds instead of losing it or restarting it
// from one batch.
func TestTimeRangeOfForeignSnapshot(t *testing.T) {
	ctx := context.Background()
	us := func(tm time.Time) string { return strconv.FormatInt(tm.UnixMicro(), 10) }
	h := newHostileTable(t) // 2 appends of 20 rows at day1 + 0…19 s
	h.commitHostile(t, withSnapshot(h.tb.Metadata(), foreignSummary))
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantMin, wantMax := day1.UTC().Format(time.RFC3339), day1.Add(19*time.Second).UTC().Format(time.RFC3339)
	if info.MinTime != wantMin || info.MaxTime != wantMax {
		t.Errorf("info range = [%s, %s], want [%s, %s]", info.MinTime, info.MaxTime, wantMin, wantMax)
	}

	later := day1.Add(time.Hour)
	if _, err := tb.Append(ctx, rowsOf(t, tb, "new", later, 5, 1)); err != nil {
		t.Fatal(err)
	}
	sum := tb.Metadata().CurrentSnapshot().Summary
	if got, want := [2]string{sum[table.SummaryMinTime], sum[table.SummaryMaxTime]}, [2]string{us(day1), us(later.Add(4 * time.Second))}; got != want {
		t.Errorf("append's summary range = %v, want %v (the foreign snapshot's files included)", got, want)
	}

	// A maintenance rewrite on top of a foreign snapshot recomputes it too.
	h2 := newHostileTable(t)
	h2.commitHostile(t, withSnapshot(h2.tb.Metadata(), foreignSummary))
	tb2, err := table.Open(ctx, h2.st, testenv.New(6))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb2.Maintain(ctx, table.MaintainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tb2.Metadata().CurrentSnapshot().SnapshotID == h2.tb.Metadata().CurrentSnapshot().SnapshotID {
		t.Fatalf("maintenance committed nothing (%+v); the test needs a rewrite", res)
	}
	sum = tb2.Metadata().CurrentSnapshot().Summary
	if got, want := [2]string{sum[table.SummaryMinTime], sum[table.SummaryMaxTime]}, [2]string{us(day1), us(day1.Add(19 * time.Second))}; got != want {
		t.Errorf("maintenance's summary range = %v, want %v", got, want)
	}
}

// TestTimeRangeUnknownWithoutBounds: a live file without time bounds makes
// the range unknown (absent), never a range that leaves its rows out.
func TestTimeRangeUnknownWithoutBounds(t *testing.T) {
	ctx := context.Background()
	h := newHostileTable(t)
	files, entries := h.manifests(t)
	timeID := int32(h.tb.Schema().TimeField().ID)
	for i := range entries {
		delete(entries[i].DataFile.Lower, timeID)
		delete(entries[i].DataFile.Upper, timeID)
	}
	files[0] = h.writeManifest(t, "metadata/nobounds-m0.avro", entries, files[0])
	list := h.writeList(t, "metadata/snap-nobounds.avro", files)
	h.commitHostile(t, withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) {
		foreignSummary(s)
		s.ManifestList = list
	}))
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.MinTime != "" || info.MaxTime != "" {
		t.Errorf("info range = [%s, %s], want unknown", info.MinTime, info.MaxTime)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1.Add(time.Hour), 5, 1)); err != nil {
		t.Fatal(err)
	}
	if sum := tb.Metadata().CurrentSnapshot().Summary; sum[table.SummaryMinTime] != "" || sum[table.SummaryTimeUnknown] != "true" {
		t.Errorf("append's summary has range [%s, %s], unknown %q; want no range, marked unknown", sum[table.SummaryMinTime], sum[table.SummaryMaxTime], sum[table.SummaryTimeUnknown])
	}
	// The next append carries "unknown" forward: it reads no manifest.
	rec := &recordingStore{Store: h.st}
	tb2, err := table.Open(ctx, rec, testenv.New(6))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb2.Append(ctx, rowsOf(t, tb2, "more", day1.Add(2*time.Hour), 5, 1)); err != nil {
		t.Fatal(err)
	}
	for _, k := range rec.keys {
		if strings.HasSuffix(k, "-m0.avro") && !slices.Contains(rec.writes, k) {
			t.Errorf("the append after an unknown range read manifest %s", k)
		}
	}
	if sum := tb2.Metadata().CurrentSnapshot().Summary; sum[table.SummaryTimeUnknown] != "true" {
		t.Errorf("second append's summary: unknown %q, want \"true\"", sum[table.SummaryTimeUnknown])
	}
}
