package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/timelake/timelake/cmd/timelake/locstore"
	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/restcatalog/nethttp"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/s3store"
	"github.com/timelake/timelake/table"
)

// Tables kept in an Iceberg REST catalog. A command works with one when a
// catalog is named (--catalog URI, else TIMELAKE_CATALOG_URI): TABLE is then
// NAMESPACE.TABLE, never a path. The catalog's secrets come from the
// environment only (TIMELAKE_CATALOG_TOKEN, TIMELAKE_CATALOG_CREDENTIAL):
// a command line is visible to other users of the machine (ps), so they
// have no flags, like the AWS credentials.

// Environment variables of the catalog.
const (
	envCatalogURI        = "TIMELAKE_CATALOG_URI"
	envCatalogWarehouse  = "TIMELAKE_CATALOG_WAREHOUSE"
	envCatalogToken      = "TIMELAKE_CATALOG_TOKEN"
	envCatalogCredential = "TIMELAKE_CATALOG_CREDENTIAL"
)

// catalogFlags are taken by every command.
var catalogFlags = flagSpec{"catalog": true, "warehouse": true}

// catalogTimeout bounds one request to the catalog (a load returns the
// table's whole metadata).
const catalogTimeout = 60 * time.Second

// catalogURI is the catalog named by --catalog, else the environment; ""
// for a storage-only command.
func catalogURI(a *args) string { return a.one("catalog", os.Getenv(envCatalogURI)) }

// openCatalog makes the client of the catalog named (nil when none is) and
// parses ident as its table's name. A bad name is a usage mistake.
func openCatalog(a *args, ident string) (*restcatalog.Client, restcatalog.Ident, error) {
	uri := catalogURI(a)
	if uri == "" {
		if a.one("warehouse", "") != "" {
			return nil, restcatalog.Ident{}, usageErr("--warehouse needs a catalog (--catalog URI or %s)", envCatalogURI)
		}
		return nil, restcatalog.Ident{}, nil
	}
	if strings.Contains(ident, "/") || strings.Contains(ident, "://") {
		return nil, restcatalog.Ident{}, usageErr("TABLE %q: with a catalog (--catalog or %s) TABLE is NAMESPACE.TABLE, not a path; unset %s for a storage-only table",
			ident, envCatalogURI, envCatalogURI)
	}
	id, err := restcatalog.ParseIdent(ident)
	if err != nil {
		return nil, restcatalog.Ident{}, usageErr("%v", err)
	}
	cat, err := restcatalog.New(restcatalog.Config{
		URI:        uri,
		Warehouse:  a.one("warehouse", os.Getenv(envCatalogWarehouse)),
		Token:      os.Getenv(envCatalogToken),
		Credential: os.Getenv(envCatalogCredential),
		Transport:  nethttp.New(catalogTimeout),
		Now:        time.Now,
		Sleep:      env().Sleep,
		Secrets:    &secrets, // its tokens and vended keys are scrubbed from all output
	})
	if err != nil {
		// restcatalog.New names neither the token nor the secret.
		return nil, restcatalog.Ident{}, usageErr("%v", err)
	}
	return cat, id, nil
}

// storeFor opens the store of a catalog table's files where its location
// says: a directory for file://, S3 for s3://. For S3 each setting the user
// gives wins (--endpoint, --region, --virtual-hosted; the AWS_* variables),
// and the catalog's vended configuration fills the rest: the access key,
// secret and session token go as one (the user's AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, else the vended ones).
func storeFor(a *args) table.StoreFor {
	user := s3env(a)
	return func(loc string, vended map[string]string) (store.Store, error) {
		p, err := location.Parse(loc)
		if err != nil {
			return nil, err
		}
		if p.Scheme != "s3" || !a.bools["virtual-hosted"] {
			return locstore.Open(loc, vended, user)
		}
		c, err := locstore.S3Config(p.String(), vended, user)
		if err != nil {
			return nil, err
		}
		c.PathStyle = false
		return s3store.New(c)
	}
}

// openAny opens TABLE for a command: through the catalog when one is named,
// else from storage. where names the table in messages.
func openAny(ctx context.Context, a *args, arg string) (tb *table.Table, where string, err error) {
	cat, id, err := openCatalog(a, arg)
	if err != nil {
		return nil, "", err
	}
	if cat != nil {
		tb, err := table.OpenInCatalog(ctx, cat, id, env(), storeFor(a))
		if err != nil {
			return nil, "", fmt.Errorf("%s in %s: %w", id, cat.URI(), err)
		}
		return tb, id.String(), nil
	}
	loc, err := resolveTable(arg, a)
	if err != nil {
		return nil, "", err
	}
	st, err := loc.open()
	if err != nil {
		return nil, "", err
	}
	tb, err = table.Open(ctx, st, env())
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", loc.location, err)
	}
	return tb, loc.location, nil
}

// cmdRegister runs `timelake register NS.TABLE --catalog URI --from TABLE`:
// the storage-only table goes on as a catalog table.
func cmdRegister(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, registerFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("register takes one NAMESPACE.TABLE (and --from TABLE)")
	}
	from := a.one("from", "")
	if catalogURI(a) == "" {
		return usageErr("register needs a catalog (--catalog URI or %s)", envCatalogURI)
	}
	if from == "" {
		return usageErr("register needs --from TABLE (the storage-only table: a directory, file:// or s3:// URI)")
	}
	cat, id, err := openCatalog(a, a.pos[0])
	if err != nil {
		return err
	}
	loc, err := resolveTable(from, a)
	if err != nil {
		return err
	}
	st, err := loc.open()
	if err != nil {
		return err
	}
	src, err := table.Open(ctx, st, env())
	if err != nil {
		return fmt.Errorf("%s: %w", loc.location, err)
	}
	tb, err := table.Register(ctx, cat, id, src, storeFor(a))
	if errors.Is(err, restcatalog.ErrNoSuchNamespace) {
		// As create does: make the namespace, then register again (which
		// registers the version the first try marked).
		if err = cat.CreateNamespace(ctx, id.Namespace, nil); err == nil || errors.Is(err, restcatalog.ErrAlreadyExists) {
			tb, err = table.Register(ctx, cat, id, src, storeFor(a))
		}
	}
	if err != nil {
		return fmt.Errorf("register %s as %s in %s: %w", loc.location, id, cat.URI(), err)
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, map[string]any{"catalog": cat.URI(), "table": id.String(), "location": tb.Metadata().Location,
			"metadata-location": tb.MetadataLocation(), "version": tb.Version()})
	}
	fmt.Fprintf(io.stdout, "registered %s as %s in %s (metadata %s); write it through the catalog from now on\n",
		loc.location, id, cat.URI(), tb.MetadataLocation())
	return nil
}
