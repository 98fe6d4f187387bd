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

// rangeCounter counts GetRange requests.
type rangeCounter struct {
	*memstore.Store
	ranges int
}

func (c *rangeCounter) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.ranges++
	return c.Store.GetRange(ctx, key, off, n)
}

// TestPositionDeletesDVRequests: the vectors of one Puffin file are read
// in one request when they are near, a request each when a large blob of
// another data file lies between them; only the vectors that apply are
// fetched.
func TestPositionDeletesDVRequests(t *testing.T) {
	ctx := context.Background()
	var dvs []datafile.NewDV
	var files []maintenance.File
	for i, pos := range [][]int64{{1}, seqn(0, 1<<23, 2), {2}} { // the middle blob: 1 MiB of bitmaps and more
		e := dataEntry("s3://b/t/data/"+string(rune('a'+i))+".parquet", 1<<23, 1)
		dvs = append(dvs, datafile.NewDV{Data: e, Positions: vec(t, pos...)})
		files = append(files, maintenance.File{Path: e.DataFile.Path, Seq: 1})
	}
	var read int64
	w, err := datafile.WriteDVs(ctx, memstore.New(), keyOf, "s3://b/t/data/d.puffin", dvs, nil, "test", &read)
	if err != nil {
		t.Fatal(err)
	}
	var live []maintenance.File
	for _, e := range w.Entries {
		live = append(live, maintenance.File{Path: e.Path, Size: e.FileSize, Rows: e.RecordCount, Seq: 2,
			DV: true, Referenced: e.ReferencedDataFile, Offset: *e.ContentOffset, Length: *e.ContentSizeInBytes})
	}
	lim := datafile.DeleteLimits{Positions: 1 << 30, FileBytes: 1 << 30, What: "a test"}
	for _, c := range []struct {
		name     string
		files    []maintenance.File
		requests int
	}{
		{"all three", files, 1},
		{"the first and last", []maintenance.File{files[0], files[2]}, 2},
		{"one", files[1:2], 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &rangeCounter{Store: memstore.New()}
			if err := st.Put(ctx, "data/d.puffin", w.Puffin); err != nil {
				t.Fatal(err)
			}
			got, err := datafile.PositionDeletes(ctx, st, keyOf, c.files, live, lim, &read)
			if err != nil {
				t.Fatal(err)
			}
			if st.ranges != c.requests || len(got) != len(c.files) {
				t.Fatalf("%d requests, %d files with deletes; want %d and %d", st.ranges, len(got), c.requests, len(c.files))
			}
			for _, f := range c.files {
				k, _ := keyOf(f.Path)
				if !got[k].Contains(map[string]int64{"data/a.parquet": 1, "data/b.parquet": 4, "data/c.parquet": 2}[k]) {
					t.Errorf("%s: its vector's position is not deleted", k)
				}
			}
		})
	}
}

func seqn(from, to, step int64) []int64 {
	var out []int64
	for x := from; x < to; x += step {
		out = append(out, x)
	}
	return out
}
