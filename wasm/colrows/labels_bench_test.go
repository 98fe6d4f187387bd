package colrows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// The label-heavy rows as the client sends them (table/nested_bench_test.go's
// rows): 8 labels as a tags map (tag Json, the objects' JSON texts: 400
// distinct, so a dictionary) or as 8 string columns (dictionaries too).
var benchLabels = []string{"env", "region", "az", "job", "instance", "service", "version", "status"}

func benchLabelValues(i int) []string {
	h := i % 100
	region := []string{"eu-west-1", "us-east-1", "ap-south-1", "sa-east-1"}[h%4]
	return []string{[]string{"prod", "staging", "dev"}[h%3], region, region + []string{"a", "b", "c"}[h%3],
		[]string{"api", "db", "cache", "queue", "web"}[h%5], fmt.Sprintf("10.0.%d.%d:9090", h/10, h%10),
		fmt.Sprintf("svc-%02d", h%20), fmt.Sprintf("v1.%d.0", h%7), []string{"200", "404", "500", "503"}[i%4]}
}

func labelsInput(b testing.TB, n int, asMap bool) (*schema.Table, *Input) {
	fields := []schema.Field{{Name: "cpu", Type: schema.Double}}
	if !asMap {
		for _, l := range benchLabels {
			fields = append(fields, schema.Field{Name: "label_" + l, Type: schema.String})
		}
	}
	sch, err := schema.New("ts", []string{"host"}, fields, schema.Day)
	if err != nil {
		b.Fatal(err)
	}
	base := benchInput(n)
	in := &Input{Len: n, Cols: []Column{base.Cols[0], base.Cols[1], base.Cols[3]}}
	if asMap {
		nt, err := schema.ParseNested(json.RawMessage(`{"type":"map","key-id":20,"key":"string","value-id":21,"value":"string","value-required":false}`))
		if err != nil {
			b.Fatal(err)
		}
		sch.Fields = append(sch.Fields, schema.Field{ID: 20, Name: "tags", Type: schema.Nested, Nested: nt})
		c := Column{Name: "tags", Tag: Json, Off: []int32{0}}
		var sb strings.Builder
		for i := range n {
			v := benchLabelValues(i)
			sb.WriteByte('{')
			for k, l := range benchLabels {
				if k > 0 {
					sb.WriteByte(',')
				}
				sb.WriteString(`"` + l + `":"` + v[k] + `"`)
			}
			sb.WriteByte('}')
			c.Off = append(c.Off, int32(sb.Len()))
		}
		c.Str = sb.String()
		in.Cols = append(in.Cols, c)
	} else {
		for k, l := range benchLabels {
			c := Column{Name: "label_" + l, Tag: String, Off: []int32{0}}
			var sb strings.Builder
			for i := range n {
				sb.WriteString(benchLabelValues(i)[k])
				c.Off = append(c.Off, int32(sb.Len()))
			}
			c.Str = sb.String()
			in.Cols = append(in.Cols, c)
		}
	}
	return sch, dictInput(in)
}

// BenchmarkBuildLabels: the align step of a WASM append of 100,000 rows
// with 8 labels, as a map column and as 8 string columns.
func BenchmarkBuildLabels(b *testing.B) {
	for _, asMap := range []bool{true, false} {
		sch, in := labelsInput(b, 100_000, asMap)
		b.Run(map[bool]string{true: "shape=map", false: "shape=columns"}[asMap], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(sch, in, rows.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
