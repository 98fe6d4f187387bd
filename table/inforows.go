package table

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/store"
)

// Rows that position deletes remove, for info.
//
// Outside readers (Spark, DuckDB, pyiceberg, iceberg-go) count a table's
// rows after its delete files; so does info. A position delete file names
// (file_path, pos) rows of data files whose data sequence number is at most
// its own; info reads each live one (they are small: Spark writes one per
// partition and commit) and counts every deleted (file, position) once,
// for live data files only, so a stale delete (of a file a rewrite
// removed) or one repeated by a later MERGE counts nothing. A deletion
// vector (format 3, in a Puffin file) deletes its record count of rows of
// one data file. Equality deletes cannot be counted without reading the
// data: info's rows are then before them, and says so
// (RowsBeforeEqualityDeletes).

// maxInfoDeletes bounds the (file, position) pairs info holds.
const maxInfoDeletes = 16 << 20

// positionDeleted counts the live rows the live delete files remove, and
// per data file (by path) for the partition sums.
func (tb *Table) positionDeleted(ctx context.Context, data, deletes []iceberg.DataFile, seq map[string]int64) (int64, map[string]int64, error) {
	if len(deletes) == 0 {
		return 0, nil, nil
	}
	live := map[string]string{} // a data file's place → its path
	for _, df := range data {
		p, err := location.Parse(df.Path)
		if err != nil {
			return 0, nil, fmt.Errorf("%w: data file %q: %v", ErrCorruptTable, df.Path, err)
		}
		live[p.String()] = df.Path
	}
	type row struct {
		path string
		pos  int64
	}
	gone := map[row]bool{}
	perFile := map[string]int64{}
	var total int64
	for _, d := range deletes {
		switch {
		case d.Content == iceberg.ContentEqualityDeletes:
			continue
		case d.Format == "PUFFIN":
			total += d.RecordCount // a deletion vector: exact, for one data file
			continue
		}
		key, err := tb.keyOf(d.Path)
		if err != nil {
			return 0, nil, err
		}
		raw, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
		if err != nil {
			return 0, nil, fmt.Errorf("read position delete file: %w", err)
		}
		dseq := seq[d.Path]
		err = parsePositionDeletes(raw, func(path string, pos int64) error {
			p, err := location.Parse(path)
			if err != nil {
				return nil // names no place of this table
			}
			dataPath, ok := live[p.String()]
			if !ok || seq[dataPath] > dseq {
				return nil // a removed file's, or one written after the delete
			}
			r := row{dataPath, pos}
			if gone[r] {
				return nil
			}
			if len(gone) >= maxInfoDeletes {
				return fmt.Errorf("%w: more than %d position deletes to count", ErrUnsupportedTable, maxInfoDeletes)
			}
			gone[r] = true
			perFile[dataPath]++
			total++
			return nil
		})
		if err != nil {
			return 0, nil, fileErr(key, err)
		}
	}
	return total, perFile, nil
}
