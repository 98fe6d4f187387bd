package table

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/partition"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// Creating a table partitioned by more than its time.
//
// A spec is written as Spark's PARTITIONED BY clause reads, comma-separated:
// year, month, day or hour (of the time column); bucket(N, col),
// truncate(W, col), identity(col) or a bare column name; "none" alone for
// an unpartitioned table. Fields are named as Iceberg's Java implementation
// names them (ts_day, host_bucket, host_trunc, host) and numbered from 1000.
// Their columns must be the time or series columns (iceberg.WritableSpec).

// ParseSpec reads a spec over sch. A single day, hour or month is
// Timelake's own spec (sch.Partition); anything else is returned as fields.
func ParseSpec(sch *schema.Table, text string) (own schema.Transform, fields []iceberg.PartitionField, err error) {
	text = strings.TrimSpace(text)
	if t, err := schema.ParseTransform(text); err == nil {
		return t, nil, nil
	}
	if text == "none" {
		return 0, []iceberg.PartitionField{}, nil
	}
	fail := func(format string, args ...any) (schema.Transform, []iceberg.PartitionField, error) {
		return 0, nil, fmt.Errorf("%w: partition %q: %s", ErrBadProperty, text, fmt.Sprintf(format, args...))
	}
	for _, item := range splitTop(text) {
		item = strings.TrimSpace(item)
		name, args, call := strings.Cut(item, "(")
		name = strings.TrimSpace(name)
		var tr partition.Transform
		var col string
		switch {
		case !call && (name == "year" || name == "month" || name == "day" || name == "hour"):
			tr, _ = partition.Parse(name)
			col = sch.TimeField().Name
		case !call:
			tr, col = partition.Transform{Kind: partition.Identity}, name
		default:
			inner, ok := strings.CutSuffix(strings.TrimSpace(args), ")")
			if !ok {
				return fail("%q: want name(…)", item)
			}
			parts := strings.Split(inner, ",")
			switch {
			case (name == "bucket" || name == "truncate") && len(parts) == 2:
				n, err := strconv.Atoi(strings.TrimSpace(parts[0]))
				if err != nil || n <= 0 {
					return fail("%q: want %s(N, column) with N a positive number", item, name)
				}
				if tr, err = partition.Parse(fmt.Sprintf("%s[%d]", name, n)); err != nil {
					return fail("%q: %v", item, err)
				}
				col = strings.TrimSpace(parts[1])
			case len(parts) == 1 && name != "bucket" && name != "truncate":
				var err error
				if tr, err = partition.Parse(name); err != nil {
					return fail("%q: %v", item, err)
				}
				col = strings.TrimSpace(parts[0])
			default:
				return fail("%q: want bucket(N, col), truncate(W, col), identity(col), year, month, day or hour", item)
			}
		}
		i := sch.Index(col)
		if i < 0 {
			return fail("no column %q", col)
		}
		if _, err := tr.ResultType(sch.Fields[i].Type); err != nil {
			return fail("%s of %s: %v", tr, col, err)
		}
		fields = append(fields, iceberg.PartitionField{Name: specFieldName(col, tr), Transform: tr.String(),
			SourceID: sch.Fields[i].ID, FieldID: schema.PartitionFieldID + len(fields)})
	}
	return 0, fields, nil
}

// specFieldName is the name Iceberg's Java implementation gives a field.
func specFieldName(col string, tr partition.Transform) string {
	switch tr.Kind {
	case partition.Identity:
		return col
	case partition.Bucket:
		return col + "_bucket"
	case partition.Truncate:
		return col + "_trunc"
	case partition.Void:
		return col + "_null"
	}
	return col + "_" + tr.String()
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// CreateWithSpec is Create with the partition spec fields (ParseSpec's),
// for a table partitioned by more than its time or not at all; nil fields
// is Create.
func CreateWithSpec(ctx context.Context, st store.Store, env Env, location string, sch *schema.Table, props map[string]string, fields []iceberg.PartitionField) (*Table, error) {
	if fields == nil {
		return Create(ctx, st, env, location, sch, props)
	}
	return create(ctx, st, env, location, sch, props, func(md *iceberg.Metadata) error {
		md.PartitionSpecs = []iceberg.PartitionSpec{{SpecID: 0, Fields: fields}}
		md.LastPartitionID = schema.PartitionFieldID - 1 + len(fields)
		md.Properties[PropPartition] = specText(fields, sch)
		sch.Partition = 0
		return iceberg.WritableSpec(md, sch)
	})
}

// specText is the spec as ParseSpec reads it, for timelake.partition.
func specText(fields []iceberg.PartitionField, sch *schema.Table) string {
	if len(fields) == 0 {
		return "none"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		col := sch.Fields[sch.IndexOfID(f.SourceID)].Name
		tr, _ := partition.Parse(f.Transform)
		switch tr.Kind {
		case partition.Year, partition.Month, partition.Day, partition.Hour:
			parts[i] = f.Transform
		case partition.Bucket, partition.Truncate:
			parts[i] = fmt.Sprintf("%s(%d, %s)", strings.SplitN(f.Transform, "[", 2)[0], tr.N, col)
		default:
			parts[i] = fmt.Sprintf("%s(%s)", f.Transform, col)
		}
	}
	return strings.Join(parts, ", ")
}

// PartitionFields names the default spec's fields ("ts_day",
// "ts_day, host_bucket", "(unpartitioned)").
func (tb *Table) PartitionFields() string { return tb.partitionField() }
