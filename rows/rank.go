package rows

// Rank is what the dedup rule compares between rows of the same key
// (series…, time): the row's _ingest_ts — absent (HasIngest false) for a
// row another engine wrote without it, e.g. a Spark INSERT of only the
// user's columns — and the data sequence number of the file that holds it.
// The rule (README "Duplicates", docs/decisions/ingest-ts-optional.md):
//
//   - both rows have _ingest_ts: the greater wins, then the greater data
//     sequence number (the rule of every table before _ingest_ts was
//     optional, unchanged);
//   - otherwise the greater data sequence number wins, and at the same
//     data sequence number the row with _ingest_ts wins.
//
// Rows of equal rank: neither beats the other; the caller keeps its own
// order's last (within one append, the last row for a key wins).
type Rank struct {
	Ingest    int64 // _ingest_ts, microseconds; meaningless when !HasIngest
	HasIngest bool
	Seq       int64 // data sequence number of the row's file
}

// Beats reports whether the row ranked a wins over the row ranked b.
func (a Rank) Beats(b Rank) bool {
	if a.HasIngest && b.HasIngest {
		if a.Ingest != b.Ingest {
			return a.Ingest > b.Ingest
		}
		return a.Seq > b.Seq
	}
	if a.Seq != b.Seq {
		return a.Seq > b.Seq
	}
	return a.HasIngest && !b.HasIngest
}

// Winner returns the index of the winning rank among the ranks of
// duplicates (at least one). Beats alone is not transitive once rows
// without _ingest_ts mix with rows whose _ingest_ts and sequence number
// disagree (a compacted file's new sequence number, a writer's clock
// behind), so a group is decided as a whole, independently of its order:
// W is the best row with _ingest_ts (greatest _ingest_ts, then sequence
// number), N the row without it of the greatest sequence number; N wins
// when its sequence number is greater than W's. Ties keep the last index.
// For two rows, Winner agrees with Beats.
func Winner(ranks []Rank) int {
	w, n := -1, -1
	for i, r := range ranks {
		if r.HasIngest {
			if w < 0 || !ranks[w].Beats(r) {
				w = i
			}
		} else if n < 0 || r.Seq >= ranks[n].Seq {
			n = i
		}
	}
	switch {
	case w < 0:
		return n
	case n < 0:
		return w
	case ranks[n].Seq > ranks[w].Seq:
		return n
	}
	return w
}
