package table

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// Table is an open table: the newest version this writer knows. A Table is
// not safe for concurrent use; concurrent writers each open their own (the
// commit protocol makes them safe against each other).
type Table struct {
	st       store.Store
	env      Env
	version  commit.Version
	meta     *iceberg.Metadata
	schema   *schema.Table
	settings Settings
	// writeErr is why this version may not be written (ErrUnsupportedTable,
	// from iceberg.WriteSupport), or nil. Reads go on regardless.
	writeErr error

	lastIndex *indexState // the index in force at the last snapshot asked (index.go)
	// fellOff are the metadata files the last attempt built trimmed from
	// the metadata log (history.go); once it commits they join oldVersions,
	// deleted after the hints are written.
	fellOff, oldVersions []string
	// rebaseHook, when set, loads a newer base in a commit's rebuild
	// instead of loadForWrite (evolve_append.go).
	rebaseHook func(context.Context, commit.Version) error
	lastList   *listCache  // the manifest list last read or committed (meta.go)
	lastAppend *appendMemo // the rows of this Table's last append, for a rollup fold (rollup_fold.go)
	specParts  *specParts  // the numbering of another engine's partition tuples for maintenance (spec.go)

	// decider decides versions: nil is storage-only (PutIfAbsent of
	// vN.metadata.json), else a REST catalog's (catalog.go), which then
	// owns the metadata files: no hints are written, none is deleted.
	decider commit.Decider
	catalog *catalogRef
}

// Version is the metadata version this Table was opened at or last committed.
func (tb *Table) Version() int { return tb.version.N }

// Schema is the table's schema.
func (tb *Table) Schema() *schema.Table { return tb.schema }

// Metadata is the table metadata at Version.
func (tb *Table) Metadata() *iceberg.Metadata { return tb.meta }

// Settings are the table's parsed properties.
func (tb *Table) Settings() Settings { return tb.settings }

// reserved are properties Create derives from the schema; a caller may not set them.
var reserved = []string{PropTimeColumn, PropSeriesColumns, PropPartition}

// Create writes version 1 of a new table at location (the URI outside readers
// resolve data file paths against, e.g. file:///data/metrics or
// s3://bucket/metrics). props override DefaultProperties. A table that already
// exists is an error (ErrTableExists) and is left untouched.
func Create(ctx context.Context, st store.Store, env Env, location string, sch *schema.Table, props map[string]string) (*Table, error) {
	return create(ctx, st, env, location, sch, props, nil)
}

// create is Create; edit, when set, changes the new metadata (and sch)
// before it is written, or refuses it.
func create(ctx context.Context, st store.Store, env Env, location string, sch *schema.Table, props map[string]string, edit func(*iceberg.Metadata) error) (*Table, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	location = strings.TrimSuffix(location, "/")
	if location == "" {
		return nil, fmt.Errorf("table: empty location")
	}
	version, err := createFormatVersion(props)
	if err != nil {
		return nil, err
	}
	if err := requireV3(sch, version, "create"); err != nil {
		return nil, err
	}
	all, err := createProperties(sch, props)
	if err != nil {
		return nil, err
	}
	settings, err := ParseSettings(all)
	if err != nil {
		return nil, err
	}
	// Refuse early when any version exists (v1 may have been expired away).
	if _, err := commit.Latest(ctx, st); err == nil {
		return nil, ErrTableExists
	} else if !errors.Is(err, commit.ErrNoTable) {
		return nil, err
	}
	id, err := env.uuid()
	if err != nil {
		return nil, err
	}
	md := iceberg.NewTableMetadata(sch, id, location, env.Now().UnixMilli(), all)
	setFormatVersion(md, version)
	if edit != nil {
		if err := edit(md); err != nil {
			return nil, err
		}
	}
	raw, err := md.Marshal()
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(1), raw)
	if err != nil {
		return nil, fmt.Errorf("table: write %s: %w", commit.MetadataKey(1), err)
	}
	if !ok {
		return nil, ErrTableExists
	}
	tb := &Table{st: st, env: env, version: commit.Version{N: 1, Raw: raw}, meta: md, schema: sch, settings: settings}
	tb.writeHints(ctx, nil)
	return tb, nil
}

// createProperties are a new table's properties: DefaultProperties, then
// props, then those derived from the schema (which props may not set).
func createProperties(sch *schema.Table, props map[string]string) (map[string]string, error) {
	all := DefaultProperties()
	for _, k := range reserved {
		if _, ok := props[k]; ok {
			return nil, fmt.Errorf("%w: %s is set from the schema and cannot be given", ErrBadProperty, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if k == PropFormatVersion {
			continue // not a property: the metadata's format-version (createFormatVersion)
		}
		// A misspelt setting of ours would otherwise be kept and do nothing.
		if _, known := all[k]; strings.HasPrefix(k, "timelake.") && !known && !slices.Contains(optionalProps, k) && k != iceberg.PropIngestColumn && k != rollup.PropInline {
			return nil, fmt.Errorf("%w: %s is not a Timelake property (they are: %s)", ErrBadProperty, k, strings.Join(settable(all), ", "))
		}
	}
	maps.Copy(all, props)
	delete(all, PropFormatVersion)
	all[PropTimeColumn] = sch.TimeField().Name
	names := make([]string, len(sch.Series))
	for i, s := range sch.Series {
		names[i] = sch.Fields[s].Name
	}
	all[PropSeriesColumns] = strings.Join(names, ",")
	all[PropPartition] = sch.Partition.String()
	if _, err := ParseSettings(all); err != nil {
		return nil, err
	}
	return all, nil
}

// optionalProps are timelake.* properties a table has only when set: their
// default lives in the code, so tables need not carry a line for each.
var optionalProps = []string{PropAppendMaxPartitions}

// settable lists the timelake.* properties a create may set.
func settable(defaults map[string]string) []string {
	out := slices.Clone(optionalProps)
	for k := range defaults {
		if strings.HasPrefix(k, "timelake.") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Open loads the newest version of the table in st.
func Open(ctx context.Context, st store.Store, env Env) (*Table, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	v, err := commit.Latest(ctx, st)
	if err != nil {
		return nil, err
	}
	tb := &Table{st: st, env: env}
	if err := tb.load(v); err != nil {
		return nil, err
	}
	return tb, nil
}

// load makes v the table's current version.
func (tb *Table) load(v commit.Version) error {
	if commit.IsSuperseded(v.Raw) {
		return fmt.Errorf("%w: %s left the metadata log and its bytes were deleted (write.metadata.delete-after-commit.enabled); open the newest version", ErrCorruptTable, v.Name())
	}
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		return datafile.FileErr(v.Name(), err)
	}
	sch, err := iceberg.TableFromMetadata(md)
	if err != nil {
		return datafile.FileErr(v.Name(), err)
	}
	settings, err := ParseSettings(md.Properties)
	if err != nil {
		return datafile.FileErr(v.Name(), err)
	}
	prev := tb.meta
	tb.meta = md
	// The current snapshot's files must lie inside the table: a version
	// pointing elsewhere is refused here, before any operation reads it.
	if s := md.CurrentSnapshot(); s != nil {
		for _, p := range []string{s.ManifestList, s.Summary[lastvalue.SummaryKey]} {
			if _, err := tb.keyOf(p); p != "" && err != nil {
				tb.meta = prev
				return fmt.Errorf("%w: %s: %w", ErrCorruptTable, v.Name(), err)
			}
		}
	}
	if tb.schema != nil && !sameSchema(tb.schema, sch) {
		// Another writer changed the schema: follow it. What this Table
		// holds under the old one is carried over by field id.
		tb.followSchema(sch)
	}
	tb.version, tb.meta, tb.schema, tb.settings = v, md, sch, settings
	tb.writeErr = nil
	if err := iceberg.WriteSupport(md, sch); err != nil {
		tb.writeErr = fmt.Errorf("%s: %w", v.Name(), err)
	} else if err := tb.checkDecider(v); err != nil {
		tb.writeErr = err
	}
	return nil
}

// loadForWrite is load for a commit's rebuild: a winner that left the table
// in a state this writer does not handle ends the commit, unsupported.
func (tb *Table) loadForWrite(v commit.Version) error {
	if err := tb.load(v); err != nil {
		return err
	}
	return tb.writeErr
}

// followSchema carries the index this Table keeps (lastIndex) over to sch,
// the schema of a newer version, by field id; one that cannot be is
// dropped and read again when needed.
func (tb *Table) followSchema(sch *schema.Table) {
	if tb.lastIndex == nil || tb.lastIndex.idx == nil {
		return
	}
	if !sch.HasKey() || !tb.schema.HasKey() { // a key dropped or given (adopt): the index is of another key
		tb.lastIndex = nil
		return
	}
	idx, err := rows.Follow(tb.lastIndex.idx, sch)
	if err != nil {
		tb.lastIndex = nil
		return
	}
	st := *tb.lastIndex
	st.idx = idx
	tb.lastIndex = &st
}

// earlierSchema says whether s is one of the table's schemas (the same
// fields, ids, names, types and requiredness as one of the metadata's).
func (tb *Table) earlierSchema(s *schema.Table) bool {
	for _, is := range tb.meta.Schemas {
		if len(is.Fields) != len(s.Fields) {
			continue
		}
		same := true
		for i, f := range is.Fields {
			g := s.Fields[i]
			if f.ID != g.ID || f.Name != g.Name || f.Required != g.Required || f.PrimitiveType() != g.Type.String() {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func sameSchema(a, b *schema.Table) bool {
	if len(a.Fields) != len(b.Fields) || a.Partition != b.Partition {
		return false
	}
	for i := range a.Fields {
		f, g := a.Fields[i], b.Fields[i]
		if f.ID != g.ID || f.Name != g.Name || f.Type != g.Type || f.Required != g.Required ||
			!sameDefault(f.InitialDefault, g.InitialDefault) || !sameDefault(f.WriteDefault, g.WriteDefault) {
			return false
		}
		if (f.Nested == nil) != (g.Nested == nil) || f.Nested != nil && string(f.Nested.JSON()) != string(g.Nested.JSON()) {
			return false // a struct field added, say: ids, names and types of every node
		}
	}
	return true
}

func sameDefault(a, b *schema.Value) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// writeHints writes version-hint.text, then head.json, then deletes the
// metadata versions the commits since the last call trimmed from the
// metadata log (history.go). They are hints: a failure is reported in the
// result, never as a failed commit.
func (tb *Table) writeHints(ctx context.Context, warn func(error)) {
	if tb.catalog != nil {
		tb.oldVersions = nil // the catalog owns its metadata files
		return               // and is the pointer to the current version
	}
	note := func(err error) {
		if err != nil && warn != nil {
			warn(err)
		}
	}
	// Old versions go last, once the hints name the new one.
	defer tb.deleteOldVersions(ctx, note)
	note(tb.st.Put(ctx, commit.VersionHintKey, []byte(strconv.Itoa(tb.version.N))))
	h, err := tb.head()
	if err == nil {
		var b []byte
		b, err = marshalHead(h)
		if err == nil {
			err = tb.st.Put(ctx, HeadKey, b)
		}
	}
	note(err)
}
