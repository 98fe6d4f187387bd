package table

import (
	"fmt"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
)

// Deletion vectors (format 3) are read and applied where position delete
// files are: datafile.PositionDeletes, asked by scans, the index catch-up,
// compaction, rollups and info. One Puffin file holds the vectors of
// several data files, each a manifest entry of its own: live entries are
// told apart by iceberg.DataFile.EntryKey (the path, and for a vector the
// data file it references), so a compaction removes the vectors of the
// partition it merged and keeps the others of the same Puffin file.

// entryFile is the planner's and datafile's view of a live entry.
func entryFile(e iceberg.ManifestEntry) maintenance.File {
	df := &e.DataFile
	f := maintenance.File{Path: df.Path, Partition: df.Partition, Size: df.FileSize, Rows: df.RecordCount, Seq: e.SequenceNumber, FirstRowID: df.FirstRowID}
	if df.IsDelete() {
		f.Equality = df.Content == iceberg.ContentEqualityDeletes
	}
	if df.IsDV() {
		f.DV, f.Referenced = true, df.ReferencedDataFile
		if df.ContentOffset != nil && df.ContentSizeInBytes != nil {
			f.Offset, f.Length = *df.ContentOffset, *df.ContentSizeInBytes
		}
	}
	return f
}

// entryFiles is entryFile of each of es.
func entryFiles(es []iceberg.ManifestEntry) []maintenance.File {
	out := make([]maintenance.File, len(es))
	for i, e := range es {
		out[i] = entryFile(e)
	}
	return out
}

// checkDV refuses a deletion vector entry that lacks what the spec
// requires of one: the data file it applies to and its blob's place.
func checkDV(f *iceberg.DataFile) error {
	if f.ReferencedDataFile == "" || f.ContentOffset == nil || f.ContentSizeInBytes == nil {
		return fmt.Errorf("%w: deletion vector %s lacks referenced_data_file, content_offset or content_size_in_bytes", ErrCorruptTable, f.Path)
	}
	return nil
}
