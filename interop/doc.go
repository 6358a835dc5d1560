// Package interop checks that jobevent's Parquet segments read correctly
// with other implementations: Apache Arrow's Go Parquet reader (pqarrow)
// in interop_test.go, and DuckDB (@duckdb/node-api) over a log written by
// "jobevent import", in duckdb/. It is a module of its own so that the
// jobevent binary does not depend on arrow-go.
//
// Run it from the repository root:
//
//	(cd interop && go test ./...)
//	(cd interop/duckdb && npm ci) # once, to let the DuckDB check run
package interop
