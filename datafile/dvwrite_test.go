package datafile_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/puffin"
	"github.com/timelake/timelake/store/memstore"
)

func keyOf(p string) (string, error) { return strings.TrimPrefix(p, "s3://b/t/"), nil }

func dataEntry(path string, rows, seq int64) iceberg.ManifestEntry {
	return iceberg.ManifestEntry{SequenceNumber: seq, DataFile: iceberg.DataFile{Path: path, Format: iceberg.FormatParquet, RecordCount: rows, Partition: 7}}
}

func vec(t *testing.T, pos ...int64) *deletionvector.Vector {
	v, err := deletionvector.Of(pos...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWriteDVs: the Puffin file holds one blob per data file with the
// spec's properties; the entries place each blob; a second write merges
// the vector that applied (replacing it) and leaves a vector written
// before the data file (a higher data sequence number) alone.
func TestWriteDVs(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	a, b := dataEntry("s3://b/t/data/a.parquet", 100, 1), dataEntry("s3://b/t/data/b.parquet", 50, 5)
	var read int64
	w, err := datafile.WriteDVs(ctx, st, keyOf, "s3://b/t/data/d1.puffin",
		[]datafile.NewDV{{Data: a, Positions: vec(t, 3, 9)}, {Data: b, Positions: vec(t, 0)}}, nil, "test", &read)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "data/d1.puffin", w.Puffin); err != nil {
		t.Fatal(err)
	}
	pf, err := puffin.Read(w.Puffin)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range w.Entries {
		bm := pf.Blobs[i]
		if !e.IsDV() || e.Partition != 7 || *e.ContentOffset != bm.Offset || *e.ContentSizeInBytes != bm.Length || e.FileSize != int64(len(w.Puffin)) ||
			bm.Type != deletionvector.BlobType || bm.Properties[deletionvector.PropReferencedDataFile] != e.ReferencedDataFile {
			t.Fatalf("entry %d %+v does not match blob %+v", i, e, bm)
		}
	}
	live := []maintenance.File{}
	for _, e := range w.Entries {
		live = append(live, maintenance.File{Path: e.Path, Size: e.FileSize, Rows: e.RecordCount, Seq: 6,
			DV: true, Referenced: e.ReferencedDataFile, Offset: *e.ContentOffset, Length: *e.ContentSizeInBytes})
	}
	// b's data file rewritten after the vector (sequence 7): it no longer applies
	b.SequenceNumber = 7
	w2, err := datafile.WriteDVs(ctx, st, keyOf, "s3://b/t/data/d2.puffin",
		[]datafile.NewDV{{Data: a, Positions: vec(t, 4)}, {Data: b, Positions: vec(t, 1)}}, live, "test", &read)
	if err != nil {
		t.Fatal(err)
	}
	if len(w2.Replaced) != 1 || w2.Replaced[0].Referenced != a.DataFile.Path {
		t.Fatalf("replaced %+v, want a's vector only", w2.Replaced)
	}
	pf2, _ := puffin.Read(w2.Puffin)
	for i, want := range [][]int64{{3, 4, 9}, {1}} {
		data, _ := pf2.BlobData(w2.Puffin, i)
		v, err := deletionvector.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Positions(); !slices.Equal(got, want) || w2.Entries[i].RecordCount != int64(len(want)) {
			t.Errorf("vector %d: %v (record count %d), want %v", i, got, w2.Entries[i].RecordCount, want)
		}
	}
}

func TestWriteDVsRefuses(t *testing.T) {
	ctx := context.Background()
	a := dataEntry("s3://b/t/data/a.parquet", 10, 1)
	del := a
	del.DataFile.Content = iceberg.ContentPositionDeletes
	for _, c := range []struct {
		name string
		dvs  []datafile.NewDV
		want string
	}{
		{"past the rows", []datafile.NewDV{{Data: a, Positions: vec(t, 10)}}, "position 10 is past its 10 rows"},
		{"twice", []datafile.NewDV{{Data: a, Positions: vec(t, 1)}, {Data: a, Positions: vec(t, 2)}}, "listed twice"},
		{"a delete file", []datafile.NewDV{{Data: del, Positions: vec(t, 1)}}, "not a data file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var read int64
			_, err := datafile.WriteDVs(ctx, memstore.New(), keyOf, "s3://b/t/data/d.puffin", c.dvs, nil, "test", &read)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}
