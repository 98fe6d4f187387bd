package datafile

import "github.com/timelake/timelake/rows"

// Lineage fills in, as a file is read, what format v3's row lineage says
// a row's metadata columns are when the file does not store them: a null
// _row_id is the file's first_row_id plus the row's position in the file,
// a null _last_updated_sequence_number the file's data sequence number. A
// rewrite (compaction) reads its inputs with them and writes them out, so
// a row keeps its id and its last update wherever it moves, as the spec
// requires of a copy.
type Lineage struct {
	// FirstRowID is the file's first_row_id; HasFirstRowID is false for a
	// file that has none yet (written before the table was upgraded and not
	// yet given ids), whose rows keep a null _row_id.
	FirstRowID    int64
	HasFirstRowID bool
	Seq           int64 // the file's data sequence number
	// RowID and LastSeq are the columns of the read schema that are
	// _row_id and _last_updated_sequence_number.
	RowID, LastSeq int

	scratch [2][]int64
}

// fill completes cols[RowID] and cols[LastSeq] for n rows whose first is
// at position first of the file. The columns it returns are its own
// buffers, valid until the next fill.
func (l *Lineage) fill(cols []rows.Column, first int64, n int) {
	for k, col := range [2]int{l.RowID, l.LastSeq} {
		c := &cols[col]
		buf := l.scratch[k][:0]
		var nulls []bool
		for r := range n {
			switch {
			case !c.IsNull(r):
				buf = append(buf, c.Ints[r])
			case k == 0 && l.HasFirstRowID:
				buf = append(buf, l.FirstRowID+first+int64(r))
			case k == 1:
				buf = append(buf, l.Seq)
			default: // a row without an id stays without one
				if nulls == nil {
					nulls = make([]bool, n)
				}
				nulls[r] = true
				buf = append(buf, 0)
			}
		}
		l.scratch[k] = buf
		*c = rows.Column{Ints: buf, Nulls: nulls}
	}
}
