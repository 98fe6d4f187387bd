package iceberg

import (
	"reflect"
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

// A stats map cut short is still an error to the light reader: skipping
// checks every length and count against the bytes left.
func TestManifestDataFilesTruncatedStats(t *testing.T) {
	data, mf := benchManifest(t, 3)
	want, err := statusPaths(data, mf, false)
	if err != nil || len(want) != 3 {
		t.Fatalf("full reader: %v, %v", want, err)
	}
	got, err := statusPaths(data, mf, true)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("light reader: %v, %v; want %v", got, err, want)
	}
	// Every cut of the file fails in both readers, without a panic.
	for n := len(data) - 1; n > 0; n -= 7 {
		_, ferr := statusPaths(data[:n], mf, false)
		_, lerr := statusPaths(data[:n], mf, true)
		if ferr == nil || lerr == nil {
			t.Fatalf("cut at %d of %d: full %v, light %v; want both errors", n, len(data), ferr, lerr)
		}
	}
}

// FuzzManifestDataFiles: on any bytes, the light reader does not panic,
// and where the full reader reads, the light one reads the same statuses
// and paths.
func FuzzManifestDataFiles(f *testing.F) {
	good, bad := manifestSeeds(f)
	for _, data := range good {
		f.Add(data)
	}
	for _, data := range bad {
		f.Add(data)
	}
	data, _ := benchManifest(f, 3)
	f.Add(data)
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
