//go:build js && wasm

package main

import (
	"context"
	"syscall/js"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// addCatalogRollup is addRollup(handle, storeFor, specJSON) of a catalog
// table: the rollup is created as table NS.T__rollup_NAME of the same
// catalog (table.AddRollupInCatalog), its files through storeFor as any
// catalog table's. It resolves with the rollup table opened, and its name
// ("table") for the client to reopen it by.
func addCatalogRollup(ctx context.Context, raw *table.Table, args []js.Value) (any, error) {
	storeFor, err := argStoreFor(ctx, args, 1)
	if err != nil {
		return nil, err
	}
	spec, d, err := argRollupSpec(args, 2) // no location: where the catalog chooses it
	if err != nil {
		return nil, err
	}
	ru, err := table.AddRollupInCatalog(ctx, raw, d, storeFor)
	if err != nil {
		return nil, err
	}
	if spec.Inline {
		if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "true"}, nil, nil); err != nil {
			return nil, err
		}
	}
	o, err := opened(ru)
	if err != nil {
		return nil, err
	}
	_, id := ru.Catalog()
	o.(map[string]any)["table"] = id.String()
	return o, nil
}
