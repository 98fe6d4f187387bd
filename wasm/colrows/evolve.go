package colrows

import (
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// Columns gives each input key with the table type an append with
// { evolve: true } adds it as, from its first value that is neither null nor
// absent: a number → double, a bigint → long, a boolean → boolean, a Date
// → timestamptz, a string (or anything else) → string. A key with no value
// at all is a string column.
func Columns(in *Input) []evolve.Column {
	out := make([]evolve.Column, 0, len(in.Cols))
	for i := range in.Cols {
		c := &in.Cols[i]
		t := schema.String
		for r := 0; r < in.Len; r++ {
			tag := c.tag(r)
			if tag == Absent || tag == Null {
				continue
			}
			switch tag {
			case Number:
				t = schema.Double
			case BigInt:
				t = schema.Long
			case True, False:
				t = schema.Boolean
			case Date:
				t = schema.Timestamptz
			}
			break
		}
		out = append(out, evolve.Column{Name: c.Name, Type: t})
	}
	return out
}
