package datafile

import (
	"context"
	"fmt"
	"strconv"

	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/puffin"
	"github.com/timelake/timelake/store"
)

// Writing deletion vectors (Iceberg spec "Deletion Vectors"; Puffin spec
// "deletion-vector-v1"): one Puffin file per commit, one blob per data
// file, each named by a delete manifest entry of its own. A snapshot has
// at most one vector per data file: a new one holds the positions of the
// vector it replaces and of the position delete files that applied, and
// the commit removes the replaced vector.

// dvPositionField is the field id a deletion vector's blob names: _pos,
// the row position (Iceberg's reserved id). persisted: must not change.
const dvPositionField = 2147483645

// NewDV is the deletion vector to write for one data file.
type NewDV struct {
	Data      iceberg.ManifestEntry  // the data file's live entry
	Positions *deletionvector.Vector // the rows to delete now
}

// WrittenDVs is what WriteDVs built.
type WrittenDVs struct {
	Puffin  []byte             // the Puffin file, to put at the path given
	Entries []iceberg.DataFile // its delete file entries, one per data file: add them
	// Replaced are the live deletion vectors the new ones hold: remove
	// them in the same commit.
	Replaced []maintenance.File
}

// WriteDVs builds the Puffin file (to be stored at path) of the deletion
// vectors of dvs, each merged with the deletes that apply to its data file
// among live, the live delete files (position delete files and deletion
// vectors, read through st as PositionDeletes reads them). createdBy is
// the footer's created-by. A data file listed twice, or a position past
// its record count, is an error.
func WriteDVs(ctx context.Context, st store.Store, keyOf func(string) (string, error), path string, dvs []NewDV, live []maintenance.File, createdBy string, bytesRead *int64) (*WrittenDVs, error) {
	files := make([]maintenance.File, len(dvs))
	keys := make([]string, len(dvs))
	seen := map[string]bool{}
	for i, d := range dvs {
		df := &d.Data.DataFile
		if df.IsDelete() {
			return nil, fmt.Errorf("deletion vector for %s: not a data file", df.Path)
		}
		key, err := keyOf(df.Path)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("deletion vector for %s: the data file is listed twice", df.Path)
		}
		seen[key], keys[i] = true, key
		if last := d.Positions.Max(); last >= df.RecordCount {
			return nil, fmt.Errorf("deletion vector for %s: position %d is past its %d rows", df.Path, last, df.RecordCount)
		}
		files[i] = maintenance.File{Path: df.Path, Seq: d.Data.SequenceNumber}
	}
	lim := DeleteLimits{Positions: 1 << 30, FileBytes: MaxFileBytes, What: "a delete"}
	old, err := PositionDeletes(ctx, st, keyOf, files, live, lim, bytesRead)
	if err != nil {
		return nil, err
	}
	out := &WrittenDVs{}
	for _, f := range live {
		if !f.DV {
			continue
		}
		if target, err := keyOf(f.Referenced); err == nil && seen[target] {
			if d := old[target]; d != nil && d.dv != nil {
				out.Replaced = append(out.Replaced, f) // the vector that applied
			}
		}
	}
	blobs := make([]puffin.Blob, len(dvs))
	vecs := make([]*deletionvector.Vector, len(dvs))
	for i, d := range dvs {
		v := d.Positions
		if prev := old[keys[i]]; prev != nil {
			v = deletionvector.Merge(prev.Vector(), v)
		}
		vecs[i] = v
		blobs[i] = puffin.Blob{
			BlobMetadata: puffin.BlobMetadata{
				Type: deletionvector.BlobType, Fields: []int{dvPositionField},
				// -1: the snapshot is not known when the file is written
				// (what Iceberg's writer puts; readers ignore them).
				SnapshotID: -1, SequenceNumber: -1,
				Properties: map[string]string{
					deletionvector.PropReferencedDataFile: d.Data.DataFile.Path,
					deletionvector.PropCardinality:        strconv.FormatInt(v.Cardinality(), 10),
				},
			},
			Data: deletionvector.Encode(v),
		}
	}
	data, pf, err := puffin.Write(blobs, map[string]string{"created-by": createdBy})
	if err != nil {
		return nil, err
	}
	out.Puffin = data
	for i, d := range dvs {
		src := &d.Data.DataFile
		off, size := pf.Blobs[i].Offset, pf.Blobs[i].Length
		out.Entries = append(out.Entries, iceberg.DataFile{
			Content: iceberg.ContentPositionDeletes, Path: path, Format: iceberg.FormatPuffin,
			Partition: src.Partition, OtherPartition: src.OtherPartition, PartitionValues: src.PartitionValues, SpecID: src.SpecID,
			RecordCount: vecs[i].Cardinality(), FileSize: int64(len(data)),
			ReferencedDataFile: src.Path, ContentOffset: &off, ContentSizeInBytes: &size,
		})
	}
	return out, nil
}

// Vector returns d's positions as a deletion vector.
func (d *Deleted) Vector() *deletionvector.Vector {
	if d.dv != nil {
		return d.dv
	}
	v, _ := deletionvector.Of(d.pos...) // positions are never negative here
	return v
}
