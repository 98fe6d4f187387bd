// Package cowrite holds the tests of a Timelake table that other Iceberg
// engines write and maintain in turn: Apache Spark with Iceberg's
// Spark runtime (one long-lived session, internal/interoptest.StartSpark),
// pyiceberg (interop/pywriter.py) and iceberg-go (interop/cmd/icebergappend),
// with every reader checked after every step. It has no code of its own:
// the tests are the package.
//
//	go test ./internal/cowrite -run TestScenario -v
//
// Spark tests skip when scripts/sparkenv.sh has not been run, unless
// TIMELAKE_REQUIRE_SPARK is set (then they install it and fail without it).
package cowrite
