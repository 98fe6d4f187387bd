package table_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestNestedColumn: a Timelake table to which another engine added a
// column tags map<string, string> and a data file (pyarrow's, not sorted:
// parquet/testdata/nested/table/tags.parquet) is scanned by key with each
// row's tags as JSON, projected, and its latest rows carry their tags;
// info shows the column's type; an append and a compaction keep every
// row's tags (nested_write_test.go has the rest of writing).
func TestNestedColumn(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	sch, err := schema.New("ts", []string{"host"}, nil, schema.Day) // ts 1, host 2, _ingest_ts 3
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(7), "mem://nested", sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a Timelake append first (a file without the column: its tags read null)
	first, err := rows.FromMaps(tb.Schema(), []map[string]any{{"ts": day1, "host": "c"}}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, first); err != nil {
		t.Fatal(err)
	}
	// the other engine's schema change: tags (4: key 5, value 6)
	md := *tb.Metadata()
	md.Schemas = []iceberg.Schema{md.Schemas[0]}
	md.Schemas[0].Fields = append(append([]iceberg.SchemaField(nil), md.Schemas[0].Fields...), iceberg.SchemaField{ID: 4, Name: "tags",
		Type: json.RawMessage(`{"type":"map","key-id":5,"key":"string","value-id":6,"value":"string","value-required":false}`)})
	md.LastColumnID = 6
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		t.Fatalf("schema change: %v %v", ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(tb.Version()+1))); err != nil {
		t.Fatal(err)
	}
	if tb, err = table.Open(ctx, st, testenv.New(8)); err != nil {
		t.Fatal(err)
	}
	// its append of a pyarrow file
	data, err := os.ReadFile("../parquet/testdata/nested/table/tags.parquet")
	if err != nil {
		t.Fatal(err)
	}
	const key = "data/ts_day=2026-11-27/pyarrow-0.parquet"
	if err := st.Put(ctx, key, data); err != nil {
		t.Fatal(err)
	}
	day := schema.Day.Apply(1_795_737_600_000_000)
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	df := iceberg.DataFile{Content: iceberg.ContentData, Path: tb.Metadata().Location + "/" + key, Format: "PARQUET",
		Partition: day, RecordCount: 6, FileSize: int64(len(data))}
	fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
		addedFiles: 1, addedRecords: 6, addedBytes: df.FileSize})
	if tb, err = table.Open(ctx, st, testenv.New(9)); err != nil {
		t.Fatal(err)
	}

	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := info.Columns[len(info.Columns)-1]; c.Name != "tags" || c.Type != "map<string, string>" || len(info.UnreadColumns) != 0 {
		t.Errorf("info columns %+v, unread %v: want tags map<string, string>", info.Columns, info.UnreadColumns)
	}

	want := []struct{ host, tags string }{ // by (host, ts)
		{"a", `{"job":"api","instance":"10.0.0.1:9090"}`}, {"a", `{}`}, {"a", `{"é":"v\n"}`},
		{"b", ``}, {"b", `{"k":null}`}, {"b", `{"job":"db"}`}, {"c", ``},
	}
	for _, cols := range [][]string{nil, {"tags"}} {
		var got []*rows.Batch
		if _, err := tb.Scan(ctx, table.ScanOptions{Columns: cols}, func(b *rows.Batch) error { got = append(got, b); return nil }); err != nil {
			t.Fatalf("scan %v: %v", cols, err)
		}
		i := 0
		for _, b := range got {
			tc, hc := b.Schema.Index("tags"), b.Schema.Index("host")
			for r := 0; r < b.Len; r, i = r+1, i+1 {
				tags := b.Cols[tc].Strs[r]
				if b.Cols[tc].IsNull(r) {
					tags = ""
				}
				if i >= len(want) || b.Cols[hc].Strs[r] != want[i].host || tags != want[i].tags || (tags == "") != b.Cols[tc].IsNull(r) {
					t.Errorf("scan %v row %d: %s %q (null %v), want %+v", cols, i, b.Cols[hc].Strs[r], tags, b.Cols[tc].IsNull(r), want[min(i, len(want)-1)])
				}
			}
		}
		if i != len(want) {
			t.Errorf("scan %v: %d rows, want %d", cols, i, len(want))
		}
	}

	idx, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tc := idx.Schema.Index("tags")
	if idx.Len != 3 || idx.Cols[tc].Strs[0] != want[2].tags || idx.Cols[tc].Strs[1] != want[5].tags || !idx.Cols[tc].IsNull(2) {
		t.Errorf("latest: %d rows, tags %q; want %s, %s and null", idx.Len, idx.Cols[tc].Strs, want[2].tags, want[5].tags)
	}

	// now written (map<string, string>): an append over the pyarrow file's
	// rows and a compaction of it keep every row's tags
	more, err := rows.FromMaps(tb.Schema(), []map[string]any{{"ts": day1, "host": "d", "tags": `{"job":"new"}`}}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, more); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	want = append(want, struct{ host, tags string }{"d", `{"job":"new"}`})
	var got []string
	if _, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
		tc, hc := b.Schema.Index("tags"), b.Schema.Index("host")
		for r := 0; r < b.Len; r++ {
			got = append(got, b.Cols[hc].Strs[r]+" "+b.Cols[tc].Strs[r])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var w []string
	for _, r := range want {
		w = append(w, r.host+" "+r.tags)
	}
	if strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("after an append and a compaction:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
	}
}
