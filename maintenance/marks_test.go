package maintenance

import (
	"bytes"
	"maps"
	"testing"
	"time"
)

func TestMarksRoundTrip(t *testing.T) {
	m := Marks{
		data1:     time.UnixMilli(1_700_000_000_000),
		list1:     time.UnixMilli(1_700_000_000_000),
		manifest1: time.UnixMilli(1_700_000_360_000),
	}
	raw := m.Encode()
	want := `{"timelake-unreferenced":1,"seen":[{"ms":1700000000000,"keys":["` + data1 + `","` + list1 + `"]},{"ms":1700000360000,"keys":["` + manifest1 + `"]}]}`
	if string(raw) != want {
		t.Errorf("Encode:\n got %s\nwant %s", raw, want)
	}
	got, err := ParseMarks(raw)
	if err != nil || !maps.EqualFunc(got, m, time.Time.Equal) {
		t.Errorf("ParseMarks(Encode(m)) = %v, %v; want %v", got, err, m)
	}
	// A time between milliseconds is rounded up: a mark never moves earlier.
	got, _ = ParseMarks(Marks{data1: time.UnixMilli(5).Add(time.Microsecond)}.Encode())
	if !got[data1].Equal(time.UnixMilli(6)) {
		t.Errorf("sub-millisecond mark read back as %v, want 6 ms", got[data1].UnixMilli())
	}
	if got, err := ParseMarks(Marks{}.Encode()); err != nil || len(got) != 0 {
		t.Errorf("empty marks: %v, %v", got, err)
	}
}

func TestParseMarksRefuses(t *testing.T) {
	for _, raw := range []string{
		``,
		`null`,
		`{}`,
		`{"timelake-unreferenced":2,"seen":[]}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":-1,"keys":["data/a"]}]}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":253402300800000,"keys":["data/a"]}]}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":1,"keys":["head.json"]}]}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":1,"keys":["data/a"]},{"ms":2,"keys":["data/a"]}]}`,
		`{"timelake-unreferenced":1,"seen":[],"extra":1}`,
		`{"timelake-unreferenced":1,"seen":[]} {}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":1.5,"keys":[]}]}`,
		`{"timelake-unreferenced":1,"seen":[{"ms":1,"keys":[`,
	} {
		if m, err := ParseMarks([]byte(raw)); err == nil {
			t.Errorf("ParseMarks(%s) = %v, want an error", raw, m)
		}
	}
}

// FuzzParseMarks: the marks file comes from storage, where anything can be
// written. ParseMarks never panics, and what it accepts names keys under
// data/ and metadata/ only, and encodes back to bytes it reads the same.
func FuzzParseMarks(f *testing.F) {
	f.Add(Marks{data1: time.UnixMilli(1), list1: time.UnixMilli(2)}.Encode())
	f.Add([]byte(`{"timelake-unreferenced":1,"seen":[]}`))
	f.Add([]byte(`{"timelake-unreferenced":1,"seen":[{"ms":0,"keys":["metadata/x","data/y"]}]}`))
	f.Add([]byte(`{"timelake-unreferenced":1,"seen":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseMarks(raw)
		if err != nil {
			return
		}
		for k, at := range m {
			if !cleanable(k) || at.UnixMilli() < 0 {
				t.Fatalf("accepted %q at %v", k, at)
			}
		}
		enc := m.Encode()
		back, err := ParseMarks(enc)
		if err != nil || !maps.EqualFunc(back, m, time.Time.Equal) {
			t.Fatalf("re-encoded marks read back as %v, %v; want %v", back, err, m)
		}
		if !bytes.Equal(back.Encode(), enc) {
			t.Fatalf("Encode is not stable")
		}
	})
}
