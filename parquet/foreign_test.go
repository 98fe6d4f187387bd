package parquet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Files other engines write (testdata/foreign_write.py, with pyarrow): every
// codec x page version x encoding, read back and compared with what pyarrow
// itself reads from the same file.

type foreignEntry struct {
	File      string           `json:"file"`
	Encodings []string         `json:"encodings"`
	Expected  map[string][]any `json:"expected"`
	Error     string           `json:"error"`
}

func TestReadForeignFiles(t *testing.T) {
	dir := t.TempDir()
	var manifest []foreignEntry
	decodeJSON(t, runPython(t, "testdata/foreign_write.py", dir, "3000"), &manifest)
	if len(manifest) < 40 {
		t.Fatalf("foreign_write.py wrote %d files", len(manifest))
	}
	checkForeign(t, dir, manifest)
}

// TestReadCommittedForeignFiles reads testdata/foreign (foreign_write.py at
// 40 rows; -update remakes it), so the reader is checked without Python.
func TestReadCommittedForeignFiles(t *testing.T) {
	dir := "testdata/foreign"
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out := runPython(t, "testdata/foreign_write.py", dir, "40")
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest []foreignEntry
	decodeJSON(t, b, &manifest)
	checkForeign(t, dir, manifest)
}

func checkForeign(t *testing.T, dir string, manifest []foreignEntry) {
	codecs := map[Codec]bool{}
	for _, m := range manifest {
		t.Run(strings.TrimSuffix(m.File, ".parquet"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, m.File))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			for _, rg := range f.Meta().RowGroups {
				for _, cc := range rg.Columns {
					codecs[cc.Meta.Codec] = true
				}
			}
			for c, info := range f.Schema() {
				col, err := readWholeColumn(f, c)
				if m.Error != "" {
					if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), m.Error) || !strings.Contains(err.Error(), info.Name) {
						t.Fatalf("column %s: got %v, want an ErrUnsupported naming %s and the column", info.Name, err, m.Error)
					}
					continue
				}
				if err != nil {
					t.Fatalf("column %s: %v", info.Name, err)
				}
				want, ok := m.Expected[info.Name]
				if !ok {
					t.Fatalf("column %s not in the manifest", info.Name)
				}
				// the manifest has microseconds (a file's nanoseconds floored)
				checkValues(t, m.File, info.Name, info.Type.InMicros(), col, want)
				wantType := map[string]schema.Type{"i32": schema.Int, "i64": schema.Long, "host": schema.String, "f32": schema.Float, "flag": schema.Boolean}[info.Name]
				if strings.HasPrefix(info.Name, "ts") || strings.Contains(info.Name, "s_") {
					wantType = schema.Timestamptz
				}
				if strings.HasSuffix(info.Name, "_naive") { // isAdjustedToUTC false: no zone
					wantType = schema.Timestamp
				}
				if strings.HasPrefix(info.Name, "ns_") || strings.HasSuffix(info.Name, "_ns") { // TIMESTAMP(NANOS): read as written
					wantType = wantType.InNanos()
				}
				if wantType != 0 && info.Type != wantType {
					t.Errorf("column %s read as %v, want %v", info.Name, info.Type, wantType)
				}
			}
		})
	}
	for _, c := range []Codec{Uncompressed, Snappy, Gzip, LZ4Raw, Zstd, Brotli} {
		if !codecs[c] {
			t.Errorf("no file used codec %v", c)
		}
	}
}

// readWholeColumn reads column c of every row group.
func readWholeColumn(f *File, c int) (rows.Column, error) {
	var col rows.Column
	n := 0
	for rg := range f.NumRowGroups() {
		part, err := f.ReadColumnAs(rg, c, f.Schema()[c].Type.InMicros())
		if err != nil {
			return rows.Column{}, err
		}
		col = concat(col, part, n)
		n += int(f.Meta().RowGroups[rg].NumRows)
	}
	return col, nil
}

// TestScanPagesMatchesOffsetIndex: pages found from their headers are the
// ones the offset index lists, in our files and pyarrow's.
func TestScanPagesMatchesOffsetIndex(t *testing.T) {
	files := map[string][]byte{}
	for _, opt := range []Options{{}, {Compat: true}, {Codec: Snappy, PageRowLimit: 7}} {
		data, _ := writeFile(t, allTypes, opt, makeRows(100, 2), 100)
		files[fmt.Sprintf("ours %+v", opt)] = data
	}
	for _, name := range []string{"foreign/page_index.parquet", "pyarrow/snappy_v1_small_pages.parquet"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for name, data := range files {
		f, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for rg := range f.NumRowGroups() {
			for c := range f.Schema() {
				oi, err := f.OffsetIndex(rg, c)
				if err != nil || oi == nil {
					continue
				}
				ch, _ := f.Meta().Chunk(rg, c)
				cc := &f.Meta().RowGroups[rg].Columns[c]
				got, err := ScanPages(ch, data[cc.Start():cc.Start()+cc.Meta.TotalCompressedSize], cc.Start())
				if err != nil {
					t.Fatalf("%s: row group %d column %d: %v", name, rg, c, err)
				}
				if !slices.Equal(got.Pages, oi.Pages) {
					t.Fatalf("%s: row group %d column %d: scanned %v, offset index %v", name, rg, c, got.Pages, oi.Pages)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Errorf("%s: no chunk with an offset index", name)
		}
	}
}

// TestReadForeignNanos: pyarrow's timestamp[ns] columns (testdata/foreign
// times_v*.parquet, TIMESTAMP(NANOS) with and without isAdjustedToUTC)
// read as timestamptz_ns / timestamp_ns with every nanosecond, and floored
// to microseconds (also before the epoch) when read for a microsecond
// column; microsecond and millisecond columns scale up for a nanosecond one.
func TestReadForeignNanos(t *testing.T) {
	for _, name := range []string{"times_v1.parquet", "times_v2.parquet"} {
		data, err := os.ReadFile(filepath.Join("testdata/foreign", name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		base := func(i int) int64 { return 1_700_000_000_123_456_789 + int64(i)*1_000_003_007 }
		for c, info := range f.Schema() {
			want := map[string]func(int) int64{
				"ns_utc": base, "ns_naive": base,
				"neg_ns": func(i int) int64 { return -base(i) },
				"us_utc": func(i int) int64 { return base(i) / 1000 * 1000 },
				"ms_utc": func(i int) int64 { return base(i) / 1_000_000 * 1_000_000 },
			}[info.Name]
			if want == nil {
				continue
			}
			wantType := map[string]schema.Type{"ns_utc": schema.TimestamptzNs, "ns_naive": schema.TimestampNs, "neg_ns": schema.TimestamptzNs,
				"us_utc": schema.Timestamptz, "ms_utc": schema.Timestamptz}[info.Name]
			if info.Type != wantType {
				t.Errorf("%s: column %s is %v, want %v", name, info.Name, info.Type, wantType)
			}
			// its statistics bound its values only as read in its own unit
			// (milliseconds never: they are scaled)
			if ms := f.Meta(); info.Name != "ms_utc" && (!ms.ComparableAs(c, wantType) || ms.ComparableAs(c, wantType.InMicros()) == wantType.Nanos() || ms.ComparableAs(c, wantType.InNanos()) != wantType.Nanos()) {
				t.Errorf("%s: column %s (%v): ComparableAs µs %v, ns %v", name, info.Name, wantType,
					f.Meta().ComparableAs(c, wantType.InMicros()), f.Meta().ComparableAs(c, wantType.InNanos()))
			}
			ns, err := f.ReadColumnAs(0, c, schema.TimestamptzNs)
			if err != nil {
				t.Fatal(err)
			}
			us, err := f.ReadColumnAs(0, c, schema.Timestamptz)
			if err != nil {
				t.Fatal(err)
			}
			if len(ns.Ints) != int(f.Meta().RowGroups[0].NumRows) || len(ns.Ints) < 10 {
				t.Fatalf("%s: column %s: %d values", name, info.Name, len(ns.Ints))
			}
			for i := range ns.Ints {
				if ns.Ints[i] != want(i) {
					t.Fatalf("%s: column %s row %d: %d ns, want %d", name, info.Name, i, ns.Ints[i], want(i))
				}
				if w := schema.FloorMicros(want(i), 1000); us.Ints[i] != w {
					t.Fatalf("%s: column %s row %d: %d µs, want %d", name, info.Name, i, us.Ints[i], w)
				}
			}
		}
	}
}
