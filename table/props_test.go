package table

import (
	"strings"
	"testing"
)

func TestParseSettingsAutoMaintain(t *testing.T) {
	for _, tc := range []struct {
		props   map[string]string
		want    bool
		wantErr string
	}{
		{nil, false, ""}, // a table written before the property existed
		{map[string]string{PropAutoMaintain: "false"}, false, ""},
		{map[string]string{PropAutoMaintain: "true"}, true, ""},
		{map[string]string{PropAutoMaintain: " TRUE "}, true, ""},
		{map[string]string{PropAutoMaintain: "yes"}, false, "timelake.auto-maintain=\"yes\""},
	} {
		s, err := ParseSettings(tc.props)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSettings(%v): got error %v, want one naming %s", tc.props, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSettings(%v): %v", tc.props, err)
			continue
		}
		if s.AutoMaintain != tc.want {
			t.Errorf("ParseSettings(%v).AutoMaintain = %v, want %v", tc.props, s.AutoMaintain, tc.want)
		}
	}
	if got := DefaultProperties()[PropAutoMaintain]; got != "false" {
		t.Errorf("default %s = %q, want \"false\"", PropAutoMaintain, got)
	}
}

// TestParseSettingsCompression: the codecs other engines set are accepted;
// those Timelake does not write give zstd files.
func TestParseSettingsCompression(t *testing.T) {
	for _, tc := range []struct{ in, want, wantErr string }{
		{"zstd", "zstd", ""},
		{"ZSTD", "zstd", ""},
		{"snappy", "snappy", ""}, // Spark's default
		{"uncompressed", "uncompressed", ""},
		{"none", "uncompressed", ""},
		{"gzip", "zstd", ""},
		{"lz4", "zstd", ""},
		{"lz4_raw", "zstd", ""},
		{"brotli", "zstd", ""},
		{"lzma", "", `write.parquet.compression-codec="lzma"`},
	} {
		s, err := ParseSettings(map[string]string{PropCompression: tc.in})
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want one naming %s", tc.in, err, tc.wantErr)
			}
		case err != nil || s.Compression != tc.want:
			t.Errorf("%s: Compression = %q, %v; want %q", tc.in, s.Compression, err, tc.want)
		}
	}
}
