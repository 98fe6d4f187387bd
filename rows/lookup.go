package rows

import "github.com/timelake/timelake/schema"

// LookupColumn resolves an input column name to its index in t, as the CSV
// and NDJSON readers do: -1 for an unknown name when opt.IgnoreUnknown, an
// UNKNOWN_COLUMN *Error for an unknown name otherwise and for _ingest_ts
// always. Drivers that bring their own input form (the WebAssembly bridge's
// columns) use it so that their errors read the same.
func LookupColumn(t *schema.Table, name string, opt Options) (int, error) {
	col, e := lookupColumn(t, name, opt)
	if e != nil {
		return 0, e
	}
	return col, nil
}
