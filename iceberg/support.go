package iceberg

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/schema"
)

// ErrUnsupported marks a table (or a file of one) in a state this package
// reads no further or Timelake does not write: a format version, transform,
// sort order, type or feature of another engine's that it does not handle
// yet. It is refused by name, never answered wrongly.
var ErrUnsupported = errors.New("unsupported table")

// unsupported returns an ErrUnsupported error naming the feature.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// ReadableVersions are the format versions whose metadata ParseMetadata
// reads. Version 3 is read (info, latest) but not written: WriteSupport
// refuses it, since row lineage and deletion vectors must be kept by every
// writer.
var ReadableVersions = []int{2, 3}

// WriteSupport returns nil when a writer of Timelake's may commit to the
// table m describes (t is its schema as TableFromMetadata gave it), or an
// ErrUnsupported error naming the first feature it does not handle yet.
// Reading (info, latest) goes on regardless, wherever it can.
func WriteSupport(m *Metadata, t *schema.Table) error {
	if m.FormatVersion != FormatVersion {
		return unsupported("format-version %d (Timelake writes format %d; format 3's row lineage and deletion vectors are not kept yet)", m.FormatVersion, FormatVersion)
	}
	want := TableSortOrder(t)
	var got *SortOrder
	for i := range m.SortOrders {
		if m.SortOrders[i].OrderID == m.DefaultSortOrderID {
			got = &m.SortOrders[i]
		}
	}
	if got == nil || !sameSortFields(got.Fields, want.Fields) {
		return unsupported("sort order %s is not Timelake's (series columns, then time, ascending)", describeSortOrder(m, got))
	}
	if v := m.Properties["write.format.default"]; v != "" && v != "parquet" {
		return unsupported("write.format.default=%s (Timelake writes Parquet)", v)
	}
	return nil
}

func sameSortFields(a, b []SortField) bool {
	return slices.EqualFunc(a, b, func(x, y SortField) bool {
		return x.Transform == y.Transform && x.SourceID == y.SourceID && x.Direction == y.Direction && x.NullOrder == y.NullOrder
	})
}

// describeSortOrder names an order's fields by column: "2 [host asc nulls-first, ts desc nulls-last]".
func describeSortOrder(m *Metadata, o *SortOrder) string {
	if o == nil {
		return fmt.Sprintf("id %d (not in sort-orders)", m.DefaultSortOrderID)
	}
	if len(o.Fields) == 0 {
		return fmt.Sprintf("%d (unsorted)", o.OrderID)
	}
	col := columnNames(m)
	parts := make([]string, len(o.Fields))
	for i, f := range o.Fields {
		c := col(f.SourceID)
		if f.Transform != "identity" {
			c = f.Transform + "(" + c + ")"
		}
		parts[i] = c + " " + f.Direction + " " + f.NullOrder
	}
	return fmt.Sprintf("%d [%s]", o.OrderID, strings.Join(parts, ", "))
}

// describeSpec names a spec's fields by transform and column: "1 [day(ts), bucket[4](host)]".
func describeSpec(m *Metadata, spec *PartitionSpec) string {
	if spec == nil {
		return fmt.Sprintf("id %d (not in partition-specs)", m.DefaultSpecID)
	}
	col := columnNames(m)
	parts := make([]string, len(spec.Fields))
	for i, f := range spec.Fields {
		parts[i] = f.Transform + "(" + col(f.SourceID) + ")"
	}
	return fmt.Sprintf("%d [%s]", spec.SpecID, strings.Join(parts, ", "))
}

// columnNames names a field of the current schema by id ("field 7" for one
// it does not hold), for error messages.
func columnNames(m *Metadata) func(id int) string {
	names := map[int]string{}
	if s := m.CurrentSchema(); s != nil {
		for _, f := range s.Fields {
			names[f.ID] = f.Name
		}
	}
	return func(id int) string {
		if n, ok := names[id]; ok {
			return n
		}
		return fmt.Sprintf("field %d", id)
	}
}
