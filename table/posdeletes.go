package table

import (
	"context"
	"fmt"
	"slices"
	"strings"

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

// maxPositionDeletes bounds the positions one merge holds (8 bytes each):
// a partition with more is left for an engine that streams them.
const maxPositionDeletes = 4 << 20

// parsePositionDeletes reads a position delete file and calls each for
// every (file_path, pos) row.
func parsePositionDeletes(data []byte, each func(path string, pos int64) error) error {
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

// positionDeletes reads the delete files of m and returns, for each of
// m's data files they apply to (data sequence number ≤ the delete
// file's), its deleted positions, sorted and unique.
func (tb *Table) positionDeletes(ctx context.Context, m maintenance.Merge, bytesRead *int64) (map[string]*deletedRows, error) {
	if len(m.Deletes) == 0 {
		return nil, nil
	}
	seqOf := map[string]int64{}
	for _, f := range m.Files {
		seqOf[locationKey(f.Path)] = f.Seq
	}
	out := map[string]*deletedRows{}
	total := 0
	for _, d := range m.Deletes {
		key, err := tb.keyOf(d.Path)
		if err != nil {
			return nil, err
		}
		data, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("read position delete file: %w", err)
		}
		*bytesRead += int64(len(data))
		err = parsePositionDeletes(data, func(path string, pos int64) error {
			seq, ok := seqOf[locationKey(path)]
			if !ok || seq > d.Seq {
				return nil // another partition's file, or one written after the delete
			}
			if total++; total > maxPositionDeletes {
				return fmt.Errorf("more than %d position deletes in one partition", maxPositionDeletes)
			}
			k := locationKey(path)
			if out[k] == nil {
				out[k] = &deletedRows{}
			}
			out[k].pos = append(out[k].pos, pos)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorruptTable, key, err)
		}
	}
	for _, d := range out {
		slices.Sort(d.pos)
		d.pos = slices.Compact(d.pos)
	}
	return out, nil
}

// locationKey is what names a data file in a delete file: its path
// without the scheme's slashes, so that file:/p and file:///p match.
func locationKey(p string) string {
	if i := strings.Index(p, ":"); i >= 0 && !strings.Contains(p[:i], "/") {
		p = p[i+1:]
	}
	return strings.TrimLeft(p, "/")
}

// deletedRows are a data file's deleted positions, asked in increasing
// order (has keeps its place).
type deletedRows struct {
	pos []int64
	i   int
}

// has reports whether row x is deleted; x must not decrease between calls.
func (d *deletedRows) has(x int64) bool {
	for d.i < len(d.pos) && d.pos[d.i] < x {
		d.i++
	}
	return d.i < len(d.pos) && d.pos[d.i] == x
}
