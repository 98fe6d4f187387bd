package table

import (
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/iceberg"
)

// KeySuggestion is a key for Adopt read from what the table's engine
// declared, each choice with the reason for it.
type KeySuggestion struct {
	Time   string   `json:"time,omitempty"` // "" when no timestamptz column stands out
	Series []string `json:"series"`
	Why    []string `json:"why"`
}

// SuggestKey proposes a key for Adopt from the table's metadata alone (no
// data read). The time column is, in order of preference: the source of a
// year/month/day/hour partition field, the first timestamptz of the
// default sort order, a timestamptz identifier field, the only timestamptz
// column. Series columns are the string, long and int columns among the
// identifier fields, else those the default sort order puts before the
// time column, else the sources of the partition fields that are not the
// time (identity, bucket, truncate).
func (tb *Table) SuggestKey() KeySuggestion {
	md := tb.meta
	cur := md.CurrentSchema()
	byID := map[int]iceberg.SchemaField{}
	var stamps []string
	for _, f := range cur.Fields {
		byID[f.ID] = f
		if f.PrimitiveType() == "timestamptz" || f.PrimitiveType() == "timestamptz_ns" {
			stamps = append(stamps, f.Name)
		}
	}
	is := func(id int, types ...string) bool {
		f, ok := byID[id]
		return ok && slices.Contains(types, f.PrimitiveType())
	}
	ks := KeySuggestion{Series: []string{}}
	spec := md.DefaultSpec()
	var order *iceberg.SortOrder
	for i := range md.SortOrders {
		if md.SortOrders[i].OrderID == md.DefaultSortOrderID {
			order = &md.SortOrders[i]
		}
	}
	timeID := 0
	choose := func(id int, why string) {
		if timeID == 0 && is(id, "timestamptz", "timestamptz_ns") {
			timeID = id
			ks.Time = byID[id].Name
			ks.Why = append(ks.Why, fmt.Sprintf("time %s: %s", ks.Time, why))
		}
	}
	for _, f := range spec.Fields {
		switch f.Transform {
		case "year", "month", "day", "hour":
			choose(f.SourceID, fmt.Sprintf("the table is partitioned by %s(%s)", f.Transform, byID[f.SourceID].Name))
		}
	}
	if order != nil {
		for _, f := range order.Fields {
			choose(f.SourceID, "the first timestamp of the table's sort order")
		}
	}
	for _, id := range cur.IdentifierFieldIDs {
		choose(id, "an identifier field of the schema")
	}
	if len(stamps) == 1 {
		for _, f := range cur.Fields {
			if f.Name == stamps[0] {
				choose(f.ID, "the only timestamptz column")
			}
		}
	}
	if timeID == 0 {
		ks.Why = append(ks.Why, fmt.Sprintf("no time column stands out (timestamptz columns: %s): give --time", strings.Join(stamps, ", ")))
	}
	add := func(ids []int, why string) bool {
		var names []string
		for _, id := range ids {
			if id != timeID && is(id, "string", "long", "int") && !slices.Contains(names, byID[id].Name) {
				names = append(names, byID[id].Name)
			}
		}
		if len(names) == 0 {
			return false
		}
		ks.Series = names
		ks.Why = append(ks.Why, fmt.Sprintf("series %s: %s", strings.Join(names, ","), why))
		return true
	}
	var before, parts []int
	if order != nil {
		for _, f := range order.Fields {
			if f.SourceID == timeID {
				break
			}
			before = append(before, f.SourceID)
		}
	}
	for _, f := range spec.Fields {
		switch {
		case f.Transform == "identity", strings.HasPrefix(f.Transform, "bucket["), strings.HasPrefix(f.Transform, "truncate["):
			parts = append(parts, f.SourceID)
		}
	}
	switch {
	case add(cur.IdentifierFieldIDs, "the schema's identifier fields"):
	case add(before, "the sort order puts them before the time"):
	case add(parts, "the table is partitioned by them"):
	default:
		ks.Why = append(ks.Why, "no series columns stand out: one series, or give --series")
	}
	return ks
}
