package arrowipc

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/rows"
)

// FuzzRead reads arbitrary bytes as Arrow IPC into the table of the "types"
// fixtures (unknown columns ignored, so every field shape is reached): it
// must never panic, every error must be a coded *rows.Error that Next then
// repeats, and every batch must hold as many values per column as rows.
// Seeds: every fixture pyarrow wrote.
func FuzzRead(f *testing.F) {
	fx := loadFixtures(f)
	files, err := filepath.Glob(filepath.Join("testdata", "*.arrow*"))
	if err != nil || len(files) < 10 {
		f.Fatalf("seed fixtures: %d, %v", len(files), err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	tb := fx.Cases[0].Table.build(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Columns(data); err != nil { // what an evolving append reads first
			var re *rows.Error
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("Columns: %v (%T) is not a coded *rows.Error", err, err)
			}
		}
		r, err := NewReader(data, tb, rows.Options{IgnoreUnknown: true})
		if err != nil {
			var re *rows.Error
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("NewReader: %v (%T) is not a coded *rows.Error", err, err)
			}
			return
		}
		for {
			b, err := r.Next(5)
			if err == io.EOF {
				return
			}
			if err != nil {
				var re *rows.Error
				if !errors.As(err, &re) || re.Code == "" || re.Msg == "" {
					t.Fatalf("Next: %v (%T) is not a coded *rows.Error", err, err)
				}
				if _, again := r.Next(5); again != err {
					t.Fatalf("after %v, Next gave %v", err, again)
				}
				return
			}
			if b.Len < 1 || b.Len > 5 {
				t.Fatalf("a batch of %d rows", b.Len)
			}
			for c, f := range b.Schema.Fields {
				col := &b.Cols[c]
				n := len(col.Ints) + len(col.Floats) + len(col.Bools) + len(col.Strs)
				if n != b.Len || (col.Nulls != nil && len(col.Nulls) != b.Len) {
					t.Fatalf("column %q: %d values, %d nulls for %d rows", f.Name, n, len(col.Nulls), b.Len)
				}
			}
		}
	})
}
