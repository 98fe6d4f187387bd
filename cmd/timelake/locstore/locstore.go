// Package locstore opens the native store of a table location: a directory
// for file:// (or a bare absolute path), S3 for s3:// (s3a://, s3n://). It is
// how the CLI and native programs follow a catalog table's location (the
// catalog says where the table is; the store is chosen from that).
//
//	st, err := locstore.Open("s3://bucket/wh/ns/t", vended, os.Getenv)
//
// For S3 each setting the user gives wins (getenv: AWS_ENDPOINT_URL[_S3],
// AWS_REGION / AWS_DEFAULT_REGION), and what the catalog vended fills the
// rest (s3.endpoint, s3.region, s3.path-style-access). The access key,
// secret and session token go as one set: the user's AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN) when both are set, else the
// vended s3.access-key-id, s3.secret-access-key, s3.session-token: a user's
// key is never mixed with a vended session token.
package locstore

import (
	"fmt"
	"os"

	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/s3store"
)

// Open opens the store whose keys are relative to loc.
func Open(loc string, vended map[string]string, getenv func(string) string) (store.Store, error) {
	p, err := location.Parse(loc)
	if err != nil {
		return nil, err
	}
	switch p.Scheme {
	case "file":
		return dirstore.Open(Dir(p))
	case "s3":
		c, err := S3Config(p.String(), vended, getenv)
		if err != nil {
			return nil, err
		}
		return s3store.New(c)
	}
	return nil, fmt.Errorf("locstore: the table's location %s: want file:// or s3://", loc)
}

// Dir is the directory of a file location: its path as written when that
// exists, else percent-decoded when it looks encoded (a table an older
// Timelake placed at file:///data/my%20table is in /data/my table), else as
// written (a table not made yet).
func Dir(p location.Place) string {
	if _, err := os.Stat(p.Path); err == nil {
		return p.Path
	}
	if d, ok := location.Decoded(p); ok {
		return d.Path
	}
	return p.Path
}

// S3Config is the S3 configuration of the table at loc (s3://bucket/prefix).
func S3Config(loc string, vended map[string]string, user func(string) string) (s3store.Config, error) {
	userKeys := user("AWS_ACCESS_KEY_ID") != "" && user("AWS_SECRET_ACCESS_KEY") != ""
	keys := func(k, vendedKey string) string {
		if userKeys {
			return user(k)
		}
		return vended[vendedKey]
	}
	userEndpoint := first(user("AWS_ENDPOINT_URL_S3"), user("AWS_ENDPOINT_URL"))
	getenv := func(k string) string {
		switch k {
		case "AWS_ENDPOINT_URL_S3":
			return first(userEndpoint, vended[restcatalog.S3Endpoint])
		case "AWS_REGION":
			return first(user("AWS_REGION"), user("AWS_DEFAULT_REGION"), vended[restcatalog.S3Region])
		case "AWS_ACCESS_KEY_ID":
			return keys(k, restcatalog.S3AccessKeyID)
		case "AWS_SECRET_ACCESS_KEY":
			return keys(k, restcatalog.S3SecretAccessKey)
		case "AWS_SESSION_TOKEN":
			return keys(k, restcatalog.S3SessionToken)
		}
		return "" // AWS_ENDPOINT_URL, AWS_DEFAULT_REGION: folded in above
	}
	c, err := s3store.ConfigFromEnv(loc, getenv)
	if err != nil {
		return c, fmt.Errorf("%w (nor did the catalog vend any)", err)
	}
	if userEndpoint == "" && vended[restcatalog.S3PathStyle] == "false" {
		c.PathStyle = false // the catalog's endpoint, addressed as it says
	}
	return c, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
