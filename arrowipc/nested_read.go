package arrowipc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Nested columns in: an Arrow map, list, large_list or struct field whose
// name is a nested column of the table fills it, each row becoming the
// JSON text the table's readers print (rows.Column.Strs of a
// schema.Nested column): a struct an object of the table's fields in the
// table's order (a field the Arrow struct lacks is null), a list an
// array, a map an object with its keys as strings; leaves converted to
// the table's leaf type as flat columns are (integers to long or int,
// numbers to double or float, timestamps and dates to the timestamp
// type's unit), and printed as the readers print them (rows.AppendJSONTime,
// rows.AppendJSONFloat). The shape is checked against the table's type
// before a row is read (TYPE_MISMATCH naming the column and the path in
// it); a struct field the table lacks is UNKNOWN_COLUMN, or skipped with
// Options.IgnoreUnknown. The text then goes to rows.Builder like any
// value, which checks it as it checks every nested value.

// nplan is how an Arrow field fills a node of a table's nested type.
type nplan struct {
	f    *field
	t    *schema.NestedType
	path string // column[.field…], for errors
	req  bool   // the table's node is required
	// kids: struct, one per table field (nil: the Arrow struct lacks it);
	// list, the element; map, the key and the value.
	kids []*nplan
	// arrowKid: struct, for each Arrow child the table field it fills, or
	// -1 to skip it.
	arrowKid []int
}

func mismatch(path string, f *field, want string) *rows.Error {
	return &rows.Error{Code: rows.CodeTypeMismatch, Column: path, Value: f.typeString(),
		Msg: fmt.Sprintf("Arrow type %s does not fit the table's %s", f.typeString(), want)}
}

// planNested matches Arrow field f to the table's nested type t, leaves
// registering the dictionaries they use in dicts.
func planNested(f *field, t *schema.NestedType, path string, req bool, opt rows.Options, dicts map[int64]*field) (*nplan, error) {
	p := &nplan{f: f, t: t, path: path, req: req}
	if t.Kind == schema.KindPrimitive {
		if !leafFits(f, t.Prim) {
			return nil, mismatch(path, f, t.Prim.String())
		}
		if f.dict != nil {
			if dicts[f.dict.id] != nil {
				return nil, syntax(fmt.Errorf("fields %q and %q share dictionary %d", dicts[f.dict.id].name, path, f.dict.id))
			}
			dicts[f.dict.id] = f
		}
		return p, nil
	}
	if f.dict != nil {
		return nil, mismatch(path, f, t.String())
	}
	var err error
	switch {
	case t.Kind == schema.KindStruct && f.typ.id == tStruct:
		p.kids = make([]*nplan, len(t.Fields))
		p.arrowKid = make([]int, len(f.children))
		for j := range f.children {
			c := &f.children[j]
			p.arrowKid[j] = -1
			i := -1
			for k := range t.Fields {
				if t.Fields[k].Name == c.name {
					i = k
				}
			}
			if i < 0 {
				if opt.IgnoreUnknown {
					continue
				}
				return nil, &rows.Error{Code: rows.CodeUnknownColumn, Column: path + "." + c.name,
					Msg: fmt.Sprintf("is not a field of the table's %s (--ignore-unknown leaves it out)", t)}
			}
			if p.kids[i] != nil {
				return nil, &rows.Error{Code: rows.CodeDuplicateColumn, Column: path + "." + c.name, Msg: "appears twice in the Arrow struct"}
			}
			tf := &t.Fields[i]
			if p.kids[i], err = planNested(c, tf.Type, path+"."+tf.Name, tf.Required, opt, dicts); err != nil {
				return nil, err
			}
			p.arrowKid[j] = i
		}
		for i, tf := range t.Fields {
			if p.kids[i] == nil && tf.Required {
				return nil, &rows.Error{Code: rows.CodeMissingColumn, Column: path + "." + tf.Name, Msg: "is a required field the Arrow struct lacks"}
			}
		}
	case t.Kind == schema.KindList && (f.typ.id == tList || f.typ.id == tLargeList) && len(f.children) == 1:
		el, err := planNested(&f.children[0], t.Elem.Type, path+".element", t.Elem.Required, opt, dicts)
		if err != nil {
			return nil, err
		}
		p.kids = []*nplan{el}
	case t.Kind == schema.KindMap && f.typ.id == tMap && len(f.children) == 1 && len(f.children[0].children) == 2:
		e := &f.children[0]
		k, err := planNested(&e.children[0], t.Key.Type, path+".key", true, opt, dicts)
		if err != nil {
			return nil, err
		}
		v, err := planNested(&e.children[1], t.Value.Type, path+".value", t.Value.Required, opt, dicts)
		if err != nil {
			return nil, err
		}
		p.kids = []*nplan{k, v}
	default:
		return nil, mismatch(path, f, t.String())
	}
	return p, nil
}

// leafFits says whether Arrow field f converts to primitive t.
func leafFits(f *field, t schema.Type) bool {
	k, _, _ := planKind(f)
	switch k {
	case vUnsupported, vDict:
		if f.dict == nil || k == vUnsupported {
			return false
		}
		k, _, _ = planKind(&field{typ: f.typ})
	}
	switch {
	case k == vNull:
		return true
	case t == schema.Long || t == schema.Int:
		return k == vInt || k == vUint
	case t == schema.Double || t == schema.Float:
		return k == vInt || k == vUint || k == vFloat16 || k == vFloat32 || k == vFloat64
	case t == schema.Boolean:
		return k == vBool
	case t == schema.String:
		return k == vUtf8 || k == vLargeUtf8
	case t.IsTime():
		return k == vTimestamp || k == vDate32 || k == vDate64
	}
	return false
}

// nvec is one batch's array of a planned nested node.
type nvec struct {
	p     *nplan
	n     int
	valid []byte // nil: no nulls
	offs  []byte // list, map: n+1 offsets
	wide  bool   // 64-bit offsets (large_list)
	kids  []*nvec
	leaf  *vector
}

func (v *nvec) null(r int) bool { return v.valid != nil && v.valid[r>>3]&(1<<(r&7)) == 0 }

func (v *nvec) offset(i int) int64 {
	if v.wide {
		return int64(binary.LittleEndian.Uint64(v.offs[8*i:]))
	}
	return int64(int32(binary.LittleEndian.Uint32(v.offs[4*i:])))
}

// readNested reads the arrays of planned field p from the body.
func (bb *batchBody) readNested(p *nplan, dicts map[int64]*dictionary) (*nvec, error) {
	if p.t.Kind == schema.KindPrimitive {
		leaf, err := bb.read(p.f, dicts)
		if err != nil {
			return nil, err
		}
		return &nvec{p: p, n: leaf.n, leaf: leaf}, nil
	}
	v := &nvec{p: p}
	validity := func(name string) (int, []byte, error) {
		node, err := bb.nextNode()
		if err != nil {
			return 0, nil, err
		}
		if node.length > math.MaxInt32 {
			return 0, nil, fmt.Errorf("field %q: %d values in one batch is too many", name, node.length)
		}
		valid, err := bb.nextBuffer()
		if err != nil {
			return 0, nil, err
		}
		n := int(node.length)
		if node.nulls == 0 {
			return n, nil, nil
		}
		if len(valid) < (n+7)/8 {
			return 0, nil, fmt.Errorf("field %q: %d nulls but a validity bitmap of %d bytes for %d values", name, node.nulls, len(valid), n)
		}
		return n, valid, nil
	}
	var err error
	if v.n, v.valid, err = validity(p.path); err != nil {
		return nil, err
	}
	if p.t.Kind == schema.KindStruct {
		v.kids = make([]*nvec, len(p.kids))
		for j := range p.f.children {
			i := p.arrowKid[j]
			if i < 0 {
				if err := bb.skip(&p.f.children[j], 1); err != nil {
					return nil, err
				}
				continue
			}
			if v.kids[i], err = bb.readNested(p.kids[i], dicts); err != nil {
				return nil, err
			}
			if v.kids[i].n < v.n {
				return nil, fmt.Errorf("field %q: %d values in a struct of %d", p.kids[i].path, v.kids[i].n, v.n)
			}
		}
		return v, nil
	}
	// list, large_list, map: offsets, then the child (a map's the entries
	// struct of key and value)
	v.wide = p.f.typ.id == tLargeList
	if v.offs, err = bb.nextBuffer(); err != nil {
		return nil, err
	}
	w := 4
	if v.wide {
		w = 8
	}
	if int64(len(v.offs)) < (int64(v.n)+1)*int64(w) {
		if v.n > 0 || len(v.offs) != 0 {
			return nil, fmt.Errorf("field %q: %d offsets bytes for %d values", p.path, len(v.offs), v.n)
		}
		v.offs = make([]byte, w) // no values, no offsets: a writer may leave them out
	}
	entries := 0
	if p.t.Kind == schema.KindList {
		el, err := bb.readNested(p.kids[0], dicts)
		if err != nil {
			return nil, err
		}
		v.kids, entries = []*nvec{el}, el.n
	} else {
		n, valid, err := validity(p.path + " entries")
		if err != nil {
			return nil, err
		}
		if valid != nil {
			return nil, fmt.Errorf("field %q: null map entries", p.path)
		}
		v.kids = make([]*nvec, 2)
		for i := range v.kids {
			if v.kids[i], err = bb.readNested(p.kids[i], dicts); err != nil {
				return nil, err
			}
			if v.kids[i].n < n {
				return nil, fmt.Errorf("field %q: %d values in a map of %d entries", p.kids[i].path, v.kids[i].n, n)
			}
		}
		entries = n
	}
	prev := int64(0)
	for i := 0; i <= v.n; i++ {
		o := v.offset(i)
		if o < prev || o > int64(entries) {
			return nil, fmt.Errorf("field %q: offset %d (%d) is out of order or past the %d entries", p.path, i, o, entries)
		}
		prev = o
	}
	return v, nil
}

// appendJSON appends value r of v as JSON text (a map key's as a JSON
// string when asKey); null where it is null, refused where the table's
// field is required.
func (v *nvec) appendJSON(b []byte, r int, asKey bool) ([]byte, error) {
	if len(b) > rows.MaxValueBytes {
		return nil, &rows.Error{Code: rows.CodeValueTooLarge, Column: v.p.path,
			Msg: fmt.Sprintf("a nested value of more than %d bytes of JSON text, over the %d a table takes", len(b), rows.MaxValueBytes)}
	}
	if v.leaf != nil {
		return v.leafJSON(b, v.leaf, r, asKey)
	}
	if v.null(r) {
		if v.p.req {
			return nil, &rows.Error{Code: rows.CodeMissingColumn, Column: v.p.path, Msg: "a null in a required field"}
		}
		return append(b, "null"...), nil
	}
	var err error
	switch v.p.t.Kind {
	case schema.KindStruct:
		b = append(b, '{')
		for i, tf := range v.p.t.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = rows.AppendJSONString(b, tf.Name)
			b = append(b, ':')
			if v.kids[i] == nil {
				b = append(b, "null"...)
			} else if b, err = v.kids[i].appendJSON(b, r, false); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case schema.KindList:
		b = append(b, '[')
		for j := v.offset(r); j < v.offset(r+1); j++ {
			if j > v.offset(r) {
				b = append(b, ',')
			}
			if b, err = v.kids[0].appendJSON(b, int(j), false); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	b = append(b, '{')
	for j := v.offset(r); j < v.offset(r+1); j++ {
		if j > v.offset(r) {
			b = append(b, ',')
		}
		if b, err = v.kids[0].appendJSON(b, int(j), true); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = v.kids[1].appendJSON(b, int(j), false); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// leafJSON appends leaf value r of x (v's vector, or a dictionary's) in
// the table's leaf type.
func (v *nvec) leafJSON(b []byte, x *vector, r int, asKey bool) ([]byte, error) {
	t := v.p.t.Prim
	if x.isNull(r) {
		if v.p.req {
			what := "a null in a required field"
			if asKey {
				what = "a null map key"
			}
			return nil, &rows.Error{Code: rows.CodeMissingColumn, Column: v.p.path, Msg: what}
		}
		return append(b, "null"...), nil
	}
	bad := func(val, why string) error {
		return &rows.Error{Code: rows.CodeTypeMismatch, Column: v.p.path, Value: val, Msg: why}
	}
	quote := func(b []byte, text []byte) []byte {
		if asKey {
			return rows.AppendJSONString(b, string(text))
		}
		return append(b, text...)
	}
	var num [32]byte
	switch x.kind {
	case vDict:
		var idx int64
		if x.unsigned {
			_, u := x.intAt(r, false)
			idx = int64(min(u, math.MaxInt64))
		} else {
			idx, _ = x.intAt(r, true)
		}
		if idx < 0 || idx >= int64(x.dict.n) {
			return nil, &rows.Error{Code: rows.CodeSyntax, Column: v.p.path, Value: strconv.FormatInt(idx, 10),
				Msg: fmt.Sprintf("Arrow dictionary index %d is outside the dictionary's %d values", idx, x.dict.n)}
		}
		i := int(idx)
		for _, c := range x.dict.chunks {
			if i < c.n {
				return v.leafJSON(b, c, i, asKey)
			}
			i -= c.n
		}
		return nil, bad("", "a dictionary shorter than it says")
	case vUtf8, vLargeUtf8:
		return rows.AppendJSONString(b, x.str[x.offset(r):x.offset(r+1)]), nil
	case vBool:
		return quote(b, strconv.AppendBool(num[:0], x.data[r>>3]&(1<<(r&7)) != 0)), nil
	case vInt, vUint:
		i, u := x.intAt(r, x.kind == vInt)
		if x.kind == vUint {
			if u > math.MaxInt64 {
				return nil, bad(strconv.FormatUint(u, 10), fmt.Sprintf("%d is out of range for %s", u, t))
			}
			i = int64(u)
		}
		switch t {
		case schema.Int:
			if int64(int32(i)) != i {
				return nil, bad(strconv.FormatInt(i, 10), fmt.Sprintf("%d is out of range for int", i))
			}
		case schema.Double:
			return quote(b, rows.AppendJSONFloat(num[:0], float64(i), 64)), nil
		case schema.Float:
			return quote(b, rows.AppendJSONFloat(num[:0], float64(float32(i)), 32)), nil
		}
		return quote(b, strconv.AppendInt(num[:0], i, 10)), nil
	case vFloat16, vFloat32, vFloat64:
		var f float64
		switch x.kind {
		case vFloat16:
			f = float64(half(binary.LittleEndian.Uint16(x.data[2*r:])))
		case vFloat32:
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(x.data[4*r:])))
		default:
			f = math.Float64frombits(binary.LittleEndian.Uint64(x.data[8*r:]))
		}
		bits := 64
		if t == schema.Float {
			f, bits = float64(float32(f)), 32
		}
		text := rows.AppendJSONFloat(num[:0], f, bits)
		if text[0] == '"' { // NaN, ±Inf: a string already
			return append(b, text...), nil
		}
		return quote(b, text), nil
	case vTimestamp, vDate32, vDate64:
		val, _ := x.intAt(r, true)
		var per int64 // the value's units per second
		switch {
		case x.kind == vDate32:
			val, per = val*86400, 1
		case x.kind == vDate64: // milliseconds, taken as the midnight UTC they fall on
			val, per = floorDiv(val, 86_400_000)*86400, 1
		default:
			per = [...]int64{1, 1e3, 1e6, 1e9}[x.unit]
		}
		out := int64(1e6)
		if t.Nanos() {
			out = 1e9
		}
		sec, sub := floorDiv(val, per), floorMod(val, per)
		// sub-units past the type's are dropped (floor), as flat columns do
		var frac int64
		if per >= out {
			frac = sub / (per / out)
		} else {
			frac = sub * (out / per)
		}
		lo, hi := int64(minSeconds), int64(maxSeconds)
		if t.Nanos() {
			lo, hi = floorDiv(schema.MinNanos, 1e9), floorDiv(schema.MaxNanos, 1e9)
		}
		// sec*out may wrap at the ends of int64 where the sum does not:
		// the sum is right exactly when it floors back to sec
		res := sec*out + frac
		if sec < lo || sec > hi || floorDiv(res, out) != sec {
			return nil, &rows.Error{Code: rows.CodeTimeOutOfRange, Column: v.p.path, Value: strconv.FormatInt(val, 10),
				Msg: fmt.Sprintf("Arrow %s value %d is outside what %s holds", x.typeName(), val, t)}
		}
		return rows.AppendJSONTime(b, res, t), nil
	}
	return nil, bad("", fmt.Sprintf("Arrow type %s does not fit %s", x.typeName(), t))
}
