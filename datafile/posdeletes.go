package datafile

import (
	"context"
	"fmt"
	"slices"

	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// Position delete files (Iceberg spec "Position Delete Files"): Parquet
// files of rows (file_path string, pos long) — field ids 2147483546 and
// 2147483545 — each deleting row pos (0-based, in file order) of the data
// file at file_path, for data files whose data sequence number is at most
// the delete file's. Compaction merges a partition with position deletes
// whole and leaves the deleted rows out (docs/decisions/foreign-tables.md).

// Iceberg's reserved field ids of a position delete file. persisted.
const (
	fieldIDDeleteFilePath = 2147483546
	fieldIDDeletePos      = 2147483545
)

// Deletion vectors (format v3) are read by readDVs (dvdeletes.go), and
// PositionDeletes applies both.

// ParsePositionDeletes reads a position delete file and calls each for
// every (file_path, pos) row.
func ParsePositionDeletes(data []byte, each func(path string, pos int64) error) error {
	f, err := parquet.Open(data)
	if err != nil {
		return err
	}
	pathCol, posCol := -1, -1
	for i, c := range f.Schema() {
		switch {
		case c.FieldID == fieldIDDeleteFilePath || (c.FieldID == 0 && c.Name == "file_path"):
			pathCol = i
		case c.FieldID == fieldIDDeletePos || (c.FieldID == 0 && c.Name == "pos"):
			posCol = i
		}
	}
	if pathCol < 0 || posCol < 0 {
		return fmt.Errorf("not a position delete file: no file_path and pos columns")
	}
	if t := f.Schema()[pathCol].Type; t != schema.String {
		return fmt.Errorf("position delete file: file_path is %v, want string", t)
	}
	if t := f.Schema()[posCol].Type; !t.IsInteger() {
		return fmt.Errorf("position delete file: pos is %v, want long", t)
	}
	for rg := range f.NumRowGroups() {
		paths, err := f.ReadColumn(rg, pathCol)
		if err != nil {
			return err
		}
		pos, err := f.ReadColumn(rg, posCol)
		if err != nil {
			return err
		}
		if paths.Nulls != nil || pos.Nulls != nil {
			for i := range paths.Nulls {
				if paths.Nulls[i] {
					return fmt.Errorf("position delete file: file_path is null")
				}
			}
			for i := range pos.Nulls {
				if pos.Nulls[i] {
					return fmt.Errorf("position delete file: pos is null")
				}
			}
		}
		if len(paths.Strs) != len(pos.Ints) {
			return fmt.Errorf("position delete file: row group %d has %d paths and %d positions", rg, len(paths.Strs), len(pos.Ints))
		}
		for i, p := range paths.Strs {
			if pos.Ints[i] < 0 {
				return fmt.Errorf("position delete file: pos %d is negative", pos.Ints[i])
			}
			if err := each(p, pos.Ints[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteLimits bound what reading position deletes holds: positions (8
// bytes each, counted as they apply) and the bytes of one delete file.
type DeleteLimits struct {
	Positions int
	FileBytes int64
	What      string // who is bounded, for the error: "one partition", …
}

// PositionDeletes reads, through st, the position delete files and the
// deletion vectors (File.DV) dels and returns, for each of the data files
// files they apply to, its deleted positions, sorted and unique, by the
// data file's store key. A data file with a deletion vector that applies
// takes its positions from it alone (readDVs). A delete row
// applies to a data file when its file_path is the same place (keyOf maps
// both to store keys: Spark writes file:/p, we file:///p) and the data
// file's data sequence
// number is at most the delete file's (Iceberg spec, "Scan Planning").
// This is the one place that decides which deletes apply to which file:
// compaction and the index catch-up both ask it. Past lim it fails with
// iceberg.ErrUnsupported naming the limit.
func PositionDeletes(ctx context.Context, st store.Store, keyOf func(path string) (string, error), files, dels []maintenance.File, lim DeleteLimits, bytesRead *int64) (map[string]*Deleted, error) {
	if len(dels) == 0 {
		return nil, nil
	}
	seqOf := map[string]int64{}
	for _, f := range files {
		key, err := keyOf(f.Path)
		if err != nil {
			return nil, err
		}
		seqOf[key] = f.Seq
	}
	total := 0
	var dvs []maintenance.File
	for _, d := range dels {
		if d.DV {
			dvs = append(dvs, d)
		}
	}
	vectors, err := readDVs(ctx, st, keyOf, seqOf, dvs, lim, &total, bytesRead)
	if err != nil {
		return nil, err
	}
	out := map[string]*Deleted{}
	for key, v := range vectors {
		out[key] = &Deleted{dv: v}
	}
	for _, d := range dels {
		if d.DV {
			continue
		}
		key, err := keyOf(d.Path)
		if err != nil {
			return nil, err
		}
		if d.Size > lim.FileBytes {
			return nil, fmt.Errorf("%w: position delete file %s is %d bytes, over the %d bytes %s reads of one; a compaction applies it", iceberg.ErrUnsupported, key, d.Size, lim.FileBytes, lim.What)
		}
		data, err := store.GetLimited(ctx, st, key, min(lim.FileBytes, MaxFileBytes))
		if err != nil {
			return nil, fmt.Errorf("read position delete file: %w", err)
		}
		*bytesRead += int64(len(data))
		var tooMany error
		lastPath, lastKey, looked := "", "", false
		err = ParsePositionDeletes(data, func(path string, pos int64) error {
			if path != lastPath || !looked { // the rows of a delete file are sorted by path
				// a path outside the table names none of its files
				lastPath, lastKey, looked = path, "", true
				if k, err := keyOf(path); err == nil {
					lastKey = k
				}
			}
			seq, ok := seqOf[lastKey]
			if !ok || seq > d.Seq {
				return nil // another file's, or one written after the delete
			}
			if vectors[lastKey] != nil {
				return nil // a deletion vector holds the file's deletes
			}
			if total++; total > lim.Positions {
				tooMany = fmt.Errorf("%w: more than %d position deletes in %s (%s); a compaction applies them", iceberg.ErrUnsupported, lim.Positions, lim.What, key)
				return tooMany
			}
			if out[lastKey] == nil {
				out[lastKey] = &Deleted{}
			}
			out[lastKey].pos = append(out[lastKey].pos, pos)
			return nil
		})
		if tooMany != nil {
			return nil, tooMany
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, key, err)
		}
	}
	for _, d := range out {
		slices.Sort(d.pos)
		d.pos = slices.Compact(d.pos)
	}
	return out, nil
}

// Deleted are a data file's deleted positions, asked in increasing
// order (has keeps its place): from position delete files, or the file's
// deletion vector.
type Deleted struct {
	pos []int64
	i   int
	dv  *deletionvector.Vector
}

// Count is the number of deleted positions.
func (d *Deleted) Count() int {
	if d.dv != nil {
		return int(d.dv.Cardinality())
	}
	return len(d.pos)
}

// Contains reports whether row x is deleted, in any order of calls.
func (d *Deleted) Contains(x int64) bool {
	if d.dv != nil {
		return d.dv.Contains(x)
	}
	_, ok := slices.BinarySearch(d.pos, x)
	return ok
}

// Has reports whether row x is deleted; x must not decrease between calls.
func (d *Deleted) Has(x int64) bool {
	if d.dv != nil {
		return d.dv.Contains(x)
	}
	for d.i < len(d.pos) && d.pos[d.i] < x {
		d.i++
	}
	return d.i < len(d.pos) && d.pos[d.i] == x
}
