package main

import (
	"os"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/s3store"
)

// resolveS3 resolves TABLE s3://bucket/prefix with the standard AWS
// variables (see s3store.ConfigFromEnv), which --endpoint and --region
// override: the table location in metadata is the s3:// URI, which outside
// readers resolve with their own S3 settings. A custom endpoint is addressed
// path-style unless --virtual-hosted.
func resolveS3(arg string, a *args) (tableLoc, error) {
	c, err := s3store.ConfigFromEnv(arg, s3env(a))
	if err != nil {
		return tableLoc{}, usageErr("TABLE %q: %v", arg, err)
	}
	if a.bools["virtual-hosted"] {
		c.PathStyle = false
	}
	return tableLoc{location: c.Location(), s3: &c}, nil
}

// s3env is the environment with --endpoint and --region in place of the
// AWS variables they override.
func s3env(a *args) func(string) string {
	return func(k string) string {
		switch k {
		case "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL":
			if v := a.one("endpoint", ""); v != "" {
				return v
			}
		case "AWS_REGION", "AWS_DEFAULT_REGION":
			if v := a.one("region", ""); v != "" {
				return v
			}
		}
		return os.Getenv(k)
	}
}

// openS3 makes the store; an S3 table has no directory to check first, so a
// missing table shows as the table package's NO_TABLE.
func openS3(c *s3store.Config) (store.Store, error) { return s3store.New(*c) }
