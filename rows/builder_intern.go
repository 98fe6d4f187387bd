package rows

// maxIntern bounds each column's intern table; past it, strings are copied.
const (
	maxIntern    = 4096
	maxInternLen = 64
)

// internBytes returns p as a string owned by the batch, sharing one copy
// among equal short values of the column.
func (b *Builder) internBytes(col int, p []byte) string {
	if len(p) > maxInternLen {
		return string(p)
	}
	m := b.intern[col]
	if s, ok := m[string(p)]; ok {
		return s
	}
	s := string(p)
	if m == nil {
		m = make(map[string]string)
		b.intern[col] = m
	}
	if len(m) < maxIntern {
		m[s] = s
	}
	return s
}
