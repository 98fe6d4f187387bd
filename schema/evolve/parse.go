package evolve

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Parse reads one change as the CLI takes it: op is the flag's name, arg
// its value.
//
//	add      NAME:TYPE (or NAME:TYPE?: an added column is optional either way)
//	rename   OLD=NEW
//	widen    NAME:TYPE
//	optional NAME
//	drop     NAME
//	required NAME (refused on an optional column)
//
// A name may hold ':' (the type follows the last one) but not '=' (schema
// names never do).
func Parse(op, arg string) (Change, error) {
	o, err := ParseOp(op)
	if err != nil {
		return Change{}, err
	}
	bad := func(want string) error {
		return &rows.Error{Code: CodeBadChange, Value: arg, Msg: fmt.Sprintf("--%s %q: want %s", op, arg, want)}
	}
	c := Change{Op: o}
	switch o {
	case Add, Widen:
		// the type follows the last ':' before a nested type's '<'
		i := strings.LastIndexByte(arg, ':')
		if lt := strings.IndexByte(arg, '<'); lt >= 0 {
			i = strings.LastIndexByte(arg[:lt], ':')
		}
		if i <= 0 {
			return Change{}, bad("NAME:TYPE")
		}
		name, typ := arg[:i], arg[i+1:]
		def, hasDef := "", false
		if o == Add {
			// NAME:TYPE=DEFAULT: a column default (format 3)
			typ, def, hasDef = strings.Cut(typ, "=")
			typ = strings.TrimSuffix(typ, "?")
		}
		t, nt, err := schema.ParseTypeText(typ)
		if err == nil && nt != nil && o == Widen {
			err = fmt.Errorf("a nested type is not widened")
		}
		if err != nil {
			return Change{}, &rows.Error{Code: CodeBadType, Column: name, Value: typ, Msg: err.Error()}
		}
		c.Column, c.Type, c.Nested = name, t, nt
		if hasDef {
			raw := []byte(def)
			if t == schema.String || t.IsTime() {
				raw, _ = json.Marshal(def) // the text itself, as JSON
			}
			v, err := schema.ParseDefault(t, raw)
			if err != nil || v == nil {
				return Change{}, &rows.Error{Code: CodeBadChange, Column: name, Value: def, Msg: fmt.Sprintf("--add %q: the default %q is not a %s value", arg, def, t)}
			}
			c.Default = v
		}
	case Rename:
		from, to, ok := strings.Cut(arg, "=")
		if !ok || from == "" || to == "" {
			return Change{}, bad("OLD=NEW")
		}
		c.Column, c.To = from, to
	default:
		if arg == "" {
			return Change{}, bad("a column name")
		}
		c.Column = arg
	}
	return c, nil
}

// Arg is the change's argument in Parse's syntax: Parse(c.Op.String(), c.Arg()) is c.
func (c Change) Arg() string {
	switch c.Op {
	case Add, Widen:
		if c.Default != nil {
			d := string(schema.DefaultJSON(c.Type, c.Default))
			if c.Type == schema.String || c.Type.IsTime() {
				var s string
				_ = json.Unmarshal([]byte(d), &s)
				d = s
			}
			return c.Column + ":" + c.Type.String() + "=" + d
		}
		if c.Nested != nil {
			return c.Column + ":" + c.Nested.String()
		}
		return c.Column + ":" + c.Type.String()
	case Rename:
		return c.Column + "=" + c.To
	default:
		return c.Column
	}
}

// String is the change as a CLI flag: "--rename cpu=load".
func (c Change) String() string { return "--" + c.Op.String() + " " + c.Arg() }
