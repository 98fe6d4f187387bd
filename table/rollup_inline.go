package table

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rollup"
)

// An inline refresh: with timelake.rollup.inline=true an append refreshes
// every rollup of its table right after its own commit, in the same call
// (the CLI's append, the JavaScript client's append through the WASM
// bridge). Both drivers go through InlineRefresh, so they agree on what
// runs, on the retries and on the warnings. The append stands whatever the
// refresh does: a failure is an outcome with an error, which the driver
// reports as a warning, and the next refresh catches up (a refresh is
// exact from whatever raw snapshot its rollup reflects).

// CodeNoRollupStore: the driver found no store for a rollup's table (the
// JavaScript client, when neither its options nor the raw table's store
// give one). persisted (in user scripts): must not change.
const CodeNoRollupStore = "NO_ROLLUP_STORE"

// NoRollupStore is the error of an OpenRollupFunc that has no store for
// the table of rollup d: why says what the driver tried.
func NoRollupStore(d rollup.Def, why string) error {
	return &rollup.Error{Code: CodeNoRollupStore, Key: d.Name, Msg: fmt.Sprintf("no store for its table at %s: %s", d.Location, why)}
}

// OpenRollupFunc opens the table of rollup d of the raw table (a driver's:
// a directory, a store the client gives, a catalog table).
type OpenRollupFunc func(d rollup.Def) (*Table, error)

// InlineOutcome is what an inline refresh did to one rollup: its refresh,
// or the error that stopped it (then Result may be partial or nil).
type InlineOutcome struct {
	Rollup string         `json:"rollup"`
	Result *RefreshResult `json:"refresh,omitempty"`
	Err    error          `json:"-"`
}

// Code is the outcome's error code ("" when the refresh ran).
func (o InlineOutcome) Code() string {
	if o.Err == nil {
		return ""
	}
	return Code(o.Err)
}

// Warning is the outcome's warning ("" when the refresh ran), naming the
// rollup and the error code.
func (o InlineOutcome) Warning() string {
	if o.Err == nil {
		return ""
	}
	return InlineWarning(o.Rollup, o.Code(), o.Err.Error())
}

// InlineWarning is the warning of rollup name's failed inline refresh
// (name "": the definitions), for a driver that codes errors its own way.
func InlineWarning(name, code, msg string) string {
	if name == "" {
		name = "(definitions)"
	}
	return fmt.Sprintf("rollup refresh: %s [%s]: %s (the append is committed; the next refresh catches up)", name, code, msg)
}

// inlineAttempts bounds the refreshes of one rollup after one append:
// another writer's refresh that commits first (ROLLUP_CONFLICT) makes this
// one run again from the newest versions, where it usually finds the
// rollup up to date or a little to add.
const inlineAttempts = 8

// InlineRefresh refreshes every rollup of raw when its properties say
// timelake.rollup.inline=true, each rollup's table opened with open; nil
// when they do not. It never fails: each rollup's outcome carries its
// error, and a bad definition or inline property is one outcome (Rollup
// ""). A rollup's failure does not stop the others.
//
// opt bounds each refresh as RefreshRollup's options do (the WebAssembly
// bridge collects garbage in OnBatch); without a byte cap, the table's
// timelake.maintain-byte-cap bounds a refresh that cannot fold.
func InlineRefresh(ctx context.Context, raw *Table, open OpenRollupFunc, opt RefreshOptions) []InlineOutcome {
	props := raw.Metadata().Properties
	if opt.ByteCap == 0 {
		if ms, err := maintenance.ParseSettings(props); err == nil {
			opt.ByteCap = ms.ByteCap
		}
	}
	inline, err := rollup.ParseInline(props)
	if err != nil {
		return []InlineOutcome{{Err: err}}
	}
	if !inline {
		return nil
	}
	defs, err := rollup.Parse(props)
	if err != nil {
		return []InlineOutcome{{Err: err}}
	}
	out := make([]InlineOutcome, 0, len(defs))
	for _, d := range defs {
		o := InlineOutcome{Rollup: d.Name}
		ru, err := open(d)
		if err == nil && ru == nil {
			err = NoRollupStore(d, "the driver opened no table")
		}
		if err != nil {
			o.Err = err
			out = append(out, o)
			continue
		}
		for i := 0; i < inlineAttempts; i++ {
			o.Result, o.Err = RefreshRollup(ctx, raw, ru, d, opt)
			if !isRollupConflict(o.Err) || ctx.Err() != nil {
				break
			}
		}
		out = append(out, o)
	}
	return out
}

// InlineResults are the refreshes that ran, and the warnings of those that
// did not.
func InlineResults(outs []InlineOutcome) (res []*RefreshResult, warnings []string) {
	for _, o := range outs {
		if o.Err != nil {
			warnings = append(warnings, o.Warning())
		} else if o.Result != nil {
			res = append(res, o.Result)
		}
	}
	return res, warnings
}
