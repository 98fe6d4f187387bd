package restcatalog

import (
	"strings"

	"github.com/timelake/timelake/location"
)

// Keys of vended storage credentials (Iceberg's FileIO properties).
// persisted (the catalogs'): must not change.
const (
	S3AccessKeyID     = "s3.access-key-id"
	S3SecretAccessKey = "s3.secret-access-key"
	S3SessionToken    = "s3.session-token"
	S3Endpoint        = "s3.endpoint"
	S3Region          = "s3.region"
	S3PathStyle       = "s3.path-style-access"
	ClientRegion      = "client.region"
)

// StorageConfig is the storage configuration vended for files under loc:
// the load result's config, overlaid by the storage-credentials entry with
// the longest prefix that holds loc.
func (r *LoadResult) StorageConfig(loc string) map[string]string {
	out := map[string]string{}
	for k, v := range r.Config {
		if strings.HasPrefix(k, "s3.") || strings.HasPrefix(k, "client.") {
			out[k] = v
		}
	}
	best := -1
	var pick map[string]string
	for _, c := range r.StorageCredentials {
		if len(c.Prefix) > best && (strings.HasPrefix(loc, c.Prefix) || prefixHolds(c.Prefix, loc)) {
			best, pick = len(c.Prefix), c.Config
		}
	}
	for k, v := range pick {
		out[k] = v
	}
	if out[S3Region] == "" && out[ClientRegion] != "" {
		out[S3Region] = out[ClientRegion]
	}
	return out
}

// prefixHolds compares as places (s3a:// = s3://, file:/ = file:///).
func prefixHolds(prefix, loc string) bool {
	if _, err := location.Within(strings.TrimSuffix(prefix, "/"), loc); err == nil {
		return true
	}
	return location.Same(strings.TrimSuffix(prefix, "/"), loc)
}
