package iceberg

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/partition"
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

// ReadableVersions are the format versions whose metadata, manifest lists
// and manifests are read. Version 1 is read but not written: WriteSupport
// refuses it (v1 has no sequence numbers for our manifests); versions 2
// and 3 are written, 3 with row lineage (snapshot.Build).
var ReadableVersions = []int{1, 2, 3}

// ErrUnsupportedType marks a refusal because of a column's type (nested,
// variant, geometry, geography, unknown…): a column Timelake cannot write
// or carry. It always comes with ErrUnsupported.
var ErrUnsupportedType = errors.New("unsupported column type")

// ErrNotAdopted marks another engine's table that has no time column
// Timelake knows (no timelake.time-column property): it is read as stored,
// and written once adopted (table.Adopt records the key).
var ErrNotAdopted = errors.New("table not adopted")

// WriteSupport returns nil when a writer of Timelake's may commit to the
// table m describes (t is its schema as TableFromMetadata gave it), or an
// error naming the first thing it does not handle yet: ErrNotAdopted for a
// table without a key, else ErrUnsupported. Reading goes on regardless,
// wherever it can.
func WriteSupport(m *Metadata, t *schema.Table) error {
	switch {
	case m.FormatVersion == 1:
		return unsupported("format-version 1 (Timelake reads it and writes format 2; upgrade the table, e.g. Spark's ALTER TABLE … SET TBLPROPERTIES ('format-version'='2'))")
	case m.FormatVersion != 2 && m.FormatVersion != 3:
		return unsupported("format-version %d (Timelake writes formats 2 and 3)", m.FormatVersion)
	case !t.HasKey():
		return fmt.Errorf("%w: it has no %s property naming its time column (another engine created it); adopt it to write: timelake adopt TABLE --time COL [--series COL,…]", ErrNotAdopted, PropTimeColumn)
	case len(t.Unread) > 0:
		return fmt.Errorf("%w: %w: column %s is of a type Timelake reads no values of yet; it is kept, and the table is read without it, but not written", ErrUnsupportedType, ErrUnsupported, strings.Join(t.Unread, ", "))
	}
	if err := writableNested(t); err != nil {
		return err
	}
	if err := WritableSpec(m, t); err != nil {
		return err
	}
	if _, ok := OurSortOrderID(m, t); !ok {
		var got *SortOrder
		for i := range m.SortOrders {
			if m.SortOrders[i].OrderID == m.DefaultSortOrderID {
				got = &m.SortOrders[i]
			}
		}
		return unsupported("sort order %s is not Timelake's (series columns, then time, ascending), and the table lists no such order", describeSortOrder(m, got))
	}
	if v := m.Properties["write.format.default"]; v != "" && v != "parquet" {
		return unsupported("write.format.default=%s (Timelake writes Parquet)", v)
	}
	return nil
}

// writableNested refuses a nested column Timelake does not write
// (schema.NestedType.Writable: a map keyed by a nested type).
func writableNested(t *schema.Table) error {
	var bad []string
	for _, f := range t.Fields {
		if f.Type == schema.Nested {
			if err := f.Nested.Writable(); err != nil {
				bad = append(bad, f.Name+" "+f.Nested.String()+": "+err.Error())
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %w: column %s: Timelake reads it but does not write it", ErrUnsupportedType, ErrUnsupported, strings.Join(bad, ", "))
	}
	return nil
}

// OurSortOrderID is the id of the table's sort order that is Timelake's
// (series columns, then time, ascending, nulls first): the default order
// of a table Timelake created, or the one adopting another engine's table
// added beside its default. The files Timelake writes name it. ok is false
// when the table lists none.
func OurSortOrderID(m *Metadata, t *schema.Table) (id int, ok bool) {
	want := TableSortOrder(t)
	for _, o := range m.SortOrders {
		if sameSortFields(o.Fields, want.Fields) && (!ok || o.OrderID == m.DefaultSortOrderID) {
			id, ok = o.OrderID, true
		}
	}
	return id, ok
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

// WritableSpec returns nil when Timelake writes rows into the table's
// default partition spec: every field a transform it knows (any of
// Iceberg's: identity, bucket, truncate, year to hour, void) of the time
// column or a series column. A field of another column could put the rows
// of one series, or of one key, in several partitions, whose files the
// dedup rule could no longer compare within an append; void fields are
// allowed on any column (always null).
func WritableSpec(m *Metadata, t *schema.Table) error {
	spec := m.DefaultSpec()
	if spec == nil {
		return unsupported("default-spec-id %d names no spec", m.DefaultSpecID)
	}
	key := map[int]bool{t.Fields[t.Time].ID: true}
	for _, s := range t.Series {
		key[t.Fields[s].ID] = true
	}
	for _, f := range spec.Fields {
		tr, err := partition.Parse(f.Transform)
		if err != nil {
			return unsupported("partition spec %s: transform %q: %v", describeSpec(m, spec), f.Transform, err)
		}
		i := t.IndexOfID(f.SourceID)
		if i < 0 {
			return unsupported("partition spec %s: field %s is of a column Timelake does not read", describeSpec(m, spec), f.Name)
		}
		if _, err := tr.ResultType(t.Fields[i].Type); err != nil {
			return unsupported("partition spec %s: field %s: %v", describeSpec(m, spec), f.Name, err)
		}
		if tr.Kind != partition.Void && !key[f.SourceID] {
			return unsupported("partition spec %s: field %s is of column %s, which is not the time or a series column: Timelake partitions the rows it writes by their key only", describeSpec(m, spec), f.Name, t.Fields[i].Name)
		}
	}
	return nil
}
