// Package locstore opens the native store of a table location: a directory
// for file:// (or a bare path), S3 for s3:// (s3a://, s3n://). It is how the
// CLI and native programs follow a catalog table's location (the catalog
// says where the table is; the store is chosen from that).
//
//	st, err := locstore.Open("s3://bucket/wh/ns/t", vended, os.Getenv)
//
// S3 settings come from the user's environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_ENDPOINT_URL[_S3],
// AWS_REGION) when it has credentials: explicit configuration wins. Else
// from what the catalog vended (s3.access-key-id, s3.secret-access-key,
// s3.session-token, s3.endpoint, s3.region, s3.path-style-access).
package locstore

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/s3store"
)

// Source says where a store's S3 credentials came from, for messages.
type Source string

const (
	FromEnvironment Source = "environment"
	FromCatalog     Source = "vended by the catalog"
)

// Open opens the store whose keys are relative to loc.
func Open(loc string, vended map[string]string, getenv func(string) string) (store.Store, error) {
	st, _, err := OpenWithSource(loc, vended, getenv)
	return st, err
}

// OpenWithSource is Open that also says where S3 credentials came from
// ("" for a directory).
func OpenWithSource(loc string, vended map[string]string, getenv func(string) string) (store.Store, Source, error) {
	switch scheme, rest, _ := strings.Cut(loc, "://"); {
	case strings.HasPrefix(loc, "/"):
		st, err := dirstore.Open(loc)
		return st, "", err
	case scheme == "file" || strings.HasPrefix(loc, "file:/"):
		u, err := url.Parse(loc)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return nil, "", fmt.Errorf("locstore: %q: want file:///absolute/path", loc)
		}
		st, err := dirstore.Open(u.Path)
		return st, "", err
	case scheme == "s3" || scheme == "s3a" || scheme == "s3n":
		cfg, src, err := s3Config("s3://"+rest, vended, getenv)
		if err != nil {
			return nil, "", err
		}
		st, err := s3store.New(cfg)
		return st, src, err
	default:
		return nil, "", fmt.Errorf("locstore: %q: a table location must be file:// or s3://", loc)
	}
}

func s3Config(loc string, vended map[string]string, getenv func(string) string) (s3store.Config, Source, error) {
	if getenv("AWS_ACCESS_KEY_ID") != "" || len(vended) == 0 || vended[restcatalog.S3AccessKeyID] == "" {
		cfg, err := s3store.ConfigFromEnv(loc, getenv)
		if err != nil && len(vended) == 0 {
			return cfg, "", fmt.Errorf("%w (and the catalog vended no credentials)", err)
		}
		if err == nil {
			return cfg, FromEnvironment, nil
		}
	}
	// Vended: parse the location with an environment of the vended values.
	env := func(k string) string {
		switch k {
		case "AWS_ACCESS_KEY_ID":
			return vended[restcatalog.S3AccessKeyID]
		case "AWS_SECRET_ACCESS_KEY":
			return vended[restcatalog.S3SecretAccessKey]
		case "AWS_SESSION_TOKEN":
			return vended[restcatalog.S3SessionToken]
		case "AWS_ENDPOINT_URL":
			return vended[restcatalog.S3Endpoint]
		case "AWS_REGION":
			return vended[restcatalog.S3Region]
		}
		return ""
	}
	cfg, err := s3store.ConfigFromEnv(loc, env)
	if err != nil {
		return cfg, "", err
	}
	if v, ok := vended[restcatalog.S3PathStyle]; ok {
		cfg.PathStyle = v == "true"
	}
	return cfg, FromCatalog, nil
}
