package parquet

// Reading a nested column: each leaf's chunk of the row group is decoded
// whole (levels and values, nested_levels.go), then the rows are put
// together from the levels, Dremel's way, each row as compact JSON text.
//
// JSON text per row is what a nested value becomes (a rows.Column of
// Strs, null where the column is): rows carries, slices, sorts and takes
// it as it does a string, no path gains a Go value of unbounded shape (a
// map[string]any per row costs several allocations and words per element;
// the text costs its bytes), and printing it is writing it. Memory is
// bounded: a leaf holds at most maxNestedEntries entries a row group,
// the tree is at most schema.MaxNestDepth deep, and each row's text is
// linear in the entries it takes.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// NameOfID renames struct fields by Iceberg field id (the table's current
// names, after renames); nil, or false, keeps the file's name.
type NameOfID func(id int32) (string, bool)

// ReadNested decodes nested column k (FileMeta.Nested) of row group rg:
// each row's value as JSON (a struct as an object of its fields, a list
// as an array, a map as an object, keys as strings), null where the
// column is null.
func (f *File) ReadNested(rg, k int, names NameOfID) (rows.Column, error) {
	return f.meta.ReadNested(rg, k, func(start, n int64) ([]byte, error) { return f.bytes(start, n) }, names)
}

// ReadNested is File.ReadNested for a reader that fetches the leaves'
// chunks itself: chunk returns the file's bytes [start, start+n), which
// the decoded values do not alias.
func (m *FileMeta) ReadNested(rg, k int, chunk func(start, n int64) ([]byte, error), names NameOfID) (rows.Column, error) {
	if rg < 0 || rg >= len(m.RowGroups) || k < 0 || k >= len(m.Nested) {
		return rows.Column{}, fmt.Errorf("parquet: nested column %d of row group %d out of range", k, rg)
	}
	nc := &m.Nested[k]
	leaves := map[int]*leafCursor{}
	for _, c := range nc.root.leaves {
		ch, err := m.Chunk(rg, c)
		if err != nil {
			return rows.Column{}, err
		}
		b, err := chunk(m.RowGroups[rg].Columns[c].Start(), ch.Meta.TotalCompressedSize)
		if err != nil {
			return rows.Column{}, err
		}
		l := &leafCursor{typ: ch.Column.Type}
		if err := DecodeLeaf(ch, b, &l.data); err != nil {
			return rows.Column{}, fmt.Errorf("parquet: column %q, row group %d: %w", ch.Column.Name, rg, err)
		}
		leaves[c] = l
	}
	out, err := assemble(nc.root, leaves, m.RowGroups[rg].NumRows, names)
	if err != nil {
		return rows.Column{}, fmt.Errorf("parquet: column %q, row group %d: %w", nc.Name, rg, err)
	}
	return out, nil
}

// DecodeLeaf decodes every page of a nested leaf's chunk into out.
func DecodeLeaf(c *Chunk, b []byte, out *leafData) error {
	var d, dictDec PageDecoder
	var dict Dictionary
	for len(b) > 0 {
		n, err := d.decodeLeafPage(c, b, &dict, &dictDec, out)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// leafCursor walks a leaf's entries while rows are put together.
type leafCursor struct {
	data      leafData
	pos, vpos int
	typ       schema.Type

	// the JSON string of each dictionary entry, made on first use: a
	// label repeated in every row is escaped once a row group, not once
	// a row (qbuf[qoff[j]:qoff[j+1]] is entry j's)
	qbuf []byte
	qoff []int32
}

// quotedDict is dictionary entry j as a JSON string.
func (l *leafCursor) quotedDict(j int32) []byte {
	if l.qoff == nil {
		l.qoff = make([]int32, 1, len(l.data.dict)+1)
		for _, s := range l.data.dict {
			l.qbuf = appendJSONString(l.qbuf, s)
			l.qoff = append(l.qoff, int32(len(l.qbuf)))
		}
	}
	return l.qbuf[l.qoff[j]:l.qoff[j+1]]
}

type assembler struct {
	leaves []*leafCursor // by the file's leaf column: a slice, not a map (looked up for every value)
	names  NameOfID
	buf    []byte
	prim   []byte   // a shredded primitive's variant encoding (nested_variant_shred.go)
	meta   []byte   // the current variant's metadata
	vals   [][]byte // the current variant's value bytes, by depth
}

// textChunk is the bytes of rows' texts made one string together.
const textChunk = 64 << 10

// assemble puts numRows rows of the column under root together.
func assemble(root *nestedNode, byLeaf map[int]*leafCursor, numRows int64, names NameOfID) (rows.Column, error) {
	var ls []*leafCursor
	for c, l := range byLeaf {
		for len(ls) <= c {
			ls = append(ls, nil)
		}
		ls[c] = l
	}
	leaves := ls
	first := leaves[root.first]
	if int64(len(first.data.def)) < numRows {
		return rows.Column{}, fmt.Errorf("%w: %d entries for %d rows", ErrCorrupt, len(first.data.def), numRows)
	}
	a := &assembler{leaves: leaves, names: names}
	var out rows.Column
	// Rows' texts go into one buffer, made a string every textChunk
	// bytes and sliced per row: an allocation per chunk of rows rather
	// than one a row (a row's text keeps its chunk's alive while held).
	out.Strs = make([]string, numRows)
	var ends []int // the pending rows' ends in a.buf
	flush := func(next int64) {
		all := string(a.buf)
		start, first := 0, next-int64(len(ends))
		for j, end := range ends {
			out.Strs[first+int64(j)] = all[start:end]
			start = end
		}
		a.buf, ends = a.buf[:0], ends[:0]
	}
	for r := range numRows {
		start := len(a.buf)
		null, err := a.value(root)
		if err != nil {
			return rows.Column{}, fmt.Errorf("row %d: %w", r, err)
		}
		if null {
			if out.Nulls == nil {
				out.Nulls = make([]bool, r, numRows)
			}
			a.buf = a.buf[:start]
		}
		ends = append(ends, len(a.buf))
		if len(a.buf) >= textChunk {
			flush(r + 1)
		}
		if out.Nulls != nil {
			out.Nulls = append(out.Nulls, null)
		}
		// every leaf is now at the start of the next row
		for _, c := range root.leaves {
			l := leaves[c]
			if l.pos < len(l.data.rep) && l.data.rep[l.pos] != 0 {
				return rows.Column{}, fmt.Errorf("%w: row %d: leaf entries out of step (repetition level %d after the row)", ErrCorrupt, r, l.data.rep[l.pos])
			}
		}
	}
	for _, c := range root.leaves {
		if l := leaves[c]; l.pos != len(l.data.def) || l.vpos != l.data.nvals {
			return rows.Column{}, fmt.Errorf("%w: %d entries (%d values) after %d rows", ErrCorrupt, len(l.data.def)-l.pos, l.data.nvals-l.vpos, numRows)
		}
	}
	flush(numRows)
	return out, nil
}

var errStep = fmt.Errorf("%w: leaf levels end inside a row or disagree", ErrCorrupt)

// value appends the JSON of node n at the current entry to a.buf; null
// reports a null node (nothing appended).
func (a *assembler) value(n *nestedNode) (null bool, err error) {
	l := a.leaves[n.first]
	if l.pos >= len(l.data.def) {
		return false, errStep
	}
	d := l.data.def[l.pos]
	if d < n.def {
		if !n.optional {
			return false, fmt.Errorf("%w: definition level %d under a required field %q", ErrCorrupt, d, n.name)
		}
		return true, a.skip(n, n.def)
	}
	switch n.kind {
	case nLeaf:
		if d != n.def {
			return false, errStep
		}
		l.pos++
		return false, a.leafValue(l, false)
	case nVariant:
		return false, a.variantValue(n)
	case nStruct:
		a.buf = append(a.buf, '{')
		for i, c := range n.children {
			if i > 0 {
				a.buf = append(a.buf, ',')
			}
			name := c.name
			if a.names != nil && c.fieldID != 0 {
				if s, ok := a.names(c.fieldID); ok {
					name = s
				}
			}
			a.buf = appendJSONString(a.buf, name)
			a.buf = append(a.buf, ':')
			if err := a.child(c); err != nil {
				return false, err
			}
		}
		a.buf = append(a.buf, '}')
		return false, nil
	}
	open, closing := byte('['), byte(']')
	if n.kind == nMap {
		open, closing = '{', '}'
	}
	a.buf = append(a.buf, open)
	if d < n.repDef { // empty
		a.buf = append(a.buf, closing)
		return false, a.skip(n, n.repDef)
	}
	for i := 0; ; i++ {
		if i > 0 {
			a.buf = append(a.buf, ',')
		}
		if n.kind == nMap {
			kl := a.leaves[n.children[0].leaf]
			if kl.pos >= len(kl.data.def) || kl.data.def[kl.pos] != n.children[0].def {
				return false, fmt.Errorf("%w: map %q has a null key", ErrCorrupt, n.name)
			}
			kl.pos++
			if err := a.leafValue(kl, true); err != nil {
				return false, err
			}
			a.buf = append(a.buf, ':')
			if err := a.child(n.children[1]); err != nil {
				return false, err
			}
		} else if err := a.child(n.children[0]); err != nil {
			return false, err
		}
		if l.pos >= len(l.data.rep) || l.data.rep[l.pos] < n.repRep {
			break
		}
		if l.data.rep[l.pos] > n.repRep {
			return false, errStep
		}
	}
	a.buf = append(a.buf, closing)
	return false, nil
}

// child appends the value of c, "null" when it is null.
func (a *assembler) child(c *nestedNode) error {
	null, err := a.value(c)
	if null {
		a.buf = append(a.buf, "null"...)
	}
	return err
}

// skip moves past the one entry each leaf under n has where n is null or
// empty (its definition level below limit).
func (a *assembler) skip(n *nestedNode, limit uint8) error {
	for _, c := range n.leaves {
		l := a.leaves[c]
		if l.pos >= len(l.data.def) || l.data.def[l.pos] >= limit {
			return errStep
		}
		l.pos++
	}
	return nil
}

// leafValue appends l's next value as JSON (as a JSON string when asKey:
// a map's key is an object's member name).
func (a *assembler) leafValue(l *leafCursor, asKey bool) error {
	if l.vpos >= l.data.nvals {
		return errStep
	}
	i := l.vpos
	l.vpos++
	v := &l.data.vals
	if have := max(len(v.ints), len(v.floats), len(v.bools), len(v.strs)+len(l.data.idx)); i >= have {
		return errStep
	}
	var text []byte
	switch t := l.typ; {
	case t.IsTime():
		a.buf = rows.AppendJSONTime(a.buf, v.ints[i], t)
		return nil
	case t.IsInteger():
		text = strconv.AppendInt(nil, v.ints[i], 10)
	case t.IsFloat():
		bits := 64
		if t == schema.Float {
			bits = 32
		}
		if x := v.floats[i]; math.IsNaN(x) || math.IsInf(x, 0) {
			a.buf = rows.AppendJSONFloat(a.buf, x, bits) // a string already
			return nil
		}
		text = rows.AppendJSONFloat(nil, v.floats[i], bits)
	case t == schema.Boolean:
		text = strconv.AppendBool(nil, v.bools[i])
	default:
		if i < len(l.data.idx) {
			a.buf = append(a.buf, l.quotedDict(l.data.idx[i])...)
			return nil
		}
		s, ok := l.data.str(i)
		if !ok {
			return errStep
		}
		a.buf = appendJSONString(a.buf, s)
		return nil
	}
	if asKey {
		return a.quoted(text)
	}
	a.buf = append(a.buf, text...)
	return nil
}

func (a *assembler) quoted(text []byte) error {
	a.buf = appendJSONString(a.buf, string(text))
	return nil
}

// appendJSONString is rows.AppendJSONString: what a writer takes in is
// printed alike.
func appendJSONString(b []byte, s string) []byte { return rows.AppendJSONString(b, s) }

// appendMicros is rows.AppendMicrosText: a timestamp inside a nested
// value is printed as the writer's input canonicalizes it.
func appendMicros(b []byte, us int64, zone bool) []byte { return rows.AppendMicrosText(b, us, zone) }
