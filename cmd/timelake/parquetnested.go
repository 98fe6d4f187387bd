package main

import (
	"fmt"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A Parquet input's nested column (map, list, struct) fills the table's
// nested column of its name: its rows are read as the JSON text the
// table's readers print (parquet.ReadNested) and appended as any value of
// that column is. Its shape is checked first against the table's type
// (nestedFits), so that a list given for a map, a long for a string or a
// struct field the table lacks is refused naming the column, and the
// path in it, before a row is read.

// nestedFits checks the file's type of a nested column (parquet's Shape)
// against the table's, path naming the node. A struct field the table
// lacks is refused, or with skip (--ignore-unknown) passed over, as the
// Arrow input does (skipped says one was: the rows' text then holds it and
// is read with rows.NestedTree.SkipUnknown); one the file lacks reads as
// null, unless the table requires it. A leaf fits a table leaf of the same
// type, and an int leaf a long one, a float leaf a double one (their JSON
// text is the same), a timestamp one of any unit or zone.
func nestedFits(file, table *schema.NestedType, path string, skip bool) (skipped bool, err error) {
	f := nestedFit{skip: skip}
	err = f.fits(file, table, path)
	return f.skipped, err
}

type nestedFit struct{ skip, skipped bool }

func (c *nestedFit) fits(file, table *schema.NestedType, path string) error {
	bad := func() error {
		return &rows.Error{Code: rows.CodeTypeMismatch, Column: path,
			Msg: fmt.Sprintf("is %s in the Parquet input, %s in the table", shapeText(file), table)}
	}
	if file.Kind != table.Kind {
		return bad()
	}
	switch table.Kind {
	case schema.KindVariant:
		return nil // any variant value is one
	case schema.KindPrimitive:
		f, t := file.Prim, table.Prim
		if f == t || (f == schema.Int && t == schema.Long) || (f == schema.Float && t == schema.Double) {
			return nil
		}
		// A timestamp of another unit or zone: its text (9 digits for
		// nanoseconds, Z with a zone) is read by the Builder as the table's
		// type, as an NDJSON value's is, sub-units dropped, as the Arrow
		// input and a flat Parquet column convert them.
		if f.IsTime() && t.IsTime() {
			return nil
		}
		return bad()
	case schema.KindStruct:
		for _, ff := range file.Fields {
			found := false
			for _, tf := range table.Fields {
				if tf.Name == ff.Name {
					found = true
					if err := c.fits(ff.Type, tf.Type, path+"."+tf.Name); err != nil {
						return err
					}
				}
			}
			if !found && c.skip {
				c.skipped = true
			} else if !found {
				return &rows.Error{Code: rows.CodeUnknownColumn, Column: path + "." + ff.Name,
					Msg: fmt.Sprintf("is not a field of the table's %s (--ignore-unknown leaves it out)", table)}
			}
		}
		for _, tf := range table.Fields {
			if tf.Required && !requiredIn(file.Fields, tf.Name) {
				return &rows.Error{Code: rows.CodeMissingColumn, Column: path + "." + tf.Name,
					Msg: "is a required field the Parquet input lacks or has optional"}
			}
		}
		return nil
	case schema.KindList:
		if table.Elem.Required && !file.Elem.Required {
			return &rows.Error{Code: rows.CodeMissingColumn, Column: path + ".element", Msg: "is required in the table, optional in the Parquet input"}
		}
		return c.fits(file.Elem.Type, table.Elem.Type, path+".element")
	case schema.KindMap:
		if table.Value.Required && !file.Value.Required {
			return &rows.Error{Code: rows.CodeMissingColumn, Column: path + ".value", Msg: "is required in the table, optional in the Parquet input"}
		}
		if err := c.fits(file.Key.Type, table.Key.Type, path+".key"); err != nil {
			return err
		}
		return c.fits(file.Value.Type, table.Value.Type, path+".value")
	}
	return bad()
}

// shapeText is a file's nested type as text, a leaf Timelake does not read
// as "an unread type".
func shapeText(t *schema.NestedType) string {
	if t.Kind == schema.KindPrimitive && t.Prim == 0 {
		return "a type Timelake does not read"
	}
	switch t.Kind {
	case schema.KindMap:
		return "a map (" + t.String() + ")"
	case schema.KindList:
		return "a list (" + t.String() + ")"
	case schema.KindStruct:
		return "a struct (" + t.String() + ")"
	}
	return t.String()
}

// requiredIn says whether fields has a required field of that name.
func requiredIn(fields []schema.NestedField, name string) bool {
	for _, f := range fields {
		if f.Name == name && f.Required {
			return true
		}
	}
	return false
}

// dropUnknownFields re-prints each row of col as a value of t, leaving out
// the struct fields t lacks (the ones --ignore-unknown passed over). A text
// that does not read is kept: the Builder refuses it naming its row.
func dropUnknownFields(col *rows.Column, t *schema.NestedType) {
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
