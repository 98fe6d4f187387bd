package datafile_test

import (
	"strconv"
	"testing"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func positionDeleteFile(t testing.TB, paths []string, pos []int64, ids bool) []byte {
	specs := []parquet.ColumnSpec{{Name: "file_path", Type: schema.String, Required: true}, {Name: "pos", Type: schema.Long, Required: true}}
	if ids {
		specs[0].FieldID, specs[1].FieldID = 2147483546, 2147483545
	}
	w, err := parquet.NewWriter(specs, parquet.Options{PageRowLimit: 2, Codec: parquet.Zstd})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]rows.Column{{Strs: paths}, {Ints: pos}}, len(pos)); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParsePositionDeletes(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string // rows, or the error
	}{
		{"field ids", positionDeleteFile(t, []string{"s3://b/t/a.parquet", "s3://b/t/a.parquet", "s3://b/t/b.parquet"}, []int64{0, 7, 3}, true),
			"s3://b/t/a.parquet@0 s3://b/t/a.parquet@7 s3://b/t/b.parquet@3 "},
		{"names only", positionDeleteFile(t, []string{"x"}, []int64{5}, false), "x@5 "},
		{"negative position", positionDeleteFile(t, []string{"x"}, []int64{-1}, true), "position delete file: pos -1 is negative"},
		{"not Parquet", []byte("PAR1 nope"), "parquet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			err := datafile.ParsePositionDeletes(c.data, func(p string, pos int64) error {
				got += p + "@" + strconv.FormatInt(pos, 10) + " "
				return nil
			})
			if err != nil {
				got = err.Error()
			}
			if len(got) < len(c.want) || got[:len(c.want)] != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// FuzzParsePositionDeletes: any bytes give rows or an error, never a panic
// or a negative position.
func FuzzParsePositionDeletes(f *testing.F) {
	f.Add(positionDeleteFile(f, []string{"s3://b/t/a.parquet", "s3://b/t/b.parquet"}, []int64{0, 9}, true))
	f.Add(positionDeleteFile(f, []string{"x"}, []int64{1}, false))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = datafile.ParsePositionDeletes(b, func(p string, pos int64) error {
			if pos < 0 {
				t.Errorf("negative position %d", pos)
			}
			return nil
		})
	})
}
