package thrift

import (
	"bytes"
	"math"
	"testing"
)

// value is a decoded field, for comparing what was written with what is read.
type value struct {
	id  int16
	typ Type
	i   int64
	b   []byte
	n   int // list length
}

func TestRoundTrip(t *testing.T) {
	var w Writer
	w.I32(1, -5)
	w.I64(2, math.MinInt64)
	w.I16(20, 300) // delta over 15: long form
	w.Bytes(3, []byte("hello"))
	w.BoolField(4, true)
	w.BoolField(5, false)
	w.StructBegin(6)
	w.I32(1, math.MaxInt32)
	w.StructEnd()
	w.ListBegin(7, I64, 20) // 15 or more: long form
	for i := range 20 {
		w.ElemI64(int64(i) - 10)
	}
	w.ListBegin(8, Bool, 2)
	w.ElemBool(true)
	w.ElemBool(false)
	w.Buf = append(w.Buf, 0)

	r := NewReader(w.Buf)
	check := func(wantID int16, wantT Type) {
		t.Helper()
		id, typ := r.FieldHeader()
		if id != wantID || typ != wantT {
			t.Fatalf("field: got id %d type %d, want %d %d (%v)", id, typ, wantID, wantT, r.Err())
		}
	}
	check(1, I32)
	if v := r.I32(); v != -5 {
		t.Errorf("i32 %d", v)
	}
	check(2, I64)
	if v := r.I64(); v != math.MinInt64 {
		t.Errorf("i64 %d", v)
	}
	check(20, I16)
	if v := r.I32(); v != 300 {
		t.Errorf("i16 %d", v)
	}
	check(3, Binary)
	if v := r.Bytes(); string(v) != "hello" {
		t.Errorf("binary %q", v)
	}
	check(4, True)
	if !r.BoolValue() {
		t.Error("bool field 4 false")
	}
	check(5, False)
	if r.BoolValue() {
		t.Error("bool field 5 true")
	}
	check(6, Struct)
	r.StructBegin()
	if id, typ := r.FieldHeader(); id != 1 || typ != I32 || r.I32() != math.MaxInt32 {
		t.Errorf("nested field %d %d", id, typ)
	}
	if _, typ := r.FieldHeader(); typ != Stop {
		t.Errorf("nested struct not stopped")
	}
	r.StructEnd()
	check(7, List)
	et, n := r.ListHeader()
	if et != I64 || n != 20 {
		t.Fatalf("list header %d %d", et, n)
	}
	for i := range 20 {
		if v := r.I64(); v != int64(i)-10 {
			t.Errorf("elem %d = %d", i, v)
		}
	}
	check(8, List)
	if et, n := r.ListHeader(); n != 2 || (et != True && et != False) {
		t.Fatalf("bool list %d %d", et, n)
	}
	if !r.ElemBool() || r.ElemBool() {
		t.Error("bool elements")
	}
	if _, typ := r.FieldHeader(); typ != Stop || r.Err() != nil {
		t.Errorf("end: %d %v", typ, r.Err())
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"list claims a billion elements", []byte{0x19, 0xF5, 0x80, 0x94, 0xEB, 0xDC, 0x03}},
		{"binary claims a gigabyte", []byte{0x18, 0x80, 0x80, 0x80, 0x80, 0x04, 'x'}},
		{"deep nesting", bytes.Repeat([]byte{0x1C}, 1000)},
		{"truncated varint", []byte{0x15, 0xFF, 0xFF}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			for {
				_, typ := r.FieldHeader()
				if typ == Stop {
					break
				}
				r.Skip(typ)
			}
			if r.Err() == nil {
				t.Fatal("no error")
			}
		})
	}
}

// FuzzThrift skips through arbitrary input as a struct, then re-encodes
// what a generic walk read and checks the walk of the re-encoding agrees.
func FuzzThrift(f *testing.F) {
	var w Writer
	w.I32(1, 7)
	w.ListBegin(2, Struct, 1)
	w.ElemBegin()
	w.String(4, "name")
	w.StructEnd()
	w.I64(3, 1<<40)
	w.Buf = append(w.Buf, 0)
	f.Add(w.Buf)
	f.Add([]byte{0x19, 0xF5, 0x80, 0x94, 0xEB, 0xDC, 0x03})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(b)
		var vals []value
		walk(r, &vals, 0)
		if r.Err() != nil {
			return
		}
		var w Writer
		emit(&w, vals)
		r2 := NewReader(w.Buf)
		var vals2 []value
		walk(r2, &vals2, 0)
		if r2.Err() != nil {
			t.Fatalf("re-encoding does not parse: %v", r2.Err())
		}
		if len(vals) != len(vals2) {
			t.Fatalf("walks differ: %d vs %d values", len(vals), len(vals2))
		}
		for i := range vals {
			a, c := vals[i], vals2[i]
			if a.id != c.id || a.typ != c.typ || a.i != c.i || !bytes.Equal(a.b, c.b) || a.n != c.n {
				t.Fatalf("value %d: %+v vs %+v", i, a, c)
			}
		}
	})
}

// walk reads a struct's scalar fields and lists of scalars; structs and
// other types end the walk (value with typ Stop marks struct end).
func walk(r *Reader, out *[]value, depth int) {
	for r.Err() == nil {
		id, typ := r.FieldHeader()
		if typ == Stop {
			*out = append(*out, value{typ: Stop})
			return
		}
		v := value{id: id, typ: typ}
		switch typ {
		case True, False:
		case I16, I32, I64:
			v.i = r.I64()
		case Binary:
			v.b = r.Bytes()
		case Struct:
			if depth > 8 {
				r.Fail("too deep for the walk")
				return
			}
			*out = append(*out, v)
			r.StructBegin()
			walk(r, out, depth+1)
			r.StructEnd()
			continue
		case List:
			et, n := r.ListHeader()
			if et != I64 {
				r.Fail("walk handles i64 lists only")
				return
			}
			v.n = n
			*out = append(*out, v)
			for range n {
				*out = append(*out, value{typ: I64, i: r.I64()})
			}
			continue
		default:
			r.Fail("walk does not handle type %d", typ)
			return
		}
		*out = append(*out, v)
	}
}

func emit(w *Writer, vals []value) {
	for k := 0; k < len(vals); k++ {
		v := vals[k]
		switch v.typ {
		case Stop:
			w.Buf = append(w.Buf, 0)
			if len(w.last) > 0 {
				n := len(w.last) - 1
				w.field = w.last[n]
				w.last = w.last[:n]
			}
		case True, False:
			w.BoolField(v.id, v.typ == True)
		case I16, I32, I64:
			w.header(v.id, v.typ)
			w.varint(v.i)
		case Binary:
			w.Bytes(v.id, v.b)
		case Struct:
			w.StructBegin(v.id)
		case List:
			w.ListBegin(v.id, I64, v.n)
			for range v.n {
				k++
				w.ElemI64(vals[k].i)
			}
		}
	}
}
