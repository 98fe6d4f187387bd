package maintenance

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"30d", 30 * 24 * time.Hour, false},
		{"720h", 720 * time.Hour, false},
		{" 90m ", 90 * time.Minute, false},
		{"1d12h", 36 * time.Hour, false},
		{"2w", 14 * 24 * time.Hour, false},
		{"1w2d3h", (9*24 + 3) * time.Hour, false},
		{"0", 0, false},
		{"-1h", 0, true},
		{"-1d", 0, true},
		{"d", 0, true},
		{"30 days", 0, true},
		{"1h30d", 0, true},
		{"99999999999999d", 0, true},
	} {
		got, err := ParseDuration(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"0", 0, false},
		{"268435456", 256 << 20, false},
		{"256MiB", 256 << 20, false},
		{"1 GiB", 1 << 30, false},
		{"4K", 4 << 10, false},
		{"-1", 0, true},
		{"lots", 0, true},
		{"99999999999T", 0, true},
	} {
		got, err := ParseBytes(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{CompactMinFiles: 8, CompactColdAfter: time.Hour, ByteCap: DefaultByteCap, OrphanGrace: 24 * time.Hour, MetadataGrace: 30 * time.Minute, MinSnapshotsKeep: 1}
	if s != want {
		t.Errorf("defaults: got %+v, want %+v", s, want)
	}
	s, err = ParseSettings(map[string]string{PropRetention: "30d", PropCompactMinFiles: "4", PropByteCap: "1GiB", PropOrphanGrace: "2h", PropCompactColdAfter: "0"})
	if err != nil {
		t.Fatal(err)
	}
	want = Settings{CompactMinFiles: 4, Retention: 720 * time.Hour, ByteCap: 1 << 30, OrphanGrace: 2 * time.Hour, MetadataGrace: 30 * time.Minute, MinSnapshotsKeep: 1}
	if s != want {
		t.Errorf("set: got %+v, want %+v", s, want)
	}
	// The metadata grace never exceeds the orphan grace.
	for _, c := range []struct {
		props map[string]string
		want  time.Duration
	}{
		{map[string]string{PropMetadataGrace: "30m"}, 30 * time.Minute},
		{map[string]string{PropOrphanGrace: "0"}, 0},
		{map[string]string{PropOrphanGrace: "10m", PropMetadataGrace: "1h"}, 10 * time.Minute},
		{map[string]string{PropOrphanGrace: "48h", PropMetadataGrace: "2h"}, 2 * time.Hour},
	} {
		s, err := ParseSettings(c.props)
		if err != nil || s.MetadataGrace != c.want {
			t.Errorf("%v: metadata grace %v (%v), want %v", c.props, s.MetadataGrace, err, c.want)
		}
	}
	if _, err := ParseSettings(map[string]string{PropMetadataGrace: "soon"}); err == nil || !strings.Contains(err.Error(), PropMetadataGrace) {
		t.Errorf("bad metadata grace: got %v, want an error naming %s", err, PropMetadataGrace)
	}
	_, err = ParseSettings(map[string]string{PropRetention: "forever", PropCompactMinFiles: "1"})
	if err == nil || !strings.Contains(err.Error(), PropRetention) || !strings.Contains(err.Error(), PropCompactMinFiles) {
		t.Errorf("bad values: got %v, want an error naming both properties", err)
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30d", "720h", "1w2d3h4m", "", "-1d", "1.5h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Errorf("ParseDuration(%q) = %v: negative", s, d)
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"256MiB", "0", "1T", "-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && n < 0 {
			t.Errorf("ParseBytes(%q) = %d: negative", s, n)
		}
	})
}
