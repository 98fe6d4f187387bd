//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"syscall/js"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// rollupSpec is a rollup definition as TableWriter.addRollup sends it.
type rollupSpec struct {
	Name       string   `json:"name"`
	Every      string   `json:"every"`
	Aggregates []string `json:"aggregates"` // "cpu:min,max,avg"
	Retention  string   `json:"retention"`
	Location   string   `json:"location"` // default: beside the table, <location>__rollup_<name>
	Inline     bool     `json:"inline"`
}

// argRollupSpec reads args[i], a rollupSpec as JSON, into a definition (at
// spec.Location; empty: the driver chooses).
func argRollupSpec(args []js.Value, i int) (rollupSpec, rollup.Def, error) {
	var spec rollupSpec
	s, err := argString(args, i, "rollup JSON")
	if err != nil {
		return spec, rollup.Def{}, err
	}
	if err := json.Unmarshal([]byte(s), &spec); err != nil {
		return spec, rollup.Def{}, badArg("rollup JSON: %v", err)
	}
	d, err := rollup.New(spec.Name, spec.Every, spec.Aggregates, spec.Retention)
	if err != nil {
		return spec, rollup.Def{}, err
	}
	d.Location = spec.Location
	return spec, d, nil
}

// addRollup(handle, store, specJSON) defines a rollup of the table and
// creates its table in store (table.AddRollup); resolves with the rollup
// table opened, as openTable does. The store may be the client's resolver
// (location, name) → Store or null instead, called with the rollup's
// location (rollupinline.go). For a catalog table the second argument is
// the store factory instead (rollupcatalog.go).
func addRollup(ctx context.Context, args []js.Value) (any, error) {
	raw, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	if cat, _ := raw.Catalog(); cat != nil {
		return addCatalogRollup(ctx, raw, args)
	}
	var st *jsStore
	if len(args) < 2 || args[1].Type() != js.TypeFunction {
		if st, err = argStore(args, 1); err != nil {
			return nil, err
		}
	}
	spec, d, err := argRollupSpec(args, 2)
	if err != nil {
		return nil, err
	}
	if d.Location == "" {
		d.Location = rollup.SiblingLocation(raw.Metadata().Location, d.Name)
	}
	if st == nil {
		if st, err = rollupStoreJS(ctx, args[1], d); err != nil {
			return nil, err
		}
	}
	ru, err := table.AddRollup(ctx, raw, st, d)
	if err != nil {
		return nil, err
	}
	if spec.Inline {
		if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "true"}, nil, nil); err != nil {
			return nil, err
		}
	}
	return opened(ru)
}

// rollupDef is one definition as rollups() returns it.
type rollupDef struct {
	Name       string `json:"name"`
	Every      string `json:"every"`
	Aggregates string `json:"aggregates"`
	Retention  string `json:"retention"`
	Location   string `json:"location"`
	Table      string `json:"table,omitempty"` // with a catalog: its name there
}

// rollups(handle) resolves with the table's rollup definitions as JSON.
func rollups(_ context.Context, args []js.Value) (any, error) {
	raw, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	defs, err := rollup.Parse(raw.Metadata().Properties)
	if err != nil {
		return nil, err
	}
	out := []rollupDef{}
	for _, d := range defs {
		out = append(out, rollupDef{d.Name, d.Every, d.AggString(), d.Retention, d.Location, d.Table})
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// refreshCollectAfter is the garbage a refresh leaves between collections
// (checked at each batch of raw rows it reads; see refreshRollup).
const refreshCollectAfter = 4 << 20

// refreshRollup(handle, rollupHandle, name, optionsJSON) refreshes rollup
// name of the table into the open rollup table (table.RefreshRollup);
// resolves with the result as JSON.
func refreshRollup(ctx context.Context, args []js.Value) (any, error) {
	raw, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	ru, _, err := argTable(args[1:])
	if err != nil {
		return nil, err
	}
	name, err := argString(args, 2, "rollup name")
	if err != nil {
		return nil, err
	}
	var opt struct {
		ByteCap int64 `json:"byteCap"`
	}
	if len(args) > 3 && args[3].Type() == js.TypeString {
		if err := json.Unmarshal([]byte(args[3].String()), &opt); err != nil {
			return nil, badArg("refresh options JSON: %v", err)
		}
	}
	defs, err := rollup.Parse(raw.Metadata().Properties)
	if err != nil {
		return nil, err
	}
	d, err := rollup.Find(defs, name)
	if err != nil {
		return nil, err
	}
	// A refresh reads as much as a scan of its buckets (a day's catch-up:
	// 1.2M rows) with the collector off: without collections its garbage
	// grew the memory to the runtime's limit (48 MiB in workerd). It
	// collects at each batch of raw rows once 4 MiB were allocated, more
	// often than a scan (what it holds is small: an aggregator, a window of
	// a few files); at range reads as a scan does (a piece of many files
	// opens them all before its first batch); and after the call as every
	// call does, once 4 MiB were allocated (collectAfterCall; but not while
	// the raw Table keeps its last append's rows, see below): not at its
	// end whatever its garbage, since a fold allocates little and a forced
	// collection costs it a few ms of CPU in WebAssembly. (Collecting only when the
	// heap had few free pages left, to spare the collections in an isolate
	// whose memory is there already, let the day's catch-up grow to 44 MiB
	// when warm.)
	scansRunning++
	res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{ByteCap: opt.ByteCap, OnBatch: func() { collectEvery(refreshCollectAfter) }})
	scansRunning--
	scanEnded()
	if err != nil {
		return nil, err
	}
	// With rows kept from the raw Table's last append (a refresh right
	// after it), no collection at the end: the next append drops them and
	// collects at its start, when they no longer take the collection's
	// marking, and this refresh's garbage stays above the pages that
	// append needs (appendRows).
	skipCollectAfterCall = raw.KeepsAppendRows()
	b, err := json.Marshal(res)
	return string(b), err
}
