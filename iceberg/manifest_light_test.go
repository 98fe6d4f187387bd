package iceberg

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/internal/benchcpu"
)

// ManifestDataFiles skips the stats maps' bytes; these tests hold it to
// the reader that walks them (manifestDataFiles with light false, which
// checks every entry as ReadManifest does).

type statusPathPair struct {
	Status EntryStatus
	Path   string
}

func statusPaths(data []byte, from ManifestFile, light bool) ([]statusPathPair, error) {
	var out []statusPathPair
	err := manifestDataFiles(nil, data, from, light, func(st EntryStatus, p string) error {
		out = append(out, statusPathPair{st, p})
		return nil
	})
	return out, err
}

// uncompressed is data rewritten without compression, so that a cut or a
// mutation lands in the entries' bytes rather than in a deflate stream.
func uncompressed(tb testing.TB, data []byte) []byte {
	r, err := avro.NewReader(data)
	if err != nil {
		tb.Fatal(err)
	}
	meta := map[string][]byte{}
	for k, v := range r.Meta {
		if !strings.HasPrefix(k, "avro.") {
			meta[k] = v
		}
	}
	var buf bytes.Buffer
	w, err := avro.NewWriter(&buf, r.Schema, avro.WriterOptions{Codec: avro.Null, Sync: sync16(6), Meta: meta})
	if err != nil {
		tb.Fatal(err)
	}
	for {
		v, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.Append(v); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// A stats map cut short is still an error to the light reader: skipping
// checks every length and count against the bytes left.
func TestManifestDataFilesTruncatedStats(t *testing.T) {
	data, mf := benchManifest(t, 3)
	data = uncompressed(t, data)
	want, err := statusPaths(data, mf, false)
	if err != nil || len(want) != 3 {
		t.Fatalf("full reader: %v, %v", want, err)
	}
	got, err := statusPaths(data, mf, true)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("light reader: %v, %v; want %v", got, err, want)
	}
	// Every cut of the file: both readers fail, or (a cut at the end of
	// a block) both read the same entries; never a panic.
	failed := 0
	for n := len(data) - 1; n > 0; n-- {
		full, ferr := statusPaths(data[:n], mf, false)
		light, lerr := statusPaths(data[:n], mf, true)
		if (ferr == nil) != (lerr == nil) || !reflect.DeepEqual(full, light) {
			t.Fatalf("cut at %d of %d: full %v, %v; light %v, %v", n, len(data), full, ferr, light, lerr)
		}
		if lerr != nil {
			failed++
		}
	}
	if failed < len(data)/2 {
		t.Errorf("%d of %d cuts failed", failed, len(data)-1)
	}
}

// FuzzManifestDataFiles: on any bytes, the light reader does not panic,
// and where the full reader reads, the light one reads the same statuses
// and paths.
func FuzzManifestDataFiles(f *testing.F) {
	good, bad := manifestSeeds(f)
	for _, data := range good {
		f.Add(data)
		f.Add(uncompressed(f, data))
	}
	for _, data := range bad {
		f.Add(data)
		f.Add(uncompressed(f, data))
	}
	data, _ := benchManifest(f, 3)
	f.Add(data)
	f.Add(uncompressed(f, data))
	f.Fuzz(func(t *testing.T, data []byte) {
		from := ManifestFile{ManifestPath: "m.avro", AddedSnapshotID: 99, SequenceNumber: 7}
		light, lerr := statusPaths(data, from, true)
		full, ferr := statusPaths(data, from, false)
		if ferr != nil {
			if lerr == nil && !inStatsMap(ferr) {
				t.Fatalf("full reader: %v (not in a stats map); light reader read it", ferr)
			}
			return
		}
		if lerr != nil || !reflect.DeepEqual(light, full) {
			t.Fatalf("light %v, %v; full %v", light, lerr, full)
		}
	})
}

// BenchmarkManifestDataFilesLight: the statuses and paths of a 100-entry
// manifest, skipping the stats maps (light) or walking them (full).
func BenchmarkManifestDataFilesLight(b *testing.B) {
	data, mf := benchManifest(b, 100)
	for _, light := range []bool{false, true} {
		name := "full"
		if light {
			name = "light"
		}
		b.Run(name+"/entries=100", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var c avro.Cache
			cpu0 := benchcpu.Now()
			for b.Loop() {
				if err := manifestDataFiles(&c, data, mf, light, func(EntryStatus, string) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}

// inStatsMap says whether a manifest reader's error names one of the
// stats maps ManifestDataFiles skips.
func inStatsMap(err error) bool {
	for _, name := range []string{"column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds"} {
		if strings.Contains(err.Error(), "data_file."+name) {
			return true
		}
	}
	return false
}
