package catalogtest

import (
	"context"
	"os"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// TestAdopt: a catalog table without Timelake's key (its properties
// removed, as another engine's table has none) is read as stored, refuses
// appends with NOT_ADOPTED, and is adopted through the catalog's commit
// (the key in set-properties); then Timelake appends to it.
func TestAdopt(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, nil, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := tb.Append(ctx, batch(t, sch, day, 30, 3, 0)); err != nil {
		t.Fatal(err)
	}
	if err := tb.SetProperties(ctx, nil, []string{iceberg.PropTimeColumn, iceberg.PropSeriesColumns, table.PropPartition}, nil); err != nil {
		t.Fatalf("remove the key: %v", err)
	}
	foreign, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	if foreign.Schema().HasKey() {
		t.Fatal("the table still has a key")
	}
	if _, err := foreign.Append(ctx, batch(t, foreign.Schema(), day, 5, 1, 0)); table.Code(err) != "NOT_ADOPTED" {
		t.Fatalf("append before adopting: %v, want NOT_ADOPTED", err)
	}
	res, err := foreign.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}})
	if err != nil || res.WriteRefusal != "" {
		t.Fatalf("adopt through the catalog: %+v, %v", res, err)
	}
	again, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil || !again.Schema().HasKey() {
		t.Fatalf("reloaded from the catalog: %v", err)
	}
	if _, err := again.Append(ctx, batch(t, again.Schema(), day.Add(3600e9), 10, 2, 100)); err != nil {
		t.Fatalf("append after adopting: %v", err)
	}
	info, err := again.Info(ctx)
	if err != nil || info.Rows != 40 {
		t.Errorf("info: %+v, %v; want 40 rows", info, err)
	}
}
