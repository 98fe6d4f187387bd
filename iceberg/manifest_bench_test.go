package iceberg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/internal/benchcpu"

	"github.com/timelake/timelake/avro"
)

// benchManifest is a manifest of n entries as Timelake writes them (six
// columns with stats), the shape compaction planning and reads go through.
func benchManifest(tb testing.TB, n int) ([]byte, ManifestFile) {
	m := NewTableMetadata(fixtureTable(tb), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	base := fixtureEntries()
	entries := make([]ManifestEntry, n)
	for i := range entries {
		entries[i] = base[i%len(base)]
		entries[i].DataFile.Path = fmt.Sprintf("%s/data/ts_day=2025-11-%02d/%05d-x.parquet", fixtureLocation, 1+i%28, i)
	}
	var buf bytes.Buffer
	mf, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], entries, sync16(1))
	if err != nil {
		tb.Fatal(err)
	}
	mf.ManifestPath = fixtureLocation + "/metadata/bench-m0.avro"
	mf.Assign(fixtureSnapshot, 2)
	return buf.Bytes(), mf
}

// BenchmarkReadManifest reads one manifest per op: ours of 1 entry (what an
// append writes, and what expiry and cleanup of a long history read by the
// thousand) and of 100 entries, and pyiceberg's. cpu-ns/op is the process
// CPU time per op (wall time misleads on a shared machine, and under Node).
func BenchmarkReadManifest(b *testing.B) {
	type input struct {
		name string
		data []byte
		from ManifestFile
	}
	var inputs []input
	for _, n := range []int{1, 100} {
		data, mf := benchManifest(b, n)
		inputs = append(inputs, input{fmt.Sprintf("ours/entries=%d", n), data, mf})
	}
	py, err := os.ReadFile(filepath.Join("testdata", "pyiceberg", "manifest-1.avro"))
	if err != nil {
		b.Fatal(err)
	}
	inputs = append(inputs, input{"pyiceberg", py, ManifestFile{ManifestPath: "manifest-1.avro", AddedSnapshotID: 1, SequenceNumber: 1}})
	for _, in := range inputs {
		b.Run("ReadManifest/"+in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			cpu0 := benchcpu.Now()
			for b.Loop() {
				if _, err := ReadManifest(in.data, in.from); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
		b.Run("ManifestDataFiles/"+in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			var c avro.Cache
			cpu0 := benchcpu.Now()
			for b.Loop() {
				if err := ManifestDataFiles(&c, in.data, in.from, func(EntryStatus, string) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}
