// Package catalogtest runs the core against a real Iceberg REST catalog:
// Apache Iceberg's own server (interop/restcatalog, started once for the
// package by TestMain), with faults injected between client and server by
// a Transport that can fail a request before or after the server saw it.
package catalogtest
