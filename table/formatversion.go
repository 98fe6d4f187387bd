package table

import (
	"fmt"
	"strconv"

	"github.com/timelake/timelake/iceberg"
)

// PropFormatVersion, given to a create, chooses the table's Iceberg format
// version, as Spark's TBLPROPERTIES, pyiceberg's properties and the REST
// catalog's create request take it; like them, the table does not keep it
// as a property (the metadata's format-version member says it).
const PropFormatVersion = "format-version"

// DefaultFormatVersion is what a create writes when not asked: 2, until
// the readers Timelake's users run all read format 3 (docs/decisions/format-v3.md).
const DefaultFormatVersion = iceberg.FormatVersion

// WritableFormatVersions are the versions Timelake creates and writes.
var WritableFormatVersions = []int{2, 3}

// createFormatVersion is the format version props ask for.
func createFormatVersion(props map[string]string) (int, error) {
	v, ok := props[PropFormatVersion]
	if !ok {
		return DefaultFormatVersion, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || (n != 2 && n != 3) {
		return 0, fmt.Errorf("%w: %s=%q: Timelake creates format 2 or 3", ErrBadProperty, PropFormatVersion, v)
	}
	return n, nil
}

// setFormatVersion makes md, a new table's metadata, of format version v:
// a v3 table starts its row ids at 0.
func setFormatVersion(md *iceberg.Metadata, v int) {
	md.FormatVersion = v
	if v >= 3 {
		md.SetNextRowID(0)
	}
}
