package table

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/schema"
)

// Adopting another engine's table.
//
// A table Spark, pyiceberg, DuckDB or a Pipelines sink created has no
// timelake.* properties: Timelake reads it as stored (scan without a key)
// and writes nothing to it. Adopt names its key — a time column and the
// series columns — in one metadata-only commit:
//
//   - the properties timelake.time-column, timelake.series-columns (empty:
//     one series) and timelake.ingest-column=false (another engine's table
//     has no _ingest_ts; adding one would be a schema change);
//   - Timelake's sort order (series…, time) is added to the sort orders
//     when the table lists none like it, so that the files Timelake writes
//     can say how they are sorted. It becomes the default only when the
//     default is unsorted; another engine's order stays the default
//     (never replaced silently) and the result says so.
//
// No data file is read or rewritten: existing files keep their layout and
// are read as foreign files are (unsorted ones sorted in memory, by field
// id); what Timelake writes from then on is sorted and indexed, and the
// last-value index is built from the existing files by the catch-up when
// first asked for.

// AdoptOptions name the key of the table to adopt.
type AdoptOptions struct {
	Time   string   // the time column: a timestamptz
	Series []string // the series columns, in key order (string, long or int); none: one series
	DryRun bool     // check and report, commit nothing
	// Upgrade a format v1 table to v2 in the same commit (what Spark's
	// 'format-version'='2' does): v1 files stay as they are, read with
	// sequence number 0, and Timelake then writes v2 manifests. Without
	// it a v1 table is adopted but not written (WriteRefusal says so).
	Upgrade bool
}

// AdoptResult says what Adopt recorded.
type AdoptResult struct {
	Version int      `json:"version"` // the metadata version committed (or current, for a dry run or an adopted table)
	Time    string   `json:"time"`
	Series  []string `json:"series"`
	// SortOrderID is the id of Timelake's sort order in the table;
	// SortOrderAdded that adopting added it, SortOrderDefault that it is
	// the table's default order.
	SortOrderID      int  `json:"sort-order-id"`
	SortOrderAdded   bool `json:"sort-order-added"`
	SortOrderDefault bool `json:"sort-order-default"`
	Already          bool `json:"already-adopted,omitempty"` // the table had this key already: nothing committed
	Upgraded         bool `json:"upgraded,omitempty"`        // a format v1 table upgraded to v2
	DryRun           bool `json:"dry-run,omitempty"`
	// WriteRefusal is why Timelake still does not write the adopted table
	// (a partition spec or format version it does not write yet), or "".
	WriteRefusal string `json:"write-refusal,omitempty"`
}

// ErrAdopt is wrapped by Adopt's errors about its options: a column that is
// not there or of the wrong type, or a table adopted with another key.
var ErrAdopt = errors.New("cannot adopt")

// Adopt records opt's key in the table's properties (see above).
func (tb *Table) Adopt(ctx context.Context, opt AdoptOptions) (*AdoptResult, error) {
	res := &AdoptResult{Time: opt.Time, Series: slices.Clone(opt.Series), DryRun: opt.DryRun}
	if res.Series == nil {
		res.Series = []string{}
	}
	v, err := tb.latest(ctx)
	if err != nil {
		return nil, err
	}
	if !v.Same(tb.version) {
		if err := tb.load(v); err != nil {
			return nil, err
		}
	}
	change := func(md *iceberg.Metadata) error { return adoptInto(md, opt, res) }
	if opt.DryRun {
		md := *tb.meta
		if err := change(&md); err != nil {
			return nil, err
		}
		res.Version = tb.version.N
		res.WriteRefusal = writeRefusal(&md)
		return res, nil
	}
	if tb.schema.HasKey() {
		// Adopted already (or ours): the same key is nothing to do.
		md := *tb.meta
		if err := change(&md); err != nil {
			return nil, err
		}
		if res.Already {
			res.Version, res.WriteRefusal = tb.version.N, writeRefusal(tb.meta)
			return res, nil
		}
	}
	// Each base the commit meets is checked again (the load may not refuse
	// it for writing: the table is not writable before it is adopted).
	if err := tb.commitMetadata(ctx, "adopt", tb.load, change); err != nil {
		return nil, err
	}
	if err := tb.load(tb.version); err != nil { // the schema now has its key
		return nil, err
	}
	res.Version, res.WriteRefusal = tb.version.N, writeRefusal(tb.meta)
	return res, nil
}

// writeRefusal is why a writer may not commit to md, or "".
func writeRefusal(md *iceberg.Metadata) string {
	sch, err := iceberg.TableFromMetadata(md)
	if err == nil {
		err = iceberg.WriteSupport(md, sch)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// adoptInto records opt's key in md (a copy the caller owns), checking the
// columns against its current schema.
func adoptInto(md *iceberg.Metadata, opt AdoptOptions, res *AdoptResult) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrAdopt, fmt.Sprintf(format, args...))
	}
	cur := md.CurrentSchema()
	field := func(name string) (iceberg.SchemaField, bool) {
		for _, f := range cur.Fields {
			if f.Name == name {
				return f, true
			}
		}
		return iceberg.SchemaField{}, false
	}
	columns := func() string {
		var names []string
		for _, f := range cur.Fields {
			names = append(names, f.Name+" "+typeName(f))
		}
		return strings.Join(names, ", ")
	}
	if opt.Time == "" {
		return fail("a time column is required (--time; columns: %s)", columns())
	}
	tf, ok := field(opt.Time)
	if !ok {
		return fail("no column %q to be the time column (columns: %s)", opt.Time, columns())
	}
	if t, err := schema.ParseType(tf.PrimitiveType()); err != nil || !t.IsTime() {
		return fail("time column %q is %s: it must be a timestamptz, timestamp, timestamptz_ns or timestamp_ns", opt.Time, typeName(tf))
	}
	seen := map[string]bool{opt.Time: true}
	for _, s := range opt.Series {
		f, ok := field(s)
		switch {
		case !ok:
			return fail("no column %q to be a series column (columns: %s)", s, columns())
		case seen[s]:
			return fail("column %q is named twice as the time or a series column", s)
		}
		switch f.PrimitiveType() {
		case "string", "long", "int":
		default:
			return fail("series column %q is %s: series columns are string, long or int", s, typeName(f))
		}
		seen[s] = true
	}
	if opt.Upgrade && md.FormatVersion == 1 {
		md.FormatVersion = iceberg.FormatVersion
		md.Extra = maps.Clone(md.Extra)
		delete(md.Extra, "schema")         // v1's single-schema and single-spec members,
		delete(md.Extra, "partition-spec") // which v2 replaced
		res.Upgraded, res.Already = true, false
	}
	if old, ok := md.Properties[iceberg.PropTimeColumn]; ok {
		if old == opt.Time && md.Properties[iceberg.PropSeriesColumns] == strings.Join(opt.Series, ",") {
			res.Already = !res.Upgraded
		} else {
			return fail("the table's key is already time %q, series %q (%s); a key is not changed", old, md.Properties[iceberg.PropSeriesColumns], iceberg.PropTimeColumn)
		}
	}
	props := maps.Clone(md.Properties)
	if props == nil {
		props = map[string]string{}
	}
	props[iceberg.PropTimeColumn] = opt.Time
	props[iceberg.PropSeriesColumns] = strings.Join(opt.Series, ",")
	if _, ok := field(schema.IngestColumn); !ok {
		props[iceberg.PropIngestColumn] = "false"
	}
	if _, err := ParseSettings(props); err != nil {
		return err
	}
	md.Properties = props
	sch, err := iceberg.TableFromMetadata(md)
	if err != nil {
		return fail("%v", err)
	}
	if err := requireV3(sch, md.FormatVersion, "adopt"); err != nil {
		return err
	}
	adoptSortOrder(md, sch, res)
	return nil
}

// adoptSortOrder makes sure md lists Timelake's sort order for sch, adding
// it (as the default only when the default is unsorted), and says so in res.
func adoptSortOrder(md *iceberg.Metadata, sch *schema.Table, res *AdoptResult) {
	if id, ok := iceberg.OurSortOrderID(md, sch); ok {
		res.SortOrderID, res.SortOrderDefault = id, id == md.DefaultSortOrderID
		return
	}
	o := iceberg.TableSortOrder(sch)
	o.OrderID = 1
	for _, so := range md.SortOrders {
		o.OrderID = max(o.OrderID, so.OrderID+1)
	}
	md.SortOrders = append(slices.Clone(md.SortOrders), o)
	res.SortOrderID, res.SortOrderAdded = o.OrderID, true
	unsorted := true
	for _, so := range md.SortOrders {
		if so.OrderID == md.DefaultSortOrderID && len(so.Fields) > 0 {
			unsorted = false
		}
	}
	if unsorted {
		md.DefaultSortOrderID = o.OrderID
		res.SortOrderDefault = true
	}
}

// typeName is a schema field's type as Iceberg names it.
func typeName(f iceberg.SchemaField) string { return f.TypeName() }
