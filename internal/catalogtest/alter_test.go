package catalogtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

func changes(t *testing.T, specs ...string) []evolve.Change {
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

func fieldList(tb *table.Table) string {
	var out []string
	for _, c := range tb.Columns() {
		out = append(out, fmt.Sprintf("%d:%s:%s", c.ID, c.Name, c.Type))
	}
	return strings.Join(out, " ")
}

// TestAlter: a schema change through Iceberg's own catalog server is one
// commit request (add-schema, set-current-schema, asserting the current
// schema id and last assigned field id); a writer that raced it gets a 409,
// applies its changes again on the winner and commits; one whose change no
// longer applies fails with the table as the winner left it; a refused
// change sends nothing.
func TestAlter(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := tb.Append(ctx, batch(t, sch, day, 30, 3, 0)); err != nil {
		t.Fatal(err)
	}
	open := func() *table.Table {
		tb, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	b, c := open(), open()

	var mu sync.Mutex
	var bodies []map[string]any
	tr.setFault(func(req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
		if req.Method == "POST" && strings.HasSuffix(req.URL, "/tables/"+id.Name) {
			var m map[string]any
			if err := json.Unmarshal(req.Body, &m); err == nil {
				mu.Lock()
				bodies = append(bodies, m)
				mu.Unlock()
			}
		}
		return forward()
	})
	tr.reset()
	res, err := tb.Alter(ctx, changes(t, "add disk:long", "rename cpu=load"))
	if err != nil {
		t.Fatalf("alter: %v", err)
	}
	if got := len(tr.sent); got != 1 || len(bodies) != 1 {
		t.Fatalf("requests for an alter = %v, want one commit", tr.sent)
	}
	var actions []string
	for _, u := range bodies[0]["updates"].([]any) {
		actions = append(actions, u.(map[string]any)["action"].(string))
	}
	reqs, _ := json.Marshal(bodies[0]["requirements"])
	if strings.Join(actions, ",") != "add-schema,set-current-schema" ||
		!strings.Contains(string(reqs), `{"current-schema-id":0,"type":"assert-current-schema-id"}`) ||
		!strings.Contains(string(reqs), `{"last-assigned-field-id":5,"type":"assert-last-assigned-field-id"}`) {
		t.Errorf("commit: updates %v, requirements %s", actions, reqs)
	}
	const first = "1:ts:timestamptz 2:host:string 3:load:double 4:mem:long 6:disk:long 5:_ingest_ts:timestamptz"
	if got := fieldList(open()); got != first || res.SchemaID != 1 || !res.Changed {
		t.Errorf("after the alter the catalog has %s (result %+v), want %s in schema 1", got, res, first)
	}

	// b raced it from the version before: a 409, then its change on top.
	res, err = b.Alter(ctx, changes(t, "add net:double"))
	if err != nil {
		t.Fatalf("racing alter: %v", err)
	}
	if res.Conflicts != 1 || res.SchemaID != 2 {
		t.Errorf("racing alter = %+v, want one conflict and schema 2", res)
	}
	const second = "1:ts:timestamptz 2:host:string 3:load:double 4:mem:long 6:disk:long 7:net:double 5:_ingest_ts:timestamptz"
	re := open()
	if got := fieldList(re); got != second || re.Metadata().LastColumnID != 7 || len(re.Metadata().Schemas) != 3 {
		t.Errorf("after the race: %s (last-column-id %d, %d schemas), want %s (7, 3)", got, re.Metadata().LastColumnID, len(re.Metadata().Schemas), second)
	}

	// c still calls the column cpu: its drop does not apply to the winner.
	_, err = c.Alter(ctx, changes(t, "drop cpu"))
	var rerr *rows.Error
	if !errors.As(err, &rerr) || rerr.Code != rows.CodeUnknownColumn || rerr.Column != "cpu" {
		t.Fatalf("alter over a rename = %v, want UNKNOWN_COLUMN naming cpu", err)
	}
	if got := fieldList(open()); got != second {
		t.Errorf("a failed alter changed the table: %s", got)
	}

	// A refused change sends nothing.
	tr.reset()
	if _, err := re.Alter(ctx, changes(t, "drop ts")); code(err) != evolve.CodeForbidden {
		t.Errorf("drop ts = %v, want %s", err, evolve.CodeForbidden)
	}
	if len(tr.sent) != 0 {
		t.Errorf("a refused alter sent %v", tr.sent)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 30 || len(info.Schemas) != 3 || !info.Schemas[2].Current {
		t.Errorf("info: %d rows, schemas %+v", info.Rows, info.Schemas)
	}
}

// TestAppendEvolved: an append that adds columns commits them with its rows
// in one catalog commit (add-schema, set-current-schema, add-snapshot …),
// which Iceberg's server accepts; the catalog's table has the new schema
// and both appends' rows.
func TestAppendEvolved(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := tb.Append(ctx, batch(t, sch, day, 30, 3, 0)); err != nil {
		t.Fatal(err)
	}
	changes := evolve.Missing(tb.Schema(), []evolve.Column{{Name: "disk", Type: schema.Long}})
	next, err := tb.EvolvedSchema(changes)
	if err != nil {
		t.Fatal(err)
	}
	ms := []map[string]any{{"ts": day.Add(time.Hour), "host": "h00", "cpu": 1.0, "mem": int64(2), "disk": int64(3)}}
	b, err := rows.FromMaps(next, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr.reset()
	if _, err := tb.AppendEvolved(ctx, changes, b); err != nil {
		t.Fatalf("evolving append: %v", err)
	}
	if got := len(tr.sent); got != 1 {
		t.Errorf("requests for an evolving append = %v, want one commit", tr.sent)
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fieldList(re), "1:ts:timestamptz 2:host:string 3:cpu:double 4:mem:long 6:disk:long 5:_ingest_ts:timestamptz"; got != want {
		t.Errorf("catalog schema %s, want %s", got, want)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap := re.Metadata().CurrentSnapshot()
	if info.Rows != 31 || snap.SchemaID == nil || *snap.SchemaID != 1 {
		t.Errorf("info: %d rows, snapshot schema %v; want 31 and 1", info.Rows, snap.SchemaID)
	}
}

// TestAppendRacesAlter: an append built under the schema before another
// writer's alter asserts that schema's id, gets a 409, and is rebuilt on
// the winner (its rows conformed by field id): the catalog never takes
// it unchecked.
func TestAppendRacesAlter(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	a, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	b, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Alter(ctx, changes(t, "rename cpu=load", "add disk:long")); err != nil {
		t.Fatal(err)
	}
	res, err := b.Append(ctx, batch(t, sch, day, 20, 2, 100)) // cpu = 100+i, under schema 0
	if err != nil {
		t.Fatalf("append over the alter: %v", err)
	}
	if res.Conflicts != 1 {
		t.Errorf("append: %d conflicts, want 1 (the catalog refused the stale schema id)", res.Conflicts)
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	if snap := re.Metadata().CurrentSnapshot(); snap == nil || snap.SchemaID == nil || *snap.SchemaID != 1 {
		t.Errorf("the append's snapshot is not of schema 1: %+v", snap)
	}
	var sum float64
	n := 0
	if _, err := re.Scan(ctx, table.ScanOptions{}, func(bt *rows.Batch) error {
		l := bt.Schema.Index("load")
		for i := 0; i < bt.Len; i++ {
			sum += bt.Cols[l].Floats[i]
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 20 || sum != 20*100+190 {
		t.Errorf("scan: %d rows, load sum %v; want 20 and %v", n, sum, 20*100+190)
	}
}
