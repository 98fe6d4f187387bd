package iceberg

import (
	"encoding/json"
	"maps"
	"strconv"
)

// Row lineage (format v3). The table's next-row-id and a snapshot's
// first-row-id and added-rows live in the metadata JSON; they are kept in
// Extra like any member this package does not declare, so that a table
// another engine wrote keeps them through our commits, and read and set
// here. persisted: must not change.
const (
	metaNextRowID         = "next-row-id"
	snapFirstRowID        = "first-row-id"
	snapAddedRows         = "added-rows"
	RowIDFieldID          = 2147483540 // _row_id, the metadata column
	LastUpdatedSeqFieldID = 2147483539 // _last_updated_sequence_number
)

// NextRowID is the table's next-row-id: the first _row_id the next
// snapshot assigns (0 when absent, as for a table just upgraded to v3).
func (m *Metadata) NextRowID() int64 {
	v, _ := extraInt(m.Extra, metaNextRowID)
	return v
}

// SetNextRowID sets next-row-id, copying Extra first: m is often a shallow
// copy of a base that must stay as it was.
func (m *Metadata) SetNextRowID(v int64) {
	m.Extra = withExtraInt(m.Extra, metaNextRowID, v)
}

// RowLineage returns the snapshot's first-row-id and added-rows; ok is
// false when it has none (a snapshot from before format v3).
func (s *Snapshot) RowLineage() (firstRowID, addedRows int64, ok bool) {
	first, ok1 := extraInt(s.Extra, snapFirstRowID)
	added, ok2 := extraInt(s.Extra, snapAddedRows)
	return first, added, ok1 && ok2
}

// SetRowLineage records the ids a v3 snapshot assigned.
func (s *Snapshot) SetRowLineage(firstRowID, addedRows int64) {
	s.Extra = withExtraInt(withExtraInt(s.Extra, snapFirstRowID, firstRowID), snapAddedRows, addedRows)
}

func extraInt(x Extra, name string) (int64, bool) {
	raw, ok := x[name]
	if !ok {
		return 0, false
	}
	if canonicalJSONInt(raw) {
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return v, true
		}
	}
	var v int64
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return v, true
}

func withExtraInt(x Extra, name string, v int64) Extra {
	c := maps.Clone(x)
	if c == nil {
		c = Extra{}
	}
	c[name] = json.RawMessage(strconv.FormatInt(v, 10))
	return c
}

// canonicalJSONInt reports whether raw is a JSON integer without sign,
// exponent or leading zero: such a text reads with strconv as encoding/json
// reads it, without encoding/json's decoder.
func canonicalJSONInt(raw []byte) bool {
	if len(raw) == 0 || len(raw) > 1 && raw[0] == '0' {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
