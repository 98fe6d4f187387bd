// Package catalogclients holds the tests of outside Iceberg clients working
// on one table through an Iceberg REST catalog: Apache Iceberg's
// own REST catalog server (interop/restcatalog, started once per test group
// by internal/interoptest.StartRESTCatalog), pyiceberg creating the table,
// appending and expiring snapshots, DuckDB's iceberg extension deleting and
// updating rows, and pyiceberg, DuckDB and iceberg-go reading it back, each
// checked against a model of the rows. It has no code of its own: the tests
// are the package.
//
//	go test ./internal/catalogclients -v
//
// The tests skip when the catalog's launcher is not built (bash
// scripts/restcatalog.sh build), unless TIMELAKE_REQUIRE_CATALOG is set (then
// they build it and fail without Java 17 and Maven). The S3 group also needs
// the S3 server of scripts/s3server.sh in the environment.
package catalogclients
