package location

import (
	"errors"
	"strings"
	"testing"
)

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		table, path string
		want        string // key; "" = refused
	}{
		// the forms of one local place
		{"file:///data/m", "file:///data/m/metadata/v1.metadata.json", "metadata/v1.metadata.json"},
		{"file:///data/m", "file:/data/m/metadata/snap-1.avro", "metadata/snap-1.avro"},
		{"file:/data/m", "file:///data/m/data/x.parquet", "data/x.parquet"},
		{"file:///data/m", "file://localhost/data/m/data/x.parquet", "data/x.parquet"},
		{"file://LOCALHOST/data/m", "file:/data/m/data/x.parquet", "data/x.parquet"},
		{"file:///data/m", "file:////data//m///data/./x.parquet", "data/x.parquet"},
		{"file:///data/m/", "file:/data/m/data/x.parquet", "data/x.parquet"},
		{"FILE:///data/m", "file:/data/m/a", "a"},
		// S3 and Hadoop's connectors
		{"s3://b/t", "s3a://b/t/data/x.parquet", "data/x.parquet"},
		{"s3a://b/t", "s3://b/t/data/x.parquet", "data/x.parquet"},
		{"s3://b/t", "s3n://b/t/metadata/m.avro", "metadata/m.avro"},
		{"s3://b/t", "s3://b//t//data/x", "data/x"},
		{"s3://b", "s3://b/data/x", "data/x"},
		// outside
		{"file:///data/m", "file:///data/mm/data/x", ""},
		{"file:///data/m", "file:///data/m", ""},
		{"file://", "file:///x", ""}, // a table at the root is no table
		{"file:///", "/x", ""},
		{"file:///data/m", "file:///etc/passwd", ""},
		{"file:///data/m", "file:///data/m/../n/x", ""},
		{"file:///data/m", "file:///data/m/data/../../n", ""},
		{"file:///data/m", "s3://data/m/x", ""},
		{"file:///data/m", "file://otherhost/data/m/x", ""},
		{"file:///data/m", "/data/m/x", "x"}, // Hadoop's bare local path
		{"file:///data/m", "//data/m/x", ""}, // a network path, not ours
		{"s3://data/m", "/data/m/x", ""},
		{"file:///data/m", "data/x", ""},
		{"file:///data/m", "file:///data/m/a\\b", ""},
		{"file:///data/m", "file:///data/m/a\x00b", ""},
		{"s3://b/t", "s3://c/t/x", ""},
		{"s3://b/t", "s3://b/tt/x", ""},
		{"s3://b/t", "gs://b/t/x", ""},
		{"s3://b/t", "s3:///t/x", ""},
		// written as it is and percent-encoded, either side
		{"file:///d/my tablé", "file:///d/my tablé/data/x.parquet", "data/x.parquet"},
		{"file:///d/my tablé", "file:///d/my%20tabl%C3%A9/data/x.parquet", "data/x.parquet"},
		{"file:///d/my tablé", "file:/d/my%20tabl%c3%a9/metadata/a%20b.avro", "metadata/a b.avro"},
		{"file:///d/my%20tabl%C3%A9", "file:///d/my tablé/data/x.parquet", "data/x.parquet"},
		{"file:///d/my%20tabl%C3%A9", "file:///d/my%20tabl%C3%A9/data/x.parquet", "data/x.parquet"},
		{"file:///d/my%20tabl%C3%A9", "file:/d/my%20tabl%C3%A9/data/x.parquet", "data/x.parquet"},
		{"file:///d/100% cpu #1", "file:///d/100% cpu #1/data/x", "data/x"},
		{"file:///d/100% cpu #1", "file:///d/100%25%20cpu%20%231/data/x", "data/x"},
		{"file:///d/100%25%20cpu%20%231", "file:///d/100% cpu #1/data/x", "data/x"},
		{"file:///d/a%zz", "file:///d/a%zz/x", "x"},   // "%" not an escape: as it is
		{"file:///d/a%20b", "file:///d/a%20b/x", "x"}, // a name holding "%20", as written
		{"file:///d/a%20b", "file:///d/a%2520b/x", "x"},
		{"s3://b/my t", "s3://b/my%20t/data/x", "data/x"},
		{"s3://b/my%20t", "s3a://b/my t/data/x", "data/x"},
		{"file:///d/m", "file:///d/m/a%2F..%2F..%2Fetc/x", "a%2F..%2F..%2Fetc/x"}, // as written: one name, inside
		{"file:///d/my t", "file:///d/my%20t/a%2F..%2F..%2Fetc/x", ""},            // decoded: "..", refused
		{"file:///d/m", "file:///d/m%2F..%2Fn/x", ""},
		{"file:///d/m", "file:///d/m/a%5Cb", "a%5Cb"}, // a backslash is never decoded
		{"file:///d/m", "file:///d/m%00/x", ""},
	} {
		got, err := Within(tc.table, tc.path)
		if tc.want == "" {
			if err == nil || !errors.Is(err, ErrOutside) {
				t.Errorf("Within(%q, %q) = %q, %v; want ErrOutside", tc.table, tc.path, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Within(%q, %q) = %q, %v; want %q", tc.table, tc.path, got, err, tc.want)
		}
	}
}

func TestRefusalNamesBothForms(t *testing.T) {
	_, err := Within("file:///data/m", "file:/etc/passwd")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`"file:/etc/passwd"`, "file:///etc/passwd", `"file:///data/m"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"file:/p/q", "file:///p/q", true},
		{"file:///p/my tablé", "file:///p/my%20tabl%C3%A9", true},
		{"s3://b/a b", "s3a://b/a%20b/", true},
		{"file:///p/a b", "file:///p/a%2520b", false},
		{"file://localhost/p/q", "file:///p/q/", true},
		{"s3a://b/k", "s3://b/k", true},
		{"s3://b/k", "s3://b/k2", false},
		{"file:///p", "s3://p", false},
		{"nonsense", "nonsense", false},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPlaceString(t *testing.T) {
	for in, want := range map[string]string{
		"file:/a//b/":      "file:///a/b",
		"s3a://bkt//x/y/":  "s3://bkt/x/y",
		"s3://bkt":         "s3://bkt",
		"file://localhost": "file:///",
	} {
		p, err := Parse(in)
		if err != nil || p.String() != want {
			t.Errorf("Parse(%q).String() = %q, %v; want %q", in, p.String(), err, want)
		}
	}
}

// FuzzWithin: a key Within accepts is a valid relative key that, joined to
// the table's canonical location, maps back to itself.
func FuzzWithin(f *testing.F) {
	f.Add("file:///data/m", "file:/data/m/metadata/x")
	f.Add("s3://b/t", "s3a://b/t//data/./x")
	f.Add("file:///data/m", "file:///data/m/../x")
	f.Fuzz(func(t *testing.T, table, path string) {
		key, err := Within(table, path)
		if pt, perr := Parse(table); perr == nil && err == nil {
			// the fast path for the table's own spelling agrees with comparing places
			if slow, serr := within(pt, table, path); serr != nil || slow != key {
				t.Fatalf("Within(%q, %q) = %q; comparing places gives %q, %v", table, path, key, slow, serr)
			}
		}
		if err != nil {
			return
		}
		if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "//") {
			t.Fatalf("Within(%q, %q) = %q: not a clean relative key", table, path, key)
		}
		for _, seg := range strings.Split(key, "/") {
			if seg == ".." || seg == "." {
				t.Fatalf("Within(%q, %q) = %q: holds %q", table, path, key, seg)
			}
		}
		pt, _ := Parse(table) // Within parsed it
		back, err := Within(table, pt.String()+"/"+key)
		if err != nil || back != key {
			t.Fatalf("round trip of %q under %q: %q, %v", key, table, back, err)
		}
	})
}
