package maintenance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	list1     = "metadata/snap-11-3-0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.avro"
	manifest1 = "metadata/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f-m0.avro"
	index1    = "metadata/lastvalue-11-0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.puffin"
	data1     = "data/p=1/a.parquet"
)

func versionKey(k string) (int, bool) {
	var n int
	_, err := fmt.Sscanf(k, "metadata/v%d.metadata.json", &n)
	return n, err == nil && strings.HasSuffix(k, ".metadata.json")
}

// describeCleanup prints a plan with the marks as key@age (now − first seen).
func describeCleanup(c Cleanup) string {
	var marks []string
	for _, k := range slices.Sorted(maps.Keys(c.Marks)) {
		marks = append(marks, fmt.Sprintf("%s@%v", k, now.Sub(c.Marks[k])))
	}
	return fmt.Sprintf("delete %v young %d marks %v", c.Keys(), c.Young, marks)
}

// TestPlanCleanup: one unreferenced object at a time, under the default
// graces (24 h, metadata 1 h): deleted only once past the writer grace by
// its last-modified time and first seen unreferenced the reader grace ago.
func TestPlanCleanup(t *testing.T) {
	h := time.Hour
	for _, c := range []struct {
		name     string
		key      string
		modified time.Duration // ago
		mark     time.Duration // first seen this long ago; 0: no mark
		expired  bool          // reached by a snapshot this run expired
		opt      string        // "e", "o", "eo": Expire, Orphans
		want     string
	}{
		{"old data file seen first now (compacted by the last commit)", data1, 30 * 24 * h, 0, false, "eo",
			"delete [] young 1 marks [data/p=1/a.parquet@0s]"},
		{"old data file seen an hour ago", data1, 30 * 24 * h, h, false, "eo",
			"delete [] young 1 marks [data/p=1/a.parquet@1h0m0s]"},
		{"old data file seen 24 h ago", data1, 30 * 24 * h, 24 * h, false, "eo",
			"delete [data/p=1/a.parquet] young 0 marks []"},
		{"young data file with an old mark: in flight again, not marked", data1, h, 48 * h, false, "eo",
			"delete [] young 1 marks []"},
		{"manifest list past the writer grace, seen first now", list1, 2 * h, 0, false, "eo",
			"delete [] young 1 marks [" + list1 + "@0s]"},
		{"manifest list seen 59 m ago", list1, 2 * h, 59 * time.Minute, false, "eo",
			"delete [] young 1 marks [" + list1 + "@59m0s]"},
		{"manifest list seen an hour ago", list1, 2 * h, h, false, "eo",
			"delete [" + list1 + "] young 0 marks []"},
		{"manifest seen an hour ago", manifest1, 3 * h, h, false, "eo",
			"delete [" + manifest1 + "] young 0 marks []"},
		{"index seen an hour ago", index1, 3 * h, h, false, "eo",
			"delete [" + index1 + "] young 0 marks []"},
		{"manifest list within the writer grace: not marked", list1, 30 * time.Minute, 0, false, "eo",
			"delete [] young 1 marks []"},
		{"a mark in the future counts as now", data1, 30 * 24 * h, -5 * h, false, "eo",
			"delete [] young 1 marks [data/p=1/a.parquet@0s]"},
		{"other engine's stats file: the orphan grace", "metadata/11-0b6a.stats", 48 * h, h, false, "eo",
			"delete [] young 1 marks [metadata/11-0b6a.stats@1h0m0s]"},
		{"expired by this run: seen first now, kept", list1, 30 * 24 * h, 0, true, "eo",
			"delete [] young 1 marks [" + list1 + "@0s]"},
		{"expired earlier, seen an hour ago", list1, 30 * 24 * h, h, true, "e",
			"delete [" + list1 + "] young 0 marks []"},
		{"orphan under an expire-only run: marked, not deleted", data1, 30 * 24 * h, 25 * h, false, "e",
			"delete [] young 0 marks [data/p=1/a.parquet@25h0m0s]"},
		{"expired file under an orphans-only run: marked, not deleted", data1, 30 * 24 * h, 0, true, "o",
			"delete [] young 0 marks [data/p=1/a.parquet@0s]"},
		{"old superseded version: by its last-modified time", "metadata/v2.metadata.json", 25 * h, 0, false, "e",
			"delete [metadata/v2.metadata.json] young 0 marks []"},
		{"young superseded version", "metadata/v2.metadata.json", 23 * h, 0, false, "e",
			"delete [] young 1 marks []"},
		{"superseded version without --expire", "metadata/v2.metadata.json", 25 * h, 0, false, "o",
			"delete [] young 0 marks []"},
		{"version in the log", "metadata/v3.metadata.json", 25 * h, 0, false, "eo",
			"delete [] young 0 marks []"},
		{"current version", "metadata/v4.metadata.json", 25 * h, 0, false, "eo",
			"delete [] young 0 marks []"},
		{"the marks file", MarksKey, 25 * h, 48 * h, false, "eo",
			"delete [] young 0 marks []"},
		{"the version hint", "metadata/version-hint.text", 25 * h, 48 * h, false, "eo",
			"delete [] young 0 marks []"},
		{"outside data/ and metadata/", "head.json", 25 * h, 48 * h, false, "eo",
			"delete [] young 0 marks []"},
		{"retained", "data/p=1/live.parquet", 25 * h, 48 * h, false, "eo",
			"delete [] young 0 marks []"},
		{"written by this run", "data/p=1/ours.parquet", 0, 0, false, "eo",
			"delete [data/p=1/ours.parquet] young 0 marks []"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := CleanupInput{
				Now: now, Grace: 24 * time.Hour, MetadataGrace: time.Hour,
				Listed:          []Object{{Key: c.key, Size: 1, Modified: now.Add(-c.modified)}},
				Retained:        map[string]bool{"data/p=1/live.parquet": true},
				Expired:         map[string]bool{},
				Metadata:        map[string]bool{"metadata/v3.metadata.json": true},
				Current:         4,
				MetadataVersion: versionKey,
				Written:         map[string]bool{"data/p=1/ours.parquet": true},
				Expire:          strings.Contains(c.opt, "e"),
				Orphans:         strings.Contains(c.opt, "o"),
				Marks:           Marks{},
			}
			if c.expired {
				in.Expired[c.key] = true
			}
			if c.mark != 0 {
				in.Marks[c.key] = now.Add(-c.mark)
			}
			if got := describeCleanup(PlanCleanup(in)); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestPlanCleanupGraceZero: a grace of 0 deletes every unreferenced file at
// once, marked or not (tests and benchmarks rely on it).
func TestPlanCleanupGraceZero(t *testing.T) {
	in := CleanupInput{
		Now: now, Listed: []Object{
			{Key: data1, Size: 1, Modified: now},
			{Key: list1, Size: 2, Modified: now.Add(-time.Second)},
			{Key: "metadata/v1.metadata.json", Size: 4, Modified: now},
			{Key: "metadata/v2.metadata.json", Size: 8, Modified: now},
		},
		Current: 2, MetadataVersion: versionKey, Expire: true, Orphans: true,
	}
	got := describeCleanup(PlanCleanup(in))
	if want := "delete [metadata/v1.metadata.json " + data1 + " " + list1 + "] young 0 marks []"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestPlanCleanupCatalog: with a catalog no *.metadata.json is ours, but
// its manifests are, under the same graces.
func TestPlanCleanupCatalog(t *testing.T) {
	old := now.Add(-48 * time.Hour)
	in := CleanupInput{
		Now: now, Grace: 24 * time.Hour, MetadataGrace: time.Hour,
		Listed: []Object{
			{Key: "metadata/00001-abc.metadata.json", Size: 1, Modified: old},
			{Key: "metadata/v1.metadata.json.gz", Size: 1, Modified: old},
			{Key: list1, Size: 1, Modified: old},
		},
		Marks:             Marks{list1: now.Add(-2 * time.Hour)},
		KeepMetadataFiles: true, Expire: true, Orphans: true,
	}
	got := describeCleanup(PlanCleanup(in))
	if want := "delete [" + list1 + "] young 0 marks []"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestPlanCleanupMarksCarry: marks go from run to run. A key is deleted by
// the first run at least the reader grace after the run that first saw it;
// keys referenced again drop out.
func TestPlanCleanupMarksCarry(t *testing.T) {
	t0 := now
	in := CleanupInput{
		Grace: 24 * time.Hour, MetadataGrace: time.Hour,
		Listed: []Object{
			{Key: list1, Size: 1, Modified: t0.Add(-2 * time.Hour)},
			{Key: manifest1, Size: 1, Modified: t0.Add(-2 * time.Hour)},
		},
		Retained: map[string]bool{}, Orphans: true,
	}
	var got []string
	for _, step := range []struct {
		at       time.Duration
		retained string
	}{{0, ""}, {30 * time.Minute, manifest1}, {61 * time.Minute, ""}, {90 * time.Minute, ""}, {122 * time.Minute, ""}} {
		in.Now = t0.Add(step.at)
		in.Retained = map[string]bool{step.retained: true}
		c := PlanCleanup(in)
		var marks []string
		for _, k := range slices.Sorted(maps.Keys(c.Marks)) {
			marks = append(marks, fmt.Sprintf("%s@%v", k[len(k)-8:], in.Now.Sub(c.Marks[k])))
		}
		got = append(got, fmt.Sprintf("%v: delete %d marks %v", step.at, len(c.Keys()), marks))
		in.Marks = c.Marks
		in.Listed = slices.DeleteFunc(in.Listed, func(o Object) bool { return slices.Contains(c.Keys(), o.Key) })
	}
	want := []string{
		"0s: delete 0 marks [-m0.avro@0s e1f.avro@0s]",
		"30m0s: delete 0 marks [e1f.avro@30m0s]", // the manifest is referenced again: its mark goes
		"1h1m0s: delete 1 marks [-m0.avro@0s]",   // the list, first seen 61 m ago; the manifest seen again
		"1h30m0s: delete 0 marks [-m0.avro@29m0s]",
		"2h2m0s: delete 1 marks []", // the manifest, first seen 61 m ago
	}
	if !slices.Equal(got, want) {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

func TestCommitFile(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{
		{list1, true},
		{manifest1, true},
		{"metadata/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f-m12.avro", true},
		{index1, true},
		{"metadata/snap-11-3-0b6a2f1c.avro", false},
		{"metadata/snap-x-3-0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.avro", false},
		{"metadata/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f-mx.avro", false},
		{"metadata/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.avro", false},
		{"metadata/lastvalue-11-0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.parquet", false},
		{"metadata/job-op-00000-0-1-00001.avro", false}, // Flink's checkpoint manifests
		{"metadata/11-0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f.stats", false},
		{"metadata/v3.metadata.json", false},
		{"data/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f-m0.avro", false},
		{"metadata/sub/0b6a2f1c-9f2e-4c3a-8d1e-2a4b6c8d0e1f-m0.avro", false},
	} {
		if got := CommitFile(c.key); got != c.want {
			t.Errorf("CommitFile(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}
