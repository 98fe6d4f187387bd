// Package rollupdiff checks rollups against DuckDB: random raw
// tables and appends — late rows, duplicates, rows for old buckets,
// compactions between refreshes, refreshes under a byte cap — and after
// each refresh every row of the rollup table equals DuckDB's GROUP BY
// series, time_bucket(…) over the deduplicated raw table
// (interop/rollupref.py): counts, min, max, first and last exactly, sums
// within 1e-12 relative.
//
// Its helpers (this file) serve other test packages too: internal/cowrite
// checks a rollup of a table Spark co-writes with them.
//
//	ref := rollupdiff.StartRef(t)
//	want, err := ref.Ask(rawMetadataPath, def.Width, def.AggString())
//	if d := rollupdiff.Diff(rollupdiff.ScanRows(t, ru), rollupdiff.Typed(ru.Schema(), want)); d != "" { … }
package rollupdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

// Ref is one `rollupref.py --serve` process, answering many queries.
type Ref struct {
	srv *interoptest.Server
}

// StartRef starts the reference process; it ends with t.
func StartRef(t testing.TB) *Ref {
	t.Helper()
	srv := interoptest.Serve(t, "rollupref.py")
	t.Cleanup(srv.Close)
	return &Ref{srv: srv}
}

// Ask is DuckDB's rollup of the raw table at metadata (its current
// snapshot, deduplicated): buckets of width microseconds, aggs as a
// definition's aggregates property has them; sorted by (series…, bucket).
// Numbers are json.Number (Typed gives them Go types).
func (p *Ref) Ask(metadata string, width int64, aggs string) ([]map[string]any, error) {
	return p.query(map[string]any{"metadata": metadata, "width": width, "aggregates": aggs})
}

// Plain is every row of the table at metadata as reader (pyiceberg or
// duckdb) reads it, sorted by (series…, time).
func (p *Ref) Plain(metadata, reader string) ([]map[string]any, error) {
	return p.query(map[string]any{"plain": metadata, "reader": reader})
}

func (p *Ref) query(q map[string]any) ([]map[string]any, error) {
	b, _ := json.Marshal(q)
	if _, err := p.srv.In.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	if !p.srv.Out.Scan() {
		return nil, fmt.Errorf("rollupref.py ended: %v", p.srv.Out.Err())
	}
	var a struct {
		Rows  []map[string]any `json:"rows"`
		Error string           `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(p.srv.Out.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return nil, err
	}
	if a.Error != "" {
		return nil, fmt.Errorf("rollupref.py: %s", a.Error)
	}
	return a.Rows, nil
}

// Same reports whether a rollup value equals the reference's: exactly
// (NaN equal to NaN), but a _sum column's doubles within 1e-12 relative.
func Same(col string, got, want any) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	if g, ok := got.(float64); ok {
		w, ok := want.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(g) || math.IsNaN(w) || math.IsInf(g, 0) || math.IsInf(w, 0) {
			return math.IsNaN(g) && math.IsNaN(w) || g == w
		}
		if strings.HasSuffix(col, "_sum") {
			return g == w || math.Abs(g-w) <= 1e-12*math.Max(math.Abs(g), math.Abs(w))
		}
		return g == w
	}
	return got == want
}

// Diff is the first difference between rollup rows got and the
// reference's want (in the same order), or "".
func Diff(got, want []map[string]any) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rollup rows, the reference %d", len(got), len(want))
	}
	for i := range got {
		for _, k := range slices.Sorted(maps.Keys(want[i])) {
			if !Same(k, got[i][k], want[i][k]) {
				return fmt.Sprintf("row %d (%v) column %s: got %v (%T), the reference %v (%T)", i, want[i], k, got[i][k], got[i][k], want[i][k], want[i][k])
			}
		}
	}
	return ""
}

// Typed gives the JSON numbers of the reference's rows the Go types of
// the rollup table's columns (sch): int64 or float64.
func Typed(sch *schema.Table, raw []map[string]any) []map[string]any {
	types := map[string]schema.Type{}
	for _, fl := range sch.Fields {
		types[fl.Name] = fl.Type
	}
	res := make([]map[string]any, 0, len(raw))
	for _, m := range raw {
		for k, v := range m {
			if str, ok := v.(string); ok && types[k].IsFloat() {
				// rollupref.py writes non-finite doubles as Python's repr.
				m[k] = map[string]float64{"nan": math.NaN(), "inf": math.Inf(1), "-inf": math.Inf(-1)}[str]
				continue
			}
			n, ok := v.(json.Number)
			if !ok {
				continue
			}
			if types[k].IsFloat() {
				m[k], _ = n.Float64()
			} else {
				m[k], _ = n.Int64()
			}
		}
		res = append(res, m)
	}
	return res
}

// ScanRows is every row of tb through a Timelake scan (deduplicated), as
// maps of the column names to int64, float64, bool, string or nil.
func ScanRows(t testing.TB, tb *table.Table) []map[string]any {
	t.Helper()
	var out []map[string]any
	_, err := tb.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		for i := 0; i < b.Len; i++ {
			m := map[string]any{}
			for c, fl := range b.Schema.Fields {
				col := &b.Cols[c]
				switch {
				case col.IsNull(i):
					m[fl.Name] = nil
				case fl.Type.IsInteger():
					m[fl.Name] = col.Ints[i]
				case fl.Type.IsFloat():
					m[fl.Name] = col.Floats[i]
				case fl.Type == schema.Boolean:
					m[fl.Name] = col.Bools[i]
				default:
					m[fl.Name] = col.Strs[i]
				}
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
