package rollup

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// followSchema is the raw schema of the resolution tests and a rollup of
// it, its field ids recorded (Bind, as AddRollup does).
func followSchema(t *testing.T) (*schema.Table, Def) {
	t.Helper()
	raw, err := schema.New("ts", []string{"host", "dc"}, []schema.Field{
		{Name: "dc", Type: schema.Int},
		{Name: "cpu", Type: schema.Float}, {Name: "mem", Type: schema.Int}, {Name: "msg", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New("h", "5m", []string{"cpu:min,sum,last", "mem:max,first,avg", "msg:count"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if d, err = Bind(raw, d); err != nil {
		t.Fatal(err)
	}
	return raw, d
}

func evolved(t *testing.T, cur *schema.Table, changes ...evolve.Change) *schema.Table {
	t.Helper()
	next, _, err := evolve.Apply(cur, 0, changes)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// TestResolveFollowsFieldIDs: a rollup's columns after raw schema changes,
// by field id, with the rollup table's column names as created.
func TestResolveFollowsFieldIDs(t *testing.T) {
	raw, d := followSchema(t)
	if got, want := d.Properties()[Key("h", SuffixFieldIDs)], "cpu:4;mem:5;msg:6"; got != want {
		t.Fatalf("bound field ids %q, want %q", got, want)
	}
	ru, err := Schema(raw, d)
	if err != nil {
		t.Fatal(err)
	}
	oldDef := d // the same definition without ids, as written before they were recorded
	oldDef.Aggs = slices.Clone(d.Aggs)
	for i := range oldDef.Aggs {
		oldDef.Aggs[i].FieldID = 0
	}
	renamed := evolved(t, raw,
		evolve.Change{Op: evolve.Rename, Column: "cpu", To: "cpu_pct"},
		evolve.Change{Op: evolve.Rename, Column: "host", To: "hostname"},
		evolve.Change{Op: evolve.Rename, Column: "ts", To: "time"})
	// A new column under a renamed column's old name: not the aggregated one.
	reused := evolved(t, renamed, evolve.Change{Op: evolve.Add, Column: "cpu", Type: schema.Double})
	widened := evolved(t, renamed,
		evolve.Change{Op: evolve.Widen, Column: "mem", Type: schema.Long},
		evolve.Change{Op: evolve.Widen, Column: "cpu_pct", Type: schema.Double})
	dropped := evolved(t, renamed, evolve.Change{Op: evolve.Drop, Column: "mem"})
	cases := []struct {
		name    string
		raw     *schema.Table
		d       Def
		sources string // SourceColumns
		widen   string // Conform's widenings
		code    string // or the error's code
		errIn   string // and a part of its message
	}{
		{"unchanged", raw, d, "cpu mem msg", "", "", ""},
		{"renamed", renamed, d, "cpu_pct mem msg", "", "", ""},
		{"renamed, old name reused", reused, d, "cpu_pct mem msg", "", "", ""},
		{"widened", widened, d, "cpu_pct mem msg", "cpu_min:double cpu_last:double mem_max:long mem_first:long", "", ""},
		{"dropped", dropped, d, "", "", CodeColumnDropped, "column mem (field id 5)"},
		{"no ids, unchanged", raw, oldDef, "cpu mem msg", "", "", ""},
		{"no ids, renamed", renamed, oldDef, "", "", CodeBadRollup, `no column "cpu"`},
		// The limit of finding by name: the new column is taken.
		{"no ids, old name reused", reused, oldDef, "cpu mem msg", "cpu_min:double cpu_last:double", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := SourceColumns(c.raw, c.d)
			if err == nil {
				var ws []Widening
				ws, err = Conform(ru, c.raw, c.d)
				var got []string
				for _, w := range ws {
					got = append(got, w.Column+":"+w.Type.String())
				}
				if g := strings.Join(got, " "); err == nil && g != c.widen {
					t.Errorf("widen %q, want %q", g, c.widen)
				}
			}
			if c.code == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				if g := strings.Join(src, " "); g != c.sources {
					t.Errorf("sources %q, want %q", g, c.sources)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %s with %q", c.code, c.errIn)
			}
			var re *Error
			switch {
			case !errors.As(err, &re) || re.Code != c.code || !strings.Contains(re.Msg, c.errIn):
				t.Errorf("got %v, want %s with %q", err, c.code, c.errIn)
			case c.code == CodeColumnDropped && re.Key != "h":
				t.Errorf("the error names %q, want the rollup h", re.Key)
			}
		})
	}
}

// TestAggregatorAfterRename: rows read under renamed time, series and
// value columns aggregate into the rollup table made before the renames
// exactly as the same rows under the old names.
func TestAggregatorAfterRename(t *testing.T) {
	raw, d := followSchema(t)
	ru, err := Schema(raw, d)
	if err != nil {
		t.Fatal(err)
	}
	renamed := evolved(t, raw,
		evolve.Change{Op: evolve.Rename, Column: "cpu", To: "cpu_pct"},
		evolve.Change{Op: evolve.Rename, Column: "mem", To: "memory"},
		evolve.Change{Op: evolve.Rename, Column: "host", To: "hostname"},
		evolve.Change{Op: evolve.Rename, Column: "dc", To: "zone"},
		evolve.Change{Op: evolve.Rename, Column: "ts", To: "time"})
	b := randomFollowRows(rand.New(rand.NewPCG(3, 4)), raw, 300)
	run := func(in *schema.Table) []string {
		a, err := NewAggregator(in, ru, d)
		if err != nil {
			t.Fatal(err)
		}
		bb := *b
		bb.Schema = in
		if err := a.Add(&bb); err != nil {
			t.Fatal(err)
		}
		out, err := a.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return render(out)
	}
	before, after := run(raw), run(renamed)
	if len(before) < 10 || !slices.Equal(before, after) {
		t.Fatalf("%d rows before the renames, %d after; differ:\nbefore %v\n after %v", len(before), len(after), before, after)
	}
}

// randomFollowRows are n rows of followSchema's raw schema, sorted by
// (host, dc, ts), keys distinct.
func randomFollowRows(r *rand.Rand, in *schema.Table, n int) *rows.Batch {
	keys := distinctKeys(n, func() rowKey {
		return rowKey{[]string{"a", "b"}[r.IntN(2)], int64(r.IntN(2)), int64(r.IntN(7200)) * 1e6}
	})
	b := rows.NewBuilder(in, rows.Options{TimeUnit: rows.Microseconds})
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	for _, k := range keys {
		must(b.AppendInt64(0, k.ts))
		must(b.AppendString(1, k.host))
		must(b.AppendInt64(2, k.dc))
		if r.IntN(5) > 0 {
			must(b.AppendFloat64(3, float64(r.IntN(100))/4))
		}
		if r.IntN(5) > 0 {
			must(b.AppendInt64(4, r.Int64N(1000)))
		}
		if r.IntN(5) > 0 {
			must(b.AppendString(5, "m"))
		}
		must(b.EndRow())
	}
	return b.Batch()
}
