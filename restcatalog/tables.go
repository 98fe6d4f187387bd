package restcatalog

import (
	"context"
	"encoding/json"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// accessDelegation asks the catalog to vend storage credentials.
var accessDelegation = map[string]string{"X-Iceberg-Access-Delegation": "vended-credentials"}

// StorageCredential is one entry of a load result's storage-credentials.
type StorageCredential struct {
	Prefix string            `json:"prefix"`
	Config map[string]string `json:"config"`
}

// LoadResult is the spec's LoadTableResult.
type LoadResult struct {
	MetadataLocation   string              `json:"metadata-location"`
	Metadata           json.RawMessage     `json:"metadata"`
	Config             map[string]string   `json:"config,omitempty"`
	StorageCredentials []StorageCredential `json:"storage-credentials,omitempty"`
}

// Version is the loaded table as a commit.Version.
func (r *LoadResult) Version() commit.Version {
	return commit.Version{N: versionNumber(r.MetadataLocation), Raw: r.Metadata, Location: r.MetadataLocation}
}

// versionNumber is the number in a metadata file's name (v3.metadata.json,
// 00003-<uuid>.metadata.json, either with .gz), or 0 when the catalog names
// them otherwise. (Parsed by hand: regexp would grow the WebAssembly build.)
func versionNumber(loc string) int {
	name := path.Base(loc)
	name = strings.TrimSuffix(name, ".gz")
	name, ok := strings.CutSuffix(name, ".metadata.json")
	if !ok {
		return 0
	}
	digits := name
	if rest, ok := strings.CutPrefix(name, "v"); ok {
		digits = rest
	} else if i := strings.IndexByte(name, '-'); i >= 0 {
		digits = name[:i]
	} else {
		return 0
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return n
}

func (c *Client) tablePath(id Ident) string {
	return c.path("namespaces", namespacePath(id.Namespace), "tables", url.PathEscape(id.Name))
}

// CreateNamespace creates a namespace (ErrAlreadyExists if it is there).
func (c *Client) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if err := c.configure(ctx); err != nil {
		return err
	}
	if props == nil {
		props = map[string]string{}
	}
	body := map[string]any{"namespace": ns, "properties": props}
	return c.call(ctx, "POST", c.path("namespaces"), body, nil, "create namespace "+dotted(ns), ErrNoSuchNamespace, nil)
}

// NamespaceExists reports whether a namespace exists (HEAD).
func (c *Client) NamespaceExists(ctx context.Context, ns []string) (bool, error) {
	return c.exists(ctx, c.path("namespaces", namespacePath(ns)), "check namespace "+dotted(ns), ErrNoSuchNamespace)
}

// TableExists reports whether a table exists (HEAD).
func (c *Client) TableExists(ctx context.Context, id Ident) (bool, error) {
	if err := c.configure(ctx); err != nil {
		return false, err
	}
	return c.exists(ctx, c.tablePath(id), "check table "+id.String(), ErrNoSuchTable)
}

func (c *Client) exists(ctx context.Context, u, op string, notFound error) (bool, error) {
	if err := c.configure(ctx); err != nil {
		return false, err
	}
	resp, err := c.send(ctx, "HEAD", u, nil, nil, op)
	if err != nil {
		return false, err
	}
	switch {
	case resp.Status >= 200 && resp.Status <= 299:
		return true, nil
	case resp.Status == 404:
		return false, nil
	}
	return false, responseError(op, resp, notFound, c.cfg.Now)
}

// CreateRequest is the spec's CreateTableRequest.
type CreateRequest struct {
	Name          string                 `json:"name"`
	Location      string                 `json:"location,omitempty"`
	Schema        iceberg.Schema         `json:"schema"`
	PartitionSpec *iceberg.PartitionSpec `json:"partition-spec,omitempty"`
	WriteOrder    *iceberg.SortOrder     `json:"write-order,omitempty"`
	StageCreate   bool                   `json:"stage-create"`
	Properties    map[string]string      `json:"properties,omitempty"`
}

// CreateTable creates a table in id's namespace; the catalog writes its
// first metadata file and answers with it.
func (c *Client) CreateTable(ctx context.Context, id Ident, req CreateRequest) (*LoadResult, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	req.Name = id.Name
	var out LoadResult
	u := c.path("namespaces", namespacePath(id.Namespace), "tables")
	if err := c.call(ctx, "POST", u, req, &out, "create table "+id.String(), ErrNoSuchNamespace, accessDelegation); err != nil {
		return nil, err
	}
	c.keepVended(&out)
	return &out, out.check("create table " + id.String())
}

// LoadTable loads a table's current metadata, asking for vended credentials.
func (c *Client) LoadTable(ctx context.Context, id Ident) (*LoadResult, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	var out LoadResult
	if err := c.call(ctx, "GET", c.tablePath(id), nil, &out, "load table "+id.String(), ErrNoSuchTable, accessDelegation); err != nil {
		return nil, err
	}
	c.keepVended(&out)
	return &out, out.check("load table " + id.String())
}

// RegisterTable adopts an existing metadata file as table id.
func (c *Client) RegisterTable(ctx context.Context, id Ident, metadataLocation string) (*LoadResult, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	var out LoadResult
	body := map[string]any{"name": id.Name, "metadata-location": metadataLocation}
	u := c.path("namespaces", namespacePath(id.Namespace), "register")
	if err := c.call(ctx, "POST", u, body, &out, "register table "+id.String(), ErrNoSuchNamespace, accessDelegation); err != nil {
		return nil, err
	}
	c.keepVended(&out)
	return &out, out.check("register table " + id.String())
}

// DropTable removes a table from the catalog; its files stay (purgeRequested=false).
func (c *Client) DropTable(ctx context.Context, id Ident) error {
	if err := c.configure(ctx); err != nil {
		return err
	}
	return c.call(ctx, "DELETE", c.tablePath(id)+"?purgeRequested=false", nil, nil, "drop table "+id.String(), ErrNoSuchTable, nil)
}

// CommitRequest is the spec's CommitTableRequest.
type CommitRequest struct {
	Identifier   Ident         `json:"identifier"`
	Requirements []Requirement `json:"requirements"`
	Updates      []Update      `json:"updates"`
}

// commitTable sends one commit; the response is the new metadata.
func (c *Client) commitTable(ctx context.Context, id Ident, req *CommitRequest) (*LoadResult, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	var out LoadResult
	if err := c.call(ctx, "POST", c.tablePath(id), req, &out, "commit to table "+id.String(), ErrNoSuchTable, nil); err != nil {
		return nil, err
	}
	c.keepVended(&out)
	return &out, out.check("commit to table " + id.String())
}

func (r *LoadResult) check(op string) error {
	if r.MetadataLocation == "" || len(r.Metadata) == 0 || r.Metadata[0] != '{' {
		return &Error{Op: op, Message: "the response has no metadata-location or metadata", kind: ErrBadResponse}
	}
	return nil
}

func dotted(ns []string) string { return Ident{Namespace: ns}.NamespaceString() }
