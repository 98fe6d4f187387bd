package table

import (
	"context"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/schema"
)

// Rows that delete files remove, for info.
//
// Outside readers (Spark, DuckDB, pyiceberg, iceberg-go) count a table's
// rows after its delete files; so does info. Position delete files are
// read through datafile.PositionDeletes, the one place that decides which delete
// applies to which data file (the same place, data sequence number at most
// the delete's), so a stale delete (of a file a rewrite removed) or one a
// later MERGE repeated counts nothing. A deletion vector (format 3, a
// blob of a Puffin file) is read there too: it deletes its record count of
// rows of one data file (checked against the blob), and info's time range
// needs its positions (exactTimeRange). Equality
// deletes cannot be counted without reading the data: info's rows are then
// before them, and it says so (RowsBeforeEqualityDeletes).

// infoDeleteLimits bound what info holds of position deletes.
var infoDeleteLimits = datafile.DeleteLimits{Positions: 16 << 20, FileBytes: 64 << 20, What: "info"}

// positionDeleted counts the live rows the live delete files remove: in
// all, and per data file (by path) for the partition sums.
func (tb *Table) positionDeleted(ctx context.Context, data, deletes []iceberg.DataFile, seq map[string]int64) (int64, map[string]int64, map[string]*datafile.Deleted, error) {
	var total int64
	var files, dels []maintenance.File
	for _, d := range deletes {
		if d.Content != iceberg.ContentEqualityDeletes {
			dels = append(dels, entryFile(iceberg.ManifestEntry{DataFile: d, SequenceNumber: seq[d.Path]}))
		}
	}
	if len(dels) == 0 {
		return total, nil, nil, nil
	}
	keyPath := map[string]string{}
	for _, df := range data {
		files = append(files, maintenance.File{Path: df.Path, Seq: seq[df.Path]})
		if k, err := tb.keyOf(df.Path); err == nil {
			keyPath[k] = df.Path
		}
	}
	var read int64
	gone, err := datafile.PositionDeletes(ctx, tb.st, tb.keyOf, files, dels, infoDeleteLimits, &read)
	if err != nil {
		return 0, nil, nil, err
	}
	perFile := map[string]int64{}
	for key, d := range gone {
		n := int64(d.Count())
		perFile[keyPath[key]] += n
		total += n
	}
	return total, perFile, gone, nil
}

// exactTimeRange is the time range of what readers see of files: the bounds
// of a file no delete touches, and for a file with deleted rows the range
// of its rows left, read from its time column a window at a time (a delete
// may have removed a row at either end of its bounds). known is false when
// a file lacks bounds and has no deletes. gone are the deleted positions by
// data file store key (datafile.PositionDeletes).
func (tb *Table) exactTimeRange(ctx context.Context, files []iceberg.DataFile, seq map[string]int64, gone map[string]*datafile.Deleted) (t totals, known bool, err error) {
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return totals{}, false, err
	}
	ks, _ := keySchema(tb.schema)
	per := tb.schema.TimeField().Type.PerMicro()
	var dec parquet.PageDecoder
	var read int64
	var bounded []iceberg.DataFile
	for _, df := range files {
		key, err := tb.keyOf(df.Path)
		if err != nil {
			return totals{}, false, err
		}
		d := gone[key]
		if d == nil {
			bounded = append(bounded, df)
			continue
		}
		rf, err := datafile.Open(ctx, tb.st, key, df.FileSize, ks, names, &read)
		if err != nil {
			return totals{}, false, err
		}
		cur := datafile.NewCursor(rf, ks, &dec, seq[df.Path], catchUpWindowRows, catchUpReadBudget)
		cur.AnyOrder = true
		for {
			ok, err := cur.Next(ctx)
			if err != nil {
				return totals{}, false, err
			}
			if !ok {
				break
			}
			first := cur.Rows - int64(cur.N)
			ts := cur.Cols[ks.Time].Ints
			for i := 0; i < cur.N; i++ {
				if !d.Has(first + int64(i)) {
					us := schema.FloorMicros(ts[i], per) // totals are µs
					t.widen(us, us)
				}
			}
		}
	}
	if !tb.widenByBounds(&t, bounded) {
		return totals{}, false, nil
	}
	return t, true, nil
}
