// Package restcatalog is a client of the Iceberg REST catalog protocol
// (Apache Iceberg's rest-catalog-open-api), and the commit.Decider that
// decides a table's versions through it. It is pure: the HTTP exchange goes
// through a Transport the driver gives (net/http natively, restcatalog/nethttp;
// JavaScript's fetch in the WebAssembly build), and the clock and sleeps are
// the caller's.
//
// Requests it sends (paths under {uri}/v1/, {p} = the config's prefix):
//
//	GET    config?warehouse=W                       prefix and defaults
//	POST   oauth/tokens                             client credentials → bearer token
//	POST   {p}/namespaces                           create a namespace
//	HEAD   {p}/namespaces/{ns}                      namespace exists
//	POST   {p}/namespaces/{ns}/tables               create a table
//	GET    {p}/namespaces/{ns}/tables/{t}           load (with vended credentials)
//	HEAD   {p}/namespaces/{ns}/tables/{t}           table exists
//	POST   {p}/namespaces/{ns}/tables/{t}           commit: requirements + updates
//	DELETE {p}/namespaces/{ns}/tables/{t}           drop (purgeRequested=false)
//	POST   {p}/namespaces/{ns}/register             adopt an existing metadata file
//
// A namespace of several levels is sent as its levels joined by the unit
// separator (0x1F, "%1F" in the path), as the spec says.
//
// A commit is the difference between the base metadata and the next one
// (Diff): add-snapshot, set-snapshot-ref, remove-snapshots, set-properties,
// remove-properties, set-statistics, remove-statistics; guarded by
// assert-table-uuid and assert-ref-snapshot-id on main.
//
//	cat, _ := restcatalog.New(restcatalog.Config{URI: uri, Warehouse: wh, Token: tok, Transport: nethttp.Transport{}})
//	res, err := cat.LoadTable(ctx, restcatalog.MustIdent("metrics.cpu"))
//	v := res.Version() // a commit.Version: Raw is the table metadata
package restcatalog
