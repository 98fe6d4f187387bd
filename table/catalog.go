package table

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// Tables kept in an Iceberg REST catalog: the same files and the same
// commit loop as a storage-only table, with the catalog deciding each
// version (restcatalog.Decider) and owning the metadata files.

// Properties that name the catalog a table is kept in. Register sets them
// in the table's last storage-only version, and every storage-only writer
// refuses a table that has them (its history goes on in the catalog).
// persisted: must not change.
const (
	PropCatalogURI   = "timelake.catalog-uri"
	PropCatalogTable = "timelake.catalog-table"
)

// ErrCatalogTable: a storage-only writer opened a table that was registered
// in a catalog; it must be written through the catalog.
var ErrCatalogTable = errors.New("the table is kept in a catalog")

// StoreFor opens the store of a catalog table's files: the store's keys
// are relative to location (the table's location as the catalog gives it),
// and vended is the storage configuration the catalog vended for it
// (restcatalog.S3AccessKeyID, …; empty when it vends none).
type StoreFor func(location string, vended map[string]string) (store.Store, error)

// catalogRef is where a catalog table is kept.
type catalogRef struct {
	client *restcatalog.Client
	ident  restcatalog.Ident
}

// Catalog is the catalog and name of a catalog table (nil, zero for a
// storage-only one).
func (tb *Table) Catalog() (*restcatalog.Client, restcatalog.Ident) {
	if tb.catalog == nil {
		return nil, restcatalog.Ident{}
	}
	return tb.catalog.client, tb.catalog.ident
}

// CreateInCatalog creates table id in the catalog (its namespace too, when
// missing) with sch, props as Create takes them, at location (empty: the
// catalog chooses, under its warehouse). The catalog writes the first
// metadata file.
func CreateInCatalog(ctx context.Context, cat *restcatalog.Client, id restcatalog.Ident, env Env, sch *schema.Table, props map[string]string, location string, storeFor StoreFor) (*Table, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	version, err := createFormatVersion(props)
	if err != nil {
		return nil, err
	}
	if err := requireV3(sch, version, "create"); err != nil {
		return nil, err
	}
	all, err := createProperties(sch, props)
	if err != nil {
		return nil, err
	}
	all[PropCatalogURI] = cat.URI()
	all[PropCatalogTable] = id.String()
	// The metadata a storage-only create would write, as the request's parts:
	// the catalog assigns the same ids (fields 1…n in order, spec 0, order 1).
	md := iceberg.NewTableMetadata(sch, "", "", 0, all)
	req := restcatalog.CreateRequest{
		Location:      location,
		Schema:        md.Schemas[0],
		PartitionSpec: &md.PartitionSpecs[0],
		WriteOrder:    &md.SortOrders[0],
		Properties:    maps.Clone(md.Properties),
	}
	req.Properties[PropFormatVersion] = fmt.Sprint(version)
	r, err := cat.CreateTable(ctx, id, req)
	if errors.Is(err, restcatalog.ErrNoSuchNamespace) {
		if err = cat.CreateNamespace(ctx, id.Namespace, nil); err == nil || errors.Is(err, restcatalog.ErrAlreadyExists) {
			r, err = cat.CreateTable(ctx, id, req)
		}
	}
	if errors.Is(err, restcatalog.ErrAlreadyExists) {
		return nil, fmt.Errorf("%w: %s is in the catalog already: %w", ErrTableExists, id, err)
	}
	if err != nil {
		return nil, err
	}
	tb, err := openLoaded(cat, id, env, r, storeFor)
	if err != nil {
		return nil, err
	}
	if !sameSchema(tb.schema, sch) {
		return nil, fmt.Errorf("%w: the catalog created %s with other field ids than asked", ErrSchemaMismatch, id)
	}
	return tb, nil
}

// OpenInCatalog loads table id from the catalog.
func OpenInCatalog(ctx context.Context, cat *restcatalog.Client, id restcatalog.Ident, env Env, storeFor StoreFor) (*Table, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	r, err := cat.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	return openLoaded(cat, id, env, r, storeFor)
}

func openLoaded(cat *restcatalog.Client, id restcatalog.Ident, env Env, r *restcatalog.LoadResult, storeFor StoreFor) (*Table, error) {
	v := r.Version()
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		return nil, datafile.FileErr(v.Name(), err)
	}
	st, err := storeFor(md.Location, r.StorageConfig(md.Location))
	if err != nil {
		return nil, fmt.Errorf("open the store of %s (%s): %w", id, md.Location, err)
	}
	tb := &Table{st: st, env: env, decider: &restcatalog.Decider{Client: cat, Table: id}, catalog: &catalogRef{client: cat, ident: id}}
	if err := tb.load(v); err != nil {
		return nil, err
	}
	return tb, nil
}

// Register adopts the storage-only table src as id in the catalog. It first
// commits a last storage-only version recording the catalog (so storage-only
// writers refuse the table from then on), then registers that version's
// metadata file. Run again after a failure, it registers the version it
// marked. src is left as it was; the result is the catalog table.
func Register(ctx context.Context, cat *restcatalog.Client, id restcatalog.Ident, src *Table, storeFor StoreFor) (*Table, error) {
	if src.catalog != nil {
		return nil, fmt.Errorf("%w: it is %s in %s already", ErrCatalogTable, src.catalog.ident, src.catalog.client.URI())
	}
	// Register reads the newest version, not the one src last saw.
	v, err := commit.Latest(ctx, src.st)
	if err != nil {
		return nil, err
	}
	tb := &Table{st: src.st, env: src.env}
	if err := tb.load(v); err != nil {
		return nil, err
	}
	props := tb.meta.Properties
	switch uri, name := props[PropCatalogURI], props[PropCatalogTable]; {
	case uri == "" && name == "":
		if tb.writeErr != nil {
			return nil, fmt.Errorf("register: %w", tb.writeErr)
		}
		if err := tb.markRegistered(ctx, cat.URI(), id.String()); err != nil {
			return nil, fmt.Errorf("register: record the catalog in the table: %w", err)
		}
	case uri != cat.URI() || name != id.String():
		return nil, fmt.Errorf("%w: %s is registered as %s in %s already", ErrCatalogTable, tb.version.Name(), name, uri)
	}
	loc := tb.location(tb.version.Name())
	r, err := cat.RegisterTable(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	return openLoaded(cat, id, tb.env, r, storeFor)
}

// markRegistered commits a version that only adds the catalog properties.
func (tb *Table) markRegistered(ctx context.Context, uri, name string) error {
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := tb.load(base); err != nil {
				return commit.Attempt{}, err
			}
			if p := tb.meta.Properties; p[PropCatalogURI] != "" {
				return commit.Attempt{}, fmt.Errorf("%w: version %s was registered as %s in %s meanwhile", ErrCatalogTable, base.Name(), p[PropCatalogTable], p[PropCatalogURI])
			}
			if tb.writeErr != nil {
				return commit.Attempt{}, tb.writeErr
			}
		}
		md := *tb.meta
		md.Properties = maps.Clone(md.Properties)
		md.Properties[PropCatalogURI] = uri
		md.Properties[PropCatalogTable] = name
		raw, fellOff, err := tb.snapshotBase(base).Next(&md, tb.env.Now().UnixMilli())
		tb.fellOff = fellOff
		return commit.Attempt{Metadata: raw}, err
	}
	isOurs := func(v commit.Version) bool {
		md, err := iceberg.ParseMetadata(v.Raw)
		return err == nil && md.Properties[PropCatalogURI] == uri && md.Properties[PropCatalogTable] == name
	}
	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isOurs)
	if err != nil {
		return err
	}
	return tb.load(res.Version)
}

// checkDecider refuses a storage-only writer a table kept in a catalog.
func (tb *Table) checkDecider(v commit.Version) error {
	if tb.catalog != nil {
		return nil
	}
	if uri := tb.meta.Properties[PropCatalogURI]; uri != "" {
		return fmt.Errorf("%w: %s registered it as %s in the catalog %s; its history goes on there: write it through the catalog (--catalog %s)",
			ErrCatalogTable, v.Name(), tb.meta.Properties[PropCatalogTable], uri, uri)
	}
	return nil
}

// takeCommitted makes the committed version v current. built is the metadata this
// writer built for it: the same bytes for a storage-only table; a catalog
// answers with its own (it fills the logs), which is what the next commit
// must diff against.
func (tb *Table) takeCommitted(v commit.Version, built *iceberg.Metadata) error {
	tb.oldVersions, tb.fellOff = append(tb.oldVersions, tb.fellOff...), nil
	if tb.catalog == nil {
		tb.version, tb.meta = v, built
		return nil
	}
	return tb.load(v)
}

// latest loads the newest version from whoever decides them.
func (tb *Table) latest(ctx context.Context) (commit.Version, error) {
	if tb.decider != nil {
		return tb.decider.Latest(ctx)
	}
	return commit.Latest(ctx, tb.st)
}

// latestAfter is latest for a Table that likely holds the newest version
// already (it just committed): without a catalog, its metadata is not read
// again when no version follows it (commit.LatestAfter).
func (tb *Table) latestAfter(ctx context.Context) (commit.Version, error) {
	if tb.decider != nil {
		return tb.decider.Latest(ctx)
	}
	return commit.LatestAfter(ctx, tb.st, tb.version)
}

// loadLatestAfter loads the newest version, unless tb holds it already
// (latestAfter).
func (tb *Table) loadLatestAfter(ctx context.Context) error {
	v, err := tb.latestAfter(ctx)
	if err != nil {
		return err
	}
	if v.Same(tb.version) {
		return nil
	}
	return tb.load(v)
}

// MetadataLocation is the current version's metadata file: where the
// catalog says it is for a catalog table, else the file under the table's
// location.
func (tb *Table) MetadataLocation() string {
	if tb.version.Location != "" {
		return tb.version.Location
	}
	return tb.location(tb.version.Name())
}
