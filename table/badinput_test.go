package table_test

// The bad-input corpus of the Go API: each malformed call fails with its
// exact code and message, and the store is unchanged.

import (
	"context"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

func TestBadInputCorpusGoAPI(t *testing.T) {
	ctx := context.Background()
	fromMaps := func(ms ...map[string]any) func(tb *table.Table, st store.Store) error {
		return func(tb *table.Table, st store.Store) error {
			b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
			if err != nil {
				return err
			}
			_, err = tb.Append(ctx, b)
			return err
		}
	}
	ts := "2026-11-28T10:00:00Z"
	cases := []struct {
		name string
		run  func(tb *table.Table, st store.Store) error
		code string
		msg  string
	}{
		{"unknown column", fromMaps(map[string]any{"ts": ts, "host": "a", "region": "eu", "disk": 1}), "UNKNOWN_COLUMN", "row 1, column \"disk\": is not in the table schema (columns: ts, host, region, cpu, mem)"},
		{"missing required", fromMaps(map[string]any{"ts": ts, "host": "a"}), "MISSING_COLUMN", "row 1, column \"region\": string column is required but absent"},
		{"float into long", fromMaps(map[string]any{"ts": ts, "host": "a", "region": "eu", "mem": 1.5}), "TYPE_MISMATCH", "row 1, column \"mem\": 1.5 has a fraction; long wants an integer"},
		{"string into double", fromMaps(map[string]any{"ts": ts, "host": "a", "region": "eu", "cpu": "fast"}), "TYPE_MISMATCH", "row 1, column \"cpu\": cannot parse \"fast\" as double"},
		{"bad time", fromMaps(map[string]any{"ts": "noon", "host": "a", "region": "eu"}), "BAD_TIME", "row 1, column \"ts\": cannot parse \"noon\" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29"},
		{"time out of range", fromMaps(map[string]any{"ts": time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC), "host": "a", "region": "eu"}), "TIME_OUT_OF_RANGE", "row 1, column \"ts\": time 10001-01-01T00:00:00Z is outside years 0001 to 9999"},
		{"invalid UTF-8", fromMaps(map[string]any{"ts": ts, "host": "a\xc3", "region": "eu"}), "INVALID_UTF8", "row 1, column \"host\": value \"a\\xc3\" is not valid UTF-8"},
		{"ingest given", fromMaps(map[string]any{"ts": ts, "host": "a", "region": "eu", "_ingest_ts": 1}), "UNKNOWN_COLUMN", "row 1, column \"_ingest_ts\": is set by the writer to the append's time and cannot be given in the input"},
		{"empty batch", func(tb *table.Table, st store.Store) error {
			_, err := tb.Append(ctx, &rows.Batch{Schema: tb.Schema(), Cols: make([]rows.Column, len(tb.Schema().Fields))})
			return err
		}, "EMPTY_INPUT", "no rows to append"},
		{"batch of another schema", func(tb *table.Table, st store.Store) error {
			other, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "x", Type: schema.Long}}, schema.Day)
			if err != nil {
				return err
			}
			b, err := rows.FromMaps(other, []map[string]any{{"ts": ts, "host": "a", "x": 1}}, rows.Options{})
			if err != nil {
				return err
			}
			_, err = tb.Append(ctx, b)
			return err
		}, "SCHEMA_MISMATCH", "schema mismatch: the batch was aligned to another schema"},
		{"create on a table", func(tb *table.Table, st store.Store) error {
			_, err := table.Create(ctx, st, testenv.New(2), loc, tb.Schema(), nil)
			return err
		}, "TABLE_EXISTS", "a table already exists here"},
		{"create with a reserved property", func(tb *table.Table, st store.Store) error {
			_, err := table.Create(ctx, memstore.New(), testenv.New(2), loc, tb.Schema(), map[string]string{table.PropPartition: "hour"})
			return err
		}, "BAD_PROPERTY", "bad table property: timelake.partition is set from the schema and cannot be given"},
		{"create with a bad property", func(tb *table.Table, st store.Store) error {
			_, err := table.Create(ctx, memstore.New(), testenv.New(2), loc, tb.Schema(), map[string]string{table.PropPageRowLimit: "-3"})
			return err
		}, "BAD_PROPERTY", "bad table property: property write.parquet.page-row-limit=\"-3\": want a whole number from 1 to 16777216"},
		{"open an empty store", func(tb *table.Table, st store.Store) error {
			_, err := table.Open(ctx, memstore.New(), testenv.New(2))
			return err
		}, "NO_TABLE", "no table here (no metadata/v1.metadata.json)"},
	}
	for _, c := range cases {
		st := memstore.New()
		tb := create(t, st, 1)
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 10, 2)); err != nil {
			t.Fatal(err)
		}
		before := snapshotStore(t, st)
		err := c.run(tb, st)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := table.Code(err); got != c.code || err.Error() != c.msg {
			t.Errorf("%s: got %s %q, want %s %q", c.name, got, err, c.code, c.msg)
		}
		sameStore(t, before, snapshotStore(t, st))
	}
}
