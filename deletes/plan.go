// Package deletes plans a delete of rows by series and time range: which
// data files go whole (every row matches, by the file's column bounds),
// which must be rewritten without the matching rows, and which are left
// alone (no row can match). It is pure: the files' metadata in, a plan out;
// package table reads and writes the files and commits.
//
//	flt, _ := scan.NewFilter(sch, &from, &to, map[string][]any{"host": {"web-1"}})
//	p := deletes.Plan(sch, flt, files)
//	// p.Drop: files whose every row matches; p.Rewrite: by partition
//
// A file whose bounds cannot tell is rewritten: reading it decides row by
// row. Rewriting (copy-on-write) is what every reader applies without
// knowing of deletes; it costs a read and a write of each file touched, so
// the plan drops whole files without reading them and leaves alone every
// file the bounds rule out.
package deletes

import (
	"slices"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// File is a live data file of the snapshot a delete plans on.
type File struct {
	Path      string
	Partition int32 // the partition number files of one are grouped by
	Rows      int64
	Bytes     int64
	DataFile  *iceberg.DataFile // its bounds and counts
}

// Result is a delete's plan.
type Result struct {
	Drop    []File           // every row matches: removed without being read
	Rewrite map[int32][]File // some rows may match: rewritten without them, by partition
	Kept    int              // files no row of which can match
	// DropRows are the rows of Drop; RewriteRows those of the files to
	// rewrite (before the delete: how many go is known once they are read).
	DropRows, RewriteRows int64
}

// Empty reports whether the plan changes nothing.
func (r *Result) Empty() bool { return len(r.Drop) == 0 && len(r.Rewrite) == 0 }

// Plan classifies files by flt, a filter of table sch's time and series
// columns.
func Plan(sch *schema.Table, flt *scan.Filter, files []File) *Result {
	r := &Result{Rewrite: map[int32][]File{}}
	timeID := sch.Fields[sch.Time].ID
	for _, f := range files {
		df := f.DataFile
		bound := func(id int) scan.Bound { return datafile.FileBound(df, id) }
		tb := bound(timeID)
		series := datafile.SeriesBounds(sch, flt, bound)
		switch {
		case !flt.MayMatch(tb, series):
			r.Kept++
		case flt.AllMatch(tb, series) && noNulls(sch, flt, df):
			r.Drop = append(r.Drop, f)
			r.DropRows += f.Rows
		default:
			r.Rewrite[f.Partition] = append(r.Rewrite[f.Partition], f)
			r.RewriteRows += f.Rows
		}
	}
	return r
}

// noNulls reports whether the file's filtered columns are known to hold
// no null (a null matches no filter value; the time and series columns of
// a keyed table are required, but another engine's file may not say so).
func noNulls(sch *schema.Table, flt *scan.Filter, df *iceberg.DataFile) bool {
	ids := []int{sch.Fields[sch.Time].ID}
	for _, sf := range flt.Series {
		if i := sch.Index(sf.Name); i >= 0 {
			ids = append(ids, sch.Fields[i].ID)
		}
	}
	for _, id := range ids {
		n, ok := df.NullCounts[int32(id)]
		if (!ok && !slices.ContainsFunc(sch.Fields, func(f schema.Field) bool { return f.ID == id && f.Required })) || n > 0 {
			return false
		}
	}
	return true
}
