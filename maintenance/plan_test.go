package maintenance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// day is the partition value of a day before now (0: today).
func day(ago int) int32 { return schema.Day.Apply(now.AddDate(0, 0, -ago).UnixMicro()) }

// files makes n files of partition p named p<ago>-<i>, size each.
func files(ago, n int, size int64, seq0 int64) []File {
	out := make([]File, n)
	for i := range out {
		out[i] = File{Path: fmt.Sprintf("d%d-%02d", ago, i), Partition: day(ago), Size: size, Rows: size / 10, Seq: seq0 + int64(i)}
	}
	return out
}

func cat(fs ...[]File) []File {
	var out []File
	for _, f := range fs {
		out = append(out, f...)
	}
	return out
}

func settings() Settings {
	s, _ := ParseSettings(nil)
	s.TargetFileBytes = 128 << 20
	s.MaxSnapshotAge = 5 * 24 * time.Hour
	s.ByteCap = 0
	return s
}

// describe prints a plan one line per decision, to compare as text.
func describe(p Plan) string {
	var b strings.Builder
	if p.Drop != nil {
		fmt.Fprintf(&b, "drop cutoff=%s partitions=%d files=%d rows=%d\n", time.UnixMicro(p.Drop.CutoffUS).UTC().Format(time.RFC3339), len(p.Drop.Partitions), len(p.Drop.Files), p.Drop.Rows)
	}
	line := func(what string, m Merge) {
		var names []string
		for _, f := range m.Files {
			names = append(names, f.Path)
		}
		kind := "hot"
		if m.Cold {
			kind = "cold"
		}
		fmt.Fprintf(&b, "%s %s %s %s\n", what, schema.Day.Format(m.Partition), kind, strings.Join(names, ","))
	}
	for _, m := range p.Merges {
		line("merge", m)
	}
	for _, m := range p.Left {
		line("left", m)
	}
	if p.CapReached {
		fmt.Fprintf(&b, "cap reached, %d bytes left\n", p.LeftBytes)
	}
	if len(p.Expire) > 0 || len(p.Retain) > 0 {
		fmt.Fprintf(&b, "expire %v retain %v\n", p.Expire, p.Retain)
	}
	return b.String()
}

func TestPlanRun(t *testing.T) {
	hour := int64(time.Hour / time.Millisecond)
	nowMs := now.UnixMilli()
	chain := []Snapshot{
		{ID: 1, TimestampMs: nowMs - 200*hour},
		{ID: 2, Parent: 1, TimestampMs: nowMs - 150*hour},
		{ID: 3, Parent: 2, TimestampMs: nowMs - 121*hour},
		{ID: 4, Parent: 3, TimestampMs: nowMs - 100*hour},
		{ID: 5, Parent: 4, TimestampMs: nowMs - 1*hour},
	}
	for _, c := range []struct {
		name string
		in   func(*Input)
		want string
	}{
		{"nothing to do", func(in *Input) { in.Files = files(0, 3, 1000, 1) }, ""},
		{"hot partition at compact-min-files", func(in *Input) { in.Files = files(0, 8, 1000, 1) },
			"merge 2026-11-29 hot d0-00,d0-01,d0-02,d0-03,d0-04,d0-05,d0-06,d0-07\n"},
		{"hot partition below compact-min-files", func(in *Input) { in.Files = files(0, 7, 1000, 1) }, ""},
		{"cold partition with two files", func(in *Input) { in.Files = cat(files(1, 2, 1000, 1), files(2, 1, 1000, 5)) },
			"merge 2026-11-28 cold d1-00,d1-01\n"},
		{"today is not cold until compact-cold-after past its end", func(in *Input) {
			in.Now = time.Date(2026, 11, 30, 0, 30, 0, 0, time.UTC) // 30 min after day 0 ended
			in.Files = files(0, 2, 1000, 1)
		}, ""},
		{"ended more than compact-cold-after ago", func(in *Input) {
			in.Now = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
			in.Files = files(0, 2, 1000, 1)
		}, "merge 2026-11-29 cold d0-00,d0-01\n"},
		{"full files are left alone", func(in *Input) {
			in.Files = cat(files(1, 2, 100<<20, 1), files(1, 1, 1000, 9))
		}, ""},
		{"25 files make balanced groups", func(in *Input) { in.Files = files(0, 25, 1000, 1) },
			"merge 2026-11-29 hot d0-00,d0-01,d0-02,d0-03,d0-04,d0-05,d0-06,d0-07,d0-08,d0-09,d0-10,d0-11\n" +
				"merge 2026-11-29 hot d0-12,d0-13,d0-14,d0-15,d0-16,d0-17,d0-18,d0-19,d0-20,d0-21,d0-22,d0-23,d0-24\n"},
		{"files ordered by sequence number", func(in *Input) {
			fs := files(1, 3, 1000, 1)
			fs[0].Seq, fs[2].Seq = 9, 0
			in.Files = fs
		}, "merge 2026-11-28 cold d1-02,d1-01,d1-00\n"},
		{"byte cap takes whole groups, then stops", func(in *Input) {
			in.Settings.ByteCap = 5000
			in.Files = cat(files(3, 2, 1000, 1), files(2, 3, 1000, 1), files(1, 2, 1000, 1))
		}, "merge 2026-11-26 cold d3-00,d3-01\nmerge 2026-11-27 cold d2-00,d2-01,d2-02\nleft 2026-11-28 cold d1-00,d1-01\ncap reached, 2000 bytes left\n"},
		{"byte cap below the first group cuts it to two files", func(in *Input) {
			in.Settings.ByteCap = 1500
			in.Files = files(1, 4, 1000, 1)
		}, "merge 2026-11-28 cold d1-00,d1-01\nleft 2026-11-28 cold d1-02,d1-03\ncap reached, 2000 bytes left\n"},
		{"retention drops partitions wholly before the cut-off", func(in *Input) {
			in.Settings.Retention = 48 * time.Hour // cut-off 2026-11-27T12:00
			in.Files = cat(files(3, 2, 1000, 1), files(2, 3, 1000, 1), files(1, 1, 1000, 1))
		}, "drop cutoff=2026-11-27T12:00:00Z partitions=1 files=2 rows=200\nmerge 2026-11-27 cold d2-00,d2-01,d2-02\n"},
		{"retention off", func(in *Input) {
			in.Files = files(30, 1, 1000, 1)
		}, ""},
		{"expiry keeps the current snapshot and young ones", func(in *Input) {
			in.Snapshots, in.Current = chain, 5
		}, "expire [1 2 3] retain [4 5]\n"},
		{"expiry keeps min-snapshots-to-keep ancestors", func(in *Input) {
			in.Snapshots, in.Current = chain, 5
			in.Settings.MinSnapshotsKeep = 3
		}, "expire [1 2] retain [3 4 5]\n"},
		{"expiry keeps ref heads", func(in *Input) {
			in.Snapshots, in.Current, in.RefHeads = chain, 5, []int64{5, 2}
		}, "expire [1 3] retain [2 4 5]\n"},
		{"expiry by age", func(in *Input) {
			in.Snapshots, in.Current = chain, 5
			in.Settings.MaxSnapshotAge = 130 * time.Hour
		}, "expire [1 2] retain [3 4 5]\n"},
		{"expiry by count keeps the newest max-snapshots, young or not", func(in *Input) {
			in.Snapshots, in.Current = chain, 5
			in.Settings.MaxSnapshotAge = 1000 * time.Hour
			in.Settings.MaxSnapshots = 2
		}, "expire [1 2 3] retain [4 5]\n"},
		{"expiry by count and by age: whichever expires more", func(in *Input) {
			in.Snapshots, in.Current = chain, 5
			in.Settings.MaxSnapshots = 4
		}, "expire [1 2 3] retain [4 5]\n"},
		{"expiry by count still keeps ref heads and min-snapshots-to-keep", func(in *Input) {
			in.Snapshots, in.Current, in.RefHeads = chain, 5, []int64{5, 1}
			in.Settings.MaxSnapshotAge = 1000 * time.Hour
			in.Settings.MaxSnapshots = 1
			in.Settings.MinSnapshotsKeep = 2
		}, "expire [2 3] retain [1 4 5]\n"},
		{"an old current snapshot never expires", func(in *Input) {
			in.Snapshots, in.Current = chain[:2], 2
		}, "expire [1] retain [2]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Now: now, Settings: settings(), Partition: schema.Day, Compact: true, Retention: true, Expire: true}
			c.in(&in)
			if got := describe(PlanRun(in)); got != c.want {
				t.Errorf("got plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestPlanStepsOff(t *testing.T) {
	in := Input{Now: now, Settings: settings(), Partition: schema.Day, Files: files(1, 30, 1000, 1),
		Snapshots: []Snapshot{{ID: 1, TimestampMs: 0}, {ID: 2, Parent: 1, TimestampMs: 0}}, Current: 2}
	in.Settings.Retention = time.Hour
	if got := describe(PlanRun(in)); got != "" {
		t.Errorf("no steps asked: got %q, want an empty plan", got)
	}
}

func TestDropDominant(t *testing.T) {
	sizes := func(fs []File) []int64 {
		var out []int64
		for _, f := range fs {
			out = append(out, f.Size)
		}
		slices.Sort(out)
		return out
	}
	files := func(ss ...int64) []File {
		var out []File
		for i, s := range ss {
			out = append(out, File{Path: fmt.Sprint("f", i), Size: s})
		}
		return out
	}
	for _, tc := range []struct {
		in   []int64
		want []int64
	}{
		{[]int64{100, 1, 1, 1}, []int64{1, 1, 1}},     // the compacted file stays
		{[]int64{100, 40, 1, 1, 1}, []int64{1, 1, 1}}, // two tiers stay
		{[]int64{30, 20, 20}, []int64{20, 20, 30}},    // no file dominates: all merge
		{[]int64{20, 20}, []int64{20}},                // equal: one stays, one is left (merges nothing)
		{[]int64{5}, []int64{5}},                      // a single file
		{[]int64{10, 3, 3, 3}, []int64{3, 3, 3}},      // 10 ≥ 9
		{[]int64{8, 3, 3, 3}, []int64{3, 3, 3, 8}},    // 8 < 9: merged with them
	} {
		if got := sizes(dropDominant(files(tc.in...))); !slices.Equal(got, tc.want) {
			t.Errorf("dropDominant(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
