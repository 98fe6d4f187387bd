package arrowipc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
)

// TestColumns: the table type each Arrow field of pyarrow's fixtures
// (testdata/gen.py) is added as by an evolving append.
func TestColumns(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"types.arrows", "ts:timestamptz host:string i8:int i16:int i32:int i64:long u8:long u16:long u32:long u64:long f16:float f32:float f64:double flag:boolean note:string word:string"},
		{"types.arrow", "ts:timestamptz host:string i8:int i16:int i32:int i64:long u8:long u16:long u32:long u64:long f16:float f32:float f64:double flag:boolean note:string word:string"},
		{"times.arrows", "ts:timestamptz host:string t_ms:timestamptz t_us:timestamptz t_ns:timestamptz d32:timestamptz d64:timestamptz e_ms:long t_str:string"},
		{"dict.arrow", ""},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		cols, err := Columns(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var got []string
		for _, c := range cols {
			got = append(got, fmt.Sprintf("%s:%v", c.Name, c.Type))
		}
		if tc.want != "" && strings.Join(got, " ") != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.file, strings.Join(got, " "), tc.want)
		}
		if len(got) == 0 {
			t.Errorf("%s: no columns", tc.file)
		}
	}
	for _, bad := range [][]byte{nil, []byte("ARROW1garbage")} {
		var re *rows.Error
		if _, err := Columns(bad); !errors.As(err, &re) {
			t.Errorf("Columns(%q) = %v, want a *rows.Error", bad, err)
		}
	}
}
