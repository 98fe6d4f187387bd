package table

import (
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
)

// SetMergeReadBudget sets the compressed bytes a merge may hold ahead of its
// windows, for a test of the range reads; it returns the restoring function.
func SetMergeReadBudget(n int64) (restore func()) {
	old := mergeReadBudget
	mergeReadBudget = n
	return func() { mergeReadBudget = old }
}

// SetScanWindows sets a scan's window rows, read-ahead budget per file and
// coalescing gap, for a test of the range reads; it returns the restoring
// function.
func SetScanWindows(rows, budget, gap int64) (restore func()) {
	w, m, b, g := scanWindowRows, scanMinWindowRows, scanReadBudget, datafile.ScanGapBytes
	scanWindowRows, scanMinWindowRows, scanReadBudget, datafile.ScanGapBytes = rows, rows, budget, gap
	return func() { scanWindowRows, scanMinWindowRows, scanReadBudget, datafile.ScanGapBytes = w, m, b, g }
}

// ForeignDataFile is the manifest entry another engine would write for a
// Parquet file at key written with stats: Timelake's statistics, no sort
// order.
func ForeignDataFile(tb *Table, key string, partition int32, size int64, st *parquet.FileStats) iceberg.DataFile {
	df := tb.dataFile(tb.schema, tb.location(key), partition, size, st)
	df.SortOrderID = nil
	return df
}

// WriterSettings are the column specs and Parquet options of tb's data files.
func WriterSettings(tb *Table) ([]parquet.ColumnSpec, parquet.Options) {
	return columnSpecs(tb.schema), tb.parquetOptions()
}

// SetCatchUpDeleteLimit sets the position deletes the index catch-up may
// hold, for a test of its refusal; it returns the restoring function.
func SetCatchUpDeleteLimit(positions int) (restore func()) {
	old := catchUpDeleteLimits
	catchUpDeleteLimits.Positions = positions
	return func() { catchUpDeleteLimits = old }
}

// SetRowGroupRows sets the rows that close a row group, for the benchmarks
// that choose it; it returns the restoring function.
func SetRowGroupRows(n int64) (restore func()) {
	old := rowGroupRows
	rowGroupRows = n
	return func() { rowGroupRows = old }
}

// CachedManifestList is the manifest list tb keeps for its next commit (the
// one it last read or committed) and its path, or nil.
func CachedManifestList(tb *Table) (string, *iceberg.ManifestList) {
	if tb.lastList == nil {
		return "", nil
	}
	return tb.lastList.path, tb.lastList.ml
}

// SetCleanupFetches sets the reads a cleanup has in flight and returns a
// function restoring it.
func SetCleanupFetches(n int) func() {
	old := cleanupFetches
	cleanupFetches = n
	return func() { cleanupFetches = old }
}
