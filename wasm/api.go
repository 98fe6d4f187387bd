//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall/js"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// tables are the open tables by handle. Calls run one at a time (the client
// queues them), but the map is only touched from call goroutines, so it
// needs no lock on this single-threaded runtime beyond that discipline.
var (
	tables     = map[int]*table.Table{}
	nextHandle = 1
)

// schemaSpec is the schema as the client sends it.
type schemaSpec struct {
	Time      string       `json:"time"`
	Series    []string     `json:"series"`
	Columns   []columnSpec `json:"columns"`
	Partition string       `json:"partition"`
	// IngestColumn false: a table without _ingest_ts (schema.NewWithoutIngest).
	IngestColumn *bool `json:"ingestColumn"`
}

type columnSpec struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

func (s *schemaSpec) build() (*schema.Table, error) {
	part := schema.Day // a spec of more than the time: specFields
	if p, err := schema.ParseTransform(s.Partition); err == nil {
		part = p
	}
	var fields []schema.Field
	for _, c := range s.Columns {
		// a primitive's name or a nested type's text (map<string, string>,
		// list<double>, struct<a: long>), as create --column takes it
		t, nt, err := schema.ParseTypeText(c.Type)
		if err != nil {
			return nil, badArg("schema column %q: %v", c.Name, err)
		}
		fields = append(fields, schema.Field{Name: c.Name, Type: t, Nested: nt, Required: c.Required})
	}
	newSchema := schema.New
	if s.IngestColumn != nil && !*s.IngestColumn {
		newSchema = schema.NewWithoutIngest
	}
	sch, err := newSchema(s.Time, s.Series, fields, part)
	if err != nil {
		return nil, badArg("%v", err)
	}
	return sch, nil
}

// specFields is the partition spec of schema.partition beyond one day,
// hour or month ("day, bucket(16, host)", "host", "none": table.ParseSpec),
// or nil.
func (s *schemaSpec) specFields(sch *schema.Table) ([]iceberg.PartitionField, error) {
	if s.Partition == "" {
		return nil, nil
	}
	_, fields, err := table.ParseSpec(sch, s.Partition)
	if err != nil {
		return nil, badArg("schema.partition: %v", err)
	}
	return fields, nil
}

func argString(args []js.Value, i int, what string) (string, error) {
	if len(args) <= i || args[i].Type() != js.TypeString {
		return "", badArg("argument %d (%s) must be a string", i+1, what)
	}
	return args[i].String(), nil
}

func argStore(args []js.Value, i int) (*jsStore, error) {
	if len(args) <= i || args[i].Type() != js.TypeObject {
		return nil, badArg("argument %d must be a store object", i+1)
	}
	return &jsStore{v: args[i]}, nil
}

func argTable(args []js.Value) (*table.Table, int, error) {
	if len(args) == 0 || args[0].Type() != js.TypeNumber {
		return nil, 0, badArg("argument 1 must be a table handle")
	}
	h := args[0].Int()
	tb := tables[h]
	if tb == nil {
		return nil, 0, badArg("table handle %d is not open (closed, or from another instance)", h)
	}
	return tb, h, nil
}

// opened registers tb and describes it from its metadata alone: version and
// columns. Opening reads no manifest, so a Worker's first call costs the same
// few reads however many files the table has; info() reads the manifests.
func opened(tb *table.Table) (any, error) {
	h := nextHandle
	nextHandle++
	tables[h] = tb
	b, err := json.Marshal(struct {
		Version  int                `json:"version"`
		Columns  []table.ColumnInfo `json:"columns"`
		Location string             `json:"location"`
	}{tb.Version(), tb.Columns(), tb.Metadata().Location})
	if err != nil {
		delete(tables, h)
		return nil, err
	}
	return map[string]any{"handle": h, "head": string(b)}, nil
}

// argSchemaProps reads the schema JSON at args[i] and the properties JSON at args[i+1].
func argSchemaProps(args []js.Value, i int) (*schema.Table, map[string]string, error) {
	sch, _, props, err := argSchemaSpecProps(args, i)
	if err != nil {
		return nil, nil, err
	}
	if sch.Partition == 0 {
		return nil, nil, badArg("schema.partition: a table here is partitioned by day, hour or month")
	}
	return sch, props, nil
}

// argSchemaSpecProps is argSchemaProps with the partition spec's fields
// beyond one day, hour or month (nil for those).
func argSchemaSpecProps(args []js.Value, i int) (*schema.Table, []iceberg.PartitionField, map[string]string, error) {
	raw, err := argString(args, i, "schema JSON")
	if err != nil {
		return nil, nil, nil, err
	}
	var spec schemaSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return nil, nil, nil, badArg("schema JSON: %v", err)
	}
	sch, err := spec.build()
	if err != nil {
		return nil, nil, nil, err
	}
	fields, err := spec.specFields(sch)
	if err != nil {
		return nil, nil, nil, err
	}
	if fields != nil {
		sch.Partition = 0
	}
	props := map[string]string{}
	if p, err := argString(args, i+1, "properties JSON"); err != nil {
		return nil, nil, nil, err
	} else if err := json.Unmarshal([]byte(p), &props); err != nil {
		return nil, nil, nil, badArg("properties JSON (want an object of strings): %v", err)
	}
	return sch, fields, props, nil
}

func createTable(ctx context.Context, args []js.Value) (any, error) {
	st, err := argStore(args, 0)
	if err != nil {
		return nil, err
	}
	sch, fields, props, err := argSchemaSpecProps(args, 1)
	if err != nil {
		return nil, err
	}
	loc, err := argString(args, 3, "location")
	if err != nil {
		return nil, err
	}
	tb, err := table.CreateWithSpec(ctx, st, sysenv.Env(), loc, sch, props, fields)
	if err != nil {
		return nil, err
	}
	return opened(tb)
}

func openTable(ctx context.Context, args []js.Value) (any, error) {
	st, err := argStore(args, 0)
	if err != nil {
		return nil, err
	}
	tb, err := table.Open(ctx, st, sysenv.Env())
	if err != nil {
		return nil, err
	}
	return opened(tb)
}

func closeTable(_ context.Context, args []js.Value) (any, error) {
	_, h, err := argTable(args)
	if err != nil {
		return nil, err
	}
	delete(tables, h)
	delete(inlineRollups, h)
	return nil, nil
}

func infoJSON(ctx context.Context, tb *table.Table) (string, error) {
	in, err := tb.Info(ctx)
	if err != nil {
		return "", err
	}
	// The key by name, for readers that label series (the explorer):
	// Info.Key is text for people.
	out := struct {
		*table.Info
		TimeColumn    string   `json:"time-column,omitempty"`
		SeriesColumns []string `json:"series-columns,omitempty"`
	}{Info: in}
	if sch := tb.Schema(); sch.HasKey() {
		out.TimeColumn = sch.TimeField().Name
		out.SeriesColumns = []string{}
		for _, i := range sch.Series {
			out.SeriesColumns = append(out.SeriesColumns, sch.Fields[i].Name)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

func info(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	return infoJSON(ctx, tb)
}

// appendOptions are the per-append options the client sends.
type appendOptions struct {
	TimeUnit      string `json:"timeUnit"`
	IgnoreUnknown bool   `json:"ignoreUnknown"`
	// Evolve adds the input's unknown columns (optional) in the append's commit.
	Evolve bool `json:"evolve"`
	// CommitID names the append (table.CheckCommitID's rules); "" for a random id.
	CommitID string `json:"commitId"`
}

func appendRows(ctx context.Context, args []js.Value) (any, error) {
	tb, h, err := argTable(args)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 || args[1].Type() != js.TypeObject {
		return nil, badArg("argument 2 must be the columnar rows")
	}
	var ao appendOptions
	// The client passes "{}" for an append without options, the common
	// case: not decoding it keeps encoding/json's decoder out of a warm
	// append's code, which V8 would otherwise compile as hot.
	if len(args) > 2 && args[2].Type() == js.TypeString && args[2].String() != "{}" {
		if err := json.Unmarshal([]byte(args[2].String()), &ao); err != nil {
			return nil, badArg("append options JSON: %v", err)
		}
	}
	opt := rows.Options{IgnoreUnknown: ao.IgnoreUnknown}
	if ao.TimeUnit != "" {
		u, err := rows.ParseTimeUnit(ao.TimeUnit)
		if err != nil {
			return nil, badArg("timeUnit: %v", err)
		}
		opt.TimeUnit = u
	}
	var changes []evolve.Change // with evolve: the columns to add
	var evolveTo func([]evolve.Column) (*schema.Table, error)
	if ao.Evolve {
		evolveTo = func(cols []evolve.Column) (*schema.Table, error) {
			changes = evolve.Missing(tb.Schema(), cols)
			return tb.EvolvedSchema(changes)
		}
	}
	// A Table that defines a rollup keeps its last append's rows for a fold
	// (table/rollup_fold.go) until this append replaces them. With the
	// collector off they would sit under this batch's peak: 100k rows kept
	// ~7 MiB, which the isolate's memory kept as its high-water mark
	// (37.5 MiB where an append without a rollup takes 28.5). Dropped before
	// the batch is decoded, and collected with the garbage since the last
	// collection once the two make collectAfter.
	if kept := uint64(tb.DropAppendRows()); kept > 0 {
		collectEvery(collectAfter - min(kept, collectAfter))
	}
	t0 := time.Now()
	b, t1, err := alignInput(args[1], tb.Schema(), opt, evolveTo)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()
	res, err := tb.AppendEvolvedWith(ctx, changes, b, table.AppendOptions{CommitID: ao.CommitID})
	if err != nil {
		return nil, err
	}
	t3 := time.Now()
	// timelake.rollup.inline: refresh every rollup after the commit, in
	// this call (rollupinline.go); never fails the append. Before the
	// auto-maintenance, whose compaction would come between the append and
	// the refresh.
	storeFor, held := js.Undefined(), js.Undefined()
	if len(args) > 3 {
		storeFor = args[3]
	}
	if len(args) > 4 {
		held = args[4]
	}
	inline, inlineWarnings := inlineRefresh(ctx, h, tb, storeFor, held)
	t4 := time.Now()
	maint, maintWarnings := autoMaintain(ctx, tb) // after the commit; never fails the append
	t5 := time.Now()
	// The rows kept for a fold are for a refresh in the next call. Left
	// uncollected, this append's garbage makes that refresh allocate above
	// it, so what it keeps (the rollup Table's new version and last-value
	// index) does not land in the middle of the free pages the next batch
	// needs in one piece: collected here, that layout grew the isolate's
	// memory 1 MiB with each append and refresh. The next append collects
	// at its start (the kept rows above); any other call at its end (this
	// garbage makes collectAfter), but a refresh while the rows are kept.
	skipCollectAfterCall = inline == "" && tb.KeepsAppendRows()
	warnings := make([]any, 0, len(res.Warnings)+len(inlineWarnings)+len(maintWarnings))
	for _, w := range append(append(res.Warnings, inlineWarnings...), maintWarnings...) {
		warnings = append(warnings, scrubSecrets(w)) // a failed auto-maintenance's store error
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	out := map[string]any{
		"version":     res.Version,
		"snapshotId":  strconv.FormatInt(res.SnapshotID, 10),
		"commitId":    res.CommitID,
		"inputRows":   res.InputRows,
		"rowsWritten": res.Rows,
		"files":       res.Files,
		"bytes":       float64(res.Bytes),
		"retries":     res.Conflicts,
		"attempts":    res.Attempts,
		"uploads":     res.Uploads,
		"durationMs":  float64(res.DurationMs),
		"warnings":    warnings,
		"timings": map[string]any{ // by the Go clock; frozen between I/O in workerd
			"copyMs":   ms(t1.Sub(t0)),
			"alignMs":  ms(t2.Sub(t1)),
			"appendMs": ms(t3.Sub(t2)),
		},
	}
	if len(changes) > 0 {
		cols, err := json.Marshal(tb.Columns())
		if err != nil {
			return nil, err
		}
		out["columns"] = string(cols) // the schema the append committed
	}
	if inline != "" {
		out["rollups"] = inline // JSON: each rollup's refresh, or its error's code and message
		out["timings"].(map[string]any)["rollupMs"] = ms(t4.Sub(t3))
	}
	if maint != nil {
		out["maintenance"] = maint // JSON, as maintain() returns it
		out["timings"].(map[string]any)["maintainMs"] = ms(t5.Sub(t4))
	}
	return out, nil
}

func latest(ctx context.Context, args []js.Value) (any, error) {
	tb, _, err := argTable(args)
	if err != nil {
		return nil, err
	}
	b, err := tb.Latest(ctx)
	if err != nil {
		return nil, err
	}
	// As a scan batch, a few values per column (the client makes the row
	// objects): a JavaScript value made from Go per cell costs a finalizer
	// each, 7% of a catch-up's latest() for 100 series in workerd.
	return columnsToJS(b), nil
}

var jsObject = js.Global().Get("Object")
