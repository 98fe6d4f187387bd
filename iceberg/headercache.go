package iceberg

import (
	"encoding/json"

	"github.com/timelake/timelake/internal/core/textcache"
)

// The table schemas and partition spec fields of manifest headers, parsed
// once per text for every manifest that carries it (see package textcache):
// every manifest of a table has the same ones, and an expiry reads a
// thousand manifests.
var (
	manifestSchemas textcache.Cache[Schema]
	manifestSpecs   textcache.Cache[[]PartitionField]
)

func parseJSON[T any](raw []byte) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}
