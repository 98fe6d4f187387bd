package table

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/schema"
)

// requireV3 refuses a schema with nanosecond timestamps (timestamp_ns,
// timestamptz_ns) or a variant for a table of format version below 3: the
// types are format 3's, and a format 2 reader (Spark 3.5, pyiceberg before
// 0.9, DuckDB before 1.5) fails on the table. what names the operation.
func requireV3(sch *schema.Table, version int, what string) error {
	cols := schema.RequiresV3(sch)
	if len(cols) == 0 || version >= 3 {
		return nil
	}
	var named []string
	for _, c := range cols {
		named = append(named, fmt.Sprintf("%q (%v)", c, sch.Fields[sch.Index(c)].TypeText()))
	}
	return fmt.Errorf("%w: %s: column %s is of a type only an Iceberg format 3 table holds (a nanosecond timestamp, a variant); the table is format %d (create with --format-version 3, or upgrade: alter --upgrade 3)",
		ErrBadSchema, what, strings.Join(named, ", "), version)
}

// usBounds are the microsecond bounds to give scan.NewFilter: those a
// nanosecond bound replaces (Filter.SetNanos) are left out, so that a
// range empty in whole microseconds but not in nanoseconds is not refused.
func (tb *Table) usBounds(fromUS, toUS, fromNS, toNS *int64) (from, to *int64) {
	if !tb.schema.HasKey() || !tb.schema.TimeField().Type.Nanos() {
		return fromUS, toUS
	}
	if fromNS == nil {
		from = fromUS
	}
	if toNS == nil {
		to = toUS
	}
	return from, to
}
