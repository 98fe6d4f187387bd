package table_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// BenchmarkAppendLabelsNDJSON appends 100,000 rows from NDJSON (read and
// append, as `timelake append` does) carrying 8 labels per row, as one
// map<string, string> column ("map") and as 8 string columns ("columns"):
// the labels case's cost over flat columns.
func BenchmarkAppendLabelsNDJSON(b *testing.B) {
	const n = 100_000
	names := []string{"job", "instance", "region", "env", "pod", "zone", "team", "version"}
	label := func(k, i int) string {
		switch k {
		case 1:
			return fmt.Sprintf("10.0.%d.%d:9090", i%7, i%250)
		case 4:
			return fmt.Sprintf("pod-%d", i%200)
		}
		return fmt.Sprintf("%s-%d", names[k], i%(3+k))
	}
	for _, shape := range []string{"map", "columns"} {
		b.Run(shape, func(b *testing.B) {
			ctx := context.Background()
			var buf bytes.Buffer
			for i := range n {
				fmt.Fprintf(&buf, `{"ts":%d,"host":"h%d"`, int64(1_800_000_000_000)+int64(i/100)*1e3, i%100)
				if shape == "map" {
					buf.WriteString(`,"tags":{`)
					for k, name := range names {
						if k > 0 {
							buf.WriteByte(',')
						}
						fmt.Fprintf(&buf, `"%s":"%s"`, name, label(k, i))
					}
					buf.WriteString("}")
				} else {
					for k, name := range names {
						fmt.Fprintf(&buf, `,"%s":"%s"`, name, label(k, i))
					}
				}
				buf.WriteString("}\n")
			}
			input := buf.Bytes()
			var st *memstore.Store
			var tb *table.Table
			fresh := func() {
				st = memstore.New()
				var vals []schema.Field
				if shape == "columns" {
					for _, name := range names {
						vals = append(vals, schema.Field{Name: name, Type: schema.String})
					}
				}
				sch, err := schema.New("ts", []string{"host"}, vals, schema.Day)
				if err != nil {
					b.Fatal(err)
				}
				if tb, err = table.Create(ctx, st, testenv.New(1), "mem://labels", sch, nil); err != nil {
					b.Fatal(err)
				}
				if shape == "map" {
					tb = benchAddColumn(b, ctx, st, tb, iceberg.SchemaField{ID: 3, Name: "tags",
						Type: json.RawMessage(`{"type":"map","key-id":4,"key":"string","value-id":5,"value":"string","value-required":false}`)}, 5)
				}
			}
			fresh()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%20 == 19 {
					b.StopTimer()
					fresh()
					b.StartTimer()
				}
				batch, err := rows.NewNDJSONReader(bytes.NewReader(input), tb.Schema(), rows.Options{}).Next(n)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tb.Append(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// benchAddColumn commits another engine's schema change adding f.
func benchAddColumn(b testing.TB, ctx context.Context, st *memstore.Store, tb *table.Table, f iceberg.SchemaField, lastID int) *table.Table {
	md := *tb.Metadata()
	cur := *md.CurrentSchema()
	cur.Fields = append(append([]iceberg.SchemaField(nil), cur.Fields...), f)
	md.Schemas = []iceberg.Schema{cur}
	md.LastColumnID = lastID
	raw, err := md.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		b.Fatalf("schema change: %v %v", ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(tb.Version()+1))); err != nil {
		b.Fatal(err)
	}
	tb, err = table.Open(ctx, st, testenv.New(2))
	if err != nil {
		b.Fatal(err)
	}
	return tb
}
