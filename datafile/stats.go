package datafile

import (
	"context"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// ScanStats are a scan's plan and cost. Requests and BytesRead count the
// data and delete files' reads, not the metadata's (manifest list,
// manifests). Pages are those of the projected columns of the row groups
// of the files read (a column chunk without an offset index counts one).
type ScanStats struct {
	SnapshotID    int64 `json:"snapshot-id,string"` // 0: the table has no snapshot
	Manifests     int   `json:"manifests"`          // data manifests of the snapshot
	ManifestsRead int   `json:"manifests-read"`     // those the partition summaries did not skip
	Files         int   `json:"files"`              // live data files considered
	FilesRead     int   `json:"files-read"`
	RowGroups     int   `json:"row-groups"` // of the files read
	RowGroupsRead int   `json:"row-groups-read"`
	Pages         int   `json:"pages"`
	PagesRead     int   `json:"pages-read"`
	Requests      int   `json:"requests"`
	BytesRead     int64 `json:"bytes-read"`
	// The page reads apart from the footers and indexes: the compressed
	// bytes of the pages decoded (data and dictionary pages: what the rows
	// needed), and the requests and bytes of the coalesced runs that
	// fetched them (the scan benchmarks compare the two).
	PageBytes     int64 `json:"page-bytes"`
	PageRequests  int   `json:"page-requests"`
	PageReadBytes int64 `json:"page-read-bytes"`
	Rows          int64 `json:"rows"` // rows handed to each
}

// ScanGapBytes: byte ranges of one window at most this far apart are
// fetched in one request (a round trip costs more than reading them).
var ScanGapBytes int64 = 64 << 10

// FileBound is data file df's bounds of field id, from its manifest entry.
func FileBound(df *iceberg.DataFile, id int) scan.Bound {
	return scan.Bound{Lo: df.Lower[int32(id)], Hi: df.Upper[int32(id)]}
}

// SeriesBounds is the bounds of the filtered series columns, by name.
func SeriesBounds(t *schema.Table, flt *scan.Filter, bound func(id int) scan.Bound) map[string]scan.Bound {
	if len(flt.Series) == 0 {
		return nil
	}
	out := map[string]scan.Bound{}
	for _, sf := range flt.Series {
		if i := t.Index(sf.Name); i >= 0 {
			out[sf.Name] = bound(t.Fields[i].ID)
		}
	}
	return out
}

// CountingStore counts a scan's reads of data files.
type CountingStore struct {
	store.Store
	Stats *ScanStats
}

func (c *CountingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.Stats.Requests++
	return c.Store.GetRange(ctx, key, off, n)
}
