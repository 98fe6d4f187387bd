package store

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var keyTests = []struct {
	key string
	ok  bool
}{
	{"metadata/v1.metadata.json", true},
	{"metadata/version-hint.text", true},
	{"data/ts_day=2026-11-29/0191b2c4-7d1e-7cc0-9a4b-3c2d1e0f9a8b.parquet", true},
	{"head.json", true},
	{"a", true},
	{".hidden", true},
	{"..a", true},
	{"a..", true},
	{"a/...", true},
	{"é/ü", true},
	{"a b/c d", true},
	{strings.Repeat("k", MaxKeyLen), true},
	{"", false},
	{".", false},
	{"..", false},
	{"../x", false},
	{"a/../b", false},
	{"a/..", false},
	{"./a", false},
	{"a/./b", false},
	{"/abs", false},
	{"a/", false},
	{"a//b", false},
	{`a\b`, false},
	{`..\x`, false},
	{"a\x00b", false},
	{"a\nb", false},
	{"a\x7fb", false},
	{"\xff", false},
	{strings.Repeat("k", MaxKeyLen+1), false},
	{strings.Repeat("k", 2000), false},
}

func TestCheckKey(t *testing.T) {
	for _, tc := range keyTests {
		err := CheckKey(tc.key)
		if got := err == nil; got != tc.ok {
			t.Errorf("CheckKey(%.40q) = %v, want ok=%v", tc.key, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadKey) {
			t.Errorf("CheckKey(%.40q) = %v, does not match ErrBadKey", tc.key, err)
		}
	}
}

func TestCheckPrefix(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		ok     bool
	}{
		{"", true},
		{"data/", true},
		{"data/a", true},
		{"metadata/v", true},
		{"/", false},
		{"a//", false},
		{"../", false},
		{"a/../", false},
		{"./", false},
	} {
		err := CheckPrefix(tc.prefix)
		if got := err == nil; got != tc.ok {
			t.Errorf("CheckPrefix(%q) = %v, want ok=%v", tc.prefix, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadKey) {
			t.Errorf("CheckPrefix(%q) = %v, does not match ErrBadKey", tc.prefix, err)
		}
	}
}

// FuzzCheckKey: no input panics, and every accepted key names a file strictly
// under a root directory whose path gives the key back.
func FuzzCheckKey(f *testing.F) {
	for _, tc := range keyTests {
		f.Add(tc.key)
	}
	root := filepath.FromSlash("/srv/tables/metrics")
	f.Fuzz(func(t *testing.T, key string) {
		_ = CheckPrefix(key)
		if err := CheckKey(key); err != nil {
			if !errors.Is(err, ErrBadKey) {
				t.Fatalf("CheckKey(%q) = %v, does not match ErrBadKey", key, err)
			}
			return
		}
		if err := CheckPrefix(key); err != nil {
			t.Fatalf("CheckKey(%q) accepts, CheckPrefix refuses: %v", key, err)
		}
		if runtime.GOOS != "windows" && !filepath.IsLocal(key) {
			t.Fatalf("accepted key %q is not a local path", key)
		}
		p := filepath.Join(root, filepath.FromSlash(key))
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatalf("key %q joined under %s gives %s, not relative to the root: %v", key, root, p, err)
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Fatalf("key %q joined under %s gives %s, not strictly under the root", key, root, p)
		}
		if back := filepath.ToSlash(rel); back != key {
			t.Fatalf("key %q joined under %s gives %s, which maps back to %q", key, root, p, back)
		}
	})
}

// A valid key is checked without allocating: every store call checks its
// key, and under WebAssembly each allocation is dear (bench/results/BRIDGE.md).
func TestCheckKeyNoAllocs(t *testing.T) {
	key := "metadata/snap-2494881555493219926-11-eaa47c38-9f15-4317-979b-1660d7ae73ff.avro"
	if n := testing.AllocsPerRun(100, func() {
		if err := CheckKey(key); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("CheckKey allocated %v times per call, want 0", n)
	}
}
