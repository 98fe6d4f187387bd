package table

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/timelake/timelake/maintenance"
)

// Table property names. Standard Iceberg names where one exists, timelake.*
// for the rest. persisted: must not change.
const (
	PropCompression       = "write.parquet.compression-codec"
	PropPageRowLimit      = "write.parquet.page-row-limit"
	PropRowGroupBytes     = "write.parquet.row-group-size-bytes"
	PropTargetFileBytes   = "write.target-file-size-bytes"
	PropMaxSnapshotAgeMs  = "history.expire.max-snapshot-age-ms"
	PropMinSnapshotsKeep  = "history.expire.min-snapshots-to-keep"
	PropPrevVersionsMax   = "write.metadata.previous-versions-max"
	PropDeleteAfterCommit = "write.metadata.delete-after-commit.enabled"
	PropCommitRetries     = "commit.retry.num-retries"
	PropCommitMinWaitMs   = "commit.retry.min-wait-ms"
	PropCommitMaxWaitMs   = "commit.retry.max-wait-ms"
	PropFormatDefault     = "write.format.default"

	PropTimeColumn    = "timelake.time-column"
	PropSeriesColumns = "timelake.series-columns"
	PropPartition     = "timelake.partition"
	PropParquetCompat = "timelake.parquet-compat"
	// PropAutoMaintain: "true" makes the WebAssembly client run compaction
	// and retention right after each successful append (see wasm/maintain.go).
	PropAutoMaintain = "timelake.auto-maintain"
)

// DefaultProperties are written into every new table, so that what a table
// does is visible in its metadata rather than implied by a library version.
func DefaultProperties() map[string]string {
	return map[string]string{
		PropFormatDefault:     "parquet",
		PropCompression:       "zstd",
		PropPageRowLimit:      "8192",
		PropRowGroupBytes:     "134217728", // 128 MiB; the WASM build caps it at 16 MiB
		PropTargetFileBytes:   "134217728", // 128 MiB: a compaction output fits a Worker's memory
		PropMaxSnapshotAgeMs:  "432000000", // 5 days, Iceberg's default
		PropMinSnapshotsKeep:  "1",
		PropPrevVersionsMax:   "100",
		PropDeleteAfterCommit: "false",
		PropCommitRetries:     "9", // 10 conditional writes in all
		PropCommitMinWaitMs:   "25",
		PropCommitMaxWaitMs:   "2000",
		PropParquetCompat:     "false",
		// Off by default: inline maintenance spends the appending request's
		// CPU (a Worker has tens of seconds at most, and an append is tens of
		// milliseconds); users who have no other place to run it turn it on.
		PropAutoMaintain: "false",
		// Maintenance (package maintenance parses them).
		maintenance.PropCompactMinFiles:  "8",
		maintenance.PropCompactColdAfter: "1h",
		maintenance.PropRetention:        "", // forever
		maintenance.PropByteCap:          "256MiB",
		maintenance.PropOrphanGrace:      "24h",
	}
}

// Settings are the parsed properties a writer uses.
type Settings struct {
	Compression      string // the codec Timelake writes: "zstd", "snappy" or "uncompressed"
	PageRowLimit     int
	RowGroupBytes    int64
	TargetFileBytes  int64
	MaxSnapshotAgeMs int64
	MinSnapshotsKeep int
	PrevVersionsMax  int
	CommitRetries    int
	CommitMinWaitMs  int64
	CommitMaxWaitMs  int64
	ParquetCompat    bool
	AutoMaintain     bool // timelake.auto-maintain
}

// ParseSettings reads props over the defaults; a malformed value is an error
// naming the property.
func ParseSettings(props map[string]string) (Settings, error) {
	get := func(k string) string {
		if v, ok := props[k]; ok {
			return strings.TrimSpace(v)
		}
		return DefaultProperties()[k]
	}
	var s Settings
	var errs []string
	num := func(k string, lo, hi int64) int64 {
		v, err := strconv.ParseInt(get(k), 10, 64)
		if err != nil || v < lo || v > hi {
			errs = append(errs, fmt.Sprintf("property %s=%q: want a whole number from %d to %d", k, get(k), lo, hi))
		}
		return v
	}
	switch c := strings.ToLower(get(PropCompression)); c {
	case "zstd", "uncompressed", "snappy":
		s.Compression = c
	case "none":
		s.Compression = "uncompressed"
	case "gzip", "lz4", "lz4_raw", "brotli":
		// Codecs another engine may set (Spark's default is snappy,
		// Iceberg's zstd) that Timelake reads but does not write: its files
		// are zstd, which every reader of this table reads, and each file
		// names its own codec, so the property stays as the engine set it.
		s.Compression = "zstd"
	default:
		errs = append(errs, fmt.Sprintf("property %s=%q: want zstd, snappy, gzip, lz4, brotli or uncompressed", PropCompression, c))
	}
	s.PageRowLimit = int(num(PropPageRowLimit, 1, 1<<24))
	s.RowGroupBytes = num(PropRowGroupBytes, 1<<10, 1<<40)
	s.TargetFileBytes = num(PropTargetFileBytes, 1<<10, 1<<40)
	s.MaxSnapshotAgeMs = num(PropMaxSnapshotAgeMs, 0, 1<<62)
	s.MinSnapshotsKeep = int(num(PropMinSnapshotsKeep, 1, 1<<30))
	s.PrevVersionsMax = int(num(PropPrevVersionsMax, 0, 1<<30))
	s.CommitRetries = int(num(PropCommitRetries, 0, 1000))
	s.CommitMinWaitMs = num(PropCommitMinWaitMs, 0, 1<<40)
	s.CommitMaxWaitMs = num(PropCommitMaxWaitMs, 0, 1<<40)
	switch b := strings.ToLower(get(PropParquetCompat)); b {
	case "true", "false":
		s.ParquetCompat = b == "true"
	default:
		errs = append(errs, fmt.Sprintf("property %s=%q: want true or false", PropParquetCompat, b))
	}
	switch b := strings.ToLower(get(PropAutoMaintain)); b {
	case "true", "false":
		s.AutoMaintain = b == "true"
	default:
		errs = append(errs, fmt.Sprintf("property %s=%q: want true or false", PropAutoMaintain, b))
	}
	// Maintenance settings are checked here too, so a bad value is refused
	// when the table is created rather than found by the first maintenance run.
	if _, err := maintenance.ParseSettings(props); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return Settings{}, fmt.Errorf("%w: %s", ErrBadProperty, strings.Join(errs, "; "))
	}
	return s, nil
}
