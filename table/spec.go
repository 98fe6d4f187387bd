package table

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/partition"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Writing into any partition spec.
//
// A table Timelake creates is partitioned by one day, hour or month of the
// time column (schema.Table.Partition): its rows are split by that
// transform alone, and each file's partition is DataFile.Partition. An
// adopted table keeps the spec its engine gave it — several fields, any of
// Iceberg's transforms (package partition) of the time and series columns
// (iceberg.WritableSpec) — and a spec another engine evolves to is followed:
// appends write the current default spec. Each row's partition is then the
// tuple of its fields' values, the rows are grouped by it before the key
// (rows.SortDedupBy), each group is written to files under
// data/<field>=<value>/…/, and each file's tuple is DataFile.PartitionValues.

// writeSpec is the default partition spec over the table's schema.
type writeSpec struct {
	spec   *iceberg.PartitionSpec
	fields []specField
}

type specField struct {
	name string
	tr   partition.Transform
	col  int         // the source column's index in the schema
	typ  schema.Type // its type
}

// writeSpec is the spec appends write, for a table whose spec is not
// Timelake's own (schema.Table.Partition 0); WriteSupport has checked it.
func (tb *Table) writeSpec() (*writeSpec, error) {
	spec := tb.meta.DefaultSpec()
	ws := &writeSpec{spec: spec}
	for _, f := range spec.Fields {
		tr, err := partition.Parse(f.Transform)
		if err != nil {
			return nil, fmt.Errorf("%w: partition field %s: %v", ErrUnsupportedTable, f.Name, err)
		}
		i := tb.schema.IndexOfID(f.SourceID)
		if i < 0 {
			return nil, fmt.Errorf("%w: partition field %s: source column %d is not in the schema", ErrUnsupportedTable, f.Name, f.SourceID)
		}
		ws.fields = append(ws.fields, specField{name: f.Name, tr: tr, col: i, typ: tb.schema.Fields[i].Type})
	}
	return ws, nil
}

// tuple is row i's partition values (into vals, reused).
func (ws *writeSpec) tuple(b *rows.Batch, i int, vals []any) []any {
	vals = vals[:0]
	for _, f := range ws.fields {
		c := &b.Cols[f.col]
		var v any
		switch {
		case c.IsNull(i):
		case f.typ.IsInteger():
			v = c.Ints[i]
		case f.typ.IsFloat():
			v = c.Floats[i]
		case f.typ == schema.Boolean:
			v = c.Bools[i]
		default:
			v = c.Strs[i]
		}
		vals = append(vals, f.tr.Apply(f.typ, v))
	}
	return vals
}

// appendKey encodes a tuple so that equal tuples, and only they, are equal.
func appendKey(dst []byte, vals []any) []byte {
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			dst = append(dst, 0)
		case int64:
			dst = binary.LittleEndian.AppendUint64(append(dst, 1), uint64(x))
		case float64:
			dst = binary.LittleEndian.AppendUint64(append(dst, 2), math.Float64bits(x))
		case bool:
			dst = append(dst, 3, map[bool]byte{false: 0, true: 1}[x])
		case string:
			dst = binary.AppendUvarint(append(dst, 4), uint64(len(x)))
			dst = append(dst, x...)
		}
	}
	return dst
}

// appendRowKey encodes row i's partition tuple, without boxing its values
// (the per-row path of ranks and split: Apply's any costs an allocation a
// row); equal tuples, and only they, give equal keys.
func (ws *writeSpec) appendRowKey(dst []byte, b *rows.Batch, i int) []byte {
	for _, f := range ws.fields {
		c := &b.Cols[f.col]
		switch {
		case c.IsNull(i) || f.tr.Kind == partition.Void:
			dst = append(dst, 0)
		case f.typ.IsInteger():
			dst = binary.LittleEndian.AppendUint64(append(dst, 1), uint64(f.tr.ApplyInt(f.typ, c.Ints[i])))
		case f.typ == schema.String:
			n, str := f.tr.ApplyString(c.Strs[i])
			if f.tr.Kind == partition.Bucket {
				dst = binary.LittleEndian.AppendUint64(append(dst, 1), uint64(n))
				break
			}
			dst = binary.AppendUvarint(append(dst, 4), uint64(len(str)))
			dst = append(dst, str...)
		case f.typ.IsFloat(): // identity only
			dst = binary.LittleEndian.AppendUint64(append(dst, 2), math.Float64bits(c.Floats[i]))
		default: // boolean, identity only
			dst = append(dst, 3, map[bool]byte{false: 0, true: 1}[c.Bools[i]])
		}
	}
	return dst
}

// ranks maps each row of b to its partition: parts[i] indexes tuples, in
// order of first appearance.
func (ws *writeSpec) ranks(b *rows.Batch) (parts []uint32, tuples [][]any) {
	parts = make([]uint32, b.Len)
	seen := map[string]uint32{}
	var key, last []byte
	var lastRank uint32
	for i := range parts {
		key = ws.appendRowKey(key[:0], b, i)
		if i > 0 && string(key) == string(last) { // rows of a partition mostly come together
			parts[i] = lastRank
			continue
		}
		r, ok := seen[string(key)]
		if !ok {
			r = uint32(len(tuples))
			seen[string(key)] = r
			tuples = append(tuples, ws.tuple(b, i, nil))
		}
		parts[i], lastRank, last = r, r, append(last[:0], key...)
	}
	return parts, tuples
}

// sortDedup is rows.SortDedup grouping by the spec's partitions.
func (ws *writeSpec) sortDedup(b *rows.Batch) *rows.Batch {
	parts, tuples := ws.ranks(b)
	return rows.SortDedupBy(b, parts, uint64(max(len(tuples), 1)))
}

// specRun is a run of rows of one partition tuple.
type specRun struct {
	values     []any
	start, end int
}

// split returns the runs of rows of b (sorted by sortDedup) of one tuple.
func (ws *writeSpec) split(b *rows.Batch) []specRun {
	var out []specRun
	var key, prev []byte
	for i := 0; i < b.Len; i++ {
		key = ws.appendRowKey(key[:0], b, i)
		if len(out) > 0 && string(key) == string(prev) {
			out[len(out)-1].end = i + 1
			continue
		}
		out = append(out, specRun{values: ws.tuple(b, i, nil), start: i, end: i + 1})
		prev = append(prev[:0], key...)
	}
	return out
}

// dir is the directory of a partition's files: data/ then field=value per
// field, values in Iceberg's human form, escaped for a path.
func (ws *writeSpec) dir(values []any) string {
	var sb strings.Builder
	sb.WriteString("data/")
	for k, f := range ws.fields {
		sb.WriteString(url.PathEscape(f.name))
		sb.WriteByte('=')
		sb.WriteString(url.PathEscape(f.tr.Human(f.typ, values[k])))
		sb.WriteByte('/')
	}
	return sb.String()
}

// Maintenance of a table of any spec.
//
// Package maintenance plans by partition value (an int32: Timelake's time
// ordinal) and asks each value's time range. For another engine's spec the
// Table numbers the partition tuples of the default spec it meets
// (specParts: the same tuple keeps its number for the Table's life, so a
// plan still names the right partition after a rebase), and a tuple's time
// range is that of its time field (year to hour, or identity, of the time
// column); a spec without one has partitions that are never cold and never
// dropped by retention (its files are still merged when there are
// timelake.compact-min-files of them).
type specParts struct {
	ids    map[string]int32
	values [][]any
}

// specPartID numbers a tuple of the default spec.
func (tb *Table) specPartID(values []any) int32 {
	if tb.specParts == nil {
		tb.specParts = &specParts{ids: map[string]int32{}}
	}
	key := string(appendKey(nil, values))
	id, ok := tb.specParts.ids[key]
	if !ok {
		id = int32(len(tb.specParts.values))
		tb.specParts.ids[key] = id
		tb.specParts.values = append(tb.specParts.values, values)
	}
	return id
}

// specPartValues is the tuple numbered v.
func (tb *Table) specPartValues(v int32) []any {
	if tb.specParts == nil || v < 0 || int(v) >= len(tb.specParts.values) {
		return nil
	}
	return tb.specParts.values[v]
}

// specPartRange is the time range of the tuple numbered v, in
// microseconds (maintenance compares it with the clock) whatever the time
// column's unit.
func (tb *Table) specPartRange(v int32) (start, end int64, ok bool) {
	ws, err := tb.writeSpec()
	values := tb.specPartValues(v)
	if err != nil || values == nil {
		return 0, 0, false
	}
	for k, f := range ws.fields {
		n, isInt := values[k].(int64)
		if !isInt || f.col != tb.schema.Time {
			continue
		}
		lo, hi, timed := f.tr.TimeRange(f.typ, n)
		if per := f.typ.PerMicro(); timed && per > 1 { // [lo, hi) in ns, outward to whole µs
			lo, hi = schema.FloorMicros(lo, per), -schema.FloorMicros(-hi, per)
		}
		if timed && (!ok || hi-lo < end-start) {
			start, end, ok = lo, hi, true // the finest time field
		}
	}
	return start, end, ok
}

// specPartName names the tuple numbered v, as its directory does.
func (tb *Table) specPartName(v int32) string {
	ws, err := tb.writeSpec()
	values := tb.specPartValues(v)
	if err != nil || values == nil {
		return fmt.Sprintf("partition #%d", v)
	}
	return strings.TrimSuffix(strings.TrimPrefix(ws.dir(values), "data/"), "/")
}
