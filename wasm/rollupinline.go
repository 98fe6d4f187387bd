//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall/js"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// inlineRollups are the rollup Tables inline refreshes opened, by raw table
// handle and rollup: kept from one append to the next, so that a refresh
// reads only what changed in the rollup table (and a fold finds the
// rollup's last-value index in memory), dropped when the raw table is
// closed or a refresh through it fails.
var inlineRollups = map[int]map[string]*table.Table{}

// inlineOutcome is one rollup's inline refresh as the client receives it.
type inlineOutcome struct {
	Rollup  string               `json:"rollup"`
	Refresh *table.RefreshResult `json:"refresh,omitempty"`
	Code    string               `json:"code,omitempty"`
	Message string               `json:"message,omitempty"`
}

// inlineRefresh runs table.InlineRefresh after append's commit, in the same
// call. held (append's fifth argument, an object rollup name → table
// handle) names the rollup tables the client holds open (from addRollup or
// rollup(name) on this writer): those are refreshed, so that they read the
// refresh. Any other is opened with storeFor (append's fourth argument):
// for a storage-only table (location, name) → Store, or null when the
// client has none (NO_ROLLUP_STORE); for a catalog table the table's own
// store factory (location, vended) → Store, as rollup(name) uses it. It
// returns the outcomes as JSON ("" when the table is not inline) and their
// warnings.
func inlineRefresh(ctx context.Context, h int, raw *table.Table, storeFor, held js.Value) (string, []string) {
	cache := inlineRollups[h] // nil until a rollup is opened: a nil map reads as empty
	key := func(d rollup.Def) string { return d.Name + "\x00" + d.Location + "\x00" + d.Table }
	open := func(d rollup.Def) (*table.Table, error) {
		if held.Type() == js.TypeObject {
			// Only the table of this definition: a rollup dropped and
			// added again elsewhere leaves the old one held.
			if v := held.Get(d.Name); v.Type() == js.TypeNumber && tables[v.Int()] != nil && tables[v.Int()].Metadata().Location == d.Location {
				return tables[v.Int()], nil
			}
		}
		if ru := cache[key(d)]; ru != nil {
			return ru, nil
		}
		ru, err := openInlineRollup(ctx, raw, d, storeFor)
		if err == nil {
			if cache == nil {
				cache = map[string]*table.Table{}
				inlineRollups[h] = cache
			}
			cache[key(d)] = ru
		}
		return ru, err
	}
	outs := table.InlineRefresh(ctx, raw, open, table.RefreshOptions{OnBatch: func() { collectEvery(refreshCollectAfter) }})
	if outs == nil { // not inline (any more): nothing to keep
		delete(inlineRollups, h)
		return "", nil
	}
	wire := make([]inlineOutcome, 0, len(outs))
	var warnings []string
	for _, o := range outs {
		w := inlineOutcome{Rollup: o.Rollup, Refresh: o.Result}
		if o.Err != nil {
			w.Refresh = nil
			w.Code, w.Message = jsErrorCode(o.Err), scrubSecrets(o.Err.Error())
			warnings = append(warnings, table.InlineWarning(o.Rollup, w.Code, w.Message))
			for k := range cache { // reopened next time: the table may have moved
				if strings.HasPrefix(k, o.Rollup+"\x00") {
					delete(cache, k)
				}
			}
		}
		wire = append(wire, w)
	}
	b, err := json.Marshal(wire)
	if err != nil { // plain fields only: cannot happen
		panic(err)
	}
	return string(b), warnings
}

// openInlineRollup opens the table of rollup d through storeFor.
func openInlineRollup(ctx context.Context, raw *table.Table, d rollup.Def, storeFor js.Value) (*table.Table, error) {
	if storeFor.Type() != js.TypeFunction {
		return nil, table.NoRollupStore(d, "the append was given no store resolver")
	}
	if cat, _ := raw.Catalog(); cat != nil {
		return table.OpenRollupInCatalog(ctx, raw, d, storeForJS(ctx, storeFor))
	}
	st, err := rollupStoreJS(ctx, storeFor, d)
	if err != nil {
		return nil, err
	}
	return table.Open(ctx, st, sysenv.Env())
}

// rollupStoreJS calls the client's resolver (location, name) → Store, null
// or a Promise of either.
func rollupStoreJS(ctx context.Context, fn js.Value, d rollup.Def) (st *jsStore, err error) {
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, &storeError{method: "rollupStore", msg: "threw: " + panicMessage(r)}
		}
	}()
	s, err := settle(ctx, fn.Invoke(d.Location, d.Name))
	if err != nil {
		return nil, err
	}
	if !s.ok {
		return nil, rejected("rollupStore", "", s.v)
	}
	switch s.v.Type() {
	case js.TypeNull, js.TypeUndefined:
		return nil, table.NoRollupStore(d, "give openTable's rollupStore option, the Store to addRollup or rollup(name, store) on this writer, or a store that derives siblings (Store.sibling)")
	case js.TypeObject:
		return &jsStore{v: s.v}, nil
	}
	return nil, wrongType("rollupStore", "", s.v, "a store object or null")
}
