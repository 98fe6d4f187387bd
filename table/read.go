package table

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// head describes the current version for head.json.
func (tb *Table) head() (*Head, error) {
	h := &Head{
		Format:           HeadFormat,
		MetadataVersion:  tb.version.N,
		MetadataLocation: commit.MetadataKey(tb.version.N),
		SchemaID:         tb.meta.CurrentSchemaID,
		UpdatedAt:        formatMillis(tb.meta.LastUpdatedMs),
	}
	if s := tb.meta.CurrentSnapshot(); s != nil {
		h.SnapshotID = strconv.FormatInt(s.SnapshotID, 10)
		if p := tb.indexPath(s); p != "" {
			if k, err := tb.keyOf(p); err == nil {
				h.LastValueIndex = k
			}
		}
		t := totalsOf(s)
		h.Rows, h.Files, h.Bytes = t.records, t.files, t.bytes
		if t.hasTime {
			h.MinTime, h.MaxTime = formatMicros(t.minTime), formatMicros(t.maxTime)
		}
	}
	return h, nil
}

func marshalHead(h *Head) ([]byte, error) { return json.MarshalIndent(h, "", "  ") }

func formatMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999Z07:00")
}

func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}

// Info describes a table version: what `timelake info` prints.
type Info struct {
	Location       string          `json:"location"`
	Version        int             `json:"version"`
	SnapshotID     string          `json:"snapshot-id,omitempty"` // decimal: 64-bit safe in JavaScript
	Snapshots      int             `json:"snapshots"`
	Rows           int64           `json:"rows"`
	Files          int64           `json:"files"`
	Bytes          int64           `json:"bytes"`
	MinTime        string          `json:"min-time,omitempty"`
	MaxTime        string          `json:"max-time,omitempty"`
	Partitions     []PartitionInfo `json:"partitions"`
	Columns        []ColumnInfo    `json:"columns"`
	Partition      string          `json:"partition"`
	LastValueIndex string          `json:"last-value-index,omitempty"`
	// Delete files (another engine's position or equality deletes) and the
	// rows they delete: position deletes are one row each; an equality
	// delete's rows are the values it deletes, not a count of table rows.
	DeleteFiles     int64 `json:"delete-files,omitempty"`
	PositionDeletes int64 `json:"position-deletes,omitempty"`
	EqualityDeletes int64 `json:"equality-deletes,omitempty"`
	// RowsStored is the rows the data files hold, before deletes (when
	// there are delete files); Rows is after position deletes and deletion
	// vectors, and before equality deletes when
	// RowsBeforeEqualityDeletes is set.
	RowsStored                int64             `json:"rows-stored,omitempty"`
	RowsBeforeEqualityDeletes bool              `json:"rows-before-equality-deletes,omitempty"`
	Properties                map[string]string `json:"properties"`
	// Key is the time and series columns ("ts; series host,region"), or
	// "" for another engine's table that was not adopted (read as stored).
	Key string `json:"key"`
	// UnreadColumns are columns of types Timelake does not read ("tags map").
	UnreadColumns []string `json:"unread-columns,omitempty"`
	// Schemas is the schema history, oldest first (alter.go).
	Schemas []SchemaVersion `json:"schemas"`
	// Warnings name what the metadata claims that cannot be right (a
	// negative or implausible record_count); the counts leave it out.
	Warnings []string `json:"warnings,omitempty"`
}

// maxPlausibleRecords bounds the record_count of one data file that info
// believes: 2^48 rows (each page holds at most 2^31 values behind a header
// of a dozen bytes, so no file of the sizes stores accept holds more).
// Beyond it, or below 0, the manifest was damaged or written by a broken
// writer; adding such a count would make every total nonsense.
const maxPlausibleRecords = 1 << 48

// PartitionInfo is one partition's share of the table.
type PartitionInfo struct {
	Name  string `json:"name"` // e.g. ts_day=2026-11-29
	Rows  int64  `json:"rows"`
	Files int64  `json:"files"`
	Bytes int64  `json:"bytes"`
}

// ColumnInfo is one column of the schema.
type ColumnInfo struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// Info reads the current snapshot's manifests and sums them by partition.
func (tb *Table) Info(ctx context.Context) (*Info, error) {
	h, err := tb.head()
	if err != nil {
		return nil, err
	}
	info := &Info{
		Location: tb.meta.Location, Version: tb.version.N, SnapshotID: h.SnapshotID,
		Snapshots: len(tb.meta.Snapshots), MinTime: h.MinTime, MaxTime: h.MaxTime,
		Partition: tb.partitionField(), LastValueIndex: h.LastValueIndex,
		Properties: tb.meta.Properties, Partitions: []PartitionInfo{},
	}
	info.Columns = tb.Columns()
	info.Key, info.UnreadColumns = keyText(tb.schema), tb.schema.Unread
	info.Schemas = tb.SchemaHistory()
	s := tb.meta.CurrentSnapshot()
	if s == nil {
		return info, nil
	}
	files, deletes, other, seq, err := tb.liveFilesSeq(ctx)
	if err != nil {
		return nil, err
	}
	deleted, deletedOf, gone, err := tb.positionDeleted(ctx, files, deletes, seq)
	if err != nil {
		return nil, err
	}
	if len(gone) > 0 && tb.schema.HasKey() {
		// rows deleted may have been at either end: the range of those left
		t, known, err := tb.exactTimeRange(ctx, files, seq, gone)
		if err != nil {
			return nil, err
		}
		info.MinTime, info.MaxTime = "", ""
		if known && t.hasTime {
			info.MinTime, info.MaxTime = formatMicros(t.minTime), formatMicros(t.maxTime)
		}
	} else if !hasTimeKeys(s) && tb.schema.HasKey() {
		// another engine's snapshot: the range is what the files' bounds say
		var t totals
		if tb.widenByBounds(&t, files) && t.hasTime {
			info.MinTime, info.MaxTime = formatMicros(t.minTime), formatMicros(t.maxTime)
		}
	}
	info.countDeletes(deletes)
	byPart := map[int32]*PartitionInfo{}
	byName := map[string]*PartitionInfo{} // another engine's spec: by name
	var otherSpec *PartitionInfo
	for _, df := range files {
		p := byPart[df.Partition]
		if tb.schema.Partition == 0 {
			name := tb.specPartitionName(&df)
			if p = byName[name]; p == nil {
				p = &PartitionInfo{Name: name}
				byName[name] = p
			}
		} else if other[df.Path] {
			if otherSpec == nil {
				otherSpec = &PartitionInfo{Name: OtherSpecPartition}
			}
			p = otherSpec
		} else if p == nil {
			p = &PartitionInfo{Name: tb.partitionField() + "=" + tb.schema.Partition.Format(df.Partition)}
			byPart[df.Partition] = p
		}
		n := df.RecordCount
		if n < 0 || n > maxPlausibleRecords {
			info.Warnings = append(info.Warnings, fmt.Sprintf("data file %s claims record_count %d: left out of the row counts", df.Path, n))
			n = 0
		}
		p.Rows += n - deletedOf[df.Path]
		p.Files++
		p.Bytes += df.FileSize
		info.Rows += n
		info.Files++
		info.Bytes += df.FileSize
	}
	if len(deletes) > 0 {
		info.RowsStored = info.Rows
		info.Rows -= deleted
		info.RowsBeforeEqualityDeletes = info.EqualityDeletes > 0
	}
	keys := make([]int32, 0, len(byPart))
	for k := range byPart {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		info.Partitions = append(info.Partitions, *byPart[k])
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		info.Partitions = append(info.Partitions, *byName[name])
	}
	if otherSpec != nil {
		info.Partitions = append(info.Partitions, *otherSpec)
	}
	return info, nil
}

// Columns describes the schema's columns, without reading the store.
func (tb *Table) Columns() []ColumnInfo {
	cols := make([]ColumnInfo, 0, len(tb.schema.Fields))
	for _, f := range tb.schema.Fields {
		cols = append(cols, ColumnInfo{ID: f.ID, Name: f.Name, Type: f.TypeText(), Required: f.Required})
	}
	return cols
}

// Latest returns the last-value index of the current snapshot: the latest row
// of every series, sorted by series. An empty table gives an empty batch.
func (tb *Table) Latest(ctx context.Context) (*rows.Batch, error) {
	if !tb.schema.HasKey() {
		return nil, tb.writeErr // ErrNotAdopted: no series to have latest rows of
	}
	empty := &rows.Batch{Schema: tb.schema, Cols: make([]rows.Column, len(tb.schema.Fields))}
	s := tb.meta.CurrentSnapshot()
	if s == nil {
		return empty, nil
	}
	st, err := tb.indexOf(ctx, s)
	if err != nil {
		return nil, err
	}
	if st.idx == nil {
		return empty, nil
	}
	return st.idx, nil
}

// DataFiles lists the live data files of the current snapshot (ADDED and
// EXISTING entries of every manifest in its list), not its delete files.
func (tb *Table) DataFiles(ctx context.Context) ([]iceberg.DataFile, error) {
	files, _, _, err := tb.liveFiles(ctx)
	return files, err
}

// listedOnce refuses a live data file that a snapshot lists twice: readers
// would count its rows twice, and a compaction would merge it with itself.
func listedOnce(seen map[string]string, path, manifest string) error {
	if first, ok := seen[path]; ok {
		return fmt.Errorf("%w: data file %q is listed twice (in %s and %s)", ErrCorruptTable, path, first, manifest)
	}
	seen[path] = manifest
	return nil
}

// keyText describes a schema's key: "ts; series host,region", "ts; one
// series", or "" without one.
func keyText(t *schema.Table) string {
	if !t.HasKey() {
		return ""
	}
	if len(t.Series) == 0 {
		return t.TimeField().Name + "; one series"
	}
	names := make([]string, len(t.Series))
	for i, s := range t.Series {
		names[i] = t.Fields[s].Name
	}
	return t.TimeField().Name + "; series " + strings.Join(names, ",")
}
