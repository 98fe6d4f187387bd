package rollup

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// Column names of every rollup table. persisted: must not change.
const (
	BucketColumn = "bucket"    // the bucket's start, timestamptz
	CountColumn  = "row_count" // the bucket's rows (deduplicated raw rows)
)

// Column is one aggregate column of a rollup table: Func of the raw
// column Source, named after the definition's column (Agg.Column_func).
type Column struct {
	Name       string
	Source     string // the raw column's name now (resolve.go)
	Func       Func
	Type       schema.Type // of the column
	SourceType schema.Type // of the raw column
}

// Columns are d's aggregate columns over raw, in table order; an aggregate
// that raw's column cannot take (a sum of strings, an unknown column) is a
// BAD_ROLLUP error naming it.
func Columns(raw *schema.Table, d Def) ([]Column, error) {
	key := Key(d.Name, SuffixAggs)
	if raw.HasKey() && raw.TimeField().Type.Nanos() {
		// buckets, widths and the refresh's catch-up count microseconds
		return nil, &Error{Code: CodeBadRollup, Key: Key(d.Name, SuffixEvery),
			Msg: fmt.Sprintf("the time column %q is %v: rollups of a nanosecond time column are not supported yet", raw.TimeField().Name, raw.TimeField().Type)}
	}
	taken := map[string]bool{BucketColumn: true, CountColumn: true}
	for _, s := range raw.Series {
		taken[raw.Fields[s].Name] = true
	}
	var out []Column
	for _, a := range d.Aggs {
		i, err := source(raw, d, a)
		if err != nil {
			return nil, err
		}
		if i == raw.Time || i == raw.Ingest || isSeries(raw, i) {
			return nil, bad(key, "column %q is the time, a series or the ingest column: aggregates take value columns", a.Column)
		}
		if f := raw.Fields[i]; f.Type == schema.Nested {
			// a rollup's table holds series, buckets and aggregates of
			// primitive columns: a nested column is left out of it
			return nil, bad(key, "column %q is %s: aggregates take primitive value columns, not nested ones", a.Column, f.TypeText())
		}
		t := raw.Fields[i].Type
		for _, f := range a.Funcs {
			// Named after the definition's column (its name when the
			// rollup was added), its source by the raw column's name now.
			c := Column{Name: a.Column + "_" + f.String(), Source: raw.Fields[i].Name, Func: f, Type: t, SourceType: t}
			switch f {
			case Count:
				c.Type = schema.Long
			case Sum:
				switch {
				case t == schema.Long || t == schema.Int:
					c.Type = schema.Long
				case t.IsFloat():
					c.Type = schema.Double
				default:
					return nil, bad(key, "column %q is %v: sum and avg take numbers", a.Column, t)
				}
			}
			if taken[c.Name] {
				return nil, bad(key, "aggregate column %q would collide with another column of the rollup", c.Name)
			}
			taken[c.Name] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func isSeries(t *schema.Table, i int) bool {
	for _, s := range t.Series {
		if s == i {
			return true
		}
	}
	return false
}

// Schema is the rollup table's schema: the series columns of raw, bucket,
// row_count and the aggregate columns; partitioned by day (month for 1d
// buckets); without _ingest_ts, so the later commit of a key wins.
func Schema(raw *schema.Table, d Def) (*schema.Table, error) {
	cols, err := Columns(raw, d)
	if err != nil {
		return nil, err
	}
	var series []string
	var values []schema.Field
	for _, s := range raw.Series {
		f := raw.Fields[s]
		series = append(series, f.Name)
		values = append(values, schema.Field{Name: f.Name, Type: f.Type, Required: true})
	}
	values = append(values, schema.Field{Name: CountColumn, Type: schema.Long, Required: true})
	for _, c := range cols {
		values = append(values, schema.Field{Name: c.Name, Type: c.Type, Required: c.Func == Count})
	}
	part := schema.Day
	if d.Width >= Widths["1d"].Microseconds() {
		part = schema.Month
	}
	sch, err := schema.NewWithoutIngest(BucketColumn, series, values, part)
	if err != nil {
		return nil, bad(Key(d.Name, SuffixAggs), "%v", err)
	}
	return sch, nil
}

// Bucket is the start of the bucket of t (microseconds), floored.
func Bucket(t, width int64) int64 {
	q := t / width
	if t%width != 0 && t < 0 {
		q--
	}
	return q * width
}
