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
	Now   time.Time
	Grace time.Duration
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
	// Written holds keys this run wrote; they need no grace.
	Written map[string]bool

	Expire  bool // delete what only expired snapshots reached, and old metadata versions
	Orphans bool // delete what nothing reaches
}

// Cleanup is what PlanCleanup decides.
type Cleanup struct {
	Expired  []string // reached only by expired snapshots
	Metadata []string // metadata versions outside the metadata log
	Orphans  []string // reached by no snapshot at all
	Young    int      // unreferenced objects kept because they are within the grace period
	Bytes    int64    // of everything to delete
}

// Keys returns every key to delete.
func (c Cleanup) Keys() []string {
	return slices.Concat(c.Expired, c.Metadata, c.Orphans)
}

// versionHint is never deleted: it is a hint rewritten after every commit.
const versionHint = "metadata/version-hint.text"

// PlanCleanup decides which listed objects to delete. Nothing a retained
// snapshot reaches is ever deleted, nor any object younger than the grace
// period that this run did not write.
func PlanCleanup(in CleanupInput) Cleanup {
	var c Cleanup
	cutoff := in.Now.Add(-in.Grace)
	for _, o := range in.Listed {
		k := o.Key
		if !strings.HasPrefix(k, "data/") && !strings.HasPrefix(k, "metadata/") {
			continue
		}
		if in.Retained[k] || k == versionHint {
			continue
		}
		if in.KeepMetadataFiles && strings.HasPrefix(k, "metadata/") &&
			(strings.HasSuffix(k, ".metadata.json") || strings.HasSuffix(k, ".metadata.json.gz")) {
			continue
		}
		var isVersion bool
		if in.MetadataVersion != nil {
			n, ok := in.MetadataVersion(k)
			if ok && (n >= in.Current || in.Metadata[k]) {
				continue
			}
			isVersion = ok
		}
		var dst *[]string
		switch {
		case isVersion && in.Expire:
			dst = &c.Metadata
		case isVersion:
			continue
		case in.Expired[k] && in.Expire:
			dst = &c.Expired
		case !in.Expired[k] && in.Orphans:
			dst = &c.Orphans
		default:
			continue
		}
		if !in.Written[k] && o.Modified.After(cutoff) {
			c.Young++
			continue
		}
		*dst = append(*dst, k)
		c.Bytes += o.Size
	}
	return c
}
