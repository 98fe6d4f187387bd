package iceberg

import (
	"encoding/json"
	"fmt"
	"slices"
)

// FormatVersion is the Iceberg table format version written. persisted: must not change.
const FormatVersion = 2

// MainBranch is the name of the branch reads use. persisted: must not change.
const MainBranch = "main"

// Metadata is an Iceberg v2 table metadata file (vN.metadata.json).
// Members this struct does not declare are kept in Extra and written back.
//
// CurrentSnapshotID is nil for a table without snapshots; the member is then
// omitted, as pyiceberg writes it and as the spec allows ("null when there
// are no snapshots"). Parse also accepts -1 (Java's historical value) and
// null, and turns both into nil. DuckDB, pyiceberg and iceberg-go read a
// table whose metadata omits it (tested in interop_test.go).
type Metadata struct {
	FormatVersion      int                    `json:"format-version"`
	TableUUID          string                 `json:"table-uuid"`
	Location           string                 `json:"location"`
	LastSequenceNumber int64                  `json:"last-sequence-number"`
	LastUpdatedMs      int64                  `json:"last-updated-ms"`
	LastColumnID       int                    `json:"last-column-id"`
	Schemas            []Schema               `json:"schemas"`
	CurrentSchemaID    int                    `json:"current-schema-id"`
	PartitionSpecs     []PartitionSpec        `json:"partition-specs"`
	DefaultSpecID      int                    `json:"default-spec-id"`
	LastPartitionID    int                    `json:"last-partition-id"`
	Properties         map[string]string      `json:"properties"`
	CurrentSnapshotID  *int64                 `json:"current-snapshot-id,omitempty"`
	Snapshots          []Snapshot             `json:"snapshots"`
	SnapshotLog        []SnapshotLogEntry     `json:"snapshot-log"`
	MetadataLog        []MetadataLogEntry     `json:"metadata-log"`
	SortOrders         []SortOrder            `json:"sort-orders"`
	DefaultSortOrderID int                    `json:"default-sort-order-id"`
	Refs               map[string]SnapshotRef `json:"refs"`

	// Statistics is the "statistics" member (statistics.go); ParseMetadata
	// and Marshal move it out of and back into Extra.
	Statistics []StatisticsFile `json:"-"`

	Extra Extra `json:"-"`
}

// Schema is an Iceberg schema (type "struct").
type Schema struct {
	Type               string        `json:"type"` // always "struct"
	SchemaID           int           `json:"schema-id"`
	IdentifierFieldIDs []int         `json:"identifier-field-ids,omitempty"`
	Fields             []SchemaField `json:"fields"`
	Extra              Extra         `json:"-"`
}

// SchemaField is one top-level column. Type holds the JSON of the type: a
// string for primitives ("long", "timestamptz", …), an object for nested
// types written by other engines (kept as is).
type SchemaField struct {
	ID       int             `json:"id"`
	Name     string          `json:"name"`
	Required bool            `json:"required"`
	Type     json.RawMessage `json:"type"`
	Doc      string          `json:"doc,omitempty"`
	Extra    Extra           `json:"-"`
}

// PrimitiveType returns the field's type name, or "" for a nested type.
func (f SchemaField) PrimitiveType() string {
	// Nearly every type is a plain quoted name: read without encoding/json,
	// which a commit would otherwise run for every column.
	if plainJSONString(f.Type) {
		return string(f.Type[1 : len(f.Type)-1])
	}
	var s string
	if json.Unmarshal(f.Type, &s) != nil {
		return ""
	}
	return s
}

// TypeName is the field's type as Iceberg names it: the primitive's name,
// or for a nested type its kind ("struct", "list", "map").
func (f SchemaField) TypeName() string {
	if t := f.PrimitiveType(); t != "" {
		return t
	}
	var nested struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(f.Type, &nested) == nil && nested.Type != "" {
		return nested.Type
	}
	return string(f.Type)
}

// PartitionSpec is a partition spec.
type PartitionSpec struct {
	SpecID int              `json:"spec-id"`
	Fields []PartitionField `json:"fields"`
	Extra  Extra            `json:"-"`
}

// PartitionField is one field of a partition spec.
type PartitionField struct {
	Name      string `json:"name"`
	Transform string `json:"transform"`
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
	Extra     Extra  `json:"-"`
}

// SortOrder is a sort order.
type SortOrder struct {
	OrderID int         `json:"order-id"`
	Fields  []SortField `json:"fields"`
	Extra   Extra       `json:"-"`
}

// SortField is one key of a sort order.
type SortField struct {
	Transform string `json:"transform"`
	SourceID  int    `json:"source-id"`
	Direction string `json:"direction"`  // "asc" or "desc"
	NullOrder string `json:"null-order"` // "nulls-first" or "nulls-last"
	Extra     Extra  `json:"-"`
}

// Snapshot is one snapshot of the table. Summary holds "operation" and the
// totals (all values are strings in Iceberg).
type Snapshot struct {
	SnapshotID       int64             `json:"snapshot-id"`
	ParentSnapshotID *int64            `json:"parent-snapshot-id,omitempty"`
	SequenceNumber   int64             `json:"sequence-number"`
	TimestampMs      int64             `json:"timestamp-ms"`
	ManifestList     string            `json:"manifest-list"`
	Summary          map[string]string `json:"summary"`
	SchemaID         *int              `json:"schema-id,omitempty"`
	Extra            Extra             `json:"-"`
}

// SnapshotRef is a named branch or tag.
type SnapshotRef struct {
	SnapshotID int64  `json:"snapshot-id"`
	Type       string `json:"type"` // "branch" or "tag"
	Extra      Extra  `json:"-"`
}

// SnapshotLogEntry records when a snapshot became current.
type SnapshotLogEntry struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

// MetadataLogEntry records a previous metadata file.
type MetadataLogEntry struct {
	TimestampMs  int64  `json:"timestamp-ms"`
	MetadataFile string `json:"metadata-file"`
}

// The JSON methods below keep unknown members of each object in Extra.
// They are the encoding/json path that ParseMetadata and Marshal fall back
// to (see the design note in json.go); keep them off the fast path.

func (m *Metadata) UnmarshalJSON(b []byte) (err error) {
	type plain Metadata
	m.Extra, err = unmarshalKeeping(b, (*plain)(m))
	return err
}

func (m Metadata) MarshalJSON() ([]byte, error) {
	type plain Metadata
	return marshalWith(plain(m), m.Extra)
}

func (s *Schema) UnmarshalJSON(b []byte) (err error) {
	type plain Schema
	s.Extra, err = unmarshalKeeping(b, (*plain)(s))
	return err
}

func (s Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	return marshalWith(plain(s), s.Extra)
}

func (f *SchemaField) UnmarshalJSON(b []byte) (err error) {
	type plain SchemaField
	f.Extra, err = unmarshalKeeping(b, (*plain)(f))
	return err
}

func (f SchemaField) MarshalJSON() ([]byte, error) {
	type plain SchemaField
	return marshalWith(plain(f), f.Extra)
}

func (s *PartitionSpec) UnmarshalJSON(b []byte) (err error) {
	type plain PartitionSpec
	s.Extra, err = unmarshalKeeping(b, (*plain)(s))
	return err
}

func (s PartitionSpec) MarshalJSON() ([]byte, error) {
	type plain PartitionSpec
	return marshalWith(plain(s), s.Extra)
}

func (f *PartitionField) UnmarshalJSON(b []byte) (err error) {
	type plain PartitionField
	f.Extra, err = unmarshalKeeping(b, (*plain)(f))
	return err
}

func (f PartitionField) MarshalJSON() ([]byte, error) {
	type plain PartitionField
	return marshalWith(plain(f), f.Extra)
}

func (s *SortOrder) UnmarshalJSON(b []byte) (err error) {
	type plain SortOrder
	s.Extra, err = unmarshalKeeping(b, (*plain)(s))
	return err
}

func (s SortOrder) MarshalJSON() ([]byte, error) {
	type plain SortOrder
	return marshalWith(plain(s), s.Extra)
}

func (f *SortField) UnmarshalJSON(b []byte) (err error) {
	type plain SortField
	f.Extra, err = unmarshalKeeping(b, (*plain)(f))
	return err
}

func (f SortField) MarshalJSON() ([]byte, error) {
	type plain SortField
	return marshalWith(plain(f), f.Extra)
}

func (s *Snapshot) UnmarshalJSON(b []byte) (err error) {
	type plain Snapshot
	s.Extra, err = unmarshalKeeping(b, (*plain)(s))
	return err
}

func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return marshalWith(plain(s), s.Extra)
}

func (r *SnapshotRef) UnmarshalJSON(b []byte) (err error) {
	type plain SnapshotRef
	r.Extra, err = unmarshalKeeping(b, (*plain)(r))
	return err
}

func (r SnapshotRef) MarshalJSON() ([]byte, error) {
	type plain SnapshotRef
	return marshalWith(plain(r), r.Extra)
}

// requiredMembers are the top-level members a v2 metadata file must have.
// current-snapshot-id is not among them: it is absent for an empty table.
var requiredMembers = []string{
	"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
	"last-column-id", "schemas", "current-schema-id", "partition-specs", "default-spec-id",
	"last-partition-id", "sort-orders", "default-sort-order-id",
}

// ParseMetadata reads and validates a table metadata file of format 1, 2
// or 3; a v1 file's older members are read as their v2 forms (v1.go).
func ParseMetadata(data []byte) (*Metadata, error) {
	m, ok := decodeMetadata(data)
	if !ok {
		var err error
		if m, err = decodeMetadataReflect(data); err != nil {
			return nil, err
		}
	}
	if err := m.takeStatistics(); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeMetadataReflect is ParseMetadata's encoding/json path (before
// Validate), for documents the fast path gives up on: it reports every
// error, and it is the reference the fast path is tested against.
func decodeMetadataReflect(data []byte) (*Metadata, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, describeJSONError("table metadata", data, err)
	}
	if string(members["format-version"]) == "1" {
		if err := upgradeV1(members); err != nil {
			return nil, err
		}
		data, _ = json.Marshal(members)
	}
	for _, k := range requiredMembers {
		if raw, ok := members[k]; !ok || string(raw) == "null" {
			return nil, fmt.Errorf("iceberg: table metadata: required member %q is missing", k)
		}
	}
	// -1 is how Java wrote "no current snapshot"; null is the spec's form.
	if raw, ok := members["current-snapshot-id"]; ok && (string(raw) == "-1" || string(raw) == "null") {
		delete(members, "current-snapshot-id")
		data, _ = json.Marshal(members)
	}
	m := &Metadata{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, describeJSONError("table metadata", data, err)
	}
	return m, nil
}

// Marshal returns the metadata file's JSON. It validates first, so a
// file that would not parse back is never written.
func (m *Metadata) Marshal() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	// Lists and maps are written as [] and {}, never null: some readers
	// refuse null for a required member.
	out := *m
	var err error
	if out.Extra, err = m.withStatistics(); err != nil {
		return nil, err
	}
	if out.Snapshots == nil {
		out.Snapshots = []Snapshot{}
	}
	if out.SnapshotLog == nil {
		out.SnapshotLog = []SnapshotLogEntry{}
	}
	if out.MetadataLog == nil {
		out.MetadataLog = []MetadataLogEntry{}
	}
	if out.Properties == nil {
		out.Properties = map[string]string{}
	}
	if out.Refs == nil {
		out.Refs = map[string]SnapshotRef{}
	}
	e := metadataEncoder{b: make([]byte, 0, encodedSizeHint(&out))}
	if len(m.Statistics) > 0 {
		e.verbatim = statisticsMember // withStatistics wrote it from compact entries
	}
	e.metadata(&out)
	if e.bad {
		return marshalReflect(out) // raw JSON that does not compact: encoding/json says where
	}
	return e.b, nil
}

// encodedSizeHint is about the size of m's JSON, so that Marshal grows its
// buffer once or not at all.
func encodedSizeHint(m *Metadata) int {
	n := 4096 + 160*len(m.SnapshotLog)
	for _, s := range m.Snapshots {
		n += 160 + len(s.ManifestList) + 64*len(s.Summary)
	}
	for _, l := range m.MetadataLog {
		n += 48 + len(l.MetadataFile)
	}
	return n
}

// marshalReflect is Marshal's encoding/json path (after Validate and the
// nil → empty replacements), and the reference the fast path is tested against.
func marshalReflect(out Metadata) ([]byte, error) { return json.Marshal(out) }

// Validate checks the cross-references between members.
func (m *Metadata) Validate() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("iceberg: table metadata: "+format, args...)
	}
	if !slices.Contains(ReadableVersions, m.FormatVersion) {
		return unsupported("format-version %d (Timelake reads formats 1 to 3)", m.FormatVersion)
	}
	if m.TableUUID == "" && m.FormatVersion != 1 { // optional in v1
		return fail("table-uuid is empty")
	}
	if m.Location == "" {
		return fail("location is empty")
	}
	if m.CurrentSchema() == nil {
		return fail("current-schema-id %d names no schema in schemas", m.CurrentSchemaID)
	}
	for _, s := range m.Schemas {
		for _, f := range s.Fields {
			if f.ID > m.LastColumnID {
				return fail("schema %d: field %q has id %d above last-column-id %d", s.SchemaID, f.Name, f.ID, m.LastColumnID)
			}
		}
	}
	if m.DefaultSpec() == nil {
		return fail("default-spec-id %d names no spec in partition-specs", m.DefaultSpecID)
	}
	for _, s := range m.PartitionSpecs {
		for _, f := range s.Fields {
			if f.FieldID > m.LastPartitionID {
				return fail("partition spec %d: field %q has id %d above last-partition-id %d", s.SpecID, f.Name, f.FieldID, m.LastPartitionID)
			}
		}
	}
	if m.DefaultSortOrderID != 0 && !slices.ContainsFunc(m.SortOrders, func(o SortOrder) bool { return o.OrderID == m.DefaultSortOrderID }) {
		return fail("default-sort-order-id %d names no order in sort-orders", m.DefaultSortOrderID)
	}
	for i, s := range m.Snapshots {
		if s.SnapshotID <= 0 {
			return fail("snapshot %d has id %d; snapshot ids are positive", i, s.SnapshotID)
		}
		if s.SequenceNumber > m.LastSequenceNumber {
			return fail("snapshot %d has sequence-number %d above last-sequence-number %d", s.SnapshotID, s.SequenceNumber, m.LastSequenceNumber)
		}
		if s.ManifestList == "" && (m.FormatVersion != 1 || s.V1Manifests() == nil) {
			return fail("snapshot %d has no manifest-list", s.SnapshotID)
		}
		if _, ok := s.Summary["operation"]; !ok {
			return fail("snapshot %d: summary has no operation", s.SnapshotID)
		}
	}
	if m.CurrentSnapshotID != nil && m.SnapshotByID(*m.CurrentSnapshotID) == nil {
		return fail("current-snapshot-id %d names no snapshot in snapshots", *m.CurrentSnapshotID)
	}
	for name, r := range m.Refs {
		if r.Type != "branch" && r.Type != "tag" {
			return fail("ref %q has type %q (want branch or tag)", name, r.Type)
		}
		if m.SnapshotByID(r.SnapshotID) == nil {
			return fail("ref %q names snapshot %d, not in snapshots", name, r.SnapshotID)
		}
	}
	if main, ok := m.Refs[MainBranch]; ok && (m.CurrentSnapshotID == nil || main.SnapshotID != *m.CurrentSnapshotID) {
		return fail("ref main (snapshot %d) differs from current-snapshot-id", main.SnapshotID)
	}
	return nil
}

// CurrentSchema returns the schema named by current-schema-id, or nil.
func (m *Metadata) CurrentSchema() *Schema {
	for i := range m.Schemas {
		if m.Schemas[i].SchemaID == m.CurrentSchemaID {
			return &m.Schemas[i]
		}
	}
	return nil
}

// DefaultSpec returns the spec named by default-spec-id, or nil.
func (m *Metadata) DefaultSpec() *PartitionSpec {
	for i := range m.PartitionSpecs {
		if m.PartitionSpecs[i].SpecID == m.DefaultSpecID {
			return &m.PartitionSpecs[i]
		}
	}
	return nil
}

// SnapshotByID returns the snapshot with the given id, or nil.
func (m *Metadata) SnapshotByID(id int64) *Snapshot {
	for i := range m.Snapshots {
		if m.Snapshots[i].SnapshotID == id {
			return &m.Snapshots[i]
		}
	}
	return nil
}

// CurrentSnapshot returns the current snapshot, or nil for an empty table.
func (m *Metadata) CurrentSnapshot() *Snapshot {
	if m.CurrentSnapshotID == nil {
		return nil
	}
	return m.SnapshotByID(*m.CurrentSnapshotID)
}
