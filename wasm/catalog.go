//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"syscall/js"
	"time"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/redact"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/table"
)

// Tables kept in an Iceberg REST catalog: the client opens a catalog (its
// spec and a transport function over fetch), then creates or opens tables
// in it with a store factory. A catalog handle keeps the client's config
// and token across tables, as table handles keep tables.
var (
	catalogs    = map[int]*restcatalog.Client{}
	nextCatalog = 1
	// secrets are the tokens, client secrets and vended keys the bridge has
	// been given or its catalog clients fetched; every error message is
	// scrubbed of them in every form (toJSError, package redact).
	secrets redact.Set
)

// catalogSpec is the catalog as the client sends it.
type catalogSpec struct {
	URI        string `json:"uri"`
	Warehouse  string `json:"warehouse"`
	Token      string `json:"token"`
	Credential string `json:"credential"`
	Scope      string `json:"scope"`
	OAuthURI   string `json:"oauthUri"`
}

// remember adds secrets (shorter than redact.MinLen: ignored, they would
// scrub ordinary words).
func remember(s ...string) { secrets.Add(s...) }

// scrubSecrets replaces every secret the bridge holds in s.
func scrubSecrets(s string) string { return secrets.Scrub(s) }

// openCatalog(specJSON, transport) → catalog handle. Nothing is sent yet.
func openCatalog(_ context.Context, args []js.Value) (any, error) {
	raw, err := argString(args, 0, "catalog spec JSON")
	if err != nil {
		return nil, err
	}
	var spec catalogSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return nil, badArg("catalog spec JSON: %v", err)
	}
	remember(spec.Token)
	if spec.Credential != "" {
		secrets.AddCredential(spec.Credential)
	}
	if len(args) < 2 || args[1].Type() != js.TypeFunction {
		return nil, badArg("argument 2 must be the transport function")
	}
	c, err := restcatalog.New(restcatalog.Config{
		URI: spec.URI, Warehouse: spec.Warehouse, Token: spec.Token, Credential: spec.Credential,
		Scope: spec.Scope, OAuthURI: spec.OAuthURI,
		Transport: &jsTransport{fn: args[1]},
		Now:       time.Now,
		Sleep:     sleepCtx,
		Secrets:   &secrets, // the tokens it fetches, the keys it is vended
	})
	if err != nil {
		return nil, badArg("%v", err)
	}
	h := nextCatalog
	nextCatalog++
	catalogs[h] = c
	return h, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// argCatalog reads the catalog handle and the table name at args[0], args[1].
func argCatalog(args []js.Value) (*restcatalog.Client, restcatalog.Ident, error) {
	if len(args) == 0 || args[0].Type() != js.TypeNumber {
		return nil, restcatalog.Ident{}, badArg("argument 1 must be a catalog handle")
	}
	c := catalogs[args[0].Int()]
	if c == nil {
		return nil, restcatalog.Ident{}, badArg("catalog handle %d is not open", args[0].Int())
	}
	name, err := argString(args, 1, "table name")
	if err != nil {
		return nil, restcatalog.Ident{}, err
	}
	id, err := restcatalog.ParseIdent(name)
	return c, id, err
}

// storeForJS adapts the client's store factory, (location, vended) → Store
// or a Promise of one, to table.StoreFor. The factory's own error keeps its
// code (INVALID_ARGUMENT for a location it cannot serve, say).
func storeForJS(ctx context.Context, fn js.Value) table.StoreFor {
	return func(loc string, vended map[string]string) (st store.Store, err error) {
		defer func() {
			if r := recover(); r != nil {
				st, err = nil, &storeError{method: "storeFor", key: "", msg: "threw: " + panicMessage(r)}
			}
		}()
		obj := js.Global().Get("Object").New()
		for k, v := range vended {
			obj.Set(k, v)
		}
		s, err := settle(ctx, fn.Invoke(loc, obj))
		if err != nil {
			return nil, err
		}
		if !s.ok {
			e := &storeError{method: "storeFor", msg: "rejected: " + jsMessage(s.v)}
			if s.v.Type() == js.TypeObject {
				if c := s.v.Get("code"); c.Type() == js.TypeString {
					e.code = c.String()
				}
			}
			return nil, e
		}
		if s.v.Type() != js.TypeObject {
			return nil, wrongType("storeFor", "", s.v, "a store object")
		}
		return &jsStore{v: s.v}, nil
	}
}

func argStoreFor(ctx context.Context, args []js.Value, i int) (table.StoreFor, error) {
	if len(args) <= i || args[i].Type() != js.TypeFunction {
		return nil, badArg("argument %d must be the store factory (location, vended) => Store", i+1)
	}
	return storeForJS(ctx, args[i]), nil
}

// createCatalogTable(catalog, name, storeFor, schemaJSON, propsJSON, location) → {handle, head}.
func createCatalogTable(ctx context.Context, args []js.Value) (any, error) {
	cat, id, err := argCatalog(args)
	if err != nil {
		return nil, err
	}
	storeFor, err := argStoreFor(ctx, args, 2)
	if err != nil {
		return nil, err
	}
	sch, props, err := argSchemaProps(args, 3)
	if err != nil {
		return nil, err
	}
	loc := ""
	if len(args) > 5 && args[5].Type() == js.TypeString {
		loc = args[5].String()
	}
	tb, err := table.CreateInCatalog(ctx, cat, id, sysenv.Env(), sch, props, loc, storeFor)
	if err != nil {
		return nil, err
	}
	return opened(tb)
}

// openCatalogTable(catalog, name, storeFor) → {handle, head}.
func openCatalogTable(ctx context.Context, args []js.Value) (any, error) {
	cat, id, err := argCatalog(args)
	if err != nil {
		return nil, err
	}
	storeFor, err := argStoreFor(ctx, args, 2)
	if err != nil {
		return nil, err
	}
	tb, err := table.OpenInCatalog(ctx, cat, id, sysenv.Env(), storeFor)
	if err != nil {
		return nil, err
	}
	return opened(tb)
}
