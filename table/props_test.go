package table

import (
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
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

// TestCreatePropertiesRefusesUnknownTimelakeKeys: a misspelt setting of ours
// is an error naming it, not a property kept that does nothing; other
// engines' properties pass as they are.
func TestCreatePropertiesRefusesUnknownTimelakeKeys(t *testing.T) {
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		props   map[string]string
		wantErr string
	}{
		{map[string]string{"timelake.compact.min-files": "2"}, "timelake.compact.min-files is not a Timelake property"},
		{map[string]string{"timelake.compact-min-files": "2", "write.metadata.metrics.default": "full"}, ""},
		{map[string]string{"timelake.ingest-column": "false"}, ""},
		{map[string]string{PropTimeColumn: "x"}, "set from the schema"},
	} {
		_, err := createProperties(sch, tc.props)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("createProperties(%v): %v", tc.props, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || Code(err) != "BAD_PROPERTY"):
			t.Errorf("createProperties(%v): %v, want BAD_PROPERTY saying %q", tc.props, err, tc.wantErr)
		}
	}
}
