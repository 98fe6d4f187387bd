package maintenance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A file's last-modified time says when it was written, not when the last
// version referencing it was replaced: a data file written a month ago and
// compacted away by the latest commit is old by its mtime, yet a reader
// that loaded the previous version a second ago is about to open it. No
// store and no metadata can tell when a file stopped being referenced (the
// snapshots that referenced it are gone), so the cleanup records it: each
// run writes MarksKey, the time it first saw each unreferenced key, and a
// key is deleted only once it was first seen at least the reader grace ago
// (PlanCleanup). A key referenced again, or gone, drops out.
//
// The file is never deleted by the cleanup (like version-hint.text). If it
// is lost or garbled, every key counts as first seen now: deletions wait
// one grace longer, none happens early.

// MarksKey holds the marks. persisted: must not change.
const MarksKey = "metadata/timelake-unreferenced.json"

// marksFormat is the version of MarksKey's layout. persisted: must not change.
const marksFormat = 1

// Marks are the times a cleanup first saw each unreferenced key.
type Marks map[string]time.Time

// marksFile is MarksKey's layout: the keys grouped by the time they were
// first seen (a run sees many at once), so that a key costs its name only.
type marksFile struct {
	Format int         `json:"timelake-unreferenced"`
	Seen   []marksSeen `json:"seen"`
}

type marksSeen struct {
	Ms   int64    `json:"ms"` // Unix milliseconds
	Keys []string `json:"keys"`
}

// ParseMarks reads MarksKey's bytes. Anything else than what Encode
// writes is an error (the caller then counts every key as first seen now):
// an unknown format, a time before 1970, a key outside data/ and metadata/,
// a key listed twice.
func ParseMarks(raw []byte) (Marks, error) {
	var f marksFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", MarksKey, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the object", MarksKey)
	}
	if f.Format != marksFormat {
		return nil, fmt.Errorf("%s: format %d, want %d", MarksKey, f.Format, marksFormat)
	}
	m := Marks{}
	for _, g := range f.Seen {
		if g.Ms < 0 || g.Ms > maxMarkMs {
			return nil, fmt.Errorf("%s: time %d ms out of range", MarksKey, g.Ms)
		}
		for _, k := range g.Keys {
			if !cleanable(k) {
				return nil, fmt.Errorf("%s: key %q is not under data/ or metadata/", MarksKey, k)
			}
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("%s: key %q listed twice", MarksKey, k)
			}
			m[k] = time.UnixMilli(g.Ms)
		}
	}
	return m, nil
}

// maxMarkMs is the year 9999: later times are garbage.
const maxMarkMs = 253402300799999

// Encode writes m as ParseMarks reads it: groups by time, oldest first,
// keys sorted, so the same marks give the same bytes.
func (m Marks) Encode() []byte {
	byMs := map[int64][]string{}
	for k, t := range m {
		ms := t.UnixMilli()
		if t.After(time.UnixMilli(ms)) {
			ms++ // rounded up: a mark never moves earlier
		}
		byMs[ms] = append(byMs[ms], k)
	}
	f := marksFile{Format: marksFormat, Seen: []marksSeen{}}
	for _, ms := range slices.Sorted(maps.Keys(byMs)) {
		keys := byMs[ms]
		slices.Sort(keys)
		f.Seen = append(f.Seen, marksSeen{Ms: ms, Keys: keys})
	}
	b, err := json.Marshal(f)
	if err != nil {
		panic(err) // strings and integers always marshal
	}
	return b
}

// cleanable reports whether the cleanup considers key at all.
func cleanable(k string) bool {
	return strings.HasPrefix(k, "data/") || strings.HasPrefix(k, "metadata/")
}
