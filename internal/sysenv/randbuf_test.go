package sysenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// countingReader counts the reads that reach the system source.
type countingReader struct {
	mu    sync.Mutex
	reads int
	src   io.Reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.src.Read(p)
}

func (c *countingReader) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.reads }

// appendReads makes n appends of 10 rows to a new memory-store table whose
// Env.Rand is r, and returns src's reads during the appends alone.
func appendReads(t *testing.T, r io.Reader, src *countingReader, n int) int {
	t.Helper()
	ctx := context.Background()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	env := Env()
	env.Rand = r
	tb, err := table.Create(ctx, memstore.New(), env, "file:///t", sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := tb.Schema()
	start := src.count()
	for i := range n {
		bt := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: 10}
		for j := range 10 {
			bt.Cols[0].Ints = append(bt.Cols[0].Ints, time.Date(2026, 11, 28, 10, 0, i, 0, time.UTC).UnixMicro())
			bt.Cols[1].Strs = append(bt.Cols[1].Strs, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}[j])
			bt.Cols[2].Floats = append(bt.Cols[2].Floats, float64(j))
			bt.Cols[3].Ints = append(bt.Cols[3].Ints, 0)
		}
		if _, err := tb.Append(ctx, bt); err != nil {
			t.Fatal(err)
		}
	}
	return src.count() - start
}

// The drivers' randomness reaches the system source (under GOOS=js a call
// out to crypto.getRandomValues) once per ~100 appends, not several times
// per append.
func TestBufferedRandAppendReads(t *testing.T) {
	const n = 20
	direct := &countingReader{src: rand.Reader}
	perAppend := float64(appendReads(t, direct, direct, n)) / n
	buffered := &countingReader{src: rand.Reader}
	got := appendReads(t, newBufferedRand(buffered, randBufSize), buffered, n)
	t.Logf("system-source reads per append: %.2f unbuffered, %.2f buffered", perAppend, float64(got)/n)
	if perAppend < 3 {
		t.Fatalf("an unbuffered append read the source %.2f times; the test expects several (uuids, snapshot id)", perAppend)
	}
	if got > 1 {
		t.Fatalf("%d appends read the buffered source %d times, want at most 1", n, got)
	}
}

// The buffer hands out the source's bytes in order, each once, and clears
// what it served; a read larger than the buffer goes to the source.
func TestBufferedRandBytes(t *testing.T) {
	src := make([]byte, 100)
	for i := range src {
		src[i] = byte(i + 1)
	}
	r := newBufferedRand(bytes.NewReader(src), 16)
	var got []byte
	for _, k := range []int{3, 16, 5, 40, 1} {
		p := make([]byte, k)
		if n, err := io.ReadFull(r, p); err != nil || n != k {
			t.Fatalf("read %d: n=%d err=%v", k, n, err)
		}
		got = append(got, p...)
	}
	if !bytes.Equal(got, src[:len(got)]) {
		t.Fatalf("bytes out of order or repeated:\n got %v\nwant %v", got, src[:len(got)])
	}
	for i, b := range r.arr[:len(r.arr)-len(r.buf)] {
		if b != 0 {
			t.Fatalf("served byte %d still in the buffer: %d", i, b)
		}
	}
	// The source running dry is an error, not short randomness.
	if _, err := io.ReadFull(r, make([]byte, 64)); err == nil {
		t.Fatal("reading past the source's end: no error")
	}
}
