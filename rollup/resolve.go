package rollup

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// A rollup follows its raw table's schema (docs/decisions/rollups.md,
// "Following the raw schema"):
//
//   - An aggregated column is found by the Iceberg field id recorded when
//     the rollup was added (Agg.FieldID, SuffixFieldIDs), so a rename (by
//     Timelake's alter, Spark's RENAME COLUMN, pyiceberg's rename_column)
//     changes nothing; a definition written before ids were recorded finds
//     it by name.
//   - The time and series columns are found by their roles, which the raw
//     table itself follows by field id (iceberg.TableFromMetadata); the
//     rollup's series columns match the raw ones by position.
//   - The rollup table's own column names stay as created (cpu_min after
//     cpu is renamed cpu_pct): the rollup is a table other engines query,
//     and renaming its columns under them would break their queries.
//   - A widened raw column (int → long, float → double) widens the rollup
//     columns that carry its values (min, max, first, last): Conform says
//     which, and the refresh commits that schema change to the rollup
//     table first.
//   - A dropped aggregated column fails the refresh with
//     ROLLUP_COLUMN_DROPPED naming the rollup and the column, and the
//     rollup stays as it was: keeping nulls from then on would overwrite a
//     bucket's stored aggregates with nulls as soon as a late row made it
//     recomputed.

// CodeColumnDropped: an aggregated raw column is no longer in the table.
// persisted (in user scripts): must not change.
const CodeColumnDropped = "ROLLUP_COLUMN_DROPPED"

// source is the index in raw of a's column: by field id when the
// definition recorded one, else by name.
func source(raw *schema.Table, d Def, a Agg) (int, error) {
	if a.FieldID > 0 {
		for i, f := range raw.Fields {
			if f.ID == a.FieldID {
				return i, nil
			}
		}
		return -1, &Error{Code: CodeColumnDropped, Key: d.Name, Msg: fmt.Sprintf(
			"column %s (field id %d), which this rollup aggregates, was dropped from the table: drop the rollup and add it again without that column (its table keeps what was refreshed so far)", a.Column, a.FieldID)}
	}
	if i := raw.Index(a.Column); i >= 0 {
		return i, nil
	}
	return -1, bad(Key(d.Name, SuffixAggs), "no column %q in the table", a.Column)
}

// Bind records the field ids of d's columns in raw (found by name), as
// AddRollup does before storing d. A column raw does not have is a
// BAD_ROLLUP error naming it.
func Bind(raw *schema.Table, d Def) (Def, error) {
	aggs := make([]Agg, len(d.Aggs))
	for k, a := range d.Aggs {
		a.FieldID = 0
		i, err := source(raw, d, a)
		if err != nil {
			return d, err
		}
		a.FieldID = raw.Fields[i].ID
		aggs[k] = a
	}
	d.Aggs = aggs
	return d, nil
}

// HasFieldIDs reports whether d recorded its columns' field ids.
func (d Def) HasFieldIDs() bool { return d.fieldIDString() != "" }

// SourceColumns are the current names in raw of d's aggregated columns, in
// d's order: what a refresh scans.
func SourceColumns(raw *schema.Table, d Def) ([]string, error) {
	out := make([]string, len(d.Aggs))
	for k, a := range d.Aggs {
		i, err := source(raw, d, a)
		if err != nil {
			return nil, err
		}
		out[k] = raw.Fields[i].Name
	}
	return out, nil
}

// Widening is a rollup column to widen to Type, following its raw column.
type Widening struct {
	Column string
	Type   schema.Type
}

// Conform checks the rollup table's schema ru against d over the raw
// schema raw as it is now: the series columns (by position, same types),
// bucket, row_count and each aggregate column (by its name as created).
// An aggregate column narrower than it now must be, by a promotion
// Iceberg allows (int → long, float → double), is returned to widen; any
// other difference is an error.
func Conform(ru, raw *schema.Table, d Def) ([]Widening, error) {
	cols, err := Columns(raw, d)
	if err != nil {
		return nil, err
	}
	if len(ru.Series) != len(raw.Series) {
		return nil, fmt.Errorf("the rollup table has %d series columns, the table %d", len(ru.Series), len(raw.Series))
	}
	for k, s := range raw.Series {
		if got, want := ru.Fields[ru.Series[k]], raw.Fields[s]; got.Type != want.Type {
			return nil, fmt.Errorf("series column %s of the rollup table is %v, the table's %s is %v", got.Name, got.Type, want.Name, want.Type)
		}
	}
	if ru.TimeField().Name != BucketColumn || ru.TimeField().Type != schema.Timestamptz {
		return nil, fmt.Errorf("the rollup table's time column is %s, not %s", ru.TimeField().Name, BucketColumn)
	}
	if i := ru.Index(CountColumn); i < 0 || ru.Fields[i].Type != schema.Long {
		return nil, fmt.Errorf("the rollup table has no %s column of type long", CountColumn)
	}
	var widen []Widening
	for _, c := range cols {
		i := ru.Index(c.Name)
		if i < 0 {
			return nil, fmt.Errorf("the rollup table has no column %s", c.Name)
		}
		switch got := ru.Fields[i].Type; {
		case got == c.Type:
		case got == schema.Int && c.Type == schema.Long, got == schema.Float && c.Type == schema.Double:
			widen = append(widen, Widening{Column: c.Name, Type: c.Type})
		default:
			return nil, fmt.Errorf("column %s of the rollup table is %v, its aggregate of %s (%v) is %v", c.Name, got, c.Source, c.SourceType, c.Type)
		}
	}
	return widen, nil
}
