package table_test

import (
	"context"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

func FuzzParseHead(f *testing.F) {
	f.Add([]byte(`{"format":"timelake-head/1","metadata-version":2,"metadata-location":"metadata/v2.metadata.json","snapshot-id":"123","rows":1}`))
	f.Add([]byte(`{"format":"other"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := table.ParseHead(b)
		if err == nil && h.Format != table.HeadFormat {
			t.Errorf("accepted a head of format %q", h.Format)
		}
	})
}

// FuzzOpen opens a table whose latest metadata is the fuzzed bytes: it must
// fail with a clear error or open a table whose info can be read, never panic.
func FuzzOpen(f *testing.F) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(f), nil)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(f, tb.Schema(), day1, 20, 3)); err != nil {
		f.Fatal(err)
	}
	for v := 1; v <= 2; v++ {
		b, _ := st.Get(ctx, commit.MetadataKey(v))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		s := memstore.New()
		objs, _ := st.List(ctx, "")
		for _, o := range objs {
			b, _ := st.Get(ctx, o.Key)
			_ = s.Put(ctx, o.Key, b)
		}
		_ = s.Put(ctx, commit.MetadataKey(3), meta)
		tb, err := table.Open(ctx, s, testenv.New(2))
		if err != nil {
			if table.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		_, _ = tb.Info(ctx)
		_, _ = tb.Latest(ctx)
	})
}
