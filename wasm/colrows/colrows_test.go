package colrows

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func testSchema(t testing.TB) *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "up", Type: schema.Boolean},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// strs builds a String column's Str and Off from per-row values ("" where
// the row has no string).
func strs(vals ...string) (string, []int32) {
	var sb strings.Builder
	off := []int32{0}
	for _, v := range vals {
		sb.WriteString(v)
		off = append(off, int32(sb.Len()))
	}
	return sb.String(), off
}

func strCol(name string, vals ...string) Column {
	s, off := strs(vals...)
	return Column{Name: name, Tag: String, Str: s, Off: off}
}

func TestBuild(t *testing.T) {
	sch := testSchema(t)
	ts, tsOff := strs("2026-11-29T10:00:00Z", "", "")
	in := &Input{Len: 3, Cols: []Column{
		{Name: "ts", Tag: Mixed, Tags: []byte{byte(String), byte(Date), byte(Number)},
			F64: []float64{0, 1795946400000, 1795946400001}, Str: ts, Off: tsOff},
		strCol("host", "a", "b", "c"),
		{Name: "cpu", Tag: Mixed, Tags: []byte{byte(Number), byte(Null), byte(Absent)}, F64: []float64{0.5, 0, 0}},
		{Name: "mem", Tag: Mixed, Tags: []byte{byte(BigInt), byte(Number), byte(String)},
			I64: []int64{math.MaxInt64, 0, 0}, F64: []float64{0, 42, 0}, Str: "9007199254740993", Off: []int32{0, 0, 0, 16}},
		{Name: "up", Tag: Mixed, Tags: []byte{byte(True), byte(False), byte(Absent)}},
	}}
	b, err := Build(sch, in, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len != 3 {
		t.Fatalf("len = %d, want 3", b.Len)
	}
	wantTS := []int64{1795946400000000, 1795946400000000, 1795946400001000}
	for i, w := range wantTS {
		if got := b.Cols[0].Ints[i]; got != w {
			t.Errorf("ts[%d] = %d, want %d", i, got, w)
		}
	}
	if got, want := b.Cols[1].Strs, []string{"a", "b", "c"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("host = %v, want %v", got, want)
	}
	cpu := b.Cols[2]
	if cpu.Floats[0] != 0.5 || cpu.Nulls == nil || cpu.Nulls[0] || !cpu.Nulls[1] || !cpu.Nulls[2] {
		t.Errorf("cpu = %v nulls %v, want [0.5 null null]", cpu.Floats, cpu.Nulls)
	}
	if got, want := b.Cols[3].Ints, []int64{math.MaxInt64, 42, 9007199254740993}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("mem = %v, want %v", got, want)
	}
	up := b.Cols[4]
	if !up.Bools[0] || up.Bools[1] || !up.Nulls[2] {
		t.Errorf("up = %v nulls %v, want [true false null]", up.Bools, up.Nulls)
	}
}

func TestBuildErrors(t *testing.T) {
	sch := testSchema(t)
	okTS := Column{Name: "ts", Tag: Number, F64: []float64{1e12, 1e12}}
	okHost := strCol("host", "a", "b")
	tests := []struct {
		name      string
		cols      []Column
		opt       rows.Options
		code      string
		row       int
		column    string
		msgSubstr string
	}{
		{"string where a number belongs", []Column{okTS, okHost, strCol("cpu", "1.5", "abc")}, rows.Options{},
			rows.CodeTypeMismatch, 2, "cpu", `"abc"`},
		{"NaN number", []Column{okTS, okHost, {Name: "cpu", Tag: Number, F64: []float64{1, math.NaN()}}}, rows.Options{},
			rows.CodeTypeMismatch, 2, "cpu", "NaN"},
		{"number beyond 2^53 for a long", []Column{okTS, okHost, {Name: "mem", Tag: Number, F64: []float64{1 << 54, 1}}}, rows.Options{},
			rows.CodeTypeMismatch, 1, "mem", "2^53"},
		{"missing time", []Column{{Name: "ts", Tag: Mixed, Tags: []byte{byte(Number), byte(Absent)}, F64: []float64{1e12, 0}}, okHost}, rows.Options{},
			rows.CodeMissingColumn, 2, "ts", "required"},
		{"unknown field", []Column{okTS, okHost, {Name: "disk", Tag: Mixed, Tags: []byte{byte(Absent), byte(Number)}, F64: []float64{0, 1}}}, rows.Options{},
			rows.CodeUnknownColumn, 2, "disk", "not in the table schema"},
		{"ingest column", []Column{okTS, okHost, {Name: "_ingest_ts", Tag: Number, F64: []float64{1, 1}}}, rows.Options{IgnoreUnknown: true},
			rows.CodeUnknownColumn, 1, "_ingest_ts", "set by the writer"},
		{"object value", []Column{okTS, okHost, {Name: "cpu", Tag: Other, Str: "objectobject", Off: []int32{0, 6, 12}}}, rows.Options{},
			rows.CodeTypeMismatch, 1, "cpu", "JavaScript object"},
		{"invalid Date", []Column{{Name: "ts", Tag: Date, F64: []float64{1e12, math.NaN()}}, okHost}, rows.Options{},
			rows.CodeBadTime, 2, "ts", "invalid Date"},
		{"boolean for a double", []Column{okTS, okHost, {Name: "cpu", Tag: True}}, rows.Options{},
			rows.CodeTypeMismatch, 1, "cpu", "boolean"},
		{"number for a string", []Column{okTS, {Name: "host", Tag: Number, F64: []float64{1, 2}}}, rows.Options{},
			rows.CodeTypeMismatch, 1, "host", "string column"},
		{"duplicate column", []Column{okTS, okHost, okHost}, rows.Options{},
			rows.CodeDuplicateColumn, 0, "host", "twice"},
		{"bad time string", []Column{strCol("ts", "2026-13-01", "x"), okHost}, rows.Options{},
			rows.CodeBadTime, 1, "ts", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(sch, &Input{Len: 2, Cols: tc.cols}, tc.opt)
			var re *rows.Error
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *rows.Error", err)
			}
			if re.Code != tc.code || re.Row != tc.row || re.Column != tc.column || !strings.Contains(re.Error(), tc.msgSubstr) {
				t.Errorf("got code %s row %d column %q (%v), want code %s row %d column %q containing %q",
					re.Code, re.Row, re.Column, re, tc.code, tc.row, tc.column, tc.msgSubstr)
			}
		})
	}
}

func TestIgnoreUnknown(t *testing.T) {
	sch := testSchema(t)
	b, err := Build(sch, &Input{Len: 1, Cols: []Column{
		{Name: "ts", Tag: Number, F64: []float64{1e12}}, strCol("host", "a"), {Name: "disk", Tag: Number, F64: []float64{1}},
	}}, rows.Options{IgnoreUnknown: true})
	if err != nil || b.Len != 1 {
		t.Fatalf("Build = %v, %v; want one row", b, err)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"short tags", Input{Len: 2, Cols: []Column{{Name: "a", Tag: Mixed, Tags: []byte{1}}}}, "1 tags for 2 rows"},
		{"bad tag", Input{Len: 1, Cols: []Column{{Name: "a", Tag: Mixed, Tags: []byte{99}}}}, "unknown tag 99"},
		{"short floats", Input{Len: 2, Cols: []Column{{Name: "a", Tag: Number, F64: []float64{1}}}}, "1 float values"},
		{"short ints", Input{Len: 2, Cols: []Column{{Name: "a", Tag: BigInt}}}, "0 int64 values"},
		{"offset past end", Input{Len: 1, Cols: []Column{{Name: "a", Tag: String, Str: "ab", Off: []int32{0, 3}}}}, "past 2 bytes"},
		{"offsets backwards", Input{Len: 2, Cols: []Column{{Name: "a", Tag: String, Str: "ab", Off: []int32{0, 2, 1}}}}, "out of order"},
		{"missing offsets", Input{Len: 1, Cols: []Column{{Name: "a", Tag: String, Str: "ab"}}}, "0 string offsets"},
	}
	for _, tc := range tests {
		err := tc.in.Check()
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check = %v, want an InputError containing %q", tc.name, err, tc.want)
		}
	}
}

// FuzzBuild feeds arbitrary tags, numbers and strings through Check and
// Build: no panic, and any error is an InputError or a *rows.Error.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{2, 4, 1}, "2026-11-29T10:00:00Zab", 1e12, int64(5))
	f.Add([]byte{255, 3, 7, 8}, "object", math.NaN(), int64(-1))
	f.Add([]byte{0, 0, 0}, "", 0.0, int64(0))
	sch := testSchema(f)
	f.Fuzz(func(t *testing.T, tags []byte, str string, num float64, big int64) {
		n := len(tags)
		off := make([]int32, n+1)
		for i := range n {
			off[i+1] = int32(min(len(str), (i+1)*len(str)/max(n, 1)))
		}
		f64 := make([]float64, n)
		i64 := make([]int64, n)
		for i := range f64 {
			f64[i], i64[i] = num+float64(i), big-int64(i)
		}
		var cols []Column
		for k, name := range []string{"ts", "host", "cpu", "mem", "up"} {
			c := Column{Name: name, Tag: Mixed, Tags: make([]byte, n), F64: f64, I64: i64, Str: str, Off: off}
			for i := range n {
				c.Tags[i] = tags[(i+k)%n] % 10 // some values past Other: must be refused, not panic
			}
			cols = append(cols, c)
		}
		_, err := Build(sch, &Input{Len: n, Cols: cols}, rows.Options{})
		var ie *InputError
		var re *rows.Error
		if err != nil && !errors.As(err, &ie) && !errors.As(err, &re) {
			t.Fatalf("Build error %T %v", err, err)
		}
	})
}

func TestDictionary(t *testing.T) {
	sch := testSchema(t)
	in := &Input{Len: 4, Cols: []Column{
		{Name: "ts", Tag: Number, F64: []float64{1e12, 1e12, 1e12, 1e12}},
		{Name: "host", Tag: String, Str: "web-1db-22", Off: []int32{0, 5, 10}, Idx: []int32{1, 0, 0, 1}},
		{Name: "cpu", Tag: Mixed, Tags: []byte{byte(String), byte(Null), byte(String), byte(Other)}, Str: "1.5object", Off: []int32{0, 3, 9}, Idx: []int32{0, 0, 0, 1}},
	}}
	_, err := Build(sch, in, rows.Options{})
	var re *rows.Error
	if !errors.As(err, &re) || re.Row != 4 || re.Column != "cpu" || !strings.Contains(err.Error(), "JavaScript object") {
		t.Fatalf("err = %v, want row 4 cpu: a JavaScript object", err)
	}
	in.Cols[2].Tags[3] = byte(Absent)
	b, err := Build(sch, in, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.Cols[1].Strs, ","), "db-22,web-1,web-1,db-22"; got != want {
		t.Errorf("host = %s, want %s", got, want)
	}
	if got := b.Cols[2].Floats; got[0] != 1.5 || got[2] != 1.5 || !b.Cols[2].Nulls[1] || !b.Cols[2].Nulls[3] {
		t.Errorf("cpu = %v nulls %v, want [1.5 null 1.5 null]", got, b.Cols[2].Nulls)
	}
	in.Cols[1].Idx[2] = 2
	if err := in.Check(); err == nil || !strings.Contains(err.Error(), "row 3: string index 2 outside 2 entries") {
		t.Errorf("Check = %v, want row 3 index outside", err)
	}
}

func TestColumns(t *testing.T) {
	in := &Input{Len: 3, Cols: []Column{
		{Name: "n", Tag: Number}, {Name: "b", Tag: BigInt}, {Name: "s", Tag: String}, {Name: "f", Tag: False},
		{Name: "d", Tag: Date}, {Name: "none", Tag: Null},
		{Name: "late", Tag: Mixed, Tags: []byte{byte(Absent), byte(Null), byte(True)}},
		{Name: "first", Tag: Mixed, Tags: []byte{byte(BigInt), byte(Number), byte(String)}},
	}}
	var got []string
	for _, c := range Columns(in) {
		got = append(got, c.Name+":"+c.Type.String())
	}
	if want := "n:double b:long s:string f:boolean d:timestamptz none:string late:boolean first:long"; strings.Join(got, " ") != want {
		t.Errorf("Columns = %s\nwant %s", strings.Join(got, " "), want)
	}
}
