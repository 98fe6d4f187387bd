package parquet

// Labels repeat: a series' map of labels is the same text row after row,
// and a table of many series holds few distinct texts beside its row
// count. Parsing a text costs far more than looking it up, so the
// shredder keeps what each recent text gave every leaf (its levels and
// values) and replays that for the same text: byte for byte what parsing
// and shredding it again would append.

// memoMaxEntries is how many texts a column remembers (a variable for
// the tests, which compare files written with and without the memo).
var memoMaxEntries = 1024

const memoMaxText = 2048 // longer texts are not remembered

// leafRun is what one value gave one leaf: its (repetition, definition)
// pairs, its non-null values and how many of its entries are nulls.
type leafRun struct {
	reps, defs []uint32
	ints       []int64
	floats     []float64
	bools      []bool
	strs       []string
	nulls      int
}

// leafMark is a leaf's lengths before a value is shredded.
type leafMark struct{ levels, ints, floats, bools, strs, nulls int }

// shredMemo maps a value's text to its runs, one per leaf.
type shredMemo struct {
	runs         map[string][]leafRun
	hits, misses int
	marks        []leafMark
}

// lookup returns text's runs when remembered. It stops looking once the
// memo is full and misses outnumber hits: texts that never repeat then
// cost no hashing.
func (m *shredMemo) lookup(text string) ([]leafRun, bool) {
	if len(text) > memoMaxText || (len(m.runs) >= memoMaxEntries && m.hits < m.misses) {
		return nil, false
	}
	runs, ok := m.runs[text]
	if ok {
		m.hits++
	} else {
		m.misses++
	}
	return runs, ok
}

// replay appends runs to the leaves as shredding their text would.
func (nc *nestedCol) replay(runs []leafRun) {
	for i, r := range runs {
		l := nc.leaves[i]
		l.reps, l.defs = append(l.reps, r.reps...), append(l.defs, r.defs...)
		l.pageNulls += r.nulls
		v := &nc.vals[i]
		v.Ints, v.Floats = append(v.Ints, r.ints...), append(v.Floats, r.floats...)
		v.Bools, v.Strs = append(v.Bools, r.bools...), append(v.Strs, r.strs...)
	}
}

// mark notes each leaf's lengths before a value is shredded.
func (nc *nestedCol) mark() {
	m := &nc.memo
	if len(m.marks) != len(nc.leaves) {
		m.marks = make([]leafMark, len(nc.leaves))
	}
	for i, l := range nc.leaves {
		v := &nc.vals[i]
		m.marks[i] = leafMark{len(l.reps), len(v.Ints), len(v.Floats), len(v.Bools), len(v.Strs), l.pageNulls}
	}
}

// remember keeps what the value text just shredded gave each leaf (since
// mark), while the memo has room.
func (nc *nestedCol) remember(text string) {
	m := &nc.memo
	if len(text) > memoMaxText || len(m.runs) >= memoMaxEntries {
		return
	}
	if m.runs == nil {
		m.runs = make(map[string][]leafRun)
	}
	runs := make([]leafRun, len(nc.leaves))
	for i, l := range nc.leaves {
		k, v := m.marks[i], &nc.vals[i]
		runs[i] = leafRun{
			reps:   append([]uint32(nil), l.reps[k.levels:]...),
			defs:   append([]uint32(nil), l.defs[k.levels:]...),
			ints:   append([]int64(nil), v.Ints[k.ints:]...),
			floats: append([]float64(nil), v.Floats[k.floats:]...),
			bools:  append([]bool(nil), v.Bools[k.bools:]...),
			strs:   append([]string(nil), v.Strs[k.strs:]...),
			nulls:  l.pageNulls - k.nulls,
		}
	}
	m.runs[text] = runs
}
