package textcache

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCache(t *testing.T) {
	parses := 0
	parse := func(raw []byte) (*string, error) {
		parses++
		if strings.HasPrefix(string(raw), "bad") {
			return nil, errors.New("bad text")
		}
		s := string(raw)
		return &s, nil
	}
	var c Cache[*string]
	a, err := c.Get([]byte("one"), parse)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Get([]byte("one"), parse)
	if a != b || parses != 1 {
		t.Errorf("second Get: same value %v, parses %d; want the shared value and 1 parse", a == b, parses)
	}
	for range 2 {
		if _, err := c.Get([]byte("bad"), parse); err == nil {
			t.Fatal("a bad text gave no error")
		}
	}
	if c.Len() != 1 {
		t.Errorf("kept %d values, want 1 (failed parses are not kept)", c.Len())
	}
	big := strings.Repeat("x", MaxTextBytes+1)
	if _, err := c.Get([]byte(big), parse); err != nil || c.Len() != 1 {
		t.Errorf("a text over MaxTextBytes: err %v, kept %d, want it parsed and not kept", err, c.Len())
	}
	for i := range MaxEntries + 1 {
		if _, err := c.Get([]byte(fmt.Sprint(i)), parse); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() > MaxEntries {
		t.Errorf("%d values kept, want at most %d", c.Len(), MaxEntries)
	}
}
