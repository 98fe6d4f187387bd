// Command icebergappend appends rows to an Iceberg table with iceberg-go, as
// an outside writer that knows nothing of Timelake's conventions:
//
//	icebergappend -table DIR ROWS.json
//
// ROWS.json is a JSON array of objects keyed by column name (timestamps as
// RFC 3339 strings). The Arrow schema given to iceberg-go is the table's
// schema restricted to the keys that occur in the rows, so a column the
// writer does not know (Timelake's _ingest_ts) is simply not written.
//
// iceberg-go needs a catalog to commit. This one is the storage-only
// convention of a Hadoop catalog, which Timelake and Spark's Hadoop catalog
// follow too: the current version is metadata/version-hint.text (else the
// greatest metadata/vN.metadata.json), a commit is creating
// metadata/v{N+1}.metadata.json exclusively, then rewriting the hint.
// It prints one JSON line: {"version": N+1, "metadata": path, "snapshot_id": id}.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// hadoopCatalog commits one table the way Hadoop catalogs do (see the
// package comment).
type hadoopCatalog struct {
	dir     string // the table directory
	version int
	current *table.Table
}

var versionFile = regexp.MustCompile(`^v(\d+)\.metadata\.json$`)

func currentVersion(dir string) (int, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text")); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			// The hint may be stale: the next versions may exist.
			for {
				if _, err := os.Stat(filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", v+1))); err != nil {
					return v, nil
				}
				v++
			}
		}
	}
	ents, err := os.ReadDir(filepath.Join(dir, "metadata"))
	if err != nil {
		return 0, err
	}
	best := 0
	for _, e := range ents {
		if m := versionFile.FindStringSubmatch(e.Name()); m != nil {
			if v, _ := strconv.Atoi(m[1]); v > best {
				best = v
			}
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("%s: no metadata/vN.metadata.json", dir)
	}
	return best, nil
}

func (c *hadoopCatalog) metadataPath(v int) string {
	return filepath.Join(c.dir, "metadata", fmt.Sprintf("v%d.metadata.json", v))
}

func (c *hadoopCatalog) load(ctx context.Context) error {
	v, err := currentVersion(c.dir)
	if err != nil {
		return err
	}
	fsys := func(ctx context.Context) (icebergio.IO, error) { return icebergio.LocalFS{}, nil }
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"interop", "t"}, c.metadataPath(v), fsys, c)
	if err != nil {
		return err
	}
	c.version, c.current = v, tbl
	return nil
}

func (c *hadoopCatalog) LoadTable(ctx context.Context, _ table.Identifier) (*table.Table, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	return c.current, nil
}

func (c *hadoopCatalog) CommitTable(ctx context.Context, _ table.Identifier, reqs []table.Requirement, updates []table.Update) (table.Metadata, string, error) {
	base := c.current.Metadata()
	for _, r := range reqs {
		if err := r.Validate(base); err != nil {
			return nil, "", err
		}
	}
	updated, err := table.UpdateTableMetadata(base, updates, c.current.MetadataLocation())
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(updated); err != nil {
		return nil, "", err
	}
	next := c.metadataPath(c.version + 1)
	// O_EXCL: the commit is won by whoever creates the file first.
	f, err := os.OpenFile(next, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("commit conflict or failure: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return nil, "", err
	}
	if err := f.Close(); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(c.dir, "metadata", "version-hint.text"), []byte(strconv.Itoa(c.version+1)), 0o644); err != nil {
		return nil, "", err
	}
	c.version++
	return updated, next, nil
}

func run(ctx context.Context, dir, rowsPath string) (map[string]any, error) {
	c := &hadoopCatalog{dir: dir}
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(rowsPath)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	if err := json.Unmarshal(raw, &objs); err != nil {
		return nil, fmt.Errorf("%s: %w", rowsPath, err)
	}
	keys := map[string]bool{}
	for _, o := range objs {
		for k := range o {
			keys[k] = true
		}
	}
	full, err := table.SchemaToArrowSchema(c.current.Schema(), nil, true, false)
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	for _, f := range full.Fields() {
		if keys[f.Name] {
			fields = append(fields, f)
			delete(keys, f.Name)
		}
	}
	if len(keys) > 0 {
		var unknown []string
		for k := range keys {
			unknown = append(unknown, k)
		}
		sort.Strings(unknown)
		return nil, fmt.Errorf("rows have columns the table does not: %v", unknown)
	}
	sc := arrow.NewSchema(fields, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("rows to Arrow: %w", err)
	}
	defer rec.Release()
	rdr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	tbl, err := c.current.Append(ctx, rdr, nil)
	if err != nil {
		return nil, fmt.Errorf("iceberg-go append: %w", err)
	}
	var snap int64
	added := "0"
	if s := tbl.CurrentSnapshot(); s != nil {
		snap = s.SnapshotID
		added = s.Summary.Properties["added-records"]
	}
	// iceberg-go v0.7.0 commits an empty snapshot, without an error, when
	// the rows lack a required column: say so rather than pass it off.
	if added != strconv.Itoa(len(objs)) {
		return nil, fmt.Errorf("iceberg-go committed version %d (snapshot %d) with added-records %q for %d rows: rows were dropped without an error (a required column missing from the rows?)", c.version, snap, added, len(objs))
	}
	return map[string]any{"version": c.version, "metadata": c.metadataPath(c.version), "snapshot_id": strconv.FormatInt(snap, 10)}, nil
}

func main() {
	dir := flag.String("table", "", "the table directory")
	flag.Parse()
	if *dir == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: icebergappend -table DIR ROWS.json")
		os.Exit(2)
	}
	out, err := run(context.Background(), *dir, flag.Arg(0))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%w (path %s)", err, pe.Path)
		}
		json.NewEncoder(os.Stdout).Encode(map[string]any{"error": err.Error()})
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
