// Package schema describes a Timelake table's columns: one time column, the
// series columns that identify a series, value columns, and _ingest_ts.
//
// Field ids are assigned in declaration order starting at 1 (time, series…,
// values…, _ingest_ts) and are written into Parquet and Iceberg metadata, so
// once a table exists they never change.
//
//	t, err := schema.New("ts", []string{"host"}, []schema.Field{
//		{Name: "cpu", Type: schema.Double},
//	}, schema.Day)
package schema

import (
	"fmt"
	"strings"
)

// Type is a column type. The String form is the Iceberg primitive type name.
type Type uint8

const (
	Long        Type = iota + 1 // 64-bit signed integer
	Int                         // 32-bit signed integer
	Double                      // 64-bit IEEE float
	Float                       // 32-bit IEEE float
	Boolean                     // true/false
	String                      // UTF-8
	Timestamptz                 // microseconds since the Unix epoch, UTC
	// Timestamp is a date and time without a zone (Iceberg's "timestamp",
	// what pyiceberg and DuckDB make of a naive datetime), in microseconds
	// since 1970-01-01T00:00:00 of that wall clock. Read and written as
	// timestamptz values are; printed without a zone.
	Timestamp
	// TimestampNs and TimestamptzNs are Iceberg format 3's nanosecond
	// timestamps ("timestamp_ns", "timestamptz_ns"): int64 nanoseconds
	// since the epoch, which hold 1677-09-21 to 2262-04-11. Only a format 3
	// table may have them (RequiresV3).
	TimestampNs
	TimestamptzNs
)

// typeNames are Iceberg type names. persisted: must not change.
var typeNames = map[Type]string{
	Long: "long", Int: "int", Double: "double", Float: "float",
	Boolean: "boolean", String: "string", Timestamptz: "timestamptz", Timestamp: "timestamp",
	TimestampNs: "timestamp_ns", TimestamptzNs: "timestamptz_ns",
}

func (t Type) String() string {
	if t == Nested {
		return "nested"
	}
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// ParseType reads an Iceberg type name ("long", "timestamptz", …).
func ParseType(s string) (Type, error) {
	for t, n := range typeNames {
		if n == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown column type %q (want long, int, double, float, boolean, string, timestamptz, timestamp, timestamptz_ns or timestamp_ns)", s)
}

// IsInteger reports whether values of t are held in Column.Ints.
func (t Type) IsInteger() bool { return t == Long || t == Int || t.IsTime() }

// IsTime reports whether t is a timestamp, with or without a zone, in
// microseconds or nanoseconds.
func (t Type) IsTime() bool {
	return t == Timestamptz || t == Timestamp || t == TimestamptzNs || t == TimestampNs
}

// Nanos reports whether t is a timestamp in nanoseconds: its values, bounds
// and statistics count nanoseconds, not microseconds.
func (t Type) Nanos() bool { return t == TimestamptzNs || t == TimestampNs }

// PerMicro is how many of t's time units a microsecond holds: 1000 for a
// nanosecond timestamp, 1 for every other type.
func (t Type) PerMicro() int64 {
	if t.Nanos() {
		return 1000
	}
	return 1
}

// Zoned reports whether t is a timestamp with a zone (an instant in UTC),
// as opposed to a wall clock without one.
func (t Type) Zoned() bool { return t == Timestamptz || t == TimestamptzNs }

// InNanos is the nanosecond timestamp of the same zone as time type t
// (t itself if it is one); other types are returned as they are.
func (t Type) InNanos() Type {
	switch t {
	case Timestamptz:
		return TimestamptzNs
	case Timestamp:
		return TimestampNs
	}
	return t
}

// InMicros is the microsecond timestamp of the same zone as time type t.
func (t Type) InMicros() Type {
	switch t {
	case TimestamptzNs:
		return Timestamptz
	case TimestampNs:
		return Timestamp
	}
	return t
}

// RequiresV3 names the columns of t whose type only Iceberg format 3 has
// (timestamp_ns, timestamptz_ns, variant), in field order; empty when a
// format 2 table can hold t. A create, alter or adopt of a table in an
// older format refuses a schema for which it is not empty.
func RequiresV3(t *Table) []string {
	var out []string
	for _, f := range t.Fields {
		if f.Type.Nanos() || f.Nested.HasVariant() {
			out = append(out, f.Name)
		}
	}
	return out
}

// IsFloat reports whether values of t are held in Column.Floats.
func (t Type) IsFloat() bool { return t == Double || t == Float }

// Field is one column.
type Field struct {
	ID       int    // Iceberg field id. persisted: must not change.
	Name     string // persisted: must not change.
	Type     Type
	Required bool
	// InitialDefault and WriteDefault are format 3's column defaults
	// (defaults.go), nil when the column has none: what a reader gives for
	// rows of files written before the column existed, and what a writer
	// stores for a row that leaves the column out.
	InitialDefault, WriteDefault *Value
	// Nested describes a column of Type Nested (map, list, struct); nil
	// for a primitive column.
	Nested *NestedType
}

// Transform is the partition transform applied to the time column.
type Transform uint8

const (
	Day Transform = iota + 1
	Hour
	Month
)

// transformNames are Iceberg transform names. persisted: must not change.
var transformNames = map[Transform]string{Day: "day", Hour: "hour", Month: "month"}

func (t Transform) String() string {
	if n, ok := transformNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Transform(%d)", uint8(t))
}

// ParseTransform reads "day", "hour" or "month".
func ParseTransform(s string) (Transform, error) {
	for t, n := range transformNames {
		if n == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown partition %q (want day, hour or month)", s)
}

// IngestColumn is the column the writer sets to the append's time.
// persisted: must not change.
const IngestColumn = "_ingest_ts"

// Table is a time-series table schema.
type Table struct {
	Fields    []Field // time, series…, values…, _ingest_ts: ids 1..n at creation; a schema change (package schema/evolve) may drop ids and add higher ones
	Time      int     // index into Fields of the time column
	Series    []int   // indexes into Fields of the series columns, in key order
	Ingest    int     // index into Fields of _ingest_ts; -1 in a table without it (NewWithoutIngest)
	Partition Transform
	// Unread are the columns of the table's schema whose type Timelake
	// does not read ("tags map<string,string>"), left out of Fields: a
	// table with any is read (without them), never written.
	Unread []string
	// Nested are the columns of Fields of a nested type, as "name type"
	// ("tags map<string, string>", "attrs variant"): read (as JSON per
	// row); a table with any but map<string, string> and variant is
	// refused to writers as one with Unread is (iceberg.WriteSupport).
	Nested []string
}

// HasKey reports whether the table has a time column: false for another
// engine's table that was not adopted (Time -1), which is read as stored
// but has no key to sort, deduplicate, index or maintain by.
func (t *Table) HasKey() bool { return t.Time >= 0 }

// New builds a table schema. The time column is a required timestamp (timestamptz unless values
// declares it timestamp, timestamptz_ns or timestamp_ns); series
// columns (none: the table is one series) are required and must be string, long or int (values declares their
// types; a series column missing from values is a required string).
func New(time string, series []string, values []Field, partition Transform) (*Table, error) {
	if time == "" {
		return nil, fmt.Errorf("schema: a time column is required")
	}
	// No series column is one series: every row's key is its time alone.
	if _, ok := transformNames[partition]; !ok {
		return nil, fmt.Errorf("schema: unknown partition transform %v", partition)
	}
	byName := map[string]Field{}
	for _, f := range values {
		if err := checkName(f.Name); err != nil {
			return nil, err
		}
		if _, dup := byName[f.Name]; dup {
			return nil, fmt.Errorf("schema: column %q declared twice", f.Name)
		}
		if f.Type == Nested {
			if f.Nested == nil || f.Nested.Kind == KindPrimitive {
				return nil, fmt.Errorf("schema: column %q is nested but has no nested type", f.Name)
			}
			if err := f.Nested.Writable(); err != nil {
				return nil, fmt.Errorf("schema: column %q: %v", f.Name, err)
			}
			if f.Name == time {
				return nil, fmt.Errorf("schema: time column %q must be timestamptz, timestamp, timestamptz_ns or timestamp_ns, not %s", time, f.Nested)
			}
			for _, s := range series {
				if s == f.Name {
					return nil, fmt.Errorf("schema: series column %q must be string, long or int, not %s", s, f.Nested)
				}
			}
		} else if _, ok := typeNames[f.Type]; !ok {
			return nil, fmt.Errorf("schema: column %q has no type", f.Name)
		}
		byName[f.Name] = f
	}
	t := &Table{Partition: partition}
	add := func(f Field) {
		f.ID = len(t.Fields) + 1
		t.Fields = append(t.Fields, f)
	}
	if err := checkName(time); err != nil {
		return nil, err
	}
	timeType := Timestamptz
	if f, ok := byName[time]; ok && !f.Type.IsTime() {
		return nil, fmt.Errorf("schema: time column %q must be timestamptz, timestamp, timestamptz_ns or timestamp_ns, not %v", time, f.TypeText())
	} else if ok {
		timeType = f.Type
	}
	t.Time = 0
	add(Field{Name: time, Type: timeType, Required: true})
	seen := map[string]bool{time: true}
	for _, s := range series {
		if err := checkName(s); err != nil {
			return nil, err
		}
		if seen[s] {
			return nil, fmt.Errorf("schema: column %q used twice as time or series column", s)
		}
		seen[s] = true
		f, ok := byName[s]
		if !ok {
			f = Field{Name: s, Type: String}
		}
		if f.Type != String && f.Type != Long && f.Type != Int {
			return nil, fmt.Errorf("schema: series column %q must be string, long or int, not %v", s, f.TypeText())
		}
		f.Required = true
		t.Series = append(t.Series, len(t.Fields))
		add(f)
	}
	for _, f := range values {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		add(f)
	}
	t.Ingest = len(t.Fields)
	// Optional, so that another engine's INSERT of only the user's columns
	// works; Timelake's appends always set it (docs/decisions/ingest-ts-optional.md).
	add(Field{Name: IngestColumn, Type: Timestamptz})
	// the nodes of nested columns: fresh ids after the columns'
	id := len(t.Fields)
	for i := range t.Fields {
		if t.Fields[i].Nested != nil {
			t.Fields[i].Nested = t.Fields[i].Nested.Clone() // not the caller's
			t.Fields[i].Nested.AssignIDs(func() int { id++; return id })
		}
	}
	return t, nil
}

// NewWithoutIngest is New without the _ingest_ts column (Ingest is -1): a
// table whose every row ranks as a row without _ingest_ts, by its file's
// data sequence number, so that an engine that writes every column (Spark
// 3.5) can INSERT only the user's columns
// (docs/decisions/ingest-ts-optional.md, "Tables without _ingest_ts").
func NewWithoutIngest(time string, series []string, values []Field, partition Transform) (*Table, error) {
	t, err := New(time, series, values, partition)
	if err != nil {
		return nil, err
	}
	t.Fields = t.Fields[:t.Ingest]
	t.Ingest = -1
	return t, nil
}

// HasIngest reports whether the table has the _ingest_ts column.
func (t *Table) HasIngest() bool { return t.Ingest >= 0 }

// CheckName reports why n cannot name a column (empty, reserved, or with a
// character paths and properties cannot carry), or nil.
func CheckName(n string) error { return checkName(n) }

func checkName(n string) error {
	switch {
	case n == "":
		return fmt.Errorf("schema: empty column name")
	case n == IngestColumn:
		return fmt.Errorf("schema: column name %q is reserved", n)
	case strings.ContainsAny(n, "\x00/\\=,.\"") || strings.TrimSpace(n) != n:
		return fmt.Errorf("schema: column name %q has a character that is not allowed (/ \\ = , . \" NUL or edge spaces)", n)
	}
	return nil
}

// Index returns the index of the named field, or -1.
func (t *Table) Index(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// IndexOfID returns the index of the field with Iceberg field id id, or -1.
func (t *Table) IndexOfID(id int) int {
	for i, f := range t.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// TimeField returns the time column.
func (t *Table) TimeField() Field { return t.Fields[t.Time] }

// PartitionName is the partition field's name, e.g. "ts_day". persisted: must not change.
func (t *Table) PartitionName() string {
	return t.Fields[t.Time].Name + "_" + t.Partition.String()
}

// PartitionFieldID is the Iceberg id of the single partition field. persisted: must not change.
const PartitionFieldID = 1000

// SortOrderID is the Iceberg id of the (series…, time) sort order. persisted: must not change.
const SortOrderID = 1
