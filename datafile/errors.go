package datafile

import (
	"errors"
	"fmt"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
)

// ErrCorrupt: a stored file (data, delete, metadata, manifest or index)
// could not be read. Package table reports it as ErrCorruptTable, code
// CORRUPT_TABLE.
var ErrCorrupt = errors.New("corrupt table file")

// MaxFileBytes bounds what reading one manifest list, manifest, last-value
// index or position delete file may allocate; a larger object is refused as too large (a corrupt
// table) before it is read, where the store can tell its size.
const MaxFileBytes = 256 << 20

// FileErr wraps an error from parsing the stored file key: an unsupported
// feature (of the table's metadata or of a Parquet file) as
// iceberg.ErrUnsupported, anything else as ErrCorrupt.
func FileErr(key string, err error) error {
	if errors.Is(err, iceberg.ErrUnsupported) {
		return fmt.Errorf("%s: %w", key, err)
	}
	if errors.Is(err, parquet.ErrUnsupported) {
		return fmt.Errorf("%w: %s: %v", iceberg.ErrUnsupported, key, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, key, err)
}
