package maintenance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

func TestPlanForeignFiles(t *testing.T) {
	nullIngest := func(fs []File) []File {
		for i := range fs {
			fs[i].NullIngest = true
		}
		return fs
	}
	show := func(p Plan) string {
		s := describe(p)
		for _, m := range p.Merges {
			if len(m.Deletes) > 0 {
				var names []string
				for _, f := range m.Deletes {
					names = append(names, f.Path)
				}
				s = strings.Replace(s, merged(m)+"\n", merged(m)+" deletes "+strings.Join(names, ",")+"\n", 1)
			}
		}
		for _, k := range p.Skipped {
			s += k.String() + "\n"
		}
		if p.Drop != nil {
			for _, f := range p.Drop.Deletes {
				s += "drop delete " + f.Path + "\n"
			}
		}
		return s
	}
	sk := func(ago int, reason string) string {
		return fmt.Sprintf("skipped: partition %d (%s)\n", day(ago), reason)
	}
	for _, c := range []struct {
		name string
		in   func(*Input)
		want string
	}{
		{"a partition with an equality delete file is left alone", func(in *Input) {
			in.Files = cat(files(1, 3, 1000, 1), files(2, 2, 1000, 1))
			in.Deletes = []File{{Path: "del1", Partition: day(1), Size: 10, Rows: 2, Seq: 5, Equality: true}}
		}, "merge 2026-11-27 cold d2-00,d2-01\n" + sk(1, SkipEqualityDeletes)},
		{"position deletes: the whole partition, full files too, with its delete files", func(in *Input) {
			in.Files = cat(files(1, 2, 100<<20, 1), files(2, 2, 1000, 1))
			in.Deletes = []File{{Path: "del1b", Partition: day(1), Size: 10, Rows: 2, Seq: 6}, {Path: "del1a", Partition: day(1), Size: 10, Rows: 2, Seq: 5}}
		}, "merge 2026-11-27 cold d2-00,d2-01\nmerge 2026-11-28 cold d1-00,d1-01 deletes del1a,del1b\n"},
		{"a cold partition of one file with position deletes is rewritten", func(in *Input) {
			in.Files = cat(files(1, 1, 1000, 1), files(0, 1, 1000, 1))
			in.Deletes = []File{{Path: "del1", Partition: day(1), Seq: 5}, {Path: "del0", Partition: day(0), Seq: 5}}
		}, "merge 2026-11-28 cold d1-00 deletes del1\n"},
		{"position and equality deletes: left alone", func(in *Input) {
			in.Files = files(1, 3, 1000, 1)
			in.Deletes = []File{{Path: "del1", Partition: day(1), Seq: 5}, {Path: "eq1", Partition: day(1), Seq: 5, Equality: true}}
		}, sk(1, SkipEqualityDeletes)},
		{"a delete file of another spec stops every merge", func(in *Input) {
			in.Files = files(1, 3, 1000, 1)
			in.OtherSpecDeletes = 1
		}, "skipped: every partition (" + SkipOtherDeletes + ")\n"},
		{"other-spec data files alone change nothing", func(in *Input) {
			in.Files = files(1, 2, 1000, 1)
			in.OtherSpecFiles = 4
		}, "merge 2026-11-28 cold d1-00,d1-01\n"},
		{"rows without _ingest_ts: the whole partition, full files too", func(in *Input) {
			in.Files = cat(files(1, 2, 100<<20, 1), nullIngest(files(1, 1, 1000, 9)))
		}, "merge 2026-11-28 cold d1-00,d1-01,d1-00\n"},
		{"rows without _ingest_ts in more than 24 files: skipped", func(in *Input) {
			in.Files = nullIngest(files(0, 25, 1000, 1))
		}, sk(0, SkipWholeTooLarge)},
		{"a whole partition is not cut by the byte cap", func(in *Input) {
			in.Settings.ByteCap = 3500
			in.Files = cat(nullIngest(files(2, 3, 1000, 1)), files(1, 2, 1000, 1))
		}, "merge 2026-11-27 cold d2-00,d2-01,d2-02\nleft 2026-11-28 cold d1-00,d1-01\ncap reached, 2000 bytes left\n"},
		{"a whole partition larger than the byte cap is skipped", func(in *Input) {
			in.Settings.ByteCap = 1500
			in.Files = cat(nullIngest(files(2, 3, 1000, 1)), files(1, 2, 1000, 1))
		}, "merge 2026-11-28 cold d1-00,d1-01\ncap reached, 0 bytes left\n" + sk(2, SkipWholeOverCap)},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Now: now, Settings: settings(), Partition: schema.Day, Compact: true}
			c.in(&in)
			if got := show(PlanRun(in)); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestPlanRetentionDropsDeleteFiles(t *testing.T) {
	s := settings()
	s.Retention = 48 * time.Hour
	in := Input{Now: now, Settings: s, Partition: schema.Day, Retention: true,
		Files: cat(files(5, 2, 1000, 1), files(0, 1, 1000, 3)),
		Deletes: []File{
			{Path: "del5", Partition: day(5), Size: 10, Rows: 1, Seq: 4},
			{Path: "del9", Partition: day(9), Size: 20, Rows: 1, Seq: 4}, // its data files are gone
			{Path: "del0", Partition: day(0), Size: 30, Rows: 1, Seq: 4},
		}}
	d := PlanRun(in).Drop
	var got []string
	for _, f := range d.Deletes {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "del9,del5" || len(d.Partitions) != 2 || len(d.Files) != 2 || d.Bytes != 2030 || d.Rows != 200 {
		t.Errorf("drop: deletes %v, partitions %v, files %d, bytes %d, rows %d; want del9,del5, 2 partitions, 2 files, 2030 bytes, 200 rows",
			got, d.Partitions, len(d.Files), d.Bytes, d.Rows)
	}
}

// merged is describe's line of m, without its newline.
func merged(m Merge) string {
	var names []string
	for _, f := range m.Files {
		names = append(names, f.Path)
	}
	kind := "hot"
	if m.Cold {
		kind = "cold"
	}
	return fmt.Sprintf("merge %s %s %s", schema.Day.Format(m.Partition), kind, strings.Join(names, ","))
}
