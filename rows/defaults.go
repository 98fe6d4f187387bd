package rows

import "github.com/timelake/timelake/schema"

// MissingOf is n rows of field f for a file that lacks the column: its
// initial-default in every row (format 3), else nulls.
func MissingOf(f schema.Field, n int) Column {
	v := f.InitialDefault
	if v == nil {
		return NullsOf(f.Type, n)
	}
	var c Column
	switch t := f.Type; {
	case t.IsInteger():
		c.Ints = make([]int64, n)
		for i := range c.Ints {
			c.Ints[i] = v.Int
		}
	case t.IsFloat():
		c.Floats = make([]float64, n)
		for i := range c.Floats {
			c.Floats[i] = v.Float
		}
	case t == schema.Boolean:
		c.Bools = make([]bool, n)
		for i := range c.Bools {
			c.Bools[i] = v.Bool
		}
	default:
		c.Strs = make([]string, n)
		for i := range c.Strs {
			c.Strs[i] = v.Str
		}
	}
	return c
}
