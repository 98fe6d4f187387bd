package restcatalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
)

func TestVersionNumber(t *testing.T) {
	for loc, want := range map[string]int{
		"s3://b/t/metadata/v3.metadata.json":                                    3,
		"file:///w/t/metadata/00012-0b1c7f0e-1d2a-4c1e-9a7e-2f1f.metadata.json": 12,
		"s3://b/t/metadata/00004-x.metadata.json.gz":                            4,
		"s3://b/t/metadata/v3-x.metadata.json":                                  0,
		"s3://b/t/metadata/x.metadata.json":                                     0,
		"s3://b/t/metadata/v.metadata.json":                                     0,
		"s3://b/t/metadata/-x.metadata.json":                                    0,
		"s3://b/t/metadata/v3.json":                                             0,
	} {
		if got := versionNumber(loc); got != want {
			t.Errorf("versionNumber(%q) = %d, want %d", loc, got, want)
		}
	}
}

func TestHeader(t *testing.T) {
	h := map[string]string{"Retry-After": "3", "x-other": "y"}
	if header(h, "Retry-After") != "3" || header(h, "retry-after") != "3" || header(h, "X-Other") != "y" || header(h, "Nope") != "" {
		t.Fatal("header lookup")
	}
}

func TestRefUpdateKeepsSnapshotID(t *testing.T) {
	const id = int64(666228275656081234) // not a float64 value
	u, err := refUpdate("main", iceberg.SnapshotRef{SnapshotID: id, Type: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"snapshot-id":666228275656081234`) {
		t.Fatalf("set-snapshot-ref lost the id: %s", b)
	}
}
