package rollup

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timelake/timelake/maintenance"
)

// Property keys of a rollup definition, in the raw table's properties:
// PropPrefix + name + "." + one of the suffixes. persisted: must not change.
const (
	PropPrefix      = "timelake.rollup."
	SuffixEvery     = "every"      // bucket width: 1m, 5m, 15m, 1h, 1d
	SuffixAggs      = "aggregates" // cpu:min,max,avg,last;mem:max
	SuffixRetention = "retention"  // the rollup table's own timelake.retention (empty: forever)
	SuffixLocation  = "location"   // the rollup table's location (URI)
	// SuffixTable: with a catalog, the rollup table's name in it
	// (NS.<TABLE>__rollup_<NAME>, table.RollupIdent); absent for a
	// storage-only rollup, which is found by its location.
	SuffixTable = "table"
	// SuffixFieldIDs: the Iceberg field id of each aggregated raw column,
	// "cpu:3;mem:4", recorded when the rollup is added, so that the rollup
	// follows its columns through renames (resolve.go). Absent in a
	// definition written before ids were recorded: its columns are then
	// found by name.
	SuffixFieldIDs = "field-ids"
	// PropInline: "true" makes an append refresh every rollup after its
	// own commit (the JavaScript client and the CLI's append).
	PropInline = "timelake.rollup.inline"
)

// Snapshot-summary keys of a rollup table's snapshots. persisted: must not change.
const (
	// SummarySource is the raw snapshot id the rollup reflects.
	SummarySource = "timelake.rollup.source-snapshot"
	// SummarySourceSeq is that snapshot's sequence number: with it a
	// refresh whose raw snapshots since were expired still finds the
	// files added after (their data sequence numbers are greater).
	SummarySourceSeq = "timelake.rollup.source-sequence"
)

// Func is an aggregate function.
type Func uint8

const (
	Count Func = iota + 1 // non-null values
	Sum
	Min
	Max
	First // value of the bucket's earliest row (null if that row's is)
	Last  // value of the bucket's latest row
	Avg   // not a column: Sum and Count, avg = sum / count
)

// funcNames are the names in properties and column suffixes.
// persisted: must not change.
var funcNames = map[Func]string{Count: "count", Sum: "sum", Min: "min", Max: "max", First: "first", Last: "last", Avg: "avg"}

func (f Func) String() string { return funcNames[f] }

// columnOrder is the order of a value column's aggregate columns.
var columnOrder = []Func{Count, Sum, Min, Max, First, Last}

// Widths are the bucket widths, by name. persisted: must not change.
var Widths = map[string]time.Duration{"1m": time.Minute, "5m": 5 * time.Minute, "15m": 15 * time.Minute, "1h": time.Hour, "1d": 24 * time.Hour}

// Agg is the aggregates of one value column.
type Agg struct {
	// Column is the raw column's name when the rollup was added: the stem
	// of its rollup columns (cpu → cpu_min), which stay as created when the
	// raw column is renamed (resolve.go).
	Column string
	Funcs  []Func // stored ones, in columnOrder (Avg expanded to Sum, Count)
	// FieldID is the raw column's Iceberg field id (SuffixFieldIDs); 0 in
	// a definition written before ids were recorded (found by name).
	FieldID int
}

// Def is a rollup definition.
type Def struct {
	Name      string
	Every     string // a key of Widths
	Width     int64  // microseconds
	Aggs      []Agg
	Retention string        // as written; empty keeps every bucket
	RetainFor time.Duration // parsed
	Location  string        // the rollup table's location; empty until add sets it
	Table     string        // with a catalog: the rollup table's name in it ("ns.t__rollup_hourly")
}

// Key is the property key of one field of rollup name.
func Key(name, suffix string) string { return PropPrefix + name + "." + suffix }

// CheckName refuses a name that is not 1–64 of [a-z0-9_], starting with a letter.
func CheckName(name string) error {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' || name == "inline" {
		return &Error{Code: CodeBadRollup, Key: name, Msg: "a rollup name is 1 to 64 of a-z, 0-9 and _, starting with a letter (and not \"inline\")"}
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return &Error{Code: CodeBadRollup, Key: name, Msg: "a rollup name is 1 to 64 of a-z, 0-9 and _, starting with a letter (and not \"inline\")"}
		}
	}
	return nil
}

// New builds a definition from its parts (the CLI's --every, --agg and
// --retention), checked as Parse checks properties.
func New(name, every string, aggs []string, retention string) (Def, error) {
	if err := CheckName(name); err != nil {
		return Def{}, err
	}
	props := map[string]string{Key(name, SuffixEvery): every, Key(name, SuffixAggs): strings.Join(aggs, ";"), Key(name, SuffixRetention): retention}
	defs, err := Parse(props)
	if err != nil {
		return Def{}, err
	}
	return defs[0], nil
}

// Parse reads every rollup defined in a table's properties, sorted by name.
// A malformed one is a *Error naming its key.
func Parse(props map[string]string) ([]Def, error) {
	byName := map[string]map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if !strings.HasPrefix(k, PropPrefix) || k == PropInline {
			continue
		}
		rest := k[len(PropPrefix):]
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			return nil, bad(k, "want %s<name>.<%s|%s|%s|%s|%s>", PropPrefix, SuffixEvery, SuffixAggs, SuffixRetention, SuffixLocation, SuffixTable)
		}
		name, field := rest[:i], rest[i+1:]
		if err := CheckName(name); err != nil {
			return nil, bad(k, "%s", err.(*Error).Msg)
		}
		switch field {
		case SuffixEvery, SuffixAggs, SuffixRetention, SuffixLocation, SuffixTable, SuffixFieldIDs:
		default:
			return nil, bad(k, "unknown rollup property %q (want %s, %s, %s, %s, %s or %s)", field, SuffixEvery, SuffixAggs, SuffixRetention, SuffixLocation, SuffixTable, SuffixFieldIDs)
		}
		if byName[name] == nil {
			byName[name] = map[string]string{}
		}
		byName[name][field] = props[k]
	}
	var out []Def
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		d, err := parseOne(name, byName[name])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseInline reads timelake.rollup.inline (absent: false).
func ParseInline(props map[string]string) (bool, error) {
	switch v := strings.TrimSpace(props[PropInline]); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, bad(PropInline, "%q: want true or false", v)
	}
}

func parseOne(name string, f map[string]string) (Def, error) {
	d := Def{Name: name, Location: strings.TrimSpace(f[SuffixLocation]), Table: strings.TrimSpace(f[SuffixTable])}
	ek := Key(name, SuffixEvery)
	every, ok := f[SuffixEvery]
	if !ok {
		return d, bad(ek, "missing: a rollup needs a bucket width (1m, 5m, 15m, 1h or 1d)")
	}
	d.Every = strings.TrimSpace(every)
	w, ok := Widths[d.Every]
	if !ok {
		return d, bad(ek, "%q: want 1m, 5m, 15m, 1h or 1d", every)
	}
	d.Width = w.Microseconds()
	ak := Key(name, SuffixAggs)
	aggs, ok := f[SuffixAggs]
	if !ok || strings.TrimSpace(aggs) == "" {
		return d, bad(ak, "missing: a rollup needs aggregates, like cpu:min,max,avg;mem:max")
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(aggs, ";") {
		a, err := parseAgg(ak, strings.TrimSpace(part))
		if err != nil {
			return d, err
		}
		if seen[a.Column] {
			return d, bad(ak, "column %q named twice", a.Column)
		}
		seen[a.Column] = true
		d.Aggs = append(d.Aggs, a)
	}
	d.Retention = strings.TrimSpace(f[SuffixRetention])
	r, err := maintenance.ParseDuration(d.Retention)
	if err != nil {
		return d, bad(Key(name, SuffixRetention), "%q: %v", d.Retention, err)
	}
	d.RetainFor = r
	if ids, ok := f[SuffixFieldIDs]; ok {
		if err := parseFieldIDs(Key(name, SuffixFieldIDs), ids, d.Aggs); err != nil {
			return d, err
		}
	}
	return d, nil
}

// parseFieldIDs reads "cpu:3;mem:4" into aggs' FieldIDs: one positive id
// for each aggregated column, no other column, no id twice.
func parseFieldIDs(key, s string, aggs []Agg) error {
	ids := map[string]int{}
	used := map[int]string{}
	for _, part := range strings.Split(s, ";") {
		col, v, ok := strings.Cut(strings.TrimSpace(part), ":")
		col = strings.TrimSpace(col)
		id, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || col == "" || err != nil || id <= 0 {
			return bad(key, "%q: want COLUMN:FIELD_ID;… (a positive integer per aggregated column)", part)
		}
		if _, dup := ids[col]; dup {
			return bad(key, "column %q named twice", col)
		}
		if other, dup := used[id]; dup {
			return bad(key, "field id %d given to %q and %q", id, other, col)
		}
		ids[col], used[id] = id, col
	}
	for i := range aggs {
		id, ok := ids[aggs[i].Column]
		if !ok {
			return bad(key, "no field id for column %q (the aggregates name it)", aggs[i].Column)
		}
		aggs[i].FieldID = id
		delete(ids, aggs[i].Column)
	}
	if len(ids) > 0 {
		return bad(key, "column %q is not aggregated (the aggregates do not name it)", slices.Sorted(maps.Keys(ids))[0])
	}
	return nil
}

// parseAgg reads "cpu:min,max,avg".
func parseAgg(key, s string) (Agg, error) {
	col, list, ok := strings.Cut(s, ":")
	col = strings.TrimSpace(col)
	if !ok || col == "" || strings.TrimSpace(list) == "" {
		return Agg{}, bad(key, "%q: want COLUMN:FUNC[,FUNC…] (FUNC is count, sum, min, max, avg, first or last)", s)
	}
	want := map[Func]bool{}
	for _, fn := range strings.Split(list, ",") {
		fn = strings.TrimSpace(fn)
		var f Func
		for k, n := range funcNames {
			if n == fn {
				f = k
			}
		}
		if f == 0 {
			return Agg{}, bad(key, "column %q: unknown aggregate %q (want count, sum, min, max, avg, first or last)", col, fn)
		}
		if f == Avg {
			want[Sum], want[Count] = true, true
		} else {
			want[f] = true
		}
	}
	a := Agg{Column: col}
	for _, f := range columnOrder {
		if want[f] {
			a.Funcs = append(a.Funcs, f)
		}
	}
	return a, nil
}

// AggString is the aggregates property's value of d, canonical.
func (d Def) AggString() string {
	parts := make([]string, len(d.Aggs))
	for i, a := range d.Aggs {
		fs := make([]string, len(a.Funcs))
		for j, f := range a.Funcs {
			fs[j] = f.String()
		}
		parts[i] = a.Column + ":" + strings.Join(fs, ",")
	}
	return strings.Join(parts, ";")
}

// Properties are d's property keys and values.
func (d Def) Properties() map[string]string {
	p := map[string]string{
		Key(d.Name, SuffixEvery):     d.Every,
		Key(d.Name, SuffixAggs):      d.AggString(),
		Key(d.Name, SuffixRetention): d.Retention,
	}
	if d.Location != "" {
		p[Key(d.Name, SuffixLocation)] = d.Location
	}
	if d.Table != "" {
		p[Key(d.Name, SuffixTable)] = d.Table
	}
	if ids := d.fieldIDString(); ids != "" {
		p[Key(d.Name, SuffixFieldIDs)] = ids
	}
	return p
}

// fieldIDString is the field-ids property's value of d; empty when d has
// no ids (written before they were recorded, or not bound yet).
func (d Def) fieldIDString() string {
	parts := make([]string, len(d.Aggs))
	for i, a := range d.Aggs {
		if a.FieldID <= 0 {
			return ""
		}
		parts[i] = a.Column + ":" + strconv.Itoa(a.FieldID)
	}
	return strings.Join(parts, ";")
}

// Keys are every property key rollup name may have: what a drop removes.
func Keys(name string) []string {
	return []string{Key(name, SuffixEvery), Key(name, SuffixAggs), Key(name, SuffixRetention), Key(name, SuffixLocation), Key(name, SuffixTable), Key(name, SuffixFieldIDs)}
}

// Find is the rollup named name among defs, or a NO_ROLLUP error.
func Find(defs []Def, name string) (Def, error) {
	for _, d := range defs {
		if d.Name == name {
			return d, nil
		}
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	has := "the table has none"
	if len(names) > 0 {
		has = "the table has: " + strings.Join(names, ", ")
	}
	return Def{}, &Error{Code: CodeNoRollup, Key: name, Msg: "no such rollup (" + has + ")"}
}

// SiblingLocation is where the rollup table of a storage-only raw table
// lives: beside it, "<raw>__rollup_<name>". persisted: must not change.
func SiblingLocation(raw, name string) string {
	return strings.TrimSuffix(raw, "/") + "__rollup_" + name
}
