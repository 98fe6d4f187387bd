package table

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/deletes"
	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
)

// Deletes in a format 3 table by deletion vector. A file that loses a
// small share of its rows keeps them on storage and gets a deletion vector
// naming their positions (merged with the one it has): the delete then
// reads the file once and writes a few bytes, where a rewrite would write
// the file again. Past DVMaxShare of a file's rows, or with --purge (whose
// point is that the bytes go), the file is rewritten instead. Format 2
// tables are always rewritten: position delete files would ask readers to
// apply them, and DuckDB 1.4's do not (docs/decisions/deletes.md).

// DVMaxShare is the share of a file's rows up to which a delete in a
// format 3 table writes a deletion vector rather than rewriting it.
const DVMaxShare = 0.5

// dvPlan is what the deletion vectors of a delete hold.
type dvPlan struct {
	dvs     []datafile.NewDV
	rewrite map[int32][]deletes.File // the files to rewrite after all
}

// planDVs splits plan.Rewrite into deletion vectors and rewrites. A
// partition with position delete files (other than deletion vectors) or
// rows without _ingest_ts is rewritten whole, as without vectors.
func (tb *Table) planDVs(ctx context.Context, flt *scan.Filter, plan *deletes.Result, in maintenance.Input, sf *snapshotFiles) (*dvPlan, error) {
	out := &dvPlan{rewrite: map[int32][]deletes.File{}}
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return nil, err
	}
	matches := flt.Matcher(tb.schema)
	for _, p := range slices.Sorted(maps.Keys(plan.Rewrite)) {
		eligible := true
		for _, d := range in.Deletes {
			eligible = eligible && (d.Partition != p || d.DV)
		}
		for _, f := range in.Files {
			eligible = eligible && (f.Partition != p || !f.NullIngest)
		}
		if !eligible {
			out.rewrite[p] = plan.Rewrite[p]
			continue
		}
		for _, f := range plan.Rewrite[p] {
			pos, err := tb.matchPositions(ctx, f, names, matches)
			if err != nil {
				return nil, err
			}
			switch {
			case len(pos) == 0:
			case float64(len(pos)) > DVMaxShare*float64(f.Rows):
				out.rewrite[p] = append(out.rewrite[p], f)
			default:
				v, err := deletionvector.Of(pos...)
				if err != nil {
					return nil, err
				}
				out.dvs = append(out.dvs, datafile.NewDV{Data: sf.live[f.Path], Positions: v})
			}
		}
	}
	return out, nil
}

// matchPositions reads the time and series columns of f in file order and
// returns the positions of the rows matches keeps.
func (tb *Table) matchPositions(ctx context.Context, f deletes.File, names map[string]int, matches func(b *rows.Batch, i int) bool) ([]int64, error) {
	key, err := tb.keyOf(f.Path)
	if err != nil {
		return nil, err
	}
	var read int64
	rf, err := datafile.Open(ctx, tb.st, key, f.Bytes, tb.schema, names, &read)
	if err != nil {
		return nil, err
	}
	var dec parquet.PageDecoder
	c := datafile.NewCursor(rf, tb.schema, &dec, 0, mergeWindowRows, mergeReadBudget)
	c.AnyOrder = true
	var pos []int64
	for {
		ok, err := c.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return pos, nil
		}
		view := &rows.Batch{Schema: tb.schema, Cols: c.Cols, Len: c.N}
		base := c.Rows - int64(c.N)
		for r := range c.N {
			if matches(view, r) {
				pos = append(pos, base+int64(r))
			}
		}
	}
}

// writeDeleteDVs builds the Puffin file of dvs (merged with the live
// vectors of their data files) and uploads it; the returned mergeResult
// holds its key, for deleteOutputs should the delete not commit.
func (tb *Table) writeDeleteDVs(ctx context.Context, dvs []datafile.NewDV, live []maintenance.File, dc *deleteCommit) (*mergeResult, error) {
	id, err := tb.env.uuid()
	if err != nil {
		return nil, err
	}
	key := "data/" + id + "-deletes.puffin"
	var read int64
	w, err := datafile.WriteDVs(ctx, tb.st, tb.keyOf, tb.location(key), dvs, live, indexCreatedBy, &read)
	if err != nil {
		return nil, err
	}
	if err := tb.st.Put(ctx, key, w.Puffin); err != nil {
		return nil, fmt.Errorf("upload %s: %w", key, err)
	}
	dc.addedDeletes, dc.replaced = w.Entries, w.Replaced
	dc.sawDeletes = map[string]bool{}
	for _, d := range live {
		dc.sawDeletes[d.Key()] = true
	}
	return &mergeResult{keys: []string{key}}, nil
}
