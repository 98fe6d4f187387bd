package table

import (
	"errors"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
)

var (
	// ErrTableExists: Create found a table already there; nothing was written.
	ErrTableExists = errors.New("a table already exists here")
	// ErrNoTable: no metadata version under the store (same as commit.ErrNoTable).
	ErrNoTable = commit.ErrNoTable
	// ErrEmptyInput: an append of no rows; nothing is committed.
	ErrEmptyInput = errors.New("no rows to append")
	// ErrSchemaMismatch: the batch or the table's current schema is not the one this writer knows.
	ErrSchemaMismatch = errors.New("schema mismatch")
	// ErrBadSchema: a schema that cannot be created (a reserved, repeated
	// or malformed column name, a time or series column of the wrong type).
	ErrBadSchema = errors.New("bad schema")
	// ErrBadProperty: a table property with a value it cannot take.
	ErrBadProperty = errors.New("bad table property")
	// ErrCorruptTable: a metadata, manifest, index or data file could not be read.
	ErrCorruptTable = datafile.ErrCorrupt
	// ErrUnsupportedTable: the table (or one of its files) is in a state
	// another engine made that Timelake does not handle yet: a format
	// version, partition transform, sort order, type, schema change or
	// file feature. The error names it. Reading goes on where it can;
	// writes are refused before anything is uploaded.
	ErrUnsupportedTable = iceberg.ErrUnsupported
	// ErrNotAdopted: another engine's table without a time column Timelake
	// knows. It is read as stored (info, scan); Adopt records the key, and
	// then it is written and maintained like any other.
	ErrNotAdopted = iceberg.ErrNotAdopted
)

// Code is the stable, machine-readable code of an error from this package or
// below it, as drivers (CLI --json, the JavaScript client) report it. A
// scan's bad input is a *rows.Error with one of package scan's codes:
// UNKNOWN_COLUMN, BAD_FILTER, BAD_TIME, BAD_RANGE, NO_SNAPSHOT, BAD_OPTION.
// persisted (in user scripts): codes must not change.
func Code(err error) string {
	var re *rows.Error
	var ru *rollup.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return re.Code
	case errors.As(err, &ru):
		return ru.Code
	case errors.Is(err, ErrCatalogTable):
		return "CATALOG_TABLE"
	case errors.Is(err, commit.ErrConflictsExhausted):
		return "COMMIT_CONFLICT_EXHAUSTED"
	case errors.Is(err, commit.ErrUnknownOutcome):
		return "COMMIT_UNKNOWN"
	case restcatalog.Code(err) != "":
		return restcatalog.Code(err)
	case errors.Is(err, ErrTableExists):
		return "TABLE_EXISTS"
	case errors.Is(err, ErrNoTable):
		return "NO_TABLE"
	case errors.Is(err, ErrEmptyInput):
		return "EMPTY_INPUT"
	case errors.Is(err, ErrSchemaMismatch):
		return "SCHEMA_MISMATCH"
	case errors.Is(err, ErrAdopt):
		return "BAD_KEY_COLUMN"
	case errors.Is(err, ErrNotAdopted):
		return "NOT_ADOPTED"
	case errors.Is(err, iceberg.ErrUnsupportedType):
		return "UNSUPPORTED_TYPE"
	case errors.Is(err, ErrUnsupportedTable):
		return "UNSUPPORTED_TABLE"
	case errors.Is(err, ErrCorruptTable), errors.Is(err, commit.ErrVersionMissing):
		return "CORRUPT_TABLE"
	case errors.Is(err, ErrBadProperty):
		return "BAD_PROPERTY"
	case errors.Is(err, ErrBadSchema):
		return "BAD_SCHEMA"
	case errors.Is(err, commit.ErrDropped):
		return "COMMIT_DROPPED"
	case errors.Is(err, store.ErrBadKey):
		return "BAD_KEY"
	case errors.Is(err, ErrBadCommitID):
		return "BAD_COMMIT_ID"
	case errors.Is(err, ErrCommitExists):
		return "COMMIT_EXISTS"
	case errors.Is(err, ErrTooManyPartitions):
		return "TOO_MANY_PARTITIONS"
	case errors.Is(err, ErrStagedFilesGone):
		return "STAGED_FILES_GONE"
	case errors.Is(err, store.ErrTooLarge):
		return "CORRUPT_TABLE" // a file from storage larger than any this writer makes
	case errors.Is(err, store.ErrRange):
		// Ranges come from the table's own metadata (file sizes, footers,
		// page offsets): one past the end is a file shorter than it says.
		return "CORRUPT_TABLE"
	default:
		return "STORE_ERROR"
	}
}
