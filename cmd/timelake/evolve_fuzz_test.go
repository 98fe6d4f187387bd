package main

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// FuzzTextColumns: the first line of a CSV or NDJSON input (the user's
// bytes) never panics append --evolve; a failure is a coded error, and the
// columns found are as many as the CSV header's fields.
func FuzzTextColumns(f *testing.F) {
	for _, s := range []string{"ts,host,cpu\n1,2,3\n", "\ufeffts,\"a,b\",c", `{"ts":1,"x":true,"y":"s","z":null}` + "\n", `{"a":{"b":1}}`, `[1]`, "", "\n", `{"a":1,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, format := range []string{"csv", "ndjson"} {
			br := bufio.NewReaderSize(strings.NewReader(in), 4096)
			cols, err := textColumns(format, br, map[string]schema.Type{"x": schema.Long})
			if err != nil {
				var re *rows.Error
				if !errors.As(err, &re) || re.Code == "" {
					t.Fatalf("%s %q: error without a code: %v", format, in, err)
				}
				continue
			}
			for _, c := range cols {
				if c.Name == "x" && c.Type != schema.Long {
					t.Fatalf("%s %q: x is %v, declared long", format, in, c.Type)
				}
			}
			if rest, _ := br.Peek(len(in)); string(rest) != in[:len(rest)] {
				t.Fatalf("%s %q: the input was consumed", format, in)
			}
		}
	})
}

func TestPeekLineTooLong(t *testing.T) {
	in := strings.Repeat("x", 5000) + "\nrest"
	if line, err := peekLine(bufio.NewReaderSize(strings.NewReader(in), 4096)); err == nil {
		t.Errorf("a first line longer than the buffer = %d bytes, want an error", len(line))
	}
	if line, err := peekLine(bufio.NewReaderSize(strings.NewReader(in), 16384)); err != nil || len(line) != 5000 {
		t.Errorf("peekLine = %d bytes, %v; want 5000", len(line), err)
	}
	if line, err := peekLine(bufio.NewReaderSize(strings.NewReader("a,b"), 4096)); err != nil || string(line) != "a,b" {
		t.Errorf("peekLine of a line without newline = %q, %v", line, err)
	}
}
