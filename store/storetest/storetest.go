// Package storetest is the conformance suite every store.Store passes.
//
// A driver's test calls Run with a constructor that returns a fresh, empty
// store for each subtest:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return memstore.New() })
//	}
//
// Subtests run in parallel, so the constructor must be safe to call
// concurrently. The suite never uses a key that is both an object and a
// "directory" of another object ("a" and "a/b"), which a file system cannot
// hold.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/store"
)

// Run runs the conformance suite against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"GetMissing", testGetMissing},
		{"RoundTrip", testRoundTrip},
		{"Overwrite", testOverwrite},
		{"EmptyObject", testEmptyObject},
		{"LargeObject", testLargeObject},
		{"CopiesBytes", testCopiesBytes},
		{"GetRange", testGetRange},
		{"PutIfAbsent", testPutIfAbsent},
		{"PutIfAbsentRace", testPutIfAbsentRace},
		{"DeleteMissing", testDeleteMissing},
		{"DeleteMany", testDeleteMany},
		{"List", testList},
		{"BadKeys", testBadKeys},
		{"CanceledContext", testCanceledContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

func mustPut(t *testing.T, s store.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(t.Context(), key, data); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func mustGet(t *testing.T, s store.Store, key string) []byte {
	t.Helper()
	got, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return got
}

func mustList(t *testing.T, s store.Store, prefix string) []store.Object {
	t.Helper()
	got, err := s.List(t.Context(), prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return got
}

func keys(objs []store.Object) []string {
	var ks []string
	for _, o := range objs {
		ks = append(ks, o.Key)
	}
	return ks
}

// pattern returns n bytes that differ at every offset modulo 251, so a
// misplaced range shows.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i%251) ^ seed
	}
	return b
}

func testGetMissing(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.Get(ctx, "data/missing.parquet"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(missing): err = %v, want ErrNotFound", err)
	}
	// A key that is only a "directory" of other objects is not an object.
	mustPut(t, s, "data/d/x", []byte("x"))
	if _, err := s.Get(ctx, "data/d"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(data/d) with data/d/x present: err = %v, want ErrNotFound", err)
	}
	// A key below an object is not an object either.
	if _, err := s.Get(ctx, "data/d/x/y"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(data/d/x/y) with data/d/x an object: err = %v, want ErrNotFound", err)
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	want := []byte("hello, table")
	mustPut(t, s, "metadata/v1.metadata.json", want)
	if got := mustGet(t, s, "metadata/v1.metadata.json"); !bytes.Equal(got, want) {
		t.Errorf("Get = %q, want %q", got, want)
	}
	// Unicode and punctuation that object stores allow.
	key := "data/series=é ü-_.+,;=@~!/x (1).parquet"
	mustPut(t, s, key, want)
	if got := mustGet(t, s, key); !bytes.Equal(got, want) {
		t.Errorf("Get(%q) = %q, want %q", key, got, want)
	}
}

func testOverwrite(t *testing.T, s store.Store) {
	mustPut(t, s, "metadata/version-hint.text", []byte("1"))
	mustPut(t, s, "metadata/version-hint.text", []byte("22"))
	if got := mustGet(t, s, "metadata/version-hint.text"); string(got) != "22" {
		t.Errorf("after overwrite Get = %q, want %q", got, "22")
	}
	objs := mustList(t, s, "metadata/")
	if len(objs) != 1 || objs[0].Size != 2 {
		t.Errorf("after overwrite List = %+v, want one object of size 2", objs)
	}
}

func testEmptyObject(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustPut(t, s, "empty", nil)
	if got := mustGet(t, s, "empty"); len(got) != 0 {
		t.Errorf("Get(empty) = %q, want no bytes", got)
	}
	got, err := s.GetRange(ctx, "empty", 0, 0)
	if err != nil || len(got) != 0 {
		t.Errorf("GetRange(empty, 0, 0) = %q, %v; want no bytes, nil", got, err)
	}
	if _, err := s.GetRange(ctx, "empty", 0, 1); !errors.Is(err, store.ErrRange) {
		t.Errorf("GetRange(empty, 0, 1): err = %v, want ErrRange", err)
	}
	if objs := mustList(t, s, ""); len(objs) != 1 || objs[0].Size != 0 {
		t.Errorf("List = %+v, want one object of size 0", objs)
	}
	created, err := s.PutIfAbsent(ctx, "empty2", []byte{})
	if err != nil || !created {
		t.Errorf("PutIfAbsent(empty2, {}) = %v, %v; want true, nil", created, err)
	}
	if created, err := s.PutIfAbsent(ctx, "empty2", []byte("x")); err != nil || created {
		t.Errorf("second PutIfAbsent(empty2) = %v, %v; want false, nil", created, err)
	}
}

func testLargeObject(t *testing.T, s store.Store) {
	want := pattern(5<<20, 7)
	mustPut(t, s, "data/big.parquet", want)
	if got := mustGet(t, s, "data/big.parquet"); !bytes.Equal(got, want) {
		t.Errorf("Get of 5 MiB object: got %d bytes, differing from what was put", len(got))
	}
	off, n := int64(3<<20)+17, int64(1<<20)
	got, err := s.GetRange(t.Context(), "data/big.parquet", off, n)
	if err != nil {
		t.Fatalf("GetRange(big, %d, %d): %v", off, n, err)
	}
	if !bytes.Equal(got, want[off:off+n]) {
		t.Errorf("GetRange(big, %d, %d): wrong bytes", off, n)
	}
	if objs := mustList(t, s, "data/"); len(objs) != 1 || objs[0].Size != 5<<20 {
		t.Errorf("List = %+v, want one object of size %d", objs, 5<<20)
	}
}

func testCopiesBytes(t *testing.T, s store.Store) {
	buf := []byte("abc")
	mustPut(t, s, "k", buf)
	buf[0] = 'X'
	got := mustGet(t, s, "k")
	if string(got) != "abc" {
		t.Fatalf("Put kept the caller's buffer: Get = %q after the caller changed it, want %q", got, "abc")
	}
	got[1] = 'Y'
	r, err := s.GetRange(t.Context(), "k", 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	r[2] = 'Z'
	if got := mustGet(t, s, "k"); string(got) != "abc" {
		t.Errorf("Get/GetRange returned the store's buffer: Get = %q after the caller changed it, want %q", got, "abc")
	}
}

func testGetRange(t *testing.T, s store.Store) {
	data := pattern(100, 1)
	mustPut(t, s, "obj", data)
	tests := []struct {
		name           string
		key            string
		offset, length int64
		wantErr        error
	}{
		{"start", "obj", 0, 10, nil},
		{"middle", "obj", 40, 20, nil},
		{"whole", "obj", 0, 100, nil},
		{"at end", "obj", 90, 10, nil},
		{"empty at end", "obj", 100, 0, nil},
		{"empty in middle", "obj", 50, 0, nil},
		{"one past end", "obj", 91, 10, store.ErrRange},
		{"offset past end", "obj", 101, 0, store.ErrRange},
		{"far past end", "obj", 1 << 40, 1, store.ErrRange},
		{"length overflows", "obj", 1, math.MaxInt64, store.ErrRange},
		{"negative offset", "obj", -1, 10, store.ErrRange},
		{"negative length", "obj", 0, -1, store.ErrRange},
		{"missing key", "nope", 0, 1, store.ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.GetRange(t.Context(), tc.key, tc.offset, tc.length)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: GetRange(%q, %d, %d): err = %v, want %v", tc.name, tc.key, tc.offset, tc.length, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: GetRange(%q, %d, %d): %v", tc.name, tc.key, tc.offset, tc.length, err)
			continue
		}
		if want := data[tc.offset : tc.offset+tc.length]; !bytes.Equal(got, want) {
			t.Errorf("%s: GetRange(%q, %d, %d) = %v, want %v", tc.name, tc.key, tc.offset, tc.length, got, want)
		}
	}
}

func testPutIfAbsent(t *testing.T, s store.Store) {
	ctx := t.Context()
	const key = "metadata/v2.metadata.json"
	created, err := s.PutIfAbsent(ctx, key, []byte("first"))
	if err != nil || !created {
		t.Fatalf("first PutIfAbsent = %v, %v; want true, nil", created, err)
	}
	created, err = s.PutIfAbsent(ctx, key, []byte("second"))
	if err != nil || created {
		t.Fatalf("second PutIfAbsent = %v, %v; want false, nil", created, err)
	}
	if got := mustGet(t, s, key); string(got) != "first" {
		t.Errorf("after losing PutIfAbsent Get = %q, want %q", got, "first")
	}
	// Put overwrites what PutIfAbsent created; after Delete, PutIfAbsent creates again.
	mustPut(t, s, key, []byte("third"))
	if got := mustGet(t, s, key); string(got) != "third" {
		t.Errorf("after Put Get = %q, want %q", got, "third")
	}
	if err := s.Delete(ctx, []string{key}); err != nil {
		t.Fatal(err)
	}
	if created, err := s.PutIfAbsent(ctx, key, []byte("fourth")); err != nil || !created {
		t.Errorf("PutIfAbsent after Delete = %v, %v; want true, nil", created, err)
	}
}

func testPutIfAbsentRace(t *testing.T, s store.Store) {
	const n = 32
	const key = "metadata/v7.metadata.json"
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results [n]bool
		errs    [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			// Contents of different lengths, so a torn write would show.
			results[i], errs[i] = s.PutIfAbsent(t.Context(), key, bytes.Repeat([]byte{byte('A' + i)}, 1000+i))
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i := range n {
		if errs[i] != nil {
			t.Errorf("writer %d: %v", i, errs[i])
		}
		if results[i] {
			if winner >= 0 {
				t.Errorf("writers %d and %d both created %q", winner, i, key)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no writer of %d created %q", n, key)
	}
	want := bytes.Repeat([]byte{byte('A' + winner)}, 1000+winner)
	if got := mustGet(t, s, key); !bytes.Equal(got, want) {
		t.Errorf("stored %d bytes starting %q, want the winner's (writer %d): %d bytes of %q", len(got), got[:min(len(got), 1)], winner, len(want), want[0])
	}
	if objs := mustList(t, s, ""); len(objs) != 1 {
		t.Errorf("List after race = %v, want only %q", keys(objs), key)
	}
}

func testDeleteMissing(t *testing.T, s store.Store) {
	ctx := t.Context()
	if err := s.Delete(ctx, []string{"never/was"}); err != nil {
		t.Errorf("Delete(missing): %v", err)
	}
	if err := s.Delete(ctx, nil); err != nil {
		t.Errorf("Delete(nil): %v", err)
	}
	mustPut(t, s, "a", []byte("1"))
	if err := s.Delete(ctx, []string{"a", "a"}); err != nil {
		t.Errorf("Delete(a, a): %v", err)
	}
	if _, err := s.Get(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: err = %v, want ErrNotFound", err)
	}
}

func testDeleteMany(t *testing.T, s store.Store) {
	ctx := t.Context()
	var all []string
	for i := range 20 {
		k := fmt.Sprintf("data/p=%d/f%02d.parquet", i%3, i)
		all = append(all, k)
		mustPut(t, s, k, []byte(k))
	}
	mustPut(t, s, "keep/me", []byte("x"))
	del := append([]string{"data/p=9/missing"}, all[:15]...)
	if err := s.Delete(ctx, del); err != nil {
		t.Fatalf("Delete(%d keys): %v", len(del), err)
	}
	got := keys(mustList(t, s, ""))
	want := append(slices.Sorted(slices.Values(all[15:])), "keep/me")
	if !slices.Equal(got, want) {
		t.Errorf("after Delete List = %v, want %v", got, want)
	}
	// Removing everything under a "directory" leaves no trace of it, and the
	// key space is usable again.
	if err := s.Delete(ctx, all[15:]); err != nil {
		t.Fatal(err)
	}
	if got := keys(mustList(t, s, "")); !slices.Equal(got, []string{"keep/me"}) {
		t.Errorf("after deleting all of data/ List = %v, want [keep/me]", got)
	}
	mustPut(t, s, "data", []byte("now a file"))
	if got := mustGet(t, s, "data"); string(got) != "now a file" {
		t.Errorf("Get(data) = %q", got)
	}
}

func testList(t *testing.T, s store.Store) {
	objects := map[string]string{
		"data/ab/x":        "12345",
		"data/a.txt":       "1",
		"data/b/y":         "123",
		"data/b/z/deep":    "1234567",
		"datax":            "12",
		"metadata/v1.json": "{}",
		"s/a.b":            "",
		"s/a/b":            "123456",
	}
	for k, v := range objects {
		mustPut(t, s, k, []byte(v))
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"data/a.txt", "data/ab/x", "data/b/y", "data/b/z/deep", "datax", "metadata/v1.json", "s/a.b", "s/a/b"}},
		{"data/", []string{"data/a.txt", "data/ab/x", "data/b/y", "data/b/z/deep"}},
		{"data", []string{"data/a.txt", "data/ab/x", "data/b/y", "data/b/z/deep", "datax"}},
		{"data/a", []string{"data/a.txt", "data/ab/x"}},
		{"data/ab", []string{"data/ab/x"}},
		{"data/ab/", []string{"data/ab/x"}},
		{"data/b/z/deep", []string{"data/b/z/deep"}},
		{"data/b/z/deeper", nil},
		{"d", []string{"data/a.txt", "data/ab/x", "data/b/y", "data/b/z/deep", "datax"}},
		{"s/", []string{"s/a.b", "s/a/b"}},
		{"nothing/", nil},
		{"nothing", nil},
		{"datax/", nil},
	}
	for _, tc := range tests {
		objs := mustList(t, s, tc.prefix)
		if got := keys(objs); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
		for _, o := range objs {
			if want := int64(len(objects[o.Key])); o.Size != want {
				t.Errorf("List(%q): %q has Size %d, want %d", tc.prefix, o.Key, o.Size, want)
			}
			if o.LastModified.IsZero() {
				t.Errorf("List(%q): %q has zero LastModified", tc.prefix, o.Key)
			}
		}
	}
}

// BadKeys are keys every store refuses with store.ErrBadKey.
var BadKeys = []string{
	"",
	"..",
	"../x",
	"a/../b",
	"a/..",
	"/abs",
	"a\\b",
	"a\x00b",
	"a\nb",
	"./a",
	"a/./b",
	"a//b",
	"a/",
	"\xff",
	strings.Repeat("k", 2000),
}

func testBadKeys(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustPut(t, s, "ok", []byte("ok"))
	for _, k := range BadKeys {
		short := k
		if len(short) > 20 {
			short = short[:20] + "…"
		}
		if _, err := s.Get(ctx, k); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Get(%q): err = %v, want ErrBadKey", short, err)
		}
		if _, err := s.GetRange(ctx, k, 0, 1); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("GetRange(%q): err = %v, want ErrBadKey", short, err)
		}
		if err := s.Put(ctx, k, []byte("x")); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Put(%q): err = %v, want ErrBadKey", short, err)
		}
		if created, err := s.PutIfAbsent(ctx, k, []byte("x")); !errors.Is(err, store.ErrBadKey) || created {
			t.Errorf("PutIfAbsent(%q) = %v, %v; want false, ErrBadKey", short, created, err)
		}
		// A bad key anywhere in the list fails the whole Delete before
		// anything is removed.
		if err := s.Delete(ctx, []string{"ok", k}); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Delete(ok, %q): err = %v, want ErrBadKey", short, err)
		}
		if k != "" && k != "a/" { // the empty prefix and a trailing slash are fine for List
			if _, err := s.List(ctx, k); !errors.Is(err, store.ErrBadKey) {
				t.Errorf("List(%q): err = %v, want ErrBadKey", short, err)
			}
		}
	}
	if got := keys(mustList(t, s, "")); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("after bad-key calls List = %q, want only [ok]", got)
	}
	if got := mustGet(t, s, "ok"); string(got) != "ok" {
		t.Errorf("Get(ok) = %q, want %q", got, "ok")
	}
}

func testCanceledContext(t *testing.T, s store.Store) {
	mustPut(t, s, "k", []byte("v"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Get(ctx, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: err = %v, want context.Canceled", err)
	}
	if _, err := s.GetRange(ctx, "k", 0, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("GetRange: err = %v, want context.Canceled", err)
	}
	if err := s.Put(ctx, "k2", []byte("v")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: err = %v, want context.Canceled", err)
	}
	if _, err := s.PutIfAbsent(ctx, "k3", []byte("v")); !errors.Is(err, context.Canceled) {
		t.Errorf("PutIfAbsent: err = %v, want context.Canceled", err)
	}
	if err := s.Delete(ctx, []string{"k"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete: err = %v, want context.Canceled", err)
	}
	if _, err := s.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("List: err = %v, want context.Canceled", err)
	}
	if got := keys(mustList(t, s, "")); !slices.Equal(got, []string{"k"}) {
		t.Errorf("after canceled calls List = %q, want [k]", got)
	}
}
