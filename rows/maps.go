package rows

import (
	"slices"

	"github.com/timelake/timelake/schema"
)

// FromMaps aligns Go values to table t, one map per row, keys naming columns.
// Values may be nil (null), string, bool, time.Time, json.Number, float64,
// float32 or any integer type; a missing key is null. Errors name the row
// (1-based index into ms) and are deterministic: columns are checked in
// schema order, then unknown keys in sorted order.
func FromMaps(t *schema.Table, ms []map[string]any, opt Options) (*Batch, error) {
	if len(ms) == 0 {
		return nil, &Error{Code: CodeEmptyInput, Msg: "no rows"}
	}
	b := NewBuilder(t, opt)
	for i, m := range ms {
		row := i + 1
		found := 0
		for col, f := range t.Fields {
			v, ok := m[f.Name]
			if !ok || col == t.Ingest {
				continue
			}
			found++
			if err := b.AppendValue(col, v); err != nil {
				err.(*Error).Row = row
				return nil, err
			}
		}
		if _, ok := m[schema.IngestColumn]; ok || found < len(m) {
			if e := unknownKey(t, m, opt); e != nil {
				e.Row = row
				return nil, e
			}
		}
		if e := b.endRow(); e != nil {
			e.Row = row
			return nil, e
		}
	}
	return b.Batch(), nil
}

func unknownKey(t *schema.Table, m map[string]any, opt Options) *Error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, e := lookupColumn(t, k, opt); e != nil {
			return e
		}
	}
	return nil
}
