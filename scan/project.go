package scan

import "github.com/timelake/timelake/schema"

// Projection is the schema of the batches a scan of t projected to cols
// hands out — the time and series columns, then cols (or, with none, every
// column but _ingest_ts), in table order — for outputs that need it before
// any batch comes, or when none does (an empty result still has columns).
// Unknown names in cols are left out: the scan itself refuses them.
func Projection(t *schema.Table, cols []string) *schema.Table {
	want := make([]bool, len(t.Fields))
	if t.Time >= 0 {
		want[t.Time] = true
	}
	for _, s := range t.Series {
		want[s] = true
	}
	for i := range want {
		want[i] = want[i] || len(cols) == 0 && i != t.Ingest
	}
	for _, c := range cols {
		if i := t.Index(c); i >= 0 {
			want[i] = true
		}
	}
	return Subset(t, func(i int) bool { return want[i] })
}

// Subset is t with the fields keep says, in table order; keep must keep
// the time and series fields. _ingest_ts stays the ingest field when kept.
func Subset(t *schema.Table, keep func(i int) bool) *schema.Table {
	s := &schema.Table{Partition: t.Partition, Ingest: -1}
	at := map[int]int{}
	for i, f := range t.Fields {
		if keep(i) {
			at[i] = len(s.Fields)
			s.Fields = append(s.Fields, f)
		}
	}
	s.Time = -1 // a table without a key (HasKey) stays without one
	if t.Time >= 0 {
		s.Time = at[t.Time]
	}
	for _, x := range t.Series {
		s.Series = append(s.Series, at[x])
	}
	if k, ok := at[t.Ingest]; ok && t.Ingest >= 0 {
		s.Ingest = k
	}
	return s
}
