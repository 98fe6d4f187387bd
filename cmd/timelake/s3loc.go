package main

import (
	"os"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/s3store"
)

// resolveS3 resolves TABLE s3://bucket/prefix with the standard AWS
// variables (see s3store.ConfigFromEnv): the table location in metadata is the
// s3:// URI, which outside readers resolve with their own S3 settings.
func resolveS3(arg string) (tableLoc, error) {
	c, err := s3store.ConfigFromEnv(arg, os.Getenv)
	if err != nil {
		return tableLoc{}, usageErr("TABLE %q: %v", arg, err)
	}
	return tableLoc{location: c.Location(), s3: &c}, nil
}

// openS3 makes the store; an S3 table has no directory to check first, so a
// missing table shows as the table package's NO_TABLE.
func openS3(c *s3store.Config) (store.Store, error) { return s3store.New(*c) }
