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

// keepVended adds the secrets among a load result's storage configuration
// (the secret access key, the session token, any other key naming a secret,
// token or password) to the client's secrets: an error that echoes them is
// scrubbed like one that echoes the catalog's own token. The access key id
// is an identifier (S3 names it in its own errors), not a secret.
func (c *Client) keepVended(r *LoadResult) {
	keep := func(m map[string]string) {
		for k, v := range m {
			if isSecretKey(k) {
				c.secrets.Add(v)
			}
		}
	}
	keep(r.Config)
	for _, sc := range r.StorageCredentials {
		keep(sc.Config)
	}
}

// isSecretKey reports whether a FileIO property holds a secret:
// s3.secret-access-key, s3.session-token, gcs.oauth2.token,
// adls.sas-token.<account>, a password.
func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	if strings.Contains(k, "expires") {
		return false // s3.session-token-expires-at-ms: a time
	}
	return strings.Contains(k, "secret") || strings.Contains(k, "token") || strings.Contains(k, "password")
}
