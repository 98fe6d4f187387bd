package table

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/timelake/timelake/maintenance"
)

// Table property names. Standard Iceberg names where one exists, timelake.*
// for the rest. persisted: must not change.
const (
	PropCompression  = "write.parquet.compression-codec"
	PropPageRowLimit = "write.parquet.page-row-limit"
	// PropPageBytes: Iceberg's page size; pages close at it as well as at
	// the row limit (parquet.Options.PageBytes).
	PropPageBytes         = "write.parquet.page-size-bytes"
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
	// Manifest merging on commit, with Iceberg's names and meaning
	// (MergingSnapshotProducer): see manifestmerge.go.
	PropManifestMerge       = "commit.manifest-merge.enabled"
	PropManifestMinMerge    = "commit.manifest.min-count-to-merge"
	PropManifestTargetBytes = "commit.manifest.target-size-bytes"

	PropTimeColumn    = "timelake.time-column"
	PropSeriesColumns = "timelake.series-columns"
	PropPartition     = "timelake.partition"
	PropParquetCompat = "timelake.parquet-compat"
	// PropAutoMaintain: "true" makes the WebAssembly client run compaction
	// and retention right after each successful append, and expiry and file
	// cleanup after one in CleanupEvery (see wasm/maintain.go,
	// AutoMaintainOptions).
	PropAutoMaintain = "timelake.auto-maintain"
	// PropMaxSnapshots bounds the snapshot history by count as well as by
	// age: every commit drops the snapshots beyond the newest N from the
	// metadata it writes (see boundHistory in history.go).
	PropMaxSnapshots = "timelake.history.max-snapshots"
)

// DefaultProperties are written into every new table, so that what a table
// does is visible in its metadata rather than implied by a library version.
func DefaultProperties() map[string]string {
	return map[string]string{
		PropFormatDefault:    "parquet",
		PropCompression:      "zstd",
		PropPageRowLimit:     "8192",
		PropRowGroupBytes:    "134217728", // 128 MiB; the WASM build caps it at 16 MiB
		PropTargetFileBytes:  "134217728", // 128 MiB: a compaction output fits a Worker's memory
		PropMaxSnapshotAgeMs: "432000000", // 5 days, Iceberg's default
		PropMinSnapshotsKeep: "1",
		// 20 old versions, deleted after each commit beyond that: see
		// docs/decisions/flat-append-cost.md for the measurements.
		PropPrevVersionsMax:   "20",
		PropDeleteAfterCommit: "true",
		PropCommitRetries:     "9", // 10 conditional writes in all
		PropCommitMinWaitMs:   "25",
		PropCommitMaxWaitMs:   "2000",
		PropParquetCompat:     "false",
		// Iceberg's names; its defaults but the target size (8 MiB there):
		// a merge decodes its entries in memory (75× the manifest's bytes
		// allocated, past a 128 MB isolate at 8 MiB) and rewrites the
		// partial manifest every ~100 appends until it is full, so the
		// target bounds the append's amortized cost at a large file count.
		// See docs/decisions/flat-append-cost.md.
		PropManifestMerge:       "true",
		PropManifestMinMerge:    "100",
		PropManifestTargetBytes: "262144", // 256 KiB
		PropMaxSnapshots:        "10",
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
		// The manifests, manifest lists and indexes a commit writes right
		// before its conditional write: see maintenance.DefaultMetadataGrace.
		maintenance.PropMetadataGrace: "30m",
	}
}

// icebergDefaults are Iceberg's own defaults of the standard properties
// whose Timelake default differs. A table Timelake creates names its
// values; a table without them (another engine's) keeps Iceberg's
// behaviour: its old metadata versions are not deleted by our commits.
var icebergDefaults = map[string]string{
	PropPageBytes:         "1048576",
	PropDeleteAfterCommit: "false",
	PropPrevVersionsMax:   "100",
}

// Settings are the parsed properties a writer uses.
type Settings struct {
	Compression      string // the codec Timelake writes: "zstd", "snappy" or "uncompressed"
	PageRowLimit     int
	PageBytes        int64 // write.parquet.page-size-bytes
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

	DeleteAfterCommit   bool  // write.metadata.delete-after-commit.enabled
	ManifestMerge       bool  // commit.manifest-merge.enabled
	ManifestMinMerge    int   // commit.manifest.min-count-to-merge
	ManifestTargetBytes int64 // commit.manifest.target-size-bytes
	MaxSnapshots        int   // timelake.history.max-snapshots; 0: no bound by count
	AppendMaxPartitions int   // timelake.append.max-partitions (append_limits.go); 0: no bound
}

// ParseSettings reads props over the defaults; a malformed value is an error
// naming the property.
func ParseSettings(props map[string]string) (Settings, error) {
	get := func(k string) string {
		if v, ok := props[k]; ok {
			return strings.TrimSpace(v)
		}
		if v, ok := icebergDefaults[k]; ok {
			return v
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
	s.PageBytes = num(PropPageBytes, 1<<10, 32<<20)
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
	boolean := func(k string) bool {
		switch b := strings.ToLower(get(k)); b {
		case "true", "false":
			return b == "true"
		default:
			errs = append(errs, fmt.Sprintf("property %s=%q: want true or false", k, b))
			return false
		}
	}
	s.AutoMaintain = boolean(PropAutoMaintain)
	s.DeleteAfterCommit = boolean(PropDeleteAfterCommit)
	s.ManifestMerge = boolean(PropManifestMerge)
	s.ManifestMinMerge = int(num(PropManifestMinMerge, 2, 1<<20))
	s.ManifestTargetBytes = num(PropManifestTargetBytes, 1<<10, 1<<40)
	s.MaxSnapshots = int(num(PropMaxSnapshots, 0, 1<<30))
	s.AppendMaxPartitions = DefaultAppendMaxPartitions
	if _, ok := props[PropAppendMaxPartitions]; ok {
		s.AppendMaxPartitions = int(num(PropAppendMaxPartitions, 0, 1<<30))
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

// nameMapping is the top level of schema.name-mapping.default: column name
// → field id. Nested mappings are not needed (tables are flat).
func nameMapping(props map[string]string) (map[string]int, error) {
	s, ok := props["schema.name-mapping.default"]
	if !ok {
		return nil, nil
	}
	var m []struct {
		FieldID *int     `json:"field-id"`
		Names   []string `json:"names"`
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%w: schema.name-mapping.default: %v", ErrBadProperty, err)
	}
	out := map[string]int{}
	for _, f := range m {
		if f.FieldID == nil {
			continue
		}
		for _, n := range f.Names {
			out[n] = *f.FieldID
		}
	}
	return out, nil
}
