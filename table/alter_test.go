package table_test

import (
	"context"
	"errors"
	"fmt"
	stdmaps "maps"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// columns renders a schema's fields as "id:name:type[?]".
func columns(fs []iceberg.SchemaField) string {
	var out []string
	for _, f := range fs {
		opt := ""
		if !f.Required {
			opt = "?"
		}
		out = append(out, fmt.Sprintf("%d:%s:%s%s", f.ID, f.Name, f.PrimitiveType(), opt))
	}
	return strings.Join(out, " ")
}

func mustChanges(t *testing.T, specs ...string) []evolve.Change {
	t.Helper()
	var out []evolve.Change
	for _, s := range specs {
		op, arg, _ := strings.Cut(s, " ")
		c, err := evolve.Parse(op, arg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestAlter commits each kind of change to a table with data and checks the
// metadata the next open reads: the schema added with the next id and made
// current, last-column-id, the time and series properties, the history in
// info; the snapshot untouched.
func TestAlter(t *testing.T) {
	const v1 = "1:ts:timestamptz 2:host:string 3:region:string 4:cpu:double? 5:mem:long? 6:_ingest_ts:timestamptz?"
	for _, tc := range []struct {
		name     string
		changes  []string
		want     string
		lastID   int
		timeProp string
		series   string
	}{
		{"add", []string{"add disk:long"}, "1:ts:timestamptz 2:host:string 3:region:string 4:cpu:double? 5:mem:long? 7:disk:long? 6:_ingest_ts:timestamptz?", 7, "ts", "host"},
		{"rename", []string{"rename cpu=load"}, "1:ts:timestamptz 2:host:string 3:region:string 4:load:double? 5:mem:long? 6:_ingest_ts:timestamptz?", 6, "ts", "host"},
		{"rename the key", []string{"rename ts=time", "rename host=node"}, "1:time:timestamptz 2:node:string 3:region:string 4:cpu:double? 5:mem:long? 6:_ingest_ts:timestamptz?", 6, "time", "node"},
		{"optional", []string{"optional region"}, "1:ts:timestamptz 2:host:string 3:region:string? 4:cpu:double? 5:mem:long? 6:_ingest_ts:timestamptz?", 6, "ts", "host"},
		{"drop", []string{"drop cpu"}, "1:ts:timestamptz 2:host:string 3:region:string 5:mem:long? 6:_ingest_ts:timestamptz?", 6, "ts", "host"},
		{"several at once", []string{"drop mem", "add temp:float", "rename region=zone", "optional zone"},
			"1:ts:timestamptz 2:host:string 3:zone:string? 4:cpu:double? 7:temp:float? 6:_ingest_ts:timestamptz?", 7, "ts", "host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb := create(t, st, 1)
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 50, 5)); err != nil {
				t.Fatal(err)
			}
			snap := *tb.Metadata().CurrentSnapshotID
			res, err := tb.Alter(ctx, mustChanges(t, tc.changes...))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || res.Version != 3 || res.SchemaID != 1 {
				t.Errorf("result = %+v, want a change committed as v3, schema 1", res)
			}
			re, err := table.Open(ctx, st, testenv.New(2))
			if err != nil {
				t.Fatal(err)
			}
			md := re.Metadata()
			if got := columns(md.CurrentSchema().Fields); got != tc.want {
				t.Errorf("current schema\n got %s\nwant %s", got, tc.want)
			}
			if len(md.Schemas) != 2 || columns(md.Schemas[0].Fields) != v1 || md.CurrentSchemaID != 1 || md.LastColumnID != tc.lastID {
				t.Errorf("schemas %d (first %s), current %d, last-column-id %d; want 2 (first %s), 1, %d",
					len(md.Schemas), columns(md.Schemas[0].Fields), md.CurrentSchemaID, md.LastColumnID, v1, tc.lastID)
			}
			if ids := fmt.Sprint(md.CurrentSchema().IdentifierFieldIDs); ids != "[2 1]" {
				t.Errorf("identifier-field-ids = %s, want [2 1]", ids)
			}
			if p := md.Properties; p[iceberg.PropTimeColumn] != tc.timeProp || p[iceberg.PropSeriesColumns] != tc.series {
				t.Errorf("properties time %q series %q, want %q %q", p[iceberg.PropTimeColumn], p[iceberg.PropSeriesColumns], tc.timeProp, tc.series)
			}
			if md.CurrentSnapshotID == nil || *md.CurrentSnapshotID != snap || len(md.Snapshots) != 1 {
				t.Errorf("the alter touched the snapshots: current %v, %d snapshots", md.CurrentSnapshotID, len(md.Snapshots))
			}
			if re.Schema().TimeField().Name != tc.timeProp {
				t.Errorf("reopened time column %q, want %q", re.Schema().TimeField().Name, tc.timeProp)
			}
			info, err := re.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(info.Schemas) != 2 || info.Schemas[0].Current || !info.Schemas[1].Current || info.Rows != 50 {
				t.Errorf("info: schemas %+v, rows %d; want two, the second current, 50 rows", info.Schemas, info.Rows)
			}
			// tb follows its own alter: columns, and another alter on top.
			if fmt.Sprint(tb.Columns()) != fmt.Sprint(re.Columns()) {
				t.Errorf("the altering table's columns %v, reopened %v", tb.Columns(), re.Columns())
			}
			res2, err := tb.Alter(ctx, mustChanges(t, "add later:string"))
			if err != nil {
				t.Fatal(err)
			}
			if res2.SchemaID != 2 || res2.Version != 4 {
				t.Errorf("second alter = %+v, want schema 2 at v4", res2)
			}
		})
	}
}

// TestAlterRefused: every forbidden change fails with its code, naming the
// column, and the table's objects are byte for byte as they were.
func TestAlterRefused(t *testing.T) {
	for _, tc := range []struct {
		changes []string
		code    string
		column  string
	}{
		{[]string{"drop ts"}, evolve.CodeForbidden, "ts"},
		{[]string{"drop host"}, evolve.CodeForbidden, "host"},
		{[]string{"widen ts:long"}, evolve.CodeForbidden, "ts"},
		{[]string{"widen mem:int"}, evolve.CodeForbidden, "mem"},
		{[]string{"widen cpu:float"}, evolve.CodeForbidden, "cpu"},
		{[]string{"widen region:long"}, evolve.CodeForbidden, "region"},
		{[]string{"optional host"}, evolve.CodeForbidden, "host"},
		{[]string{"required cpu"}, evolve.CodeForbidden, "cpu"},
		{[]string{"add cpu:double"}, rows.CodeDuplicateColumn, "cpu"},
		{[]string{"rename cpu=mem"}, rows.CodeDuplicateColumn, "mem"},
		{[]string{"drop cpu", "add cpu:long"}, evolve.CodeForbidden, "cpu"},
		{[]string{"add ok:long", "drop nope"}, rows.CodeUnknownColumn, "nope"},
		{[]string{"rename _ingest_ts=ingest"}, evolve.CodeForbidden, "_ingest_ts"},
		{nil, evolve.CodeBadChange, ""},
	} {
		t.Run(strings.Join(tc.changes, ","), func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb := create(t, st, 1)
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 20, 2)); err != nil {
				t.Fatal(err)
			}
			before := snapshotStore(t, st)
			_, err := tb.Alter(ctx, mustChanges(t, tc.changes...))
			var re *rows.Error
			if !errors.As(err, &re) || re.Code != tc.code || re.Column != tc.column || table.Code(err) != tc.code {
				t.Fatalf("Alter = %v; want code %s naming column %q", err, tc.code, tc.column)
			}
			if after := snapshotStore(t, st); !stdmaps.Equal(before, after) {
				t.Errorf("a refused alter changed the store (%d objects, was %d)", len(after), len(before))
			}
			if tb.Version() != 2 || len(tb.Metadata().Schemas) != 1 {
				t.Errorf("the table moved: v%d, %d schemas", tb.Version(), len(tb.Metadata().Schemas))
			}
		})
	}
}

// TestAlterNoOp: changes that change nothing commit nothing.
func TestAlterNoOp(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	before := snapshotStore(t, st)
	res, err := tb.Alter(ctx, mustChanges(t, "rename cpu=cpu", "widen mem:long", "optional cpu"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Version != 1 {
		t.Errorf("result = %+v, want nothing committed", res)
	}
	if !stdmaps.Equal(before, snapshotStore(t, st)) {
		t.Error("a no-op alter wrote to the store")
	}
}

// TestAlterRace: two writers alter from the same version. The second loses
// the conditional write, applies its changes again to the winner's schema
// and commits on top; a change the winner made impossible fails cleanly.
func TestAlterRace(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	create(t, st, 1)
	open := func(seed uint64) *table.Table {
		tb, err := table.Open(ctx, st, testenv.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	a, b, c := open(2), open(3), open(4)
	if _, err := a.Alter(ctx, mustChanges(t, "add disk:long", "rename cpu=load")); err != nil {
		t.Fatal(err)
	}
	res, err := b.Alter(ctx, mustChanges(t, "add net:double"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Conflicts != 1 || res.Version != 3 || res.SchemaID != 2 {
		t.Errorf("second alter = %+v, want one conflict, committed as v3 with schema 2", res)
	}
	md := open(5).Metadata()
	const want = "1:ts:timestamptz 2:host:string 3:region:string 4:load:double? 5:mem:long? 7:disk:long? 8:net:double? 6:_ingest_ts:timestamptz?"
	if got := columns(md.CurrentSchema().Fields); got != want || md.LastColumnID != 8 || len(md.Schemas) != 3 {
		t.Errorf("after the race: %s (last-column-id %d, %d schemas)\nwant %s (8, 3)", got, md.LastColumnID, len(md.Schemas), want)
	}
	// c still knows cpu, which a renamed: its drop no longer applies.
	before := snapshotStore(t, st)
	_, err = c.Alter(ctx, mustChanges(t, "drop cpu"))
	var re *rows.Error
	if !errors.As(err, &re) || re.Code != rows.CodeUnknownColumn || re.Column != "cpu" {
		t.Fatalf("alter over a rename = %v, want UNKNOWN_COLUMN naming cpu", err)
	}
	if !stdmaps.Equal(before, snapshotStore(t, st)) {
		t.Error("the failed alter changed the store")
	}
	if v, _ := commit.Latest(ctx, st); v.N != 3 {
		t.Errorf("latest version %d, want 3", v.N)
	}
}

// TestAlterBackToAnOlderSchema: a rename undone makes the first schema
// current again instead of adding a copy of it (as Iceberg's writers do).
func TestAlterBackToAnOlderSchema(t *testing.T) {
	ctx := context.Background()
	tb := create(t, memstore.New(), 1)
	if _, err := tb.Alter(ctx, mustChanges(t, "rename cpu=load")); err != nil {
		t.Fatal(err)
	}
	res, err := tb.Alter(ctx, mustChanges(t, "rename load=cpu"))
	if err != nil {
		t.Fatal(err)
	}
	if md := tb.Metadata(); res.SchemaID != 0 || md.CurrentSchemaID != 0 || len(md.Schemas) != 2 {
		t.Errorf("back to the first schema: current %d, %d schemas; want 0 and 2", md.CurrentSchemaID, len(md.Schemas))
	}
	if tb.Schema().Index("cpu") < 0 {
		t.Errorf("columns %v, want cpu back", tb.Columns())
	}
}

// TestAlterNameMapping: a rename adds the new name to the column's names
// (files without field ids carry the old one) and an add maps the new
// column, as Iceberg's own schema updates do.
func TestAlterNameMapping(t *testing.T) {
	ctx := context.Background()
	mapping := `[{"field-id":1,"names":["ts"]},{"field-id":2,"names":["host"]},{"field-id":3,"names":["region"]},{"field-id":4,"names":["cpu","load_avg"]},{"field-id":5,"names":["mem"]}]`
	tb, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(t), map[string]string{"schema.name-mapping.default": mapping})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, mustChanges(t, "rename cpu=load", "add disk:long", "rename host=node")); err != nil {
		t.Fatal(err)
	}
	const want = `[{"field-id":1,"names":["ts"]},{"field-id":2,"names":["host","node"]},{"field-id":3,"names":["region"]},{"field-id":4,"names":["cpu","load_avg","load"]},{"field-id":5,"names":["mem"]},{"field-id":7,"names":["disk"]}]`
	if got := tb.Metadata().Properties["schema.name-mapping.default"]; got != want {
		t.Errorf("name mapping\n got %s\nwant %s", got, want)
	}
}
