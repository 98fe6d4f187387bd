package deletionvector

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/puffin"
)

func seq(from, to, step int64) []int64 {
	var out []int64
	for x := from; x < to; x += step {
		out = append(out, x)
	}
	return out
}

// The position sets of testdata/gen_pyroaring.py.
var pyroaringCases = map[string][]int64{
	"sparse":  {0, 5, 7, 1000, 65535, 65536, 70000},
	"dense":   seq(0, 100000, 2),
	"runs":    append(append(seq(10, 50000, 1), seq(200000, 200100, 1)...), 300000),
	"buckets": {1, 1 << 32, 1<<32 + 7, 5<<32 + 65536*3},
}

// TestDecodePyroaring reads blobs CRoaring serialized (array, bitmap and
// run containers, several 32-bit buckets).
func TestDecodePyroaring(t *testing.T) {
	for name, want := range pyroaringCases {
		t.Run(name, func(t *testing.T) {
			blob, err := os.ReadFile("testdata/pyroaring-" + name + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			v, err := Decode(blob)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Positions(); !slices.Equal(got, want) {
				t.Fatalf("got %d positions %v…, want %d %v…", len(got), head(got), len(want), head(want))
			}
			if v.Cardinality() != int64(len(want)) {
				t.Fatalf("cardinality %d, want %d", v.Cardinality(), len(want))
			}
			for _, p := range want {
				if !v.Contains(p) {
					t.Fatalf("Contains(%d) is false", p)
				}
			}
			for _, p := range []int64{-1, 2, 4, 9, 50000, 199999, 200100, 1<<32 - 1, 1<<32 + 6, 6 << 32} {
				if !slices.Contains(want, p) && v.Contains(p) {
					t.Fatalf("Contains(%d) is true", p)
				}
			}
			// Encoding picks the smallest forms as CRoaring's run_optimize
			// does: the same bytes for these sets.
			if got := Encode(v); string(got) != string(blob) {
				t.Errorf("re-encoded: %d bytes, pyroaring wrote %d\n got % X\nwant % X", len(got), len(blob), head8(got), head8(blob))
			}
		})
	}
}

func head(s []int64) []int64 { return s[:min(len(s), 8)] }
func head8(b []byte) []byte  { return b[:min(len(b), 48)] }

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		pos  []int64
	}{
		{"empty", nil},
		{"one", []int64{42}},
		{"array of 4096", seq(0, 4096*3, 3)},
		{"bitmap of 4097", seq(0, 4097*3, 3)},
		{"one long run", seq(0, 1<<20, 1)},
		{"runs and gaps", append(seq(100, 70000, 1), seq(80000, 90000, 7)...)},
		{"many containers", seq(0, 1<<24, 65536/3)},
		{"far", []int64{0, 1 << 40, 1<<40 + 1, MaxPosition - 5, MaxPosition}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Of(c.pos...)
			if err != nil {
				t.Fatal(err)
			}
			w, err := Decode(Encode(v))
			if err != nil {
				t.Fatal(err)
			}
			got := w.Positions()
			if want := int64(-1); len(c.pos) > 0 && w.Max() != c.pos[len(c.pos)-1] || len(c.pos) == 0 && w.Max() != want {
				t.Fatalf("Max = %d, want the last of %v…", w.Max(), head(c.pos))
			}
			if !slices.Equal(got, c.pos) && !(len(got) == 0 && len(c.pos) == 0) {
				t.Fatalf("got %d positions %v…, want %d %v…", len(got), head(got), len(c.pos), head(c.pos))
			}
		})
	}
}

func TestOfSortsAndRefusesNegative(t *testing.T) {
	v, err := Of(9, 3, 3, 1<<33, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Positions(), []int64{0, 3, 9, 1 << 33}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := Of(1, -2); err == nil || !strings.Contains(err.Error(), "-2") {
		t.Fatalf("Of(-2): %v, want an error naming -2", err)
	}
}

func TestMerge(t *testing.T) {
	a, _ := Of(append(seq(0, 10000, 2), 1<<32)...)
	b, _ := Of(append(seq(1, 10000, 2), 4, 1<<35)...)
	got := Merge(a, b).Positions()
	want := append(seq(0, 10000, 1), 1<<32, 1<<35)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d positions, want %d", len(got), len(want))
	}
	if got := Merge(nil, b).Positions(); !slices.Equal(got, b.Positions()) {
		t.Fatalf("Merge(nil, b) = %v…", head(got))
	}
	if got := Merge(a, nil).Cardinality(); got != a.Cardinality() {
		t.Fatalf("Merge(a, nil) has %d, want %d", got, a.Cardinality())
	}
}

// frame wraps a vector's bytes as a blob with a right length and CRC.
func frame(vector []byte) []byte {
	body := append([]byte(magic), vector...)
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

func TestDecodeRefuses(t *testing.T) {
	good, _ := os.ReadFile("testdata/pyroaring-sparse.bin")
	vector := good[8 : len(good)-4]
	le := binary.LittleEndian
	bucket := func(key uint32, bitmap ...byte) []byte {
		b := le.AppendUint64(nil, 1)
		b = le.AppendUint32(b, key)
		return append(b, bitmap...)
	}
	noRuns := func(size uint32, rest ...byte) []byte {
		b := le.AppendUint32(nil, cookieNoRuns)
		b = le.AppendUint32(b, size)
		return append(b, rest...)
	}
	mod := func(f func(b []byte)) []byte {
		b := slices.Clone(good)
		f(b)
		return b
	}
	cases := []struct {
		name, blob, want string
	}{
		{"empty", "", "too short"},
		{"truncated", string(good[:len(good)-1]), "length says"},
		{"bad CRC", string(mod(func(b []byte) { b[len(b)-1] ^= 1 })), "CRC-32"},
		{"bad magic", string(mod(func(b []byte) { b[4] = 0 })), "magic"},
		{"bit flip in vector", string(mod(func(b []byte) { b[20] ^= 4 })), "CRC-32"},
		{"vector cut short", string(frame(vector[:len(vector)-2])), "truncated"},
		{"bytes after", string(frame(append(slices.Clone(vector), 0))), "after the bitmap"},
		{"too many buckets", string(frame(le.AppendUint64(nil, 1<<40))), "buckets"},
		{"bad cookie", string(frame(bucket(0, 1, 2, 3, 4, 0, 0, 0, 0))), "cookie"},
		{"key past 2^31", string(frame(bucket(1<<31, noRuns(0)...))), "past"},
		{"array not ascending", string(frame(bucket(0, noRuns(1, 0, 0, 1, 0, 0, 0, 0, 0, 5, 0, 3, 0)...))), "ascend"},
		{"bitmap count wrong", string(frame(bucket(0, noRuns(1, append([]byte{0, 0, 0, 0x10, 0, 0, 0, 0}, make([]byte, 8192)...)...)...))), "bits set"},
		{"container keys not ascending", string(frame(bucket(0, noRuns(2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0)...))), "ascend"},
		// one run container (cookie 12347, size 1, flag 1): key 0, card 2; runs 1: start 65535, length 2
		{"run past the container", string(frame(bucket(0, 0x3b, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0xFF, 0xFF, 1, 0))), "leaves"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.blob))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrFormat saying %q", err, c.want)
			}
		})
	}
}

// FuzzDecode: any bytes decode or fail with ErrFormat, never panic, and
// what decodes encodes to bytes that decode to the same positions.
func FuzzDecode(f *testing.F) {
	for name := range pyroaringCases {
		b, err := os.ReadFile("testdata/pyroaring-" + name + ".bin")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	v, _ := Of(seq(0, 70000, 1)...)
	f.Add(Encode(v))
	f.Add(append(Encode(v)[8:len(Encode(v))-4], 0))
	f.Add(frame([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3b, 0x30, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 2, 0}))
	f.Fuzz(func(t *testing.T, blob []byte) {
		// The CRC turns away nearly every mutation of a blob: every other
		// input is read as a vector, framed with a right CRC.
		if len(blob)%2 == 1 {
			blob = frame(blob[:len(blob)-1])
		}
		v, err := Decode(blob)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
			return
		}
		if v.Cardinality() > 1<<20 {
			return // a long run: comparing every position is slow
		}
		w, err := Decode(Encode(v))
		if err != nil {
			t.Fatalf("re-encoded: %v", err)
		}
		if !slices.Equal(v.Positions(), w.Positions()) {
			t.Fatal("re-encoded to other positions")
		}
	})
}

// TestDecodeIcebergJava reads the vector Iceberg's Java library (1.10.1,
// through Spark) wrote (testdata/gen_spark.py): bitmap, array and run
// containers; encoding those positions gives Java's bytes back.
func TestDecodeIcebergJava(t *testing.T) {
	data, err := os.ReadFile("testdata/iceberg-java.puffin")
	if err != nil {
		t.Fatal(err)
	}
	pf, err := puffin.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	i := pf.Find(BlobType)
	if i < 0 || len(pf.Blobs) != 1 {
		t.Fatalf("blobs %+v, want one %s", pf.Blobs, BlobType)
	}
	blob, err := pf.BlobData(data, i)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for id := range int64(200000) {
		if (id%2 == 0 && id < 70000) || (id >= 80000 && id <= 90000) || id == 199999 {
			want = append(want, id)
		}
	}
	if got := v.Positions(); !slices.Equal(got, want) {
		t.Fatalf("got %d positions, want %d", len(got), len(want))
	}
	if got := pf.Blobs[i].Properties[PropCardinality]; got != "45002" {
		t.Errorf("cardinality property %q, want 45002", got)
	}
	if got := Encode(v); string(got) != string(blob) {
		t.Errorf("re-encoded: %d bytes, Java wrote %d", len(got), len(blob))
	}
}
