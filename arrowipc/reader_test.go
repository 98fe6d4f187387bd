package arrowipc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/core/lz4"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

var update = flag.Bool("update", false, "regenerate testdata with pyarrow (testdata/gen.py; needs the repo's .venv: bash scripts/pyenv.sh)")

type tableSpec struct {
	Time    string   `json:"time"`
	Series  []string `json:"series"`
	Columns []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Required bool   `json:"required"`
	} `json:"columns"`
}

func (s tableSpec) build(t testing.TB) *schema.Table {
	var fields []schema.Field
	for _, c := range s.Columns {
		typ, err := schema.ParseType(c.Type)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, schema.Field{Name: c.Name, Type: typ, Required: c.Required})
	}
	tb, err := schema.New(s.Time, s.Series, fields, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

type fixtures struct {
	Pyarrow string `json:"pyarrow"`
	Bench   struct {
		File        string    `json:"file"`
		SchemaBytes int       `json:"schemaBytes"`
		BatchBytes  int       `json:"batchBytes"`
		Rows        int       `json:"rows"`
		Table       tableSpec `json:"table"`
	} `json:"bench"`
	Cases []struct {
		Name    string    `json:"name"`
		File    string    `json:"file"`
		Table   tableSpec `json:"table"`
		Options struct {
			IgnoreUnknown bool   `json:"ignoreUnknown"`
			TimeUnit      string `json:"timeUnit"`
		} `json:"options"`
		Repeat  int             `json:"repeat"`
		RawRows [][]any         `json:"rows"`
		Rows    [][]json.Number // RawRows rendered
		Error   *struct {
			Code     string `json:"code"`
			Row      int    `json:"row"`
			Column   string `json:"column"`
			Contains string `json:"contains"`
		} `json:"error"`
	} `json:"cases"`
}

var loaded *fixtures

func loadFixtures(t testing.TB) *fixtures {
	if loaded != nil {
		return loaded
	}
	if *update {
		py := filepath.Join("..", ".venv", "bin", "python")
		out, err := exec.Command(py, filepath.Join("testdata", "gen.py")).CombinedOutput()
		if err != nil {
			t.Fatalf("testdata/gen.py: %v\n%s", err, out)
		}
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixtures{}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // 64-bit integers stay exact
	if err := d.Decode(f); err != nil {
		t.Fatal(err)
	}
	for i := range f.Cases {
		c := &f.Cases[i]
		for _, r := range c.RawRows {
			row := make([]json.Number, len(r))
			for j, v := range r {
				row[j] = json.Number(render(v))
			}
			c.Rows = append(c.Rows, row)
		}
	}
	loaded = f
	return f
}

// render writes an expected or actual value as text: numbers as they are
// (floats compared as floats, see sameValue), strings quoted, null as null.
func render(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return string(v)
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return "?"
}

// gotRows renders b's rows, _ingest_ts left out, as render does.
func gotRows(b *rows.Batch) [][]json.Number {
	var out [][]json.Number
	for r := 0; r < b.Len; r++ {
		var row []json.Number
		for c, f := range b.Schema.Fields {
			if c == b.Schema.Ingest {
				continue
			}
			col := &b.Cols[c]
			var s string
			switch {
			case col.IsNull(r):
				s = "null"
			case f.Type.IsInteger() || f.Type == schema.Timestamptz:
				s = strconv.FormatInt(col.Ints[r], 10)
			case f.Type.IsFloat():
				s = strconv.FormatFloat(col.Floats[r], 'g', -1, 64)
			case f.Type == schema.Boolean:
				s = strconv.FormatBool(col.Bools[r])
			default:
				s = strconv.Quote(col.Strs[r])
			}
			row = append(row, json.Number(s))
		}
		out = append(out, row)
	}
	return out
}

func sameValue(got, want json.Number) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(string(got), 64)
	w, err2 := strconv.ParseFloat(string(want), 64)
	return err1 == nil && err2 == nil && (g == w || (math.IsNaN(g) && math.IsNaN(w)))
}

func options(ignore bool, unit string, t testing.TB) rows.Options {
	opt := rows.Options{IgnoreUnknown: ignore}
	if unit != "" {
		u, err := rows.ParseTimeUnit(unit)
		if err != nil {
			t.Fatal(err)
		}
		opt.TimeUnit = u
	}
	return opt
}

// readAll reads data in batches of at most max rows and joins their rendering.
func readAll(data []byte, tb *schema.Table, opt rows.Options, max int) ([][]json.Number, error) {
	r, err := NewReader(data, tb, opt)
	if err != nil {
		return nil, err
	}
	var out [][]json.Number
	for {
		b, err := r.Next(max)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if b.Len > max {
			return nil, errors.New("a batch longer than max")
		}
		out = append(out, gotRows(b)...)
	}
}

// TestPyarrowFixtures reads every fixture pyarrow wrote (testdata/gen.py) and
// compares the aligned rows with what pyarrow reads from the same bytes, or
// the error with the one expected.
func TestPyarrowFixtures(t *testing.T) {
	fx := loadFixtures(t)
	if len(fx.Cases) < 20 {
		t.Fatalf("only %d cases in testdata/cases.json", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.File))
			if err != nil {
				t.Fatal(err)
			}
			tb := c.Table.build(t)
			opt := options(c.Options.IgnoreUnknown, c.Options.TimeUnit, t)
			for _, max := range []int{math.MaxInt, 7} {
				got, err := readAll(data, tb, opt, max)
				if c.Error != nil {
					var re *rows.Error
					if !errors.As(err, &re) {
						t.Fatalf("max %d: got error %v (%T), want a *rows.Error %s", max, err, err, c.Error.Code)
					}
					if re.Code != c.Error.Code || re.Row != c.Error.Row || re.Column != c.Error.Column || !strings.Contains(re.Msg, c.Error.Contains) {
						t.Fatalf("max %d: got %s row %d column %q: %v; want %s row %d column %q containing %q",
							max, re.Code, re.Row, re.Column, re, c.Error.Code, c.Error.Row, c.Error.Column, c.Error.Contains)
					}
					continue
				}
				if err != nil {
					t.Fatalf("max %d: %v", max, err)
				}
				var want [][]json.Number
				for range max1(c.Repeat) {
					want = append(want, c.Rows...)
				}
				if len(got) != len(want) {
					t.Fatalf("max %d: got %d rows, want %d", max, len(got), len(want))
				}
				for r := range want {
					for k := range want[r] {
						if !sameValue(got[r][k], want[r][k]) {
							t.Fatalf("max %d: row %d column %q: got %s, want %s (pyarrow)", max, r+1, tb.Fields[k].Name, got[r][k], want[r][k])
						}
					}
				}
			}
		})
	}
}

func max1(n int) int { return max(n, 1) }

func TestIsArrow(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"\xff\xff\xff\xff\x10\x01", true}, {"ARROW1\x00\x00", true}, {"PAR1", false}, {"ts,host", false}, {"\xff\xff", false}, {"", false},
	} {
		if got := IsArrow([]byte(c.head)); got != c.want {
			t.Errorf("IsArrow(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// corrupt inputs: every prefix and a byte flipped at every position of some
// fixtures fail with a coded *rows.Error (or, for a flip that keeps the input
// well formed, read), never a panic.
func TestCorrupt(t *testing.T) {
	fx := loadFixtures(t)
	for _, name := range []string{"types.arrows", "types.arrow", "dict-delta.arrows", "types-lz4.arrows", "dict-zstd.arrows"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var spec tableSpec
		for _, c := range fx.Cases {
			if c.File == name {
				spec = c.Table
			}
		}
		tb := spec.build(t)
		check := func(what string, in []byte) {
			_, err := readAll(in, tb, rows.Options{IgnoreUnknown: true}, 5)
			var re *rows.Error
			if err != nil && (!errors.As(err, &re) || re.Code == "" || re.Msg == "") {
				t.Fatalf("%s %s: error %v (%T) is not a coded *rows.Error", name, what, err, err)
			}
		}
		step := max(1, len(data)/400)
		for n := 0; n < len(data); n += step {
			in := data[:n]
			if _, err := readAll(in, tb, rows.Options{}, 5); err == nil && !strings.HasSuffix(name, ".arrows") {
				t.Fatalf("%s cut to %d bytes: no error", name, n)
			}
			check("cut to "+strconv.Itoa(n), in)
		}
		for i := 0; i < len(data); i += step {
			in := bytes.Clone(data)
			in[i] ^= 0x5A
			check("byte "+strconv.Itoa(i)+" flipped", in)
		}
	}
}

// TestTruncatedStream: a stream cut at a message boundary (no end marker)
// reads the complete batches; cut inside a message it fails with SYNTAX.
func TestTruncatedStream(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "dict-delta.arrows"))
	if err != nil {
		t.Fatal(err)
	}
	fx := loadFixtures(t)
	var spec tableSpec
	for _, c := range fx.Cases {
		if c.File == "dict-delta.arrows" {
			spec = c.Table
		}
	}
	tb := spec.build(t)
	full, err := readAll(data, tb, rows.Options{}, 100)
	if err != nil || len(full) != 12 {
		t.Fatalf("full stream: %d rows, %v", len(full), err)
	}
	noEOS := data[:len(data)-8]
	if got, err := readAll(noEOS, tb, rows.Options{}, 100); err != nil || len(got) != 12 {
		t.Fatalf("without the end marker: %d rows, %v; want 12 rows", len(got), err)
	}
	_, err = readAll(data[:len(data)-20], tb, rows.Options{}, 100)
	var re *rows.Error
	if !errors.As(err, &re) || re.Code != rows.CodeSyntax {
		t.Fatalf("cut inside the last batch: %v, want SYNTAX", err)
	}
}

// TestDecompressLimit: a buffer that declares more than a batch may expand
// to is refused before anything is allocated.
func TestDecompressLimit(t *testing.T) {
	src := make([]byte, 16)
	binary.LittleEndian.PutUint64(src, 1<<40)
	budget := int64(maxBatchBytes)
	_, err := decompress(codecZstd, src, &budget)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("got %v, want a limit error", err)
	}
}

func TestLZ4Block(t *testing.T) {
	// "abcabcabcabc!" : literals "abc", match offset 3 length 9, then literal "!"
	block := []byte{0x35, 'a', 'b', 'c', 3, 0, 0x10, '!'}
	got, err := lz4.Block(nil, block, 13)
	if err != nil || string(got) != "abcabcabcabc!" {
		t.Fatalf("got %q, %v; want %q", got, err, "abcabcabcabc!")
	}
	if _, err := lz4.Block(nil, block, 12); err == nil {
		t.Fatalf("a block past the declared length decoded without error")
	}
	if _, err := lz4.Block(nil, []byte{0x05, 9, 0}, 100); err == nil {
		t.Fatalf("a match before the start decoded without error")
	}
}

func TestHalf(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{
		{0x3C00, 1}, {0xC000, -2}, {0x7BFF, 65504}, {0x0001, 1.0 / (1 << 24)}, {0x8000, float32(math.Copysign(0, -1))},
		{0x7C00, float32(math.Inf(1))}, {0x3555, 0.333251953125},
	} {
		if got := half(c.h); got != c.want || math.Signbit(float64(got)) != math.Signbit(float64(c.want)) {
			t.Errorf("half(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if !math.IsNaN(float64(half(0x7E00))) {
		t.Errorf("half(0x7e00) is not NaN")
	}
}

// benchStream builds a stream of n copies of the bench fixture's batch.
func benchStream(t testing.TB, copies int) ([]byte, *schema.Table) {
	fx := loadFixtures(t)
	data, err := os.ReadFile(filepath.Join("testdata", fx.Bench.File))
	if err != nil {
		t.Fatal(err)
	}
	s, n := fx.Bench.SchemaBytes, fx.Bench.BatchBytes
	out := bytes.Clone(data[:s])
	for range copies {
		out = append(out, data[s:s+n]...)
	}
	out = append(out, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0)
	return out, fx.Bench.Table.build(t)
}

func TestBenchStream(t *testing.T) {
	data, tb := benchStream(t, 3)
	b, err := Read(data, tb, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len != 3000 {
		t.Fatalf("got %d rows, want 3000", b.Len)
	}
}

// BenchmarkRead100k: parse and align 100k rows of 5 columns (timestamp[ms],
// utf8 series, float64, int64, utf8) from an uncompressed stream.
func BenchmarkRead100k(b *testing.B) {
	data, tb := benchStream(b, 100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := Read(data, tb, rows.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if out.Len != 100_000 {
			b.Fatalf("%d rows", out.Len)
		}
	}
}
