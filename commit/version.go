package commit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/timelake/timelake/store"
)

// Keys of the version files. persisted: must not change.
const (
	VersionHintKey = "metadata/version-hint.text"
	metadataPrefix = "metadata/"
)

// MaxMetadataBytes bounds what reading one metadata version may allocate: a
// version larger than this (a table with tens of thousands of snapshots, or
// a hostile one) is refused as too large before it is read, where the store
// can tell (store.LimitedGetter).
const MaxMetadataBytes = 128 << 20

// maxHintBytes bounds version-hint.text (a decimal number).
const maxHintBytes = 1 << 10

// MetadataKey is the key of table version n.
func MetadataKey(n int) string { return fmt.Sprintf("metadata/v%d.metadata.json", n) }

// ParseMetadataKey returns n for "metadata/vN.metadata.json".
func ParseMetadataKey(key string) (int, bool) {
	s, ok := strings.CutPrefix(key, "metadata/v")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".metadata.json")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// Version is one committed table version: its number and metadata bytes.
type Version struct {
	N   int
	Raw []byte
	// Location is the metadata file's location as a catalog reports it
	// (for a storage-only table it is empty: the file is MetadataKey(N)).
	Location string
}

// Name is how errors and results name the version's metadata file: the
// catalog's location, else metadata/vN.metadata.json.
func (v Version) Name() string {
	if v.Location != "" {
		return v.Location
	}
	return MetadataKey(v.N)
}

// ErrNoTable: the store holds no metadata version.
var ErrNoTable = errors.New("no table here (no metadata/v1.metadata.json)")

// ErrVersionMissing: version-hint.text names a version that is gone while
// only older ones remain. Hints are written after a version commits and
// cleanup never removes the newest version, so the newest was deleted by
// hand or by a hostile hand; falling back to the older one would roll the
// table back without a word.
var ErrVersionMissing = errors.New("the newest metadata version is missing")

// Latest finds the newest version. version-hint.text is only where the search
// starts: the versions after it are probed until one is missing, and a missing
// or unreadable hint falls back to listing metadata/.
func Latest(ctx context.Context, st store.Store) (Version, error) {
	start := 0
	if b, err := store.GetLimited(ctx, st, VersionHintKey, maxHintBytes); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			start = n
		}
	} else if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrTooLarge) {
		return Version{}, fmt.Errorf("read %s: %w", VersionHintKey, err)
	}
	var cur Version
	hinted := 0
	if start > 0 {
		raw, err := store.GetLimited(ctx, st, MetadataKey(start), MaxMetadataBytes)
		switch {
		case err == nil:
			cur = Version{N: start, Raw: raw}
		case errors.Is(err, store.ErrNotFound):
			hinted, start = start, 0 // list instead; a newer version may be there
		default:
			return Version{}, fmt.Errorf("read %s: %w", MetadataKey(start), err)
		}
	}
	if start == 0 {
		objs, err := st.List(ctx, metadataPrefix)
		if err != nil {
			return Version{}, fmt.Errorf("list %s: %w", metadataPrefix, err)
		}
		other := ""
		for _, o := range objs {
			if n, ok := ParseMetadataKey(o.Key); ok && n > start {
				start = n
			} else if !ok && strings.HasSuffix(o.Key, ".metadata.json") {
				other = o.Key
			}
		}
		if start == 0 && other != "" {
			// A catalog's naming (00003-<uuid>.metadata.json): the catalog,
			// not the store, knows which one is current.
			return Version{}, fmt.Errorf("%w: %s and no vN.metadata.json: a table kept in a catalog? open it through the catalog (--catalog)", ErrNoTable, other)
		}
		if start == 0 && hinted == 0 {
			return Version{}, ErrNoTable
		}
		if start < hinted {
			return Version{}, fmt.Errorf("%w: %s names version %d, but %s is gone and the newest left is %s; restore it, or write %d into %s to accept the older table",
				ErrVersionMissing, VersionHintKey, hinted, MetadataKey(hinted), metadataName(start), start, VersionHintKey)
		}
		raw, err := store.GetLimited(ctx, st, MetadataKey(start), MaxMetadataBytes)
		if err != nil {
			return Version{}, fmt.Errorf("read %s: %w", MetadataKey(start), err)
		}
		cur = Version{N: start, Raw: raw}
	}
	v, err := probeForward(ctx, st, cur)
	if err == nil && IsSuperseded(v.Raw) {
		// Only ever true of a version with newer ones after it.
		return Version{}, errSupersededHead(v)
	}
	return v, err
}

func errSupersededHead(v Version) error {
	return fmt.Errorf("%s is marked superseded but no newer version follows it", v.Name())
}

// probeForward reads v{N+1}, v{N+2}, … until one is missing.
func probeForward(ctx context.Context, st store.Store, cur Version) (Version, error) {
	for {
		raw, err := store.GetLimited(ctx, st, MetadataKey(cur.N+1), MaxMetadataBytes)
		if errors.Is(err, store.ErrNotFound) {
			return cur, nil
		}
		if err != nil {
			return Version{}, fmt.Errorf("read %s: %w", MetadataKey(cur.N+1), err)
		}
		cur = Version{N: cur.N + 1, Raw: raw}
	}
}

// Same reports whether v and w are the same version.
func (v Version) Same(w Version) bool { return v.N == w.N && v.Location == w.Location }

func metadataName(n int) string {
	if n == 0 {
		return "none"
	}
	return MetadataKey(n)
}
