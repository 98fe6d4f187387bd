package partition

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

// javaType is how a type name of the golden file is held here: its class,
// whether it is a timestamp without zone, whether its values are Java
// floats (32-bit).
type javaType struct {
	c            class
	local, float bool
}

var javaTypes = map[string]javaType{
	"int": {c: clsInt}, "long": {c: clsLong}, "string": {c: clsString}, "boolean": {c: clsBool},
	"double": {c: clsFloat}, "float": {c: clsFloat, float: true},
	"timestamptz": {c: clsMicros}, "timestamp": {c: clsMicros, local: true},
	"timestamptz_ns": {c: clsNanos}, "timestamp_ns": {c: clsNanos, local: true},
	"date": {c: clsDays},
}

// TestJavaValues compares every row of testdata/java-values.tsv, printed by
// Iceberg's Java transforms (testdata/java/TransformValues.java, rerun by
// hand with testdata/java/regen.sh), with this package: what Parse makes of
// each name, which types each transform applies to and its result type,
// and each transform's value and human string for ints, longs, strings
// (non-ASCII, emoji, combining marks), timestamps before and after 1970 up
// to the ends of int64, dates, nanosecond timestamps, doubles, floats and
// booleans.
//
// A type schema knows goes through the exported API (Parse, ResultType,
// Apply, ApplyInt, ApplyString, Human, TimeRange), which also checks that
// classify gives it the right class; a type schema does not have yet (date,
// timestamp, timestamp_ns) goes through the same code by its class, so
// adding it to schema is a case in classify that this test then checks.
func TestJavaValues(t *testing.T) {
	data, err := os.ReadFile("testdata/java-values.tsv")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Scan() // the header
	rows := map[string]int{}
	for line := 2; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 6 {
			t.Fatalf("line %d: %d columns, want 6", line, len(cols))
		}
		at := fmt.Sprintf("line %d (%s)", line, strings.Join(cols[:5], " "))
		rows[cols[0]]++
		switch cols[0] {
		case "parse":
			checkJavaParse(t, at, cols[3], cols[4])
		case "result":
			checkJavaResult(t, at, cols[1], cols[2], cols[4])
		case "apply":
			checkJavaApply(t, at, cols[1], cols[2], cols[3], cols[4], cols[5])
		default:
			t.Fatalf("%s: unknown section", at)
		}
	}
	// The file is whole: every section is there in the numbers regen.sh wrote.
	if rows["parse"] < 40 || rows["result"] != 15*11 || rows["apply"] < 2500 {
		t.Errorf("rows per section %v: the golden file is cut short", rows)
	}
}

func checkJavaParse(t *testing.T, at, in, java string) {
	got, err := Parse(in)
	switch java {
	case "!unknown":
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("%s: Parse = %v, %v; Java reads an unknown transform", at, got, err)
		}
	case "!error":
		if err == nil || errors.Is(err, ErrUnknown) {
			t.Errorf("%s: Parse = %v, %v; Java refuses the name (not as unknown)", at, got, err)
		}
	default:
		if err != nil || got.String() != java {
			t.Errorf("%s: Parse = %v, %v; Java reads %s", at, got, err, java)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("%s: String %q does not read back: %v, %v", at, got, again, err)
		}
	}
}

// goType is the schema type of a golden file's type name when schema has
// it (0 when not), after checking classify and isLocal agree with the file.
func goType(t *testing.T, at, name string) (schema.Type, javaType) {
	jt, ok := javaTypes[name]
	if !ok {
		t.Fatalf("%s: type %q is not in javaTypes", at, name)
	}
	st, err := schema.ParseType(name)
	if err != nil {
		return 0, jt
	}
	if classify(st) != jt.c || isLocal(st) != jt.local || (st == schema.Float) != jt.float {
		t.Fatalf("%s: schema type %s classifies as %d local %v, want %d local %v", at, st, classify(st), isLocal(st), jt.c, jt.local)
	}
	return st, jt
}

func checkJavaResult(t *testing.T, at, name, typ, java string) {
	tr, err := Parse(name)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	st, jt := goType(t, at, typ)
	if java == "!cannot" {
		if tr.appliesTo(jt.c) {
			t.Errorf("%s: the transform applies here, not in Java", at)
		}
		if st != 0 {
			if rt, err := tr.ResultType(st); err == nil {
				t.Errorf("%s: ResultType = %s, want an error", at, rt)
			}
		}
		return
	}
	if !tr.appliesTo(jt.c) {
		t.Errorf("%s: the transform does not apply here, Java applies it", at)
	}
	if st == 0 {
		return
	}
	rt, err := tr.ResultType(st)
	// Java types day's value as a date, the spec's table as an int: both are
	// a 32-bit day count, and ResultType says Int until schema has Date.
	want := java
	if tr.Kind == Day && java == "date" {
		want = "int"
	}
	if err != nil || rt.String() != want {
		t.Errorf("%s: ResultType = %v, %v; want %s", at, rt, err, want)
	}
}

func checkJavaApply(t *testing.T, at, name, typ, input, java, javaHuman string) {
	tr, err := Parse(name)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	st, jt := goType(t, at, typ)
	in := javaValue(t, at, jt, input)
	var got any
	var human string
	if st != 0 {
		got, human = tr.Apply(st, in), tr.Human(st, tr.Apply(st, in))
	} else {
		got = tr.apply(jt.c, in)
		human = humanByClass(tr, jt, got)
	}
	if s := goValue(jt, got); s != java {
		t.Errorf("%s: result %s, Java %s", at, s, java)
	}
	if human != javaHuman {
		t.Errorf("%s: human %q, Java %q", at, human, javaHuman)
	}
	// The per-row fast paths give what Apply gives.
	if v, ok := in.(int64); ok && got != nil {
		fast, _ := tr.applyInt(jt.c, v)
		if st != 0 {
			fast = tr.ApplyInt(st, v)
		}
		if fast != got {
			t.Errorf("%s: ApplyInt = %d, Apply %v", at, fast, got)
		}
		// The partition's time range holds the value (up to the ends of
		// int64, where hours wrap as Java's do).
		var lo, hi int64
		var ok bool
		if st != 0 {
			lo, hi, ok = tr.TimeRange(st, got.(int64))
		} else if jt.c.isTime() {
			lo, hi, ok = timeRange(tr.Kind, jt.c, got.(int64))
		}
		if ok && v > -1<<62 && v < 1<<62 && !(lo <= v && v < hi) {
			t.Errorf("%s: TimeRange [%d, %d) does not hold %d", at, lo, hi, v)
		}
	}
	if s, ok := in.(string); ok && got != nil {
		b, str := tr.ApplyString(s)
		if (tr.Kind == Bucket && b != got) || (tr.Kind != Bucket && str != got) {
			t.Errorf("%s: ApplyString = %d, %q; Apply %v", at, b, str, got)
		}
	}
}

// humanByClass is Human for a type schema does not have yet.
func humanByClass(tr Transform, jt javaType, v any) string {
	return human(tr.Kind, jt.c, jt.local, jt.float, v)
}

// javaValue reads an input of the golden file as rows holds it.
func javaValue(t *testing.T, at string, jt javaType, s string) any {
	if s == `\N` {
		return nil
	}
	var v any
	var err error
	switch jt.c {
	case clsString:
		return s
	case clsBool:
		v, err = strconv.ParseBool(s)
	case clsFloat:
		bits := 64
		if jt.float {
			bits = 32
		}
		v, err = strconv.ParseFloat(s, bits)
	default:
		v, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil {
		t.Fatalf("%s: input %q: %v", at, s, err)
	}
	return v
}

// goValue prints a partition value as the golden file does (Java's
// toString, \N for null).
func goValue(jt javaType, v any) string {
	switch x := v.(type) {
	case nil:
		return `\N`
	case float64:
		if jt.float {
			return javaFloat(x, 32)
		}
		return javaFloat(x, 64)
	}
	return fmt.Sprint(v)
}
