package table

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/partition"
	"github.com/timelake/timelake/schema"
)

// Names of the partitions of any spec, as info shows them.
//
// A table Timelake partitions (one day, hour or month of the time column)
// names its partitions by that transform (partitionName). Another engine's
// spec may have several fields and any transform: its partitions are named
// field by field from the partition record, "date_month=2012-03/
// location_bucket=3", with Iceberg's human form of each value.

// specPartitionName names the partition of df (an entry of a manifest of
// spec df.SpecID) from its partition record.
func (tb *Table) specPartitionName(df *iceberg.DataFile) string {
	var spec *iceberg.PartitionSpec
	for i := range tb.meta.PartitionSpecs {
		if tb.meta.PartitionSpecs[i].SpecID == int(df.SpecID) {
			spec = &tb.meta.PartitionSpecs[i]
		}
	}
	values := df.PartitionValues
	if !df.OtherPartition {
		values = []any{int64(df.Partition)}
	}
	if spec == nil || len(spec.Fields) == 0 {
		if len(values) == 0 || spec != nil {
			return "(unpartitioned)"
		}
		return fmt.Sprintf("(spec %d)", df.SpecID)
	}
	parts := make([]string, 0, len(spec.Fields))
	for i, f := range spec.Fields {
		var v any
		if i < len(values) {
			v = values[i]
		}
		parts = append(parts, f.Name+"="+humanPartitionValue(f.Transform, tb.sourceType(f.SourceID), v))
	}
	return strings.Join(parts, "/")
}

// sourceType is the type of the current schema's column id, 0 if unknown.
func (tb *Table) sourceType(id int) schema.Type {
	if i := tb.schema.IndexOfID(id); i >= 0 {
		return tb.schema.Fields[i].Type
	}
	return 0
}

// humanPartitionValue is Iceberg's human string of a partition value
// (partition.Transform.Human); the raw value for a transform it does not know.
func humanPartitionValue(transform string, src schema.Type, v any) string {
	tr, err := partition.Parse(transform)
	if err != nil || src == 0 {
		return fmt.Sprint(v)
	}
	return tr.Human(src, v)
}
