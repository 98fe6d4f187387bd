package maintenance

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Maintenance properties. persisted: must not change.
const (
	PropCompactMinFiles  = "timelake.compact-min-files"
	PropCompactColdAfter = "timelake.compact-cold-after"
	PropRetention        = "timelake.retention"
	PropByteCap          = "timelake.maintain-byte-cap"
	PropOrphanGrace      = "timelake.orphan-grace"
	PropMetadataGrace    = "timelake.metadata-grace"
)

// MaxMergeFiles is the most input files one merge reads at once: a window of
// pages of each is held in memory, so it bounds a merge's memory.
const MaxMergeFiles = 24

// Defaults of the maintenance properties.
const (
	DefaultCompactMinFiles  = 8
	DefaultCompactColdAfter = time.Hour
	DefaultOrphanGrace      = 24 * time.Hour
	// DefaultMetadataGrace is the grace of the metadata-only files a commit
	// writes right before its conditional write (CommitFile): an attempt
	// takes seconds (10 conditional writes, backoff capped at 2 s), and a
	// reader opens a version's manifest list, manifests and index while it
	// plans, right after loading it. Half an hour is a wide margin over
	// both, and keeps metadata/ of a table appended every 10 s well under
	// 20 MB; an hour came to 18 MB (docs/decisions/flat-append-cost.md).
	DefaultMetadataGrace = 30 * time.Minute
	// DefaultByteCap bounds the data bytes one run reads: streaming keeps
	// memory flat, so the cap is about CPU time (a Worker's budget is tens of
	// seconds; 256 MiB of compressed input takes a few seconds natively).
	DefaultByteCap = 256 << 20
)

// Settings are what the planner obeys. ParseSettings fills the timelake.*
// ones; the Iceberg ones are parsed by package table and copied in.
type Settings struct {
	CompactMinFiles  int
	CompactColdAfter time.Duration
	Retention        time.Duration // 0: keep everything
	ByteCap          int64         // data bytes a run may read; 0: no cap
	OrphanGrace      time.Duration
	// MetadataGrace replaces OrphanGrace for the files CommitFile
	// recognises; never longer than OrphanGrace (so an orphan grace of 0
	// deletes every unreferenced file at once).
	MetadataGrace time.Duration

	TargetFileBytes  int64         // write.target-file-size-bytes
	MaxSnapshotAge   time.Duration // history.expire.max-snapshot-age-ms
	MinSnapshotsKeep int           // history.expire.min-snapshots-to-keep
	// MaxSnapshots bounds the history by count as well as by age
	// (timelake.history.max-snapshots, parsed by package table): beyond the
	// newest MaxSnapshots, snapshots expire whatever their age. 0: no bound.
	MaxSnapshots int
}

// ParseSettings reads the timelake.* maintenance properties over their
// defaults. A malformed value is an error naming the property.
func ParseSettings(props map[string]string) (Settings, error) {
	s := Settings{
		CompactMinFiles:  DefaultCompactMinFiles,
		CompactColdAfter: DefaultCompactColdAfter,
		ByteCap:          DefaultByteCap,
		OrphanGrace:      DefaultOrphanGrace,
		MetadataGrace:    DefaultMetadataGrace,
		MinSnapshotsKeep: 1,
	}
	var errs []string
	dur := func(k string, dst *time.Duration) {
		v, ok := props[k]
		if !ok {
			return
		}
		d, err := ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("property %s=%q: %v", k, v, err))
			return
		}
		*dst = d
	}
	dur(PropCompactColdAfter, &s.CompactColdAfter)
	dur(PropRetention, &s.Retention)
	dur(PropOrphanGrace, &s.OrphanGrace)
	dur(PropMetadataGrace, &s.MetadataGrace)
	s.MetadataGrace = min(s.MetadataGrace, s.OrphanGrace)
	if v, ok := props[PropCompactMinFiles]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 2 || n > 1<<20 {
			errs = append(errs, fmt.Sprintf("property %s=%q: want a whole number from 2 to %d", PropCompactMinFiles, v, 1<<20))
		} else {
			s.CompactMinFiles = n
		}
	}
	if v, ok := props[PropByteCap]; ok {
		n, err := ParseBytes(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("property %s=%q: %v", PropByteCap, v, err))
		} else {
			s.ByteCap = n
		}
	}
	if len(errs) > 0 {
		return Settings{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return s, nil
}

// ParseDuration reads a duration: Go's form ("720h", "90m", "1h30m") plus
// whole days and weeks ("30d", "2w", "1d12h"). Empty means zero (for
// timelake.retention: keep everything). Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	var total time.Duration
	rest := s
	for _, u := range []struct {
		suffix string
		d      time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}} {
		i := strings.Index(rest, u.suffix)
		if i < 0 {
			continue
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil || n < 0 || n > int64(1<<62)/int64(u.d) {
			return 0, fmt.Errorf("want a duration like 30d, 720h or 90m")
		}
		total += time.Duration(n) * u.d
		rest = rest[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("want a duration like 30d, 720h or 90m")
		}
		total += d
	}
	if total < 0 {
		return 0, fmt.Errorf("duration out of range")
	}
	return total, nil
}

// ParseBytes reads a byte count: a whole number with an optional binary
// suffix (KiB, MiB, GiB, TiB; K, M, G, T mean the same). "0" means no cap.
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(v), u.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a byte count like 268435456 or 256MiB")
	}
	return n * mult, nil
}
