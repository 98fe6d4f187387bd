package table

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// UpgradeResult says what UpgradeFormat did.
type UpgradeResult struct {
	From    int  `json:"from"`
	To      int  `json:"to"`
	Changed bool `json:"changed"`
	Version int  `json:"version"`
}

// UpgradeFormat raises the table's format version to `to` (3) in one
// metadata-only commit, as Spark's ALTER TABLE … SET TBLPROPERTIES
// ('format-version'='3') does: row ids start at next-row-id 0, and the
// next snapshot gives the rows already stored their ids (the manifests
// without a first_row_id get one). A table at `to` already is left as it
// is; a version is never lowered.
func (tb *Table) UpgradeFormat(ctx context.Context, to int) (*UpgradeResult, error) {
	if !slices.Contains(WritableFormatVersions, to) {
		return nil, fmt.Errorf("%w: format-version %d: Timelake writes format 2 or 3", ErrBadProperty, to)
	}
	res := &UpgradeResult{To: to}
	err := tb.commitMetadata(ctx, "upgrade", tb.loadForWrite, func(md *iceberg.Metadata) error {
		res.From = md.FormatVersion
		switch {
		case md.FormatVersion > to:
			return fmt.Errorf("%w: the table is format %d; a format version is never lowered", ErrBadProperty, md.FormatVersion)
		case md.FormatVersion == to:
			return errNothingToDo
		}
		setFormatVersion(md, to)
		return nil
	})
	if errors.Is(err, errNothingToDo) {
		res.Version = tb.version.N
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	res.Changed, res.Version = true, tb.version.N
	return res, nil
}

// errNothingToDo ends a metadata change that would change nothing.
var errNothingToDo = errors.New("nothing to do")
