package evolve

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// testSchema is ts:1 host:2 shard:3 cpu:4 (double?) errs:5 (int, required)
// ratio:6 (float?) _ingest_ts:7.
func testSchema(t *testing.T) *schema.Table {
	t.Helper()
	s, err := schema.New("ts", []string{"host", "shard"}, []schema.Field{
		{Name: "shard", Type: schema.Long},
		{Name: "cpu", Type: schema.Double},
		{Name: "errs", Type: schema.Int, Required: true},
		{Name: "ratio", Type: schema.Float},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// describe renders a schema as "id:name:type[?]" fields and its roles.
func describe(s *schema.Table) string {
	var parts []string
	for _, f := range s.Fields {
		opt := ""
		if !f.Required {
			opt = "?"
		}
		parts = append(parts, fmt.Sprintf("%d:%s:%v%s", f.ID, f.Name, f.Type, opt))
	}
	var series []string
	for _, i := range s.Series {
		series = append(series, s.Fields[i].Name)
	}
	ingest := "-"
	if s.HasIngest() {
		ingest = s.Fields[s.Ingest].Name
	}
	return fmt.Sprintf("%s | time=%s series=%s ingest=%s", strings.Join(parts, " "), s.Fields[s.Time].Name, strings.Join(series, ","), ingest)
}

func TestApply(t *testing.T) {
	const base = "1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:int 6:ratio:float? 7:_ingest_ts:timestamptz?"
	for _, tc := range []struct {
		name    string
		changes []Change
		want    string
		wantID  int
	}{
		{"add", []Change{{Op: Add, Column: "mem", Type: schema.Long}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:int 6:ratio:float? 8:mem:long? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 8},
		{"add two", []Change{{Op: Add, Column: "a", Type: schema.String}, {Op: Add, Column: "b", Type: schema.Timestamptz}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:int 6:ratio:float? 8:a:string? 9:b:timestamptz? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 9},
		{"rename a value", []Change{{Op: Rename, Column: "cpu", To: "load"}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:load:double? 5:errs:int 6:ratio:float? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"rename time and series", []Change{{Op: Rename, Column: "ts", To: "time"}, {Op: Rename, Column: "shard", To: "part"}},
			"1:time:timestamptz 2:host:string 3:part:long 4:cpu:double? 5:errs:int 6:ratio:float? 7:_ingest_ts:timestamptz? | time=time series=host,part ingest=_ingest_ts", 7},
		{"widen", []Change{{Op: Widen, Column: "errs", Type: schema.Long}, {Op: Widen, Column: "ratio", Type: schema.Double}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:long 6:ratio:double? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"optional", []Change{{Op: Optional, Column: "errs"}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:int? 6:ratio:float? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"drop", []Change{{Op: Drop, Column: "cpu"}},
			"1:ts:timestamptz 2:host:string 3:shard:long 5:errs:int 6:ratio:float? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"in order: rename then widen by the new name", []Change{{Op: Rename, Column: "errs", To: "e"}, {Op: Widen, Column: "e", Type: schema.Long}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:e:long 6:ratio:float? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"no-ops", []Change{{Op: Required, Column: "errs"}, {Op: Rename, Column: "cpu", To: "cpu"}, {Op: Widen, Column: "errs", Type: schema.Int}, {Op: Optional, Column: "cpu"}, {Op: Widen, Column: "ts", Type: schema.Timestamptz}},
			base + " | time=ts series=host,shard ingest=_ingest_ts", 7},
		{"add after a drop takes a fresh id", []Change{{Op: Drop, Column: "ratio"}, {Op: Add, Column: "r2", Type: schema.Float}},
			"1:ts:timestamptz 2:host:string 3:shard:long 4:cpu:double? 5:errs:int 8:r2:float? 7:_ingest_ts:timestamptz? | time=ts series=host,shard ingest=_ingest_ts", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := testSchema(t)
			before := describe(cur)
			got, id, err := Apply(cur, 7, tc.changes)
			if err != nil {
				t.Fatal(err)
			}
			if describe(got) != tc.want || id != tc.wantID {
				t.Errorf("got  %s (last id %d)\nwant %s (last id %d)", describe(got), id, tc.want, tc.wantID)
			}
			if describe(cur) != before {
				t.Errorf("Apply modified its input: %s", describe(cur))
			}
		})
	}
}

// A last-column-id above every field (a column dropped before) is where
// new ids start; one below the fields (a hostile file) never reissues an id.
func TestApplyLastColumnID(t *testing.T) {
	for _, tc := range []struct{ last, want int }{{12, 13}, {3, 8}} {
		got, id, err := Apply(testSchema(t), tc.last, []Change{{Op: Add, Column: "x", Type: schema.Int}})
		if err != nil {
			t.Fatal(err)
		}
		if f := got.Fields[got.Index("x")]; f.ID != tc.want || id != tc.want {
			t.Errorf("last-column-id %d: new field id %d, returned %d; want %d", tc.last, f.ID, id, tc.want)
		}
	}
}

func TestApplyRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		changes  []Change
		code     string
		column   string
		inMsg    string
		noIngest bool
	}{
		{"no changes", nil, CodeBadChange, "", "no schema change", false},
		{"unknown column", []Change{{Op: Drop, Column: "nope"}}, rows.CodeUnknownColumn, "nope", "no such column", false},
		{"drop the time column", []Change{{Op: Drop, Column: "ts"}}, CodeForbidden, "ts", "time column cannot be dropped", false},
		{"drop a series column", []Change{{Op: Drop, Column: "host"}}, CodeForbidden, "host", "series column cannot be dropped", false},
		{"drop _ingest_ts", []Change{{Op: Drop, Column: "_ingest_ts"}}, CodeForbidden, "_ingest_ts", "ingest column cannot be dropped", false},
		{"rename _ingest_ts", []Change{{Op: Rename, Column: "_ingest_ts", To: "ing"}}, CodeForbidden, "_ingest_ts", "keeps its name", false},
		{"retype the time column", []Change{{Op: Widen, Column: "ts", Type: schema.Long}}, CodeForbidden, "ts", "never retyped", false},
		{"widen a series column", []Change{{Op: Widen, Column: "shard", Type: schema.String}}, CodeForbidden, "shard", "never retyped", false},
		{"widen an unknown column", []Change{{Op: Widen, Column: "shard2", Type: schema.Int}}, rows.CodeUnknownColumn, "shard2", "no such column", false},
		{"narrow", []Change{{Op: Add, Column: "n", Type: schema.Long}, {Op: Widen, Column: "n", Type: schema.Int}}, CodeForbidden, "n", "narrows", false},
		{"narrow double to float", []Change{{Op: Widen, Column: "cpu", Type: schema.Float}}, CodeForbidden, "cpu", "narrows", false},
		{"not a promotion", []Change{{Op: Widen, Column: "errs", Type: schema.String}}, CodeForbidden, "errs", "not a promotion", false},
		{"int to double is not a promotion", []Change{{Op: Widen, Column: "errs", Type: schema.Double}}, CodeForbidden, "errs", "not a promotion", false},
		{"bad type", []Change{{Op: Widen, Column: "errs", Type: schema.Type(99)}}, CodeBadType, "errs", "unknown column type", false},
		{"add with a bad type", []Change{{Op: Add, Column: "x", Type: 0}}, CodeBadType, "x", "unknown column type", false},
		{"the time column stays required", []Change{{Op: Optional, Column: "ts"}}, CodeForbidden, "ts", "stays required", false},
		{"a series column stays required", []Change{{Op: Optional, Column: "host"}}, CodeForbidden, "host", "stays required", false},
		{"optional to required", []Change{{Op: Required, Column: "cpu"}}, CodeForbidden, "cpu", "stays optional", false},
		{"add a duplicate", []Change{{Op: Add, Column: "cpu", Type: schema.Double}}, rows.CodeDuplicateColumn, "cpu", "exists", false},
		{"rename onto a column", []Change{{Op: Rename, Column: "cpu", To: "errs"}}, rows.CodeDuplicateColumn, "errs", "exists", false},
		{"add a name dropped in the same set", []Change{{Op: Drop, Column: "cpu"}, {Op: Add, Column: "cpu", Type: schema.Double}}, CodeForbidden, "cpu", "dropped earlier in this change set", false},
		{"rename to a name dropped in the same set", []Change{{Op: Drop, Column: "cpu"}, {Op: Rename, Column: "ratio", To: "cpu"}}, CodeForbidden, "cpu", "dropped earlier", false},
		{"reuse a name renamed away in the same set", []Change{{Op: Rename, Column: "cpu", To: "load"}, {Op: Add, Column: "cpu", Type: schema.Double}}, CodeForbidden, "cpu", "renamed away", false},
		{"add _ingest_ts", []Change{{Op: Add, Column: "_ingest_ts", Type: schema.Timestamptz}}, CodeBadName, "_ingest_ts", "reserved", true},
		{"a name with a dot", []Change{{Op: Add, Column: "a.b", Type: schema.Int}}, CodeBadName, "a.b", "not allowed", false},
		{"rename to an empty name", []Change{{Op: Rename, Column: "cpu", To: ""}}, CodeBadName, "", "empty column name", false},
		{"a later change fails the whole set", []Change{{Op: Add, Column: "ok", Type: schema.Int}, {Op: Drop, Column: "ts"}}, CodeForbidden, "ts", "change 2 (--drop ts)", false},
		{"unknown op", []Change{{Op: 42, Column: "cpu"}}, CodeBadChange, "cpu", "unknown change", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := testSchema(t)
			if tc.noIngest {
				var err error
				if cur, err = schema.NewWithoutIngest("ts", []string{"host"}, nil, schema.Day); err != nil {
					t.Fatal(err)
				}
			}
			before := describe(cur)
			got, _, err := Apply(cur, 7, tc.changes)
			var re *rows.Error
			if !errors.As(err, &re) {
				t.Fatalf("Apply = %v, %v; want a *rows.Error %s", got, err, tc.code)
			}
			if re.Code != tc.code || re.Column != tc.column || !strings.Contains(err.Error(), tc.inMsg) {
				t.Errorf("error %q (code %s, column %q); want code %s, column %q, saying %q", err, re.Code, re.Column, tc.code, tc.column, tc.inMsg)
			}
			if describe(cur) != before {
				t.Errorf("a refused change modified the input: %s", describe(cur))
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		op, arg string
		want    Change
		code    string
	}{
		{"add", "mem:long", Change{Op: Add, Column: "mem", Type: schema.Long}, ""},
		{"add", "mem:double?", Change{Op: Add, Column: "mem", Type: schema.Double}, ""},
		{"add", "a:b:int", Change{Op: Add, Column: "a:b", Type: schema.Int}, ""},
		{"rename", "cpu=load", Change{Op: Rename, Column: "cpu", To: "load"}, ""},
		{"widen", "errs:long", Change{Op: Widen, Column: "errs", Type: schema.Long}, ""},
		{"optional", "errs", Change{Op: Optional, Column: "errs"}, ""},
		{"drop", "cpu", Change{Op: Drop, Column: "cpu"}, ""},
		{"required", "cpu", Change{Op: Required, Column: "cpu"}, ""},
		{"add", "mem", Change{}, CodeBadChange},
		{"add", ":long", Change{}, CodeBadChange},
		{"add", "mem:decimal", Change{}, CodeBadType},
		{"widen", "errs:long?", Change{}, CodeBadType},
		{"rename", "cpu", Change{}, CodeBadChange},
		{"rename", "=load", Change{}, CodeBadChange},
		{"rename", "cpu=", Change{}, CodeBadChange},
		{"drop", "", Change{}, CodeBadChange},
		{"delete", "cpu", Change{}, CodeBadChange},
	} {
		got, err := Parse(tc.op, tc.arg)
		if tc.code != "" {
			var re *rows.Error
			if !errors.As(err, &re) || re.Code != tc.code {
				t.Errorf("Parse(%q, %q) = %+v, %v; want code %s", tc.op, tc.arg, got, err, tc.code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q, %q) = %+v, %v; want %+v", tc.op, tc.arg, got, err, tc.want)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts prints back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"add\x00mem:long", "add\x00m:double?", "rename\x00a=b", "rename\x00a=b=c", "widen\x00x:long",
		"optional\x00x", "drop\x00x", "add\x00a:b:int", "drop\x00", "rename\x00=", "frob\x00x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		op, arg, _ := strings.Cut(in, "\x00")
		c, err := Parse(op, arg)
		if err != nil {
			var re *rows.Error
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("Parse(%q, %q): error without a code: %v", op, arg, err)
			}
			return
		}
		back, err := Parse(c.Op.String(), c.Arg())
		if err != nil || back != c {
			t.Fatalf("Parse(%q, %q) = %+v; its Arg %q parses to %+v, %v", op, arg, c, c.Arg(), back, err)
		}
		// Applying it to a schema either works or fails with a code.
		s, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Float}}, schema.Day)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Apply(s, 4, []Change{c}); err != nil {
			var re *rows.Error
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("Apply(%s): error without a code: %v", c, err)
			}
		}
	})
}

func TestMissing(t *testing.T) {
	got := Missing(testSchema(t), []Column{{"cpu", schema.Long}, {"mem", schema.Double}, {"_ingest_ts", schema.Timestamptz},
		{"ok", schema.Boolean}, {"mem", schema.String}, {"ts", schema.String}})
	want := []Change{{Op: Add, Column: "mem", Type: schema.Double}, {Op: Add, Column: "ok", Type: schema.Boolean}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Missing = %v, want %v", got, want)
	}
	if got := Missing(testSchema(t), []Column{{"cpu", schema.Double}}); got != nil {
		t.Errorf("Missing of known columns = %v, want none", got)
	}
}
