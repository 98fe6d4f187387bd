package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestUnsupportedStates: each state another engine can leave a table in that
// Timelake does not handle yet is refused with UNSUPPORTED_TABLE naming the
// feature — by Open when nothing can be read, else by Append and Maintain,
// which write nothing — while Info and Latest go on where they can.
func TestUnsupportedStates(t *testing.T) {
	cases := []struct {
		name     string
		edit     func(md *iceberg.Metadata)
		openFail bool   // Open itself refuses (nothing can be read)
		want     string // in the error
	}{
		{"format v1", func(md *iceberg.Metadata) { md.FormatVersion = 1 }, false, "format-version 1"},
		{"format v4", func(md *iceberg.Metadata) { md.FormatVersion = 4 }, true, "format-version 4"},
		// Specs of the key's columns are written (spec.go); of another
		// column, refused.
		{"bucket partition of a value column", func(md *iceberg.Metadata) {
			md.PartitionSpecs = append(md.PartitionSpecs, iceberg.PartitionSpec{SpecID: 1, Fields: []iceberg.PartitionField{
				{Name: "region_bucket", Transform: "bucket[4]", SourceID: md.Schemas[0].Fields[2].ID, FieldID: 1001}}})
			md.DefaultSpecID, md.LastPartitionID = 1, 1001
		}, false, "bucket[4](region)"},
		{"unknown transform", func(md *iceberg.Metadata) {
			md.PartitionSpecs[0].Fields[0].Transform = "zorder"
		}, false, "zorder"},
		{"two partition fields", func(md *iceberg.Metadata) {
			f := md.PartitionSpecs[0].Fields[0]
			md.PartitionSpecs[0].Fields = append(md.PartitionSpecs[0].Fields, iceberg.PartitionField{
				Name: "region", Transform: "identity", SourceID: md.Schemas[0].Fields[2].ID, FieldID: f.FieldID + 1})
			md.LastPartitionID = f.FieldID + 1
		}, false, "identity(region)"},
		// Another order in place of ours: the files Timelake writes could
		// not say how they are sorted. (Beside ours, the table is written:
		// TestForeignDefaultSortOrder.)
		{"sort order by time desc", func(md *iceberg.Metadata) {
			md.SortOrders = []iceberg.SortOrder{{OrderID: 2, Fields: []iceberg.SortField{
				{Transform: "identity", SourceID: md.Schemas[0].Fields[0].ID, Direction: "desc", NullOrder: "nulls-last"}}}}
			md.DefaultSortOrderID = 2
		}, false, "sort order 2 [ts desc nulls-last]"},
		{"unsorted", func(md *iceberg.Metadata) {
			md.SortOrders = []iceberg.SortOrder{{OrderID: 0}}
			md.DefaultSortOrderID = 0
		}, false, "sort order 0 (unsorted)"},
		{"nested column keyed by a struct", func(md *iceberg.Metadata) {
			s := &md.Schemas[0]
			s.Fields = append(s.Fields, iceberg.SchemaField{ID: md.LastColumnID + 1, Name: "tags",
				Type: json.RawMessage(`{"type":"map","key-id":98,"key":{"type":"struct","fields":[{"id":97,"name":"a","required":true,"type":"long"}]},"value-id":99,"value":"string","value-required":false}`)})
			md.LastColumnID = 99
		}, false, `column tags map<struct<a: long>, string>: a map keyed by`},
		{"orc by default", func(md *iceberg.Metadata) {
			props := map[string]string{}
			for k, v := range md.Properties {
				props[k] = v
			}
			props["write.format.default"] = "orc"
			md.Properties = props
		}, false, "write.format.default=orc"},
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			h := newHostileTable(t)
			md := *h.tb.Metadata()
			md.Schemas = append([]iceberg.Schema(nil), md.Schemas...)
			md.Schemas[0].Fields = append([]iceberg.SchemaField(nil), md.Schemas[0].Fields...)
			md.PartitionSpecs = append([]iceberg.PartitionSpec(nil), md.PartitionSpecs...)
			md.PartitionSpecs[0].Fields = append([]iceberg.PartitionField(nil), md.PartitionSpecs[0].Fields...)
			md.SortOrders = append([]iceberg.SortOrder(nil), md.SortOrders...)
			c.edit(&md)
			raw, err := json.Marshal(md) // not md.Marshal: it validates, and some states are refused by it
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := h.st.PutIfAbsent(ctx, "metadata/v4.metadata.json", raw); err != nil || !ok {
				t.Fatalf("write v4: %v %v", ok, err)
			}
			before := snapshotStore(t, h.st)
			check := func(op string, err error) {
				t.Helper()
				code := "UNSUPPORTED_TABLE"
				if strings.HasPrefix(c.want, "column ") { // a column's type: UNSUPPORTED_TYPE
					code = "UNSUPPORTED_TYPE"
				}
				if table.Code(err) != code || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: err = %v (%s), want %s naming %q", op, err, table.Code(err), code, c.want)
				}
			}
			tb, err := table.Open(ctx, h.st, testenv.New(5))
			if c.openFail {
				check("open", err)
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if info, err := tb.Info(ctx); err != nil || info.Rows != 40 {
				t.Errorf("Info: rows %v, %v; want 40 rows", info, err)
			}
			// Latest reads the index wherever the table's state allows it,
			// else refuses by name.
			if latest, err := tb.Latest(ctx); table.Code(err) == "UNSUPPORTED_TABLE" {
				check("latest", err)
			} else if err != nil || latest.Len != 4 {
				t.Errorf("Latest: %v; want 4 series", err)
			}
			_, err = tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1))
			check("append", err)
			_, err = tb.Maintain(ctx, table.MaintainOptions{})
			check("maintain", err)
			sameStore(t, before, snapshotStore(t, h.st))
		})
	}
}

// TestSnappyTable: a table whose codec another engine set to snappy (Spark's
// default) is appended to with snappy files and compacts.
func TestSnappyTable(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(7), "file:///snappy", metricsSchema(t), map[string]string{
		"write.parquet.compression-codec": "snappy", maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		if _, err := tb.Append(ctx, rowsOf(t, tb, fmt.Sprintf("s%d", k), day1, 20, 2)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := tb.DataFiles(ctx)
	if err != nil || len(files) != 2 {
		t.Fatalf("data files: %d, %v", len(files), err)
	}
	raw, err := st.Get(ctx, strings.TrimPrefix(files[0].Path, "file:///snappy/"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Meta().RowGroups[0].Columns[0].Meta.Codec; got != parquet.Snappy {
		t.Errorf("codec of the first column = %v, want snappy", got)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 || res.RowsAfter != 40 {
		t.Errorf("maintain = %+v, %v; want one merge to 40 rows", res, err)
	}
}
