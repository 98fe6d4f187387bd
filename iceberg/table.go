package iceberg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/timelake/timelake/schema"
)

// Table properties Timelake uses to reopen a table. persisted: must not change.
const (
	PropTimeColumn    = "timelake.time-column"
	PropSeriesColumns = "timelake.series-columns" // comma-separated, in key order
	// PropIngestColumn is "false" in a table created without _ingest_ts
	// (schema.NewWithoutIngest); absent otherwise. A table without the
	// column and without this property is refused, as before.
	PropIngestColumn = "timelake.ingest-column"
)

// TableSchema returns the Iceberg schema (id 0) of t: every field with its id,
// and the identifier fields (series…, time) that form the row key.
func TableSchema(t *schema.Table) Schema {
	s := Schema{Type: "struct", SchemaID: 0}
	for _, f := range t.Fields {
		typ, _ := json.Marshal(f.Type.String())
		if f.Nested != nil {
			typ = f.Nested.JSON()
		}
		sf := SchemaField{ID: f.ID, Name: f.Name, Required: f.Required, Type: typ}
		if f.InitialDefault != nil || f.WriteDefault != nil { // format 3 column defaults
			sf.Extra = Extra{}
			if f.InitialDefault != nil {
				sf.Extra["initial-default"] = schema.DefaultJSON(f.Type, f.InitialDefault)
			}
			if f.WriteDefault != nil {
				sf.Extra["write-default"] = schema.DefaultJSON(f.Type, f.WriteDefault)
			}
		}
		s.Fields = append(s.Fields, sf)
	}
	for _, i := range t.Series {
		s.IdentifierFieldIDs = append(s.IdentifierFieldIDs, t.Fields[i].ID)
	}
	s.IdentifierFieldIDs = append(s.IdentifierFieldIDs, t.TimeField().ID)
	return s
}

// TablePartitionSpec returns partition spec 0: the time column under t's
// transform, as partition field schema.PartitionFieldID.
func TablePartitionSpec(t *schema.Table) PartitionSpec {
	return PartitionSpec{SpecID: 0, Fields: []PartitionField{{
		Name:      t.PartitionName(),
		Transform: t.Partition.String(),
		SourceID:  t.TimeField().ID,
		FieldID:   schema.PartitionFieldID,
	}}}
}

// TableSortOrder returns sort order schema.SortOrderID: series columns, then
// time, ascending, nulls first.
func TableSortOrder(t *schema.Table) SortOrder {
	o := SortOrder{OrderID: schema.SortOrderID}
	key := append(append([]int{}, t.Series...), t.Time)
	for _, i := range key {
		o.Fields = append(o.Fields, SortField{Transform: "identity", SourceID: t.Fields[i].ID, Direction: "asc", NullOrder: "nulls-first"})
	}
	return o
}

// NewTableMetadata returns the metadata of a new, empty table: no snapshots,
// format version 2, t's schema, partition spec and sort order, and the
// properties given plus the ones Timelake needs to reopen it (time and series
// columns; timelake.ingest-column=false for a table without _ingest_ts).
func NewTableMetadata(t *schema.Table, tableUUID, location string, nowMillis int64, properties map[string]string) *Metadata {
	props := map[string]string{}
	for k, v := range properties {
		props[k] = v
	}
	props[PropTimeColumn] = t.TimeField().Name
	var series []string
	for _, i := range t.Series {
		series = append(series, t.Fields[i].Name)
	}
	props[PropSeriesColumns] = strings.Join(series, ",")
	if t.Ingest < 0 {
		props[PropIngestColumn] = "false"
	} else {
		delete(props, PropIngestColumn)
	}
	lastID := 0
	for _, f := range t.Fields {
		lastID = max(lastID, f.ID)
		if f.Nested != nil {
			lastID = max(lastID, f.Nested.MaxID())
		}
	}
	return &Metadata{
		FormatVersion:      FormatVersion,
		TableUUID:          tableUUID,
		Location:           location,
		LastSequenceNumber: 0,
		LastUpdatedMs:      nowMillis,
		LastColumnID:       lastID,
		Schemas:            []Schema{TableSchema(t)},
		CurrentSchemaID:    0,
		PartitionSpecs:     []PartitionSpec{TablePartitionSpec(t)},
		DefaultSpecID:      0,
		LastPartitionID:    schema.PartitionFieldID,
		Properties:         props,
		Snapshots:          []Snapshot{},
		SnapshotLog:        []SnapshotLogEntry{},
		MetadataLog:        []MetadataLogEntry{},
		SortOrders:         []SortOrder{TableSortOrder(t)},
		DefaultSortOrderID: schema.SortOrderID,
		Refs:               map[string]SnapshotRef{},
	}
}

// TableFromMetadata rebuilds the schema.Table of a table: the current
// schema's fields with their ids, the time and series columns named by the
// timelake.* properties (followed by field id through renames, see
// propColumn), and the transform of the default partition spec.
//
// Any valid table gives a schema, so that it can be read:
//   - without timelake.time-column (another engine's table, not adopted)
//     Time is -1 (schema.Table.HasKey), with no series;
//   - without timelake.series-columns, or with it empty, the table is one
//     series;
//   - a column of a type Timelake does not read is left out (Unread);
//   - a partition spec that is not one day/hour/month of the time column
//     leaves Partition 0.
//
// WriteSupport says which of these a writer may not commit to. The errors
// here are for a table that contradicts itself: a property naming a column
// that is not there, or a time column that is not a timestamp.
func TableFromMetadata(m *Metadata) (*schema.Table, error) {
	fail := func(format string, args ...any) (*schema.Table, error) {
		return nil, fmt.Errorf("iceberg: table at %s: "+format, append([]any{m.Location}, args...)...)
	}
	cur := m.CurrentSchema()
	if cur == nil {
		return fail("no current schema")
	}
	t := &schema.Table{Time: -1, Ingest: -1}
	for _, f := range cur.Fields {
		name := f.PrimitiveType()
		typ, err := schema.ParseType(name)
		if name == "" || name == schema.VariantName {
			// A map, list or struct is read (as JSON per row) when every
			// leaf is a type Timelake reads; else it stays unread. A
			// variant is read as JSON too.
			if nt, nerr := schema.ParseNested(f.Type); nerr == nil {
				t.Fields = append(t.Fields, schema.Field{ID: f.ID, Name: f.Name, Type: schema.Nested, Required: f.Required, Nested: nt})
				t.Nested = append(t.Nested, f.Name+" "+nt.String())
				continue
			}
		}
		if err != nil {
			t.Unread = append(t.Unread, f.Name+" "+f.TypeName())
			continue
		}
		fld := schema.Field{ID: f.ID, Name: f.Name, Type: typ, Required: f.Required}
		// Format 3's defaults: what rows of older files read, and what a
		// row that leaves the column out stores.
		if fld.InitialDefault, err = schema.ParseDefault(typ, f.Extra["initial-default"]); err != nil {
			return fail("column %q: initial-%v", f.Name, err)
		}
		if fld.WriteDefault, err = schema.ParseDefault(typ, f.Extra["write-default"]); err != nil {
			return fail("column %q: write-%v", f.Name, err)
		}
		t.Fields = append(t.Fields, fld)
	}
	column := func(what, name, prop string) (int, error) {
		i := propColumn(m, t, name)
		if i < 0 {
			for _, u := range t.Unread {
				if strings.HasPrefix(u, name+" ") {
					return -1, unsupported("%s column %q is of type %s, which Timelake does not read", what, name, strings.TrimPrefix(u, name+" "))
				}
			}
			_, err := fail("%s column %q (%s) is not in the schema", what, name, prop)
			return -1, err
		}
		return i, nil
	}
	timeName, ok := m.Properties[PropTimeColumn]
	if !ok {
		// Not adopted: read as stored, without a key.
		t.Ingest = t.Index(schema.IngestColumn)
		return t, nil
	}
	var err error
	if t.Time, err = column("time", timeName, PropTimeColumn); err != nil {
		return nil, err
	}
	if tf := t.Fields[t.Time]; tf.Nested != nil {
		return nil, nestedKey("time", tf)
	} else if !tf.Type.IsTime() {
		return fail("time column %q is %v, not a timestamp", tf.Name, tf.Type)
	}
	if seriesList := m.Properties[PropSeriesColumns]; seriesList != "" {
		for _, name := range strings.Split(seriesList, ",") {
			i, err := column("series", name, PropSeriesColumns)
			if err != nil {
				return nil, err
			}
			if t.Fields[i].Nested != nil {
				return nil, nestedKey("series", t.Fields[i])
			}
			t.Series = append(t.Series, i)
		}
	}
	t.Ingest = t.Index(schema.IngestColumn)
	v, set := m.Properties[PropIngestColumn]
	switch without := set && v == "false"; {
	case set && v != "false" && v != "true":
		return fail("property %s is %q, not true or false", PropIngestColumn, v)
	case without && t.Ingest >= 0:
		return fail("column %s is in the schema, but property %s=false says the table has none", schema.IngestColumn, PropIngestColumn)
	case !without && t.Ingest < 0:
		return fail("column %s is missing (and property %s=false is not set)", schema.IngestColumn, PropIngestColumn)
	}
	if spec := m.DefaultSpec(); spec != nil && len(spec.Fields) == 1 {
		pf := spec.Fields[0]
		if tr, err := schema.ParseTransform(pf.Transform); err == nil && pf.SourceID == t.Fields[t.Time].ID {
			t.Partition = tr
		}
	}
	return t, nil
}

// propColumn is the index in t (the current schema of m) of the column a
// timelake.* property names. The name is resolved to a field id in the
// oldest schema that has it, then that id is looked up in t: another
// engine that renames a time or series column (Spark's RENAME COLUMN,
// pyiceberg's rename_column) changes the schema, not our properties, and
// the column is the same field id under its new name. The oldest schema
// wins so that a column later added under a renamed column's old name is
// not taken for it. -1 when no schema has the name or t lacks its id.
func propColumn(m *Metadata, t *schema.Table, name string) int {
	var oldest *Schema
	for i := range m.Schemas {
		s := &m.Schemas[i]
		if oldest != nil && s.SchemaID >= oldest.SchemaID {
			continue
		}
		for _, f := range s.Fields {
			if f.Name == name {
				oldest = s
				break
			}
		}
	}
	if oldest == nil {
		return -1
	}
	for _, f := range oldest.Fields {
		if f.Name == name {
			for i := range t.Fields {
				if t.Fields[i].ID == f.ID {
					return i
				}
			}
		}
	}
	return -1
}

// nestedKey refuses a nested column as the time or a series column: a key
// is compared, sorted and partitioned by, which a map, list or struct is
// not (UNSUPPORTED_TYPE).
func nestedKey(what string, f schema.Field) error {
	return fmt.Errorf("%w: %w: %s column %q is of nested type %s; a time or series column must be a primitive (time: timestamptz or timestamp; series: string, long or int)", ErrUnsupportedType, ErrUnsupported, what, f.Name, f.Nested)
}
