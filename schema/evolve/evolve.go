// Package evolve applies schema changes, as Apache Iceberg defines them, to
// a Timelake schema: add an optional column, rename a column, widen int → long
// and float → double, make a required column optional, drop a value column.
// It is pure (no I/O): the table package commits the schema it returns.
//
// Columns are matched by field id in Iceberg, so none of these changes
// touches a data file: files written before read on under the new schema (a
// renamed column under its new name, an added one as nulls, a widened one
// widened). What would break that is refused: dropping or retyping the time
// or series columns (the row key and the partition source), narrowing a
// type, making an optional column required, a name taken twice, and a name
// freed in a change set (dropped, or renamed away) reused in the same set.
//
//	next, lastID, err := evolve.Apply(cur, md.LastColumnID, []evolve.Change{
//		{Op: evolve.Add, Column: "mem", Type: schema.Double},
//		{Op: evolve.Rename, Column: "cpu", To: "cpu_pct"},
//		{Op: evolve.Widen, Column: "errors", Type: schema.Long},
//	})
//
// Changes apply in order, each to the schema the ones before it left, and
// all or none: an error names the change and the column, and nothing is
// changed.
package evolve

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Op is a kind of change.
type Op uint8

const (
	Add      Op = iota + 1 // add an optional column with a fresh field id
	Rename                 // rename a column (its field id stays)
	Widen                  // int → long, float → double
	Optional               // make a required value column optional
	Drop                   // drop a value column (its field id is never reused)
	// Required is there to be refused: an optional column stays optional
	// (files written before may hold nulls; Iceberg forbids it). On a
	// required column it changes nothing.
	Required
)

// opNames are the CLI flags (--add …) and the JavaScript ops ({op: "add"}).
// persisted (in user scripts): must not change.
var opNames = map[Op]string{Add: "add", Rename: "rename", Widen: "widen", Optional: "optional", Drop: "drop", Required: "required"}

func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp reads "add", "rename", "widen", "optional" or "drop".
func ParseOp(s string) (Op, error) {
	for o, n := range opNames {
		if n == s {
			return o, nil
		}
	}
	return 0, &rows.Error{Code: CodeBadChange, Value: s, Msg: fmt.Sprintf("unknown schema change %q (want add, rename, widen, optional, drop or required)", s)}
}

// Change is one schema change.
type Change struct {
	Op     Op
	Column string      // the column changed; for Add, the new column's name
	To     string      // Rename: the new name
	Type   schema.Type // Add: the new column's type; Widen: the wider type
	// Nested (Add, Type schema.Nested): the new column's nested type (its
	// ids are assigned by Apply). Column "attrs.c" adds field c to struct
	// column attrs (to any depth of structs: "attrs.inner.c").
	Nested *schema.NestedType
	// Default (Add, format 3 tables): the new column's initial-default and
	// write-default — what rows written before read, and what an append
	// that leaves the column out stores.
	Default *schema.Value
}

// Error codes, in a *rows.Error whose Column names the column concerned
// (rows.CodeUnknownColumn and rows.CodeDuplicateColumn are used too).
// persisted (in user scripts): must not change.
const (
	CodeForbidden = "SCHEMA_CHANGE_FORBIDDEN" // a change Iceberg's rules or the table's key forbid
	CodeBadType   = "BAD_TYPE"                // a type name that is not one of the table types
	CodeBadName   = "BAD_COLUMN_NAME"         // a name a column cannot have
	CodeBadChange = "BAD_CHANGE"              // a change that does not parse, or no change at all
)

// Apply returns the schema after changes and the new last-column-id (the
// highest field id ever assigned, which Add counts up from). cur is not
// modified. Its Partition, time, series and _ingest_ts roles carry over by
// field id. A change that changes nothing (a rename to the same name,
// widening to the type a column has, making an optional column optional)
// is no error; when every change is such, the result equals cur.
func Apply(cur *schema.Table, lastColumnID int, changes []Change) (*schema.Table, int, error) {
	if len(changes) == 0 {
		return nil, 0, &rows.Error{Code: CodeBadChange, Msg: "no schema change given"}
	}
	for _, f := range cur.Fields {
		lastColumnID = max(lastColumnID, f.ID)
		if f.Nested != nil {
			lastColumnID = max(lastColumnID, f.Nested.MaxID())
		}
	}
	timeID := cur.Fields[cur.Time].ID
	series := map[int]bool{}
	for _, s := range cur.Series {
		series[cur.Fields[s].ID] = true
	}
	ingestID := -1
	if cur.HasIngest() {
		ingestID = cur.Fields[cur.Ingest].ID
	}
	fields := append([]schema.Field(nil), cur.Fields...)
	freed := map[string]string{} // name → how this change set freed it
	for k, c := range changes {
		fail := func(code, col, format string, args ...any) error {
			return &rows.Error{Code: code, Column: col, Msg: fmt.Sprintf("change %d (%s): ", k+1, c) + fmt.Sprintf(format, args...)}
		}
		i := indexOf(fields, c.Column)
		if c.Op != Add && i < 0 {
			return nil, 0, fail(rows.CodeUnknownColumn, c.Column, "no such column")
		}
		var f schema.Field
		role := ""
		if i >= 0 {
			f = fields[i]
			switch {
			case f.ID == timeID:
				role = "the time column"
			case series[f.ID]:
				role = "a series column"
			case f.ID == ingestID:
				role = "the ingest column"
			}
		}
		// takes checks that name may be given to a column.
		takes := func(name string) error {
			if err := schema.CheckName(name); err != nil {
				return fail(CodeBadName, name, "%v", err)
			}
			if indexOf(fields, name) >= 0 {
				return fail(rows.CodeDuplicateColumn, name, "a column of that name exists")
			}
			if how, ok := freed[name]; ok {
				// Readers that resolve by name (and people) would take the
				// new column for the old one within one commit.
				return fail(CodeForbidden, name, "the name was %s earlier in this change set; reuse it in a later alter", how)
			}
			return nil
		}
		switch c.Op {
		case Add:
			if j, ok := structOf(fields, c.Column); ok {
				if fields[j].Nested == nil || fields[j].Nested.Kind != schema.KindStruct {
					return nil, 0, fail(CodeBadChange, c.Column, "column %q is %s, not a struct: a dotted name adds a struct field", fields[j].Name, fields[j].TypeText())
				}
				// a field added to a struct column
				nt, err := addStructField(fields[j].Nested, c, &lastColumnID)
				if err != nil {
					return nil, 0, fail(err.code, c.Column, "%s", err.msg)
				}
				fields[j].Nested = nt
				continue
			}
			if err := takes(c.Column); err != nil {
				return nil, 0, err
			}
			var nested *schema.NestedType
			if c.Type == schema.Nested {
				if c.Nested == nil || c.Nested.Kind == schema.KindPrimitive {
					return nil, 0, fail(CodeBadType, c.Column, "a nested column without its type")
				}
				if err := c.Nested.Writable(); err != nil {
					return nil, 0, fail(CodeBadType, c.Column, "%v", err)
				}
				if c.Default != nil {
					return nil, 0, fail(CodeBadChange, c.Column, "a nested column takes no default")
				}
			} else if _, err := schema.ParseType(c.Type.String()); err != nil {
				return nil, 0, fail(CodeBadType, c.Column, "%v", err)
			}
			lastColumnID++
			id := lastColumnID
			if c.Type == schema.Nested {
				nested = c.Nested.Clone()
				nested.AssignIDs(func() int { lastColumnID++; return lastColumnID })
			}
			// Optional always: the files written before have no values for it.
			nf := schema.Field{ID: id, Name: c.Column, Type: c.Type, Nested: nested, InitialDefault: c.Default, WriteDefault: c.Default}
			at := len(fields) // before _ingest_ts, so it stays the last column
			if j := indexOfID(fields, ingestID); j >= 0 {
				at = j
			}
			fields = append(fields[:at], append([]schema.Field{nf}, fields[at:]...)...)
		case Rename:
			if c.To == c.Column {
				continue
			}
			if f.ID == ingestID {
				return nil, 0, fail(CodeForbidden, c.Column, "%s is set by every append and keeps its name", schema.IngestColumn)
			}
			if err := takes(c.To); err != nil {
				return nil, 0, err
			}
			fields[i].Name = c.To
			freed[c.Column] = "renamed away"
		case Widen:
			if role != "" && c.Type != f.Type {
				return nil, 0, fail(CodeForbidden, c.Column, "%s is never retyped", role)
			}
			switch {
			case c.Type == f.Type:
			case f.Type == schema.Int && c.Type == schema.Long, f.Type == schema.Float && c.Type == schema.Double:
				fields[i].Type = c.Type
			case f.Type == schema.Long && c.Type == schema.Int, f.Type == schema.Double && c.Type == schema.Float:
				return nil, 0, fail(CodeForbidden, c.Column, "%v to %v narrows the type: values written before may not fit", f.Type, c.Type)
			default:
				if _, err := schema.ParseType(c.Type.String()); err != nil {
					return nil, 0, fail(CodeBadType, c.Column, "%v", err)
				}
				return nil, 0, fail(CodeForbidden, c.Column, "%v to %v is not a promotion Iceberg allows (int to long, float to double)", f.Type, c.Type)
			}
		case Optional:
			if role != "" && f.Required {
				return nil, 0, fail(CodeForbidden, c.Column, "%s is part of the row key and stays required", role)
			}
			fields[i].Required = false
		case Required:
			if !f.Required {
				return nil, 0, fail(CodeForbidden, c.Column, "an optional column stays optional: files written before may hold nulls")
			}
		case Drop:
			if role != "" {
				return nil, 0, fail(CodeForbidden, c.Column, "%s cannot be dropped", role)
			}
			fields = append(fields[:i], fields[i+1:]...)
			freed[c.Column] = "dropped"
		default:
			return nil, 0, fail(CodeBadChange, c.Column, "unknown change")
		}
	}
	next := &schema.Table{Fields: fields, Partition: cur.Partition,
		Time: indexOfID(fields, timeID), Ingest: indexOfID(fields, ingestID)}
	for _, s := range cur.Series {
		next.Series = append(next.Series, indexOfID(fields, cur.Fields[s].ID))
	}
	return next, lastColumnID, nil
}

func indexOf(fields []schema.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func indexOfID(fields []schema.Field, id int) int {
	for i, f := range fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// Column is an input column: its name, and the type an append that evolves
// the schema adds it with.
type Column struct {
	Name string
	Type schema.Type
}

// Missing returns an Add for each input column cur does not have, in input
// order: what an append with evolve adds. _ingest_ts is never added (the
// writer sets it, or the table is without it); a name given twice is added
// once, with its first type.
func Missing(cur *schema.Table, cols []Column) []Change {
	var out []Change
	seen := map[string]bool{}
	for _, c := range cols {
		if cur.Index(c.Name) >= 0 || c.Name == schema.IngestColumn || seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		out = append(out, Change{Op: Add, Column: c.Name, Type: c.Type})
	}
	return out
}

// changeErr is a coded failure of one change.
type changeErr struct{ code, msg string }

// structOf finds the column a dotted Add names ("attrs.c" → attrs), when
// no column has the whole name: a struct to add a field to (any other
// column is refused by the caller).
func structOf(fields []schema.Field, name string) (int, bool) {
	if indexOf(fields, name) >= 0 {
		return 0, false
	}
	top, _, ok := strings.Cut(name, ".")
	if !ok {
		return 0, false
	}
	j := indexOf(fields, top)
	return j, j >= 0
}

// addStructField returns struct type t with c's new field (optional, a
// fresh id, and fresh ids under it) at the path after the column's name.
// t is not modified.
func addStructField(t *schema.NestedType, c Change, lastColumnID *int) (*schema.NestedType, *changeErr) {
	path := strings.Split(c.Column, ".")[1:]
	out := t.Clone()
	at := out
	for _, step := range path[:len(path)-1] {
		var next *schema.NestedType
		for i := range at.Fields {
			if at.Fields[i].Name == step {
				next = at.Fields[i].Type
			}
		}
		if next == nil || next.Kind != schema.KindStruct {
			return nil, &changeErr{rows.CodeUnknownColumn, fmt.Sprintf("no struct field %q to add to", step)}
		}
		at = next
	}
	name := path[len(path)-1]
	if err := schema.CheckName(name); err != nil {
		return nil, &changeErr{CodeBadName, err.Error()}
	}
	for _, f := range at.Fields {
		if f.Name == name {
			return nil, &changeErr{rows.CodeDuplicateColumn, fmt.Sprintf("the struct has a field %q", name)}
		}
	}
	if c.Default != nil {
		return nil, &changeErr{CodeBadChange, "a struct field takes no default"}
	}
	ft := &schema.NestedType{Kind: schema.KindPrimitive, Prim: c.Type}
	if c.Type == schema.Nested {
		if c.Nested == nil || c.Nested.Kind == schema.KindPrimitive {
			return nil, &changeErr{CodeBadType, "a nested field without its type"}
		}
		ft = c.Nested.Clone()
	} else if _, err := schema.ParseType(c.Type.String()); err != nil {
		return nil, &changeErr{CodeBadType, err.Error()}
	}
	if err := ft.Writable(); err != nil {
		return nil, &changeErr{CodeBadType, err.Error()}
	}
	*lastColumnID++
	id := *lastColumnID
	ft.AssignIDs(func() int { *lastColumnID++; return *lastColumnID })
	// optional: the rows written before have no value for it
	at.Fields = append(at.Fields, schema.NestedField{ID: id, Name: name, Type: ft})
	return out, nil
}
