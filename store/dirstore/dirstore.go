// Package dirstore is a store.Store on a local directory: key "a/b/c" is the
// file <root>/a/b/c.
//
//	s, err := dirstore.Open("/var/lib/timelake/metrics")
//	if err != nil { ... }
//	defer s.Close()
//	created, err := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", b)
//
// Writes never expose a partly written file under its final name. Every
// object is first written to a file in <root>/.timelake-tmp/ and fsynced;
// Put then renames it into place, and PutIfAbsent hard-links it into place
// (link(2) fails if the name exists, which makes create-if-absent atomic, also
// between processes) and removes the temporary name. The parent directory is
// fsynced afterwards, so an acknowledged write survives a crash. A crash
// mid-write leaves at most a file in the temporary directory, which List never
// shows; RemoveTemp clears old ones.
//
// Design note: all file access goes through an os.Root, so no key, and no
// symbolic link met while resolving one, can reach outside the root directory;
// a link that leads outside is refused with store.ErrBadKey. Links that stay
// inside are followed by Get and GetRange, but List shows regular files only.
// A file system cannot hold both "a" and "a/b"; writing the second fails with
// an error naming the key. Empty directories left by Delete are removed.
package dirstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/timelake/timelake/store"
)

// TempDir is the directory under the root that holds objects being written.
// Keys under it are refused and List never shows it.
const TempDir = ".timelake-tmp"

// Store is a store.Store on a directory. It is safe for concurrent use, also
// by several processes sharing the directory.
type Store struct {
	root    *os.Root
	dir     string // absolute path of the root, for messages
	tmpBase string // random per Store, so temporary names never collide across processes
	tmpSeq  atomic.Uint64
}

var _ store.Store = (*Store)(nil)

// Open opens the directory root as a store, creating it if needed.
func Open(root string) (*Store, error) {
	dir, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("dirstore: open %q: %w", root, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dirstore: open %q: %w", root, err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("dirstore: open %q: %w", root, err)
	}
	if err := r.MkdirAll(TempDir, 0o755); err != nil {
		r.Close()
		return nil, fmt.Errorf("dirstore: open %q: temporary directory: %w", root, err)
	}
	var token [6]byte
	rand.Read(token[:])
	return &Store{root: r, dir: dir, tmpBase: hex.EncodeToString(token[:])}, nil
}

// Close releases the directory handle. The Store must not be used afterwards.
func (s *Store) Close() error { return s.root.Close() }

// Dir returns the absolute path of the root directory.
func (s *Store) Dir() string { return s.dir }

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	return s.GetLimited(ctx, key, math.MaxInt64)
}

// GetLimited implements store.LimitedGetter: the file's size is checked
// before anything is read.
func (s *Store) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	if err := checkKey(ctx, "get", key); err != nil {
		return nil, err
	}
	f, size, err := s.openObject(key)
	if err != nil {
		return nil, s.fail("get", key, err)
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("dirstore: get: %w", store.TooLarge(key, size, limit))
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, s.fail("get", key, err)
	}
	return data, nil
}

// GetRange implements store.Store.
func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	if err := checkKey(ctx, "get range of", key); err != nil {
		return nil, err
	}
	f, size, err := s.openObject(key)
	if err != nil {
		return nil, s.fail("get range of", key, err)
	}
	defer f.Close()
	if offset < 0 || length < 0 || offset > size || length > size-offset {
		return nil, fmt.Errorf("dirstore: get range of %q: offset %d length %d outside the %d-byte object: %w", key, offset, length, size, store.ErrRange)
	}
	data := make([]byte, length)
	if _, err := f.ReadAt(data, offset); err != nil {
		return nil, s.fail("get range of", key, err)
	}
	return data, nil
}

// openObject opens the regular file under key and returns its size. A
// directory is not an object.
func (s *Store) openObject(key string) (*os.File, int64, error) {
	f, err := s.root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fs.ErrNotExist
	}
	return f, fi.Size(), nil
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(ctx, "put", key); err != nil {
		return err
	}
	tmp, err := s.writeTemp(data)
	if err != nil {
		return s.writeFail("put", key, err)
	}
	defer s.root.Remove(tmp) // only left behind if the rename failed
	name := filepath.FromSlash(key)
	if err := s.inParent(key, func() error { return s.root.Rename(tmp, name) }); err != nil {
		return s.writeFail("put", key, err)
	}
	return nil
}

// PutIfAbsent implements store.Store.
func (s *Store) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if err := checkKey(ctx, "put if absent", key); err != nil {
		return false, err
	}
	tmp, err := s.writeTemp(data)
	if err != nil {
		return false, s.writeFail("put if absent", key, err)
	}
	defer s.root.Remove(tmp)
	name := filepath.FromSlash(key)
	exists := false
	err = s.inParent(key, func() error {
		err := s.root.Link(tmp, name)
		if errors.Is(err, fs.ErrExist) {
			exists = true
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		return false, s.writeFail("put if absent", key, err)
	case exists:
		if fi, err := s.root.Lstat(name); err == nil && fi.IsDir() {
			return false, fmt.Errorf("dirstore: put if absent %q: a directory of other objects has this name", key)
		}
		return false, nil
	}
	return true, nil
}

// writeTemp writes data to a new file in TempDir, fsyncs it and returns its name.
func (s *Store) writeTemp(data []byte) (string, error) {
	name := filepath.Join(TempDir, fmt.Sprintf("%s-%d.tmp", s.tmpBase, s.tmpSeq.Add(1)))
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrNotExist) { // someone removed the temporary directory
		if err = s.root.MkdirAll(TempDir, 0o755); err == nil {
			f, err = s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.root.Remove(name)
		return "", err
	}
	return name, nil
}

// inParent creates key's parent directories, runs place (a rename or link to
// key's final name) and fsyncs the parent. A concurrent Delete may prune a
// parent at any moment, which shows as "not exist" (or, inside MkdirAll, as
// "exists" for a directory that vanished again); both are retried.
func (s *Store) inParent(key string, place func() error) error {
	const attempts = 50
	parent := filepath.FromSlash(path.Dir(key))
	for i := 1; ; i++ {
		if err := s.root.MkdirAll(parent, 0o755); err != nil {
			if i < attempts && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)) {
				continue
			}
			return &parentError{err}
		}
		err := place()
		if err == nil {
			break
		}
		if i == attempts || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return s.syncDir(parent)
}

// parentError is a failure to create a key's parent directories.
type parentError struct{ err error }

func (e *parentError) Error() string { return "creating parent directories: " + e.err.Error() }
func (e *parentError) Unwrap() error { return e.err }

// syncDir makes a rename or link in dir durable. A directory that is gone
// was pruned by a Delete of the object just placed: nothing to sync.
func (s *Store) syncDir(dir string) error {
	d, err := s.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Delete implements store.Store. Every key is checked before any file is
// removed. Directories left empty are removed too.
func (s *Store) Delete(ctx context.Context, keys []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		if err := checkKey(ctx, "delete", k); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.FromSlash(k)
		fi, err := s.root.Lstat(name)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return s.fail("delete", k, err)
		}
		if fi.IsDir() { // not an object, only a prefix of some
			continue
		}
		if err := s.root.Remove(name); err != nil && !isNotFound(err) {
			return s.fail("delete", k, err)
		}
		// Prune empty parents; Remove fails on the first non-empty one.
		for dir := path.Dir(k); dir != "."; dir = path.Dir(dir) {
			if s.root.Remove(filepath.FromSlash(dir)) != nil {
				break
			}
		}
	}
	return nil
}

// List implements store.Store. It walks only the directories that can hold
// keys with the prefix, and shows regular files only.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("dirstore: list: %w", err)
	}
	var out []store.Object
	err := fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			if isNotFound(err) { // removed while we walked
				return nil
			}
			return err
		}
		if d.IsDir() {
			if p == "." {
				return nil
			}
			if p == TempDir || !(strings.HasPrefix(p+"/", prefix) || strings.HasPrefix(prefix, p+"/")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(p, prefix) || store.CheckKey(p) != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			if isNotFound(err) {
				return nil
			}
			return err
		}
		out = append(out, store.Object{Key: p, Size: fi.Size(), LastModified: fi.ModTime()})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("dirstore: list %q under %s: %w", prefix, s.dir, err)
	}
	// The walk is in per-directory name order, which differs from key order
	// ("a.b" sorts before "a/b", but the directory "a" is walked first).
	slices.SortFunc(out, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// RemoveTemp removes temporary files last modified before cutoff: what a
// crash mid-write left behind. A cutoff well in the past (an hour) leaves
// writes in progress alone.
func (s *Store) RemoveTemp(cutoff time.Time) (removed int, err error) {
	entries, err := fs.ReadDir(s.root.FS(), TempDir)
	if err != nil {
		return 0, fmt.Errorf("dirstore: remove temporary files under %s: %w", s.dir, err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(cutoff) {
			continue
		}
		if err := s.root.Remove(filepath.Join(TempDir, e.Name())); err == nil {
			removed++
		}
	}
	return removed, nil
}

func checkKey(ctx context.Context, op, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("dirstore: %s: %w", op, err)
	}
	if key == TempDir || strings.HasPrefix(key, TempDir+"/") {
		return fmt.Errorf("dirstore: %s: %w: %q: reserved for temporary files", op, store.ErrBadKey, key)
	}
	return nil
}

// fail wraps a file system error with the operation and key, mapping a
// missing file to store.ErrNotFound and a path that escapes the root to
// store.ErrBadKey.
func (s *Store) fail(op, key string, err error) error {
	switch {
	case isNotFound(err):
		return fmt.Errorf("dirstore: %s %q: %w", op, key, store.ErrNotFound)
	case escapes(err):
		return fmt.Errorf("dirstore: %s %q: %w: a symbolic link leads outside %s", op, key, store.ErrBadKey, s.dir)
	}
	return fmt.Errorf("dirstore: %s %q: %w", op, key, err)
}

// writeFail is fail for writes, where a missing directory is no reason to
// report ErrNotFound: the usual cause is that a parent is an object.
func (s *Store) writeFail(op, key string, err error) error {
	if escapes(err) {
		return s.fail(op, key, err)
	}
	var pe *parentError
	if errors.Is(err, syscall.ENOTDIR) || errors.As(err, &pe) && errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("dirstore: %s %q: a parent of the key is an object: %w", op, key, err)
	}
	if fi, lerr := s.root.Lstat(filepath.FromSlash(key)); lerr == nil && fi.IsDir() {
		return fmt.Errorf("dirstore: %s %q: a directory of other objects has this name: %w", op, key, err)
	}
	return fmt.Errorf("dirstore: %s %q: %w", op, key, err)
}

// isNotFound reports a missing file, or a path through a file ("a/b" where
// "a" is an object).
func isNotFound(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// escapes reports os.Root's refusal of a path that leaves the root. os does
// not export that error, so it is recognised by its text.
func escapes(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}
