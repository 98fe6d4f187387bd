package scan

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A label filter (`scan --where 'tags[env]=prod'`, the client's where) is
// an equality or inequality on one value inside a nested column: a map's
// key, a struct's field, or a path of both (attrs.labels[env]). No file,
// row group or page keeps statistics of a map's values, so nothing is
// pruned by it: it is evaluated on each row's JSON text (rows.Column.Strs)
// after the pruning and, in a keyed scan, after the merge has kept each
// key's newest row — a row whose newest version no longer matches is not
// answered by an older one that did.
//
// Syntax: COLUMN PATH (= | !=) VALUE, PATH steps being [KEY] (a map key;
// ["KEY"] in JSON quotes when it holds ] or starts with ") and .FIELD (a
// struct field). VALUE is the rest of the text, verbatim (no trimming,
// no quotes): a string leaf compares its text, an integer or floating
// leaf its number (VALUE must be one), a boolean true or false, a
// timestamp its text as scan prints it.
//
// A value that is absent — the key missing, the map or a struct on the
// path null, the value null — is never equal: `=` does not match it and
// `!=` does. So `=V` and `!=V` split the rows between them (as a
// Prometheus label matcher does), where SQL's tags['env'] <> 'prod' would
// drop the rows without the key.

// Where is one parsed condition of a label filter.
type Where struct {
	Expr   string // as given, for errors
	Column string
	Not    bool // !=
	Value  string
	path   []string // map keys and struct field names, in order
	leaf   schema.Type
	intV   int64
	floatV float64
	boolV  bool
}

// Wheres are the conditions a row must all pass.
type Wheres []Where

func badWhere(expr, format string, args ...any) error {
	return &rows.Error{Code: CodeBadFilter, Value: expr, Msg: fmt.Sprintf("where %q: ", expr) + fmt.Sprintf(format, args...)}
}

// ParseWheres parses the conditions exprs against the schema: each column
// a map or struct column, each step of its path a key of a map or a field
// of a struct, ending on a primitive value whose type the value has. An
// expression that does not parse or fit is BAD_FILTER naming it; an
// unknown column UNKNOWN_COLUMN.
func ParseWheres(sch *schema.Table, exprs []string) (Wheres, error) {
	var out Wheres
	for _, e := range exprs {
		w, err := parseWhere(sch, e)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

func parseWhere(sch *schema.Table, expr string) (Where, error) {
	w := Where{Expr: expr}
	// The column is the longest column name expr starts with that a path
	// step or the operator follows (a name may hold dots or brackets).
	col := -1
	for i, f := range sch.Fields {
		if strings.HasPrefix(expr, f.Name) && len(expr) > len(f.Name) && strings.IndexByte("[.=!", expr[len(f.Name)]) >= 0 {
			if col < 0 || len(f.Name) > len(sch.Fields[col].Name) {
				col = i
			}
		}
	}
	if col < 0 {
		if !strings.Contains(expr, "=") {
			return w, badWhere(expr, "want COLUMN[KEY]=VALUE or COLUMN[KEY]!=VALUE (a struct field: COLUMN.FIELD=VALUE)")
		}
		name := expr[:strings.IndexAny(expr, "[.=!")]
		return w, &rows.Error{Code: CodeUnknownColumn, Column: name, Value: expr, Msg: fmt.Sprintf("where %q: no such column (map and struct columns: %s)", expr, nestedList(sch))}
	}
	f := sch.Fields[col]
	w.Column = f.Name
	if f.Type != schema.Nested || f.Nested == nil {
		return w, &rows.Error{Code: CodeBadFilter, Column: f.Name, Value: expr, Msg: fmt.Sprintf("where %q: column %s is %v, not a map or struct: a label filter reads a map's keys and a struct's fields (series columns are filtered by series; map and struct columns: %s)", expr, f.Name, f.Type, nestedList(sch))}
	}
	t := f.Nested
	rest := expr[len(f.Name):]
	at := f.Name
	for {
		if t.Kind == schema.KindVariant {
			// a variant's values have no type to read a key or a field
			// by, nor to compare a value as
			return w, badWhere(expr, "%s is a variant: a label filter reads a map's keys and a struct's fields, not into a variant", at)
		}
		switch {
		case strings.HasPrefix(rest, "["):
			if t.Kind != schema.KindMap {
				return w, badWhere(expr, "%s is %s, not a map: [KEY] is a map's key", at, t)
			}
			key, n, err := whereKey(rest[1:])
			if err != nil {
				return w, badWhere(expr, "%s: %v", at, err)
			}
			w.path = append(w.path, key)
			at += rest[:n+1]
			rest = rest[n+1:]
			t = t.Value.Type
		case strings.HasPrefix(rest, "."):
			if t.Kind != schema.KindStruct {
				return w, badWhere(expr, "%s is %s, not a struct: .FIELD is a struct's field", at, t)
			}
			n := strings.IndexAny(rest[1:], "[.=!")
			if n < 0 {
				n = len(rest) - 1
			}
			name := rest[1 : n+1]
			var next *schema.NestedType
			var names []string
			for _, sf := range t.Fields {
				names = append(names, sf.Name)
				if sf.Name == name {
					next = sf.Type
				}
			}
			if next == nil {
				return w, badWhere(expr, "%s has no field %q (fields: %s)", at, name, strings.Join(names, ", "))
			}
			w.path = append(w.path, name)
			at += rest[:n+1]
			rest = rest[n+1:]
			t = next
		case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!="):
			w.Not = rest[0] == '!'
			w.Value = rest[strings.IndexByte(rest, '=')+1:]
			if len(w.path) == 0 {
				return w, badWhere(expr, "give a path into %s: %s[KEY]=VALUE for a map, %s.FIELD=VALUE for a struct", f.Name, f.Name, f.Name)
			}
			if t.Kind != schema.KindPrimitive {
				return w, badWhere(expr, "%s is %s: the path must end on a string, number, boolean or timestamp value", at, t)
			}
			w.leaf = t.Prim
			return w, w.parseValue(at)
		default:
			if rest == "" {
				return w, badWhere(expr, "no = or != after %s", at)
			}
			return w, badWhere(expr, "unexpected %q after %s: want [KEY], .FIELD, = or !=", rest, at)
		}
	}
}

// whereKey reads a map key after its "[": up to "]", or a JSON string then
// "]". n is the bytes read, the "]" included.
func whereKey(s string) (key string, n int, err error) {
	if strings.HasPrefix(s, `"`) {
		end := 1
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(s) || end+1 >= len(s) || s[end+1] != ']' {
			return "", 0, fmt.Errorf(`a quoted key needs its closing quote and then ]`)
		}
		if err := json.Unmarshal([]byte(s[:end+1]), &key); err != nil {
			return "", 0, fmt.Errorf("the quoted key %s is not a JSON string", s[:end+1])
		}
		return key, end + 2, nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", 0, fmt.Errorf("[ without ]")
	}
	return s[:end], end + 1, nil
}

// parseValue checks the value against the leaf type.
func (w *Where) parseValue(at string) error {
	var err error
	switch {
	case w.leaf.IsInteger() && !w.leaf.IsTime():
		w.intV, err = strconv.ParseInt(w.Value, 10, 64)
		if err != nil {
			return badWhere(w.Expr, "%s is %v: %q is not an integer", at, w.leaf, w.Value)
		}
	case w.leaf.IsFloat():
		w.floatV, err = strconv.ParseFloat(w.Value, 64)
		if err != nil {
			return badWhere(w.Expr, "%s is %v: %q is not a number", at, w.leaf, w.Value)
		}
	case w.leaf == schema.Boolean:
		if w.Value != "true" && w.Value != "false" {
			return badWhere(w.Expr, "%s is boolean: %q is not true or false", at, w.Value)
		}
		w.boolV = w.Value == "true"
	}
	return nil
}

func nestedList(sch *schema.Table) string {
	var names []string
	for _, f := range sch.Fields {
		if f.Type == schema.Nested {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Columns are the columns the conditions read.
func (ws Wheres) Columns() []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Column)
	}
	return out
}

// Matcher returns the conditions bound to the fields of sch (which must
// hold their columns); nil when there are none.
func (ws Wheres) Matcher(sch *schema.Table) func(b *rows.Batch, i int) bool {
	if len(ws) == 0 {
		return nil
	}
	cols := make([]int, len(ws))
	for k, w := range ws {
		cols[k] = sch.Index(w.Column)
	}
	return func(b *rows.Batch, i int) bool {
		for k := range ws {
			c := &b.Cols[cols[k]]
			eq := !c.IsNull(i) && ws[k].equal(c.Strs[i])
			if eq == ws[k].Not {
				return false
			}
		}
		return true
	}
}

// Match reports whether the value text (a nested column's JSON text;
// null: the column is null) passes the condition.
func (w *Where) Match(text string, null bool) bool {
	return (!null && w.equal(text)) != w.Not
}

// equal reports whether the value at the path in text is present and
// equals the condition's value.
func (w *Where) equal(text string) bool {
	raw, ok := jsonPath(text, w.path)
	if !ok {
		return false
	}
	switch {
	case raw == "null":
		return false
	case raw[0] == '"':
		s, ok := jsonString(raw)
		if !ok {
			return false
		}
		if w.leaf.IsFloat() { // NaN and ±Inf are written as strings
			f, err := strconv.ParseFloat(s, 64)
			return err == nil && (f == w.floatV || math.IsNaN(f) && math.IsNaN(w.floatV))
		}
		return s == w.Value
	case w.leaf == schema.Boolean:
		return (raw == "true") == w.boolV && (raw == "true" || raw == "false")
	case w.leaf.IsFloat():
		f, err := strconv.ParseFloat(raw, 64)
		return err == nil && f == w.floatV
	case w.leaf.IsInteger() && !w.leaf.IsTime():
		n, err := strconv.ParseInt(raw, 10, 64)
		return err == nil && n == w.intV
	}
	return raw == w.Value
}
