package maintenance

import (
	"slices"
	"strings"
	"time"
)

// Object is a stored object as a listing gives it.
type Object struct {
	Key      string
	Size     int64
	Modified time.Time
}

// CleanupInput is everything PlanCleanup looks at. Keys are relative to the
// table (metadata/…, data/…).
type CleanupInput struct {
	Now time.Time
	// Grace is timelake.orphan-grace; MetadataGrace timelake.metadata-grace,
	// which replaces it for the files CommitFile recognises. See PlanCleanup.
	Grace, MetadataGrace time.Duration
	// Marks are the times earlier cleanups first saw keys unreferenced
	// (ParseMarks of MarksKey; empty when it is missing or garbled).
	Marks Marks
	// Listed is a listing of data/ and metadata/ taken after the run's
	// commits.
	Listed []Object
	// Retained holds every key a retained snapshot reaches: its manifest
	// list, manifests, live data files and statistics files (the last-value
	// index among them).
	Retained map[string]bool
	// Expired holds the keys expired snapshots reached (read before they
	// were dropped); those not retained are the expiry's files.
	Expired map[string]bool
	// Current is the current metadata version N; it and any newer version
	// (a commit since) are never deleted.
	Current int
	// Metadata holds the older metadata versions to keep: those in the
	// current version's metadata log. Other metadata/vN.metadata.json go.
	Metadata map[string]bool
	// MetadataVersion recognises metadata/vN.metadata.json keys.
	MetadataVersion func(key string) (n int, ok bool)
	// KeepMetadataFiles keeps every metadata/*.metadata.json (and .gz):
	// a catalog owns them.
	KeepMetadataFiles bool
	// Written holds keys this run wrote and no version references (a lost
	// attempt's): no writer or reader can need them, so they go at once.
	Written map[string]bool

	Expire  bool // delete what only expired snapshots reached, and old metadata versions
	Orphans bool // delete what nothing reaches
}

// Cleanup is what PlanCleanup decides.
type Cleanup struct {
	Expired  []string // reached only by expired snapshots
	Metadata []string // metadata versions outside the metadata log
	Orphans  []string // reached by no snapshot at all
	Young    int      // unreferenced objects kept: written, or unreferenced, within their grace
	Bytes    int64    // of everything to delete
	// Marks are the marks to write back (MarksKey): every unreferenced key
	// past its writer grace that is not deleted, with the time it was
	// first seen. Keys referenced again or gone are not in it.
	Marks Marks
}

// Keys returns every key to delete.
func (c Cleanup) Keys() []string {
	return slices.Concat(c.Expired, c.Metadata, c.Orphans)
}

// versionHint is never deleted: it is a hint rewritten after every commit.
const versionHint = "metadata/version-hint.text"

// PlanCleanup decides which listed objects to delete. Nothing a retained
// snapshot reaches is ever deleted. Any other object goes only when both
// graces have passed:
//
//   - the writer grace, by its last-modified time: a commit in flight holds
//     uploads no version references yet. It is the key's grace (below).
//   - the reader grace, since a cleanup first saw it unreferenced (Marks):
//     a reader that loaded the last version referencing it may still open
//     it. Keys are marked only once past their writer grace, when no commit
//     in flight can make them referenced again, so a mark is never older
//     than the file's last reference. A key without a mark is marked now.
//
// The grace of both is MetadataGrace for the files CommitFile recognises (a
// commit writes them right before its conditional write; a reader opens
// them while it plans) and Grace for every other file: data files (a
// writer uploads them before its commit, a scan reads them for as long as
// it runs) and files of names Timelake does not write.
//
// Metadata versions outside the metadata log (superseded markers, or whole
// versions of a table without write.metadata.delete-after-commit.enabled)
// go once older than Grace, as before: a reader reads a version once,
// when it loads it, and the key must stay taken while a writer may hold
// the version before it as its base (commit.Superseded); a marker's
// last-modified time is when it left the log. Keys this run wrote and no
// version references (Written) go at once.
func PlanCleanup(in CleanupInput) Cleanup {
	c := Cleanup{Marks: Marks{}}
	for _, o := range in.Listed {
		k := o.Key
		if !cleanable(k) || in.Retained[k] || k == versionHint || k == MarksKey {
			continue
		}
		if in.KeepMetadataFiles && strings.HasPrefix(k, "metadata/") &&
			(strings.HasSuffix(k, ".metadata.json") || strings.HasSuffix(k, ".metadata.json.gz")) {
			continue
		}
		if in.MetadataVersion != nil {
			if n, ok := in.MetadataVersion(k); ok {
				switch {
				case n >= in.Current || in.Metadata[k] || !in.Expire:
				case o.Modified.After(in.Now.Add(-in.Grace)):
					c.Young++
				default:
					c.Metadata = append(c.Metadata, k)
					c.Bytes += o.Size
				}
				continue
			}
		}
		var dst *[]string // nil: this run does not delete it
		switch {
		case in.Expired[k] && in.Expire:
			dst = &c.Expired
		case !in.Expired[k] && in.Orphans:
			dst = &c.Orphans
		}
		if in.Written[k] {
			if dst != nil {
				*dst = append(*dst, k)
				c.Bytes += o.Size
			}
			continue
		}
		grace := in.Grace
		if CommitFile(k) {
			grace = min(in.MetadataGrace, in.Grace)
		}
		cutoff := in.Now.Add(-grace)
		if o.Modified.After(cutoff) {
			// Maybe a commit's upload in flight: not marked yet.
			if dst != nil {
				c.Young++
			}
			continue
		}
		seen, ok := in.Marks[k]
		if !ok || seen.After(in.Now) {
			seen = in.Now
		}
		if dst == nil || seen.After(cutoff) {
			c.Marks[k] = seen
			if dst != nil {
				c.Young++
			}
			continue
		}
		*dst = append(*dst, k)
		c.Bytes += o.Size
	}
	return c
}

// CommitFile recognises the metadata-only files a Timelake commit writes
// right before its conditional write, by the names it gives them
// (package table): manifest lists metadata/snap-<id>-<seq>-<uuid>.avro,
// manifests metadata/<uuid>-m<k>.avro, last-value indexes
// metadata/lastvalue-<id>-<uuid>.puffin. Iceberg's Java library names its
// manifests and manifest lists the same way, and writes them during its
// commit too. Anything else (data files, other engines' statistics files,
// Flink's manifests of a checkpoint not yet committed) is not one.
func CommitFile(key string) bool {
	name, ok := strings.CutPrefix(key, "metadata/")
	if !ok || strings.Contains(name, "/") {
		return false
	}
	if rest, ok := strings.CutPrefix(name, "snap-"); ok {
		rest, ok = strings.CutSuffix(rest, ".avro")
		id, rest, ok1 := strings.Cut(rest, "-")
		seq, u, ok2 := strings.Cut(rest, "-")
		return ok && ok1 && ok2 && digits(id) && digits(seq) && isUUID(u)
	}
	if rest, ok := strings.CutPrefix(name, "lastvalue-"); ok {
		rest, ok = strings.CutSuffix(rest, ".puffin")
		id, u, ok1 := strings.Cut(rest, "-")
		return ok && ok1 && digits(id) && isUUID(u)
	}
	if rest, ok := strings.CutSuffix(name, ".avro"); ok && len(rest) > 38 {
		u, k := rest[:36], rest[36:]
		n, ok := strings.CutPrefix(k, "-m")
		return ok && isUUID(u) && digits(n)
	}
	return false
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// isUUID recognises the 8-4-4-4-12 hexadecimal form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
				return false
			}
		}
	}
	return true
}
