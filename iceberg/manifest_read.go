package iceberg

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/timelake/timelake/avro"
)

// Manifest is a manifest read back: its header and its entries with
// inherited values resolved.
type Manifest struct {
	Schema   Schema // table schema from the "schema" header key
	SchemaID int
	Spec     PartitionSpec // from partition-spec and partition-spec-id
	// Schema and Spec.Fields are shared by every manifest read with the
	// same header text (see manifestSchemas): read them, never modify them.
	FormatVersion int
	Content       string // "data" or "deletes"
	Entries       []ManifestEntry
}

// ReadManifest reads a v2 manifest, of data or of delete files. from is the manifest list entry
// that points at it: ADDED entries whose snapshot id or sequence numbers
// are null inherit from.AddedSnapshotID and from.SequenceNumber (spec:
// "Sequence Number Inheritance"). A null sequence number on an EXISTING or
// DELETED entry is an error, as it cannot be inherited.
func ReadManifest(data []byte, from ManifestFile) (*Manifest, error) {
	r, err := avro.NewReader(data)
	if err != nil {
		return nil, fmt.Errorf("iceberg: manifest %s: %w", from.ManifestPath, err)
	}
	fail := func(format string, args ...any) (*Manifest, error) {
		return nil, fmt.Errorf("iceberg: manifest %s: "+format, append([]any{from.ManifestPath}, args...)...)
	}
	m := &Manifest{Content: string(r.Meta[metaContent]), FormatVersion: 1}
	if v, ok := r.Meta[metaFormatVersion]; ok {
		if m.FormatVersion, err = strconv.Atoi(string(v)); err != nil {
			return fail("format-version %q is not a number", v)
		}
	}
	if !slices.Contains(ReadableVersions, m.FormatVersion) {
		return nil, unsupported("%s: manifest format-version %d", from.ManifestPath, m.FormatVersion)
	}
	if m.Content == "" {
		m.Content = "data"
	}
	if m.Content != "data" && m.Content != "deletes" {
		return fail("content %q is not supported (want data or deletes)", m.Content)
	}
	if raw, ok := r.Meta[metaSchema]; ok {
		if m.Schema, err = manifestSchemas.Get(raw, parseJSON[Schema]); err != nil {
			return nil, describeJSONError("manifest "+from.ManifestPath+" header schema", raw, err)
		}
	}
	if v, ok := r.Meta[metaSchemaID]; ok {
		if m.SchemaID, err = strconv.Atoi(string(v)); err != nil {
			return fail("schema-id %q is not a number", v)
		}
	}
	if raw, ok := r.Meta[metaPartitionSpec]; ok {
		if m.Spec.Fields, err = manifestSpecs.Get(raw, parseJSON[[]PartitionField]); err != nil {
			return nil, describeJSONError("manifest "+from.ManifestPath+" header partition-spec", raw, err)
		}
	}
	if v, ok := r.Meta[metaPartitionSpecID]; ok {
		if m.Spec.SpecID, err = strconv.Atoi(string(v)); err != nil {
			return fail("partition-spec-id %q is not a number", v)
		}
	}
	er := &entryReader{schema: r.Schema, from: from, keep: true, v1: m.FormatVersion == 1}
	err = r.Decode(func(d *avro.Decoder) error {
		m.Entries = append(m.Entries, ManifestEntry{})
		return er.read(d, &m.Entries[len(m.Entries)-1], nil)
	})
	if err != nil {
		return fail("%v", err)
	}
	InheritFirstRowIDs(from, m.Entries)
	return m, nil
}

// InheritFirstRowIDs gives the data files of a manifest whose list entry
// has a first_row_id (format v3) their own, as the spec's row lineage
// says: live entries with a null first_row_id, in manifest order, take the
// manifest's and advance it by their record counts. The entries then carry
// it explicitly when a rewritten manifest lists them as EXISTING.
func InheritFirstRowIDs(from ManifestFile, entries []ManifestEntry) {
	if from.FirstRowID == nil || from.Content != ContentData {
		return
	}
	next := *from.FirstRowID
	for i := range entries {
		f := &entries[i].DataFile
		if entries[i].Status == StatusDeleted || f.FirstRowID != nil || f.Content != ContentData {
			continue
		}
		id := next
		f.FirstRowID = &id
		next += f.RecordCount
	}
}

// ManifestDataFiles calls each with the status and path of every entry of
// a v2 manifest (data or deletes), checking the header's format-version and
// content and every entry as ReadManifest does, except the six stats maps
// (column_sizes ... upper_bounds), whose bytes it skips as Avro values of
// the writer's schema without reading their keys and values (still
// bounds-checked: a truncated map is an error). Every manifest ReadManifest
// reads, it reads to the same statuses and paths; it may read one whose
// stats ReadManifest refuses. It does not parse the schema and partition
// spec in the header, which a reader that only follows the manifest to its
// data files does not need. c (may be nil) is reused across calls: see
// avro.Cache.
func ManifestDataFiles(c *avro.Cache, data []byte, from ManifestFile, each func(status EntryStatus, path string) error) error {
	return manifestDataFiles(c, data, from, true, each)
}

// manifestDataFiles is ManifestDataFiles; light false walks the stats maps
// as ReadManifest does (kept for the tests and benchmarks that compare).
func manifestDataFiles(c *avro.Cache, data []byte, from ManifestFile, light bool, each func(status EntryStatus, path string) error) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("iceberg: manifest %s: "+format, append([]any{from.ManifestPath}, args...)...)
	}
	var r *avro.Reader
	var err error
	if c != nil {
		r, err = c.NewReader(data)
	} else {
		r, err = avro.NewReader(data)
	}
	if err != nil {
		return fail("%w", err)
	}
	version := 1
	if v, ok := r.Meta[metaFormatVersion]; ok {
		if version, err = strconv.Atoi(string(v)); err != nil {
			return fail("format-version %q is not a number", v)
		}
	}
	if !slices.Contains(ReadableVersions, version) {
		return unsupported("%s: manifest format-version %d", from.ManifestPath, version)
	}
	if content := string(r.Meta[metaContent]); content != "" && content != "data" && content != "deletes" {
		return fail("content %q is not supported (want data or deletes)", content)
	}
	er := &entryReader{schema: r.Schema, from: from, v1: version == 1, light: light}
	var e ManifestEntry
	var path []byte
	err = r.Decode(func(d *avro.Decoder) error {
		if err := er.read(d, &e, &path); err != nil {
			return err
		}
		return eachErr(each(e.Status, string(path)))
	})
	var ee eachError
	if errors.As(err, &ee) {
		return ee.err
	}
	if err != nil {
		return fail("%v", err)
	}
	return nil
}

// eachError carries an error of a caller's callback through Reader.Decode,
// to be returned as it is.
type eachError struct{ err error }

func (e eachError) Error() string { return e.err.Error() }

func eachErr(err error) error {
	if err == nil {
		return nil
	}
	return eachError{err}
}
