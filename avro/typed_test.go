package avro

import (
	"errors"
	"io"
	"os"
	"testing"
)

// skipAll walks every record with Decoder.Skip, through a Cache when c is
// not nil, and returns how many records it saw.
func skipAll(c *Cache, file []byte) (int, error) {
	var r *Reader
	var err error
	if c != nil {
		r, err = c.NewReader(file)
	} else {
		r, err = NewReader(file)
	}
	if err != nil {
		return 0, err
	}
	n := 0
	err = r.Decode(func(d *Decoder) error {
		n++
		return d.Skip(r.Schema)
	})
	return n, err
}

// nextAll reads every record with Next.
func nextAll(file []byte) (int, error) {
	r, err := NewReader(file)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// checkSkipMatchesNext: skipping every record succeeds exactly when
// decoding them generically does, over the same number of records.
func checkSkipMatchesNext(t *testing.T, file []byte) {
	t.Helper()
	want, werr := nextAll(file)
	for _, c := range []*Cache{nil, {}} {
		got, err := skipAll(c, file)
		if (err == nil) != (werr == nil) || (err == nil && got != want) {
			t.Fatalf("cache %v: skip read %d records, error %v; Next read %d, error %v", c != nil, got, err, want, werr)
		}
	}
}

func TestSkipMatchesNext(t *testing.T) {
	py, err := os.ReadFile("testdata/pyiceberg-manifest.avro")
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string][]byte{
		"null codec": writeFile(t, Null, 3, 0), "deflate": writeFile(t, Deflate, 10, 100),
		"null codec, small blocks": writeFile(t, Null, 10, 40), "pyiceberg": py,
	} {
		t.Run(name, func(t *testing.T) {
			checkSkipMatchesNext(t, file)
			if n, _ := nextAll(file); n == 0 {
				t.Fatal("no records")
			}
			// Every truncation fails (or stops at a block boundary) both ways.
			for cut := range len(file) {
				checkSkipMatchesNext(t, file[:cut])
			}
		})
	}
}

// TestCacheReusesSchemaAndBlock: files of one schema share the parsed schema
// (through a Cache or not); a record that reads past its block is an error.
func TestCacheReusesSchemaAndBlock(t *testing.T) {
	var c Cache
	a, b := writeFile(t, Deflate, 10, 100), writeFile(t, Deflate, 20, 7)
	ra, err := c.NewReader(a)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := skipAll(&c, b); err != nil || n != 20 {
		t.Fatalf("second file: %d records, %v", n, err)
	}
	rb, _ := c.NewReader(b)
	if ra.Schema != rb.Schema {
		t.Error("the schema was parsed again")
	}
	err = rb.Decode(func(d *Decoder) error {
		for {
			if _, err := d.Long(); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("a record read past its block: got %v, want ErrCorrupt", err)
	}
}

func FuzzSkip(f *testing.F) {
	f.Add(writeFile(f, Null, 3, 0))
	f.Add(writeFile(f, Deflate, 10, 100))
	if b, err := os.ReadFile("testdata/pyiceberg-manifest.avro"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		checkSkipMatchesNext(t, file)
	})
}
