package table

import (
	"slices"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/schema"
)

// Row lineage through compaction (format v3). The spec requires a rewrite
// to copy each row's _row_id and _last_updated_sequence_number into the
// file it moves to; a file that does not store them has them by
// inheritance (first_row_id + position, and the file's data sequence
// number). So a v3 table's merges read their inputs with the two metadata
// columns added to the schema, filled in where a file leaves them null
// (datafile.Lineage), and write them out as ordinary columns with their
// reserved field ids. The compacted files' rows keep the ids Spark and
// every reader saw before; the manifest list still gives the new files a
// first_row_id (as Java does), which no row of theirs uses.

// persisted: must not change (the spec's names of the metadata columns).
const (
	rowIDColumn          = "_row_id"
	lastUpdatedSeqColumn = "_last_updated_sequence_number"
)

// mergeSchema is the schema a merge reads and writes: the table's, and for
// a v3 table the row lineage columns after it.
func (tb *Table) mergeSchema() *schema.Table {
	if tb.meta.FormatVersion < 3 {
		return tb.schema
	}
	s := *tb.schema
	s.Fields = append(slices.Clone(s.Fields),
		schema.Field{ID: iceberg.RowIDFieldID, Name: rowIDColumn, Type: schema.Long},
		schema.Field{ID: iceberg.LastUpdatedSeqFieldID, Name: lastUpdatedSeqColumn, Type: schema.Long},
	)
	return &s
}

// lineageOf is how a merge input's lineage columns are filled in, or nil
// when sch has none.
func (tb *Table) lineageOf(sch *schema.Table, f maintenance.File) *datafile.Lineage {
	if len(sch.Fields) == len(tb.schema.Fields) {
		return nil
	}
	n := len(sch.Fields)
	l := &datafile.Lineage{Seq: f.Seq, RowID: n - 2, LastSeq: n - 1}
	if f.FirstRowID != nil {
		l.FirstRowID, l.HasFirstRowID = *f.FirstRowID, true
	}
	return l
}
