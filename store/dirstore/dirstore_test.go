package dirstore_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/storetest"
)

func open(t *testing.T, dir string) *dirstore.Store {
	t.Helper()
	s, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, t.TempDir()) })
}

func TestOpenCreatesRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "table")
	s := open(t, dir)
	if err := s.Put(t.Context(), "data/x.parquet", []byte("px")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "data", "x.parquet"))
	if err != nil || string(got) != "px" {
		t.Errorf("file for key data/x.parquet = %q, %v; want %q", got, err, "px")
	}
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := dirstore.Open(file); err == nil {
		t.Errorf("Open(%q) of a regular file succeeded", file)
	}
}

// A crash mid-Put leaves the partly written object in the temporary
// directory, never under its final name, and List does not show it.
func TestCrashMidPut(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	if err := s.Put(ctx, "metadata/v1.metadata.json", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	// What a writer killed between write and rename leaves behind.
	partial := filepath.Join(dir, dirstore.TempDir, "deadbeef-1.tmp")
	if err := os.WriteFile(partial, []byte(`{"format-vers`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", ".timelake", dirstore.TempDir, dirstore.TempDir + "/"} {
		objs, err := s.List(ctx, prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		var got []string
		for _, o := range objs {
			got = append(got, o.Key)
		}
		want := []string(nil)
		if prefix == "" {
			want = []string{"metadata/v1.metadata.json"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("List(%q) = %q, want %q", prefix, got, want)
		}
	}
	// The temporary directory is not reachable through keys.
	for _, k := range []string{dirstore.TempDir, dirstore.TempDir + "/deadbeef-1.tmp"} {
		if _, err := s.Get(ctx, k); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Get(%q): err = %v, want ErrBadKey", k, err)
		}
		if err := s.Put(ctx, k, nil); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Put(%q): err = %v, want ErrBadKey", k, err)
		}
	}
	// Successful writes leave nothing behind; RemoveTemp clears old leftovers.
	entries, _ := os.ReadDir(filepath.Join(dir, dirstore.TempDir))
	if len(entries) != 1 {
		t.Errorf("temporary directory holds %d files, want only the crash leftover", len(entries))
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(partial, old, old)
	if n, err := s.RemoveTemp(time.Now().Add(-time.Hour)); err != nil || n != 1 {
		t.Errorf("RemoveTemp = %d, %v; want 1, nil", n, err)
	}
	if _, err := os.Stat(partial); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover %s still there after RemoveTemp: %v", partial, err)
	}
}

func TestRemoveTempKeepsRecent(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	recent := filepath.Join(dir, dirstore.TempDir, "in-progress.tmp")
	os.WriteFile(recent, []byte("x"), 0o644)
	if n, err := s.RemoveTemp(time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("RemoveTemp = %d, %v; want 0, nil", n, err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("recent temporary file removed: %v", err)
	}
}

func TestTempDirRecreated(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	os.RemoveAll(filepath.Join(dir, dirstore.TempDir))
	if err := s.Put(t.Context(), "k", []byte("v")); err != nil {
		t.Errorf("Put after the temporary directory was removed: %v", err)
	}
}

func TestDeletePrunesEmptyDirectories(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	for _, k := range []string{"data/p=1/a", "data/p=1/b", "data/p=2/c"} {
		if err := s.Put(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, []string{"data/p=1/a", "data/p=1/b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "p=1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data/p=1 still exists after deleting its last object: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "p=2", "c")); err != nil {
		t.Errorf("data/p=2/c: %v", err)
	}
	if err := s.Delete(ctx, []string{"data/p=2/c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data still exists after deleting its last object: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("root removed: %v", err)
	}
}

func TestKeyDirectoryConflict(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	if err := s.Put(ctx, "a/b", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "a/b/c"} {
		err := s.Put(ctx, k, []byte("y"))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("Put(%q) with a/b an object: err = %v, want an error naming the key", k, err)
		}
		if errors.Is(err, store.ErrNotFound) {
			t.Errorf("Put(%q): err = %v, should not match ErrNotFound", k, err)
		}
		created, err := s.PutIfAbsent(ctx, k, []byte("y"))
		if err == nil || created || !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("PutIfAbsent(%q) with a/b an object = %v, %v; want false and an error naming the key", k, created, err)
		}
	}
	// Deleting a "directory" is deleting a missing object: nothing happens.
	if err := s.Delete(ctx, []string{"a"}); err != nil {
		t.Errorf("Delete(a): %v", err)
	}
	if got, err := s.Get(ctx, "a/b"); err != nil || string(got) != "x" {
		t.Errorf("Get(a/b) = %q, %v; want %q", got, err, "x")
	}
}

// Symbolic links that lead outside the root are refused by every method, and
// nothing outside is read, written or removed.
func TestSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("secret"), 0o644)
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	links := map[string]string{
		"abs":    outside,                                     // absolute link to a directory
		"rel":    filepath.Join("..", filepath.Base(outside)), // relative link out of the root
		"file":   secret,                                      // link to a file outside
		"nested": "sub/../../" + filepath.Base(outside),
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("cannot create symlinks: %v", err)
		}
	}
	for _, k := range []string{"abs/secret", "rel/secret", "file", "nested/secret"} {
		if got, err := s.Get(ctx, k); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Get(%q) = %q, %v; want ErrBadKey", k, got, err)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("Get(%q): error %q does not name the key", k, err)
		}
		if _, err := s.GetRange(ctx, k, 0, 1); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("GetRange(%q): err = %v, want ErrBadKey", k, err)
		}
	}
	for _, k := range []string{"abs/new", "rel/new", "nested/new", "abs/sub/new"} {
		if err := s.Put(ctx, k, []byte("x")); !errors.Is(err, store.ErrBadKey) {
			t.Errorf("Put(%q): err = %v, want ErrBadKey", k, err)
		}
		if created, err := s.PutIfAbsent(ctx, k, []byte("x")); !errors.Is(err, store.ErrBadKey) || created {
			t.Errorf("PutIfAbsent(%q) = %v, %v; want false, ErrBadKey", k, created, err)
		}
	}
	if err := s.Delete(ctx, []string{"abs/secret"}); !errors.Is(err, store.ErrBadKey) {
		t.Errorf("Delete(abs/secret): err = %v, want ErrBadKey", err)
	}
	for _, p := range []string{"", "abs/", "rel", "file"} {
		objs, err := s.List(ctx, p)
		if err != nil {
			t.Errorf("List(%q): %v", p, err)
		}
		if len(objs) != 0 {
			t.Errorf("List(%q) = %+v, want nothing (links are not listed)", p, objs)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside directory now holds %d entries, want only the secret", len(entries))
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret" {
		t.Errorf("secret changed to %q", got)
	}
	// Replacing a link with an object is fine: rename replaces the link itself.
	if err := s.Put(ctx, "file", []byte("mine")); err != nil {
		t.Errorf("Put(file) over a link: %v", err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret" {
		t.Errorf("Put over a link wrote through it: secret = %q", got)
	}
}

// A link that stays inside the root is followed.
func TestSymlinkInside(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	if err := s.Put(ctx, "real/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Skipf("cannot create symlinks: %v", err)
	}
	if got, err := s.Get(ctx, "alias/x"); err != nil || string(got) != "x" {
		t.Errorf("Get(alias/x) = %q, %v; want %q", got, err, "x")
	}
}

// Separate processes race PutIfAbsent on one key: exactly one creates it.
// The test binary re-executes itself as the writers.
func TestPutIfAbsentProcesses(t *testing.T) {
	if dir := os.Getenv("DIRSTORE_TEST_WRITER_DIR"); dir != "" {
		writer(dir, os.Getenv("DIRSTORE_TEST_WRITER_ID"))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	const n = 8
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPutIfAbsentProcesses$")
		cmd.Env = append(os.Environ(), "DIRSTORE_TEST_WRITER_DIR="+dir, fmt.Sprintf("DIRSTORE_TEST_WRITER_ID=%d", i))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	// Writers wait for this file, so they start together.
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	winner := -1
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, outs[i])
		}
		var result string
		for sc := bufio.NewScanner(outs[i]); sc.Scan(); {
			if r, ok := strings.CutPrefix(sc.Text(), "created="); ok {
				result = r
			}
		}
		switch result {
		case "true":
			if winner >= 0 {
				t.Errorf("writers %d and %d both created the key", winner, i)
			}
			winner = i
		case "false":
		default:
			t.Errorf("writer %d printed no result:\n%s", i, outs[i])
		}
	}
	if winner < 0 {
		t.Fatal("no writer created the key")
	}
	got, err := os.ReadFile(filepath.Join(dir, "metadata", "v2.metadata.json"))
	if want := fmt.Sprintf("writer %d", winner); err != nil || string(got) != want {
		t.Errorf("stored %q, %v; want the winner's %q", got, err, want)
	}
}

func writer(dir, id string) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s, err := dirstore.Open(dir)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	created, err := s.PutIfAbsent(context.Background(), "metadata/v2.metadata.json", []byte("writer "+id))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("created=%v\n", created)
}

func BenchmarkPut(b *testing.B) {
	s, err := dirstore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := make([]byte, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.Put(b.Context(), "data/p=1/x.parquet", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetRange(b *testing.B) {
	s, err := dirstore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(b.Context(), "data/x.parquet", make([]byte, 1<<20)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(8 << 10)
	for b.Loop() {
		if _, err := s.GetRange(b.Context(), "data/x.parquet", 4096, 8<<10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList(b *testing.B) {
	s, err := dirstore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 1000 {
		if err := s.Put(b.Context(), fmt.Sprintf("data/p=%d/f%d.parquet", i%10, i), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if objs, err := s.List(b.Context(), "data/p=3/"); err != nil || len(objs) != 100 {
			b.Fatal(len(objs), err)
		}
	}
}

// Delete prunes directories that a concurrent Put may be about to write
// into; the Put must still succeed.
func TestPutRacesPrune(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := fmt.Sprintf("data/p/w%d-%d", w, i%2)
				if w%2 == 0 {
					_, err := s.PutIfAbsent(ctx, k, []byte("x"))
					if err != nil {
						errs <- err
					}
				} else if err := s.Put(ctx, k, []byte("x")); err != nil {
					errs <- err
				}
				if err := s.Delete(ctx, []string{k}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
