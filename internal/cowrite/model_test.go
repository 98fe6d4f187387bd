package cowrite

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The checks of the scenario are only as good as the model and the
// comparisons; these run without Spark.

func TestBatchKeysUnique(t *testing.T) {
	// Every (host, ts) the scenario feeds in is new, so no reader's dedup
	// rule can change the figures.
	seen := map[string]int{}
	for k := 1; k <= 30; k++ {
		for _, r := range batch(k, []string{"h0", "h1", "h2", "h3"}, 12) {
			if prev, ok := seen[r.key()]; ok {
				t.Fatalf("batch %d repeats key %s of batch %d", k, r.key(), prev)
			}
			seen[r.key()] = k
		}
	}
}

func TestModelLatest(t *testing.T) {
	m := model{}
	m.add(batch(1, []string{"a", "b"}, 6))
	m.add(batch(2, []string{"a"}, 3))
	got := m.latest()
	for _, c := range []struct {
		host string
		want int64
	}{
		// batch 2's rows are an hour later in each day; row 2 is on day 3.
		{"a", batch(2, []string{"a"}, 3)[2].TS},
		{"b", batch(1, []string{"a", "b"}, 6)[5].TS},
	} {
		if got[c.host].TS != c.want {
			t.Errorf("latest[%s].TS: got %d, want %d", c.host, got[c.host].TS, c.want)
		}
	}
	if len(got) != 2 {
		t.Errorf("latest: got %d series, want 2", len(got))
	}
}

func TestDiffLatest(t *testing.T) {
	mem := int64(7)
	a := row{TS: 10, Host: "a", CPU: 1.5, Mem: &mem}
	b := row{TS: 20, Host: "b", CPU: 2}
	for _, c := range []struct {
		name      string
		want, got map[string]row
		lines     int
		contains  []string
	}{
		{"same", map[string]row{"a": a, "b": b}, map[string]row{"a": a, "b": b}, 0, nil},
		{"missing series", map[string]row{"a": a, "b": b}, map[string]row{"a": a}, 1, []string{"latest[b]: missing"}},
		{"extra series", map[string]row{"a": a}, map[string]row{"a": a, "b": b}, 1, []string{"latest[b]: got", "want no such series"}},
		{"older row", map[string]row{"a": a}, map[string]row{"a": {TS: 9, Host: "a", CPU: 1.5, Mem: &mem}}, 1, []string{"latest[a]: got"}},
		{"null mem", map[string]row{"a": a}, map[string]row{"a": {TS: 10, Host: "a", CPU: 1.5}}, 1, []string{"mem null"}},
		{"two series", map[string]row{"a": a, "b": b}, map[string]row{}, 2, []string{"latest[a]: missing", "latest[b]: missing"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diffLatest(c.want, c.got)
			if len(d) != c.lines {
				t.Fatalf("got %d lines %q, want %d", len(d), d, c.lines)
			}
			all := strings.Join(d, "\n")
			for _, s := range c.contains {
				if !strings.Contains(all, s) {
					t.Errorf("got %q, want a line containing %q", all, s)
				}
			}
		})
	}
}

func TestLatestFromRows(t *testing.T) {
	// The two shapes the readers print: Spark and the readers' time_us
	// (numbers exact), the Timelake CLI's RFC 3339 ts.
	var spark, cli []map[string]any
	if err := decodeJSON([]byte(`[{"host":"a","time_us":1795737600000001,"cpu":1.5,"mem":4503599627370497}]`), &spark); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`[{"host":"a","ts":"2026-11-27T00:00:00.000001Z","cpu":1.5,"mem":null,"_ingest_ts":"2026-12-01T00:00:00Z"}]`), &cli); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   []map[string]any
		want string
	}{
		{"time_us", spark, "{ts 2026-11-27T00:00:00.000001Z cpu 1.5 mem 4503599627370497}"},
		{"ts", cli, "{ts 2026-11-27T00:00:00.000001Z cpu 1.5 mem null}"},
	} {
		got, err := latestFromRows(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s := fmtRow(got["a"]); s != c.want {
			t.Errorf("%s: got %s, want %s", c.name, s, c.want)
		}
	}
	if _, err := latestFromRows(slices.Concat(spark, spark)); err == nil {
		t.Errorf("a series twice: got no error")
	}
}
