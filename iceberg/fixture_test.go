package iceberg

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/schema"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// fixtureTable is the table of the golden files: ts(1), host(2), cpu(3),
// mem(4), ok(5), _ingest_ts(6), partitioned by day(ts).
func fixtureTable(t testing.TB) *schema.Table {
	tbl, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "host", Type: schema.String},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "ok", Type: schema.Boolean},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

const (
	fixtureUUID     = "9c12d441-03fe-4693-9a96-a0705ddf69c1"
	fixtureLocation = "s3://bucket/tables/metrics"
	fixtureNowMs    = 1795000000000 // 2026-11-18
	fixtureSnapshot = int64(3051729675574597004)
)

func sync16(b byte) (s [16]byte) {
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

func int32p(v int32) *int32 { return &v }

// fixtureEntries are two ADDED files (days 20405, 20406) and one EXISTING.
func fixtureEntries() []ManifestEntry {
	file := func(day int32, name string, rows int64) DataFile {
		return DataFile{
			Content: ContentData, Path: fixtureLocation + "/data/ts_day=" + schema.Day.Format(day) + "/" + name + ".parquet",
			Format: FormatParquet, Partition: day, RecordCount: rows, FileSize: 1000 + rows,
			ColumnSizes: map[int32]int64{1: 80, 2: 40, 3: 90, 4: 70, 5: 10, 6: 20},
			ValueCounts: map[int32]int64{1: rows, 2: rows, 3: rows, 4: rows, 5: rows, 6: rows},
			NullCounts:  map[int32]int64{1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0},
			NaNCounts:   map[int32]int64{3: 0},
			Lower: map[int32][]byte{1: EncodeLong(int64(day) * 86400e6), 2: StringLowerBound("host-a"),
				3: EncodeDouble(0.5), 4: EncodeLong(-3), 5: EncodeBool(false), 6: EncodeLong(1795000000000000)},
			Upper: map[int32][]byte{1: EncodeLong(int64(day)*86400e6 + 3600e6), 2: []byte("host-z"),
				3: EncodeDouble(99.5), 4: EncodeLong(1 << 40), 5: EncodeBool(true), 6: EncodeLong(1795000000000000)},
			SplitOffsets: []int64{4},
			SortOrderID:  int32p(schema.SortOrderID),
		}
	}
	return []ManifestEntry{
		{Status: StatusAdded, DataFile: file(20405, "00000-a", 3)},
		{Status: StatusAdded, DataFile: file(20406, "00001-b", 5)},
		{Status: StatusExisting, SnapshotID: 17, SequenceNumber: 1, FileSequenceNumber: 1, DataFile: file(20400, "00002-c", 7)},
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%d bytes, want %d); if the change is intended, run go test -update", name, len(got), len(want))
	}
}
