package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/timelake/timelake/cmd/timelake/locstore"
	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/s3store"
	"github.com/timelake/timelake/table"
)

// tableLoc is a TABLE argument resolved: a local directory and the location
// written into the table's metadata (an absolute file:// URI, which every
// outside reader resolves).
type tableLoc struct {
	dir      string
	location string
	s3       *s3store.Config // set for s3://bucket/prefix (s3loc.go)
}

func resolveTable(arg string, a *args) (tableLoc, error) {
	p := arg
	if strings.HasPrefix(arg, "s3://") {
		return resolveS3(arg, a)
	} else if strings.HasPrefix(arg, "file:") {
		pl, err := location.Parse(arg)
		if err != nil || pl.Scheme != "file" {
			return tableLoc{}, usageErr("TABLE %q: want a directory or a file:///absolute/path URI", arg)
		}
		p = locstore.Dir(pl)
	} else if strings.Contains(arg, "://") {
		return tableLoc{}, usageErr("TABLE %q: want a directory, a file:// URI or s3://bucket/prefix", arg)
	}
	for _, f := range []string{"endpoint", "region", "virtual-hosted"} {
		if a.one(f, "") != "" || a.bools[f] {
			return tableLoc{}, usageErr("--%s applies to s3:// tables only", f)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return tableLoc{}, fmt.Errorf("TABLE %q: %w", arg, err)
	}
	return tableLoc{dir: abs, location: fileLocation(abs)}, nil
}

// fileLocation is the location of the directory abs as written into
// metadata: file:// and the path as it is, not percent-encoded ("file:///data/my
// tablé"), as Iceberg Java writes it and pyiceberg and DuckDB open it.
func fileLocation(abs string) string { return "file://" + filepath.ToSlash(abs) }

// create opens the directory store, making the directory.
func (l tableLoc) create() (store.Store, error) {
	if l.s3 != nil {
		return openS3(l.s3)
	}
	return dirstore.Open(l.dir)
}

// open opens an existing table directory; a missing one is an error that says so.
func (l tableLoc) open() (store.Store, error) {
	if l.s3 != nil {
		return openS3(l.s3)
	}
	if fi, err := os.Stat(l.dir); err != nil || !fi.IsDir() {
		return nil, noDirError{l.dir}
	}
	return dirstore.Open(l.dir)
}

// env is the process's clock and randomness, and the grace floor:
// table.DefaultGraceFloor, or TIMELAKE_GRACE_FLOOR (a duration; 0 for a
// table no other writer commits to while maintain runs).
func env() table.Env {
	e := sysenv.Env()
	if v := os.Getenv("TIMELAKE_GRACE_FLOOR"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			e.GraceFloor = d
		}
	}
	return e
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// noDirError is a table directory that does not exist: NO_TABLE, like a
// directory without metadata.
type noDirError struct{ dir string }

func (e noDirError) Error() string { return fmt.Sprintf("no table at %s (no such directory)", e.dir) }
func (e noDirError) Unwrap() error { return table.ErrNoTable }
