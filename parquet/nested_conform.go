package parquet

import (
	"slices"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// ConformNested makes the rows of nested column nc, read from a file whose
// type is not the table's t (a struct field added since: null; one dropped
// since: left out; fields in another order; a file without field ids), the
// text t prints, as a file written now would read. A row that does not
// parse as t is left as the file has it.
func ConformNested(col *rows.Column, nc *NestedColumn, t *schema.NestedType) {
	if slices.Equal(nc.NodeIDs(), t.NodeIDs()) {
		return
	}
	tr := rows.NestedTree{SkipUnknown: true}
	var buf []byte
	for i, s := range col.Strs {
		if col.IsNull(i) {
			continue
		}
		text, b, err := rows.CanonicalNested(&tr, t, s, buf)
		buf = b
		if err == nil {
			col.Strs[i] = text
		}
	}
}
