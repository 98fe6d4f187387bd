package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// PropAppendMaxPartitions bounds the partitions one append writes: each
// partition is at least one data file, and an input spanning years of days
// by mistake (a time unit misread, a bad row far in the past) would
// otherwise write one small file per day, each with its own footer, entry
// and later compaction. The bound is per commit (a staged append's sum).
// persisted: must not change.
const PropAppendMaxPartitions = "timelake.append.max-partitions"

// DefaultAppendMaxPartitions is the default bound: ten years of daily
// partitions fit in one append with room to spare only if the table says so.
const DefaultAppendMaxPartitions = 1000

// ErrTooManyPartitions: an append would write more partitions than
// timelake.append.max-partitions allows; nothing is committed.
var ErrTooManyPartitions = errors.New("too many partitions in one append")

// checkPartitions refuses the sorted batch when it takes the append past
// the table's bound on partitions (those of earlier batches in seen).
func (tb *Table) checkPartitions(sorted *rows.Batch, seen map[int32]bool) error {
	limit := tb.settings.AppendMaxPartitions
	if limit <= 0 {
		return nil
	}
	n := len(seen)
	runs, err := tb.partitionRuns(sorted)
	if err != nil {
		return err
	}
	for _, p := range runs {
		v := p.value
		if p.values != nil { // another engine's spec: its numbered tuple (spec.go)
			v = tb.specPartID(p.values)
		}
		if !seen[v] {
			n++
		}
	}
	if n <= limit {
		return nil
	}
	per := tb.schema.TimeField().Type.PerMicro()
	return fmt.Errorf("%w: the rows span %d %s partitions, more than %s=%d allows (from %s to %s): check the time column and its unit (--time-unit, timeUnit), or raise the property",
		ErrTooManyPartitions, n, strings.ToLower(tb.partitionField()), PropAppendMaxPartitions, limit,
		time.UnixMicro(schema.FloorMicros(minTime(sorted), per)).UTC().Format(time.RFC3339), time.UnixMicro(schema.FloorMicros(maxTime(sorted), per)).UTC().Format(time.RFC3339))
}

func minTime(b *rows.Batch) int64 { lo, _ := timeRange(b); return lo }
func maxTime(b *rows.Batch) int64 { _, hi := timeRange(b); return hi }

func (a *Appender) checkPartitions(sorted *rows.Batch) error {
	return a.tb.checkPartitions(sorted, a.partitions)
}

// ErrStagedFilesGone: a staged append's data file was deleted before the
// commit (an orphan cleanup ran with a grace shorter than the append took);
// nothing is committed.
var ErrStagedFilesGone = errors.New("staged data files were deleted before the commit")

// checkStillThere lists the staged data files when the first was uploaded
// longer ago than half of timelake.orphan-grace: an orphan cleanup may have
// deleted them (it deletes an unreferenced file it first saw a grace ago),
// and a commit naming a missing file would break every scan.
func (a *Appender) checkStillThere(ctx context.Context) error {
	if len(a.uploaded) == 0 {
		return nil
	}
	ms, err := maintenance.ParseSettings(a.tb.meta.Properties)
	if err != nil {
		return err
	}
	age := time.Duration(a.tb.env.Now().UnixMicro()-a.firstPutUS) * time.Microsecond
	if age < ms.OrphanGrace/2 {
		return nil
	}
	dirs := map[string]bool{}
	for _, k := range a.uploaded {
		dirs[k[:strings.LastIndexByte(k, '/')+1]] = true
	}
	have := map[string]bool{}
	for d := range dirs {
		objs, err := a.tb.st.List(ctx, d)
		if err != nil {
			return fmt.Errorf("append: %w", err)
		}
		for _, o := range objs {
			have[o.Key] = true
		}
	}
	for _, k := range a.uploaded {
		if !have[k] {
			return fmt.Errorf("append: %w: %s (uploaded %s ago, %s=%s)", ErrStagedFilesGone, k, age.Round(time.Second), maintenance.PropOrphanGrace, ms.OrphanGrace)
		}
	}
	return nil
}
