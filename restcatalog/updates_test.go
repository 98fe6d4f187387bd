package restcatalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
)

// A set-snapshot-ref update keeps a 64-bit snapshot id exact.
func TestRefUpdateKeepsSnapshotID(t *testing.T) {
	const id = 2700924816743450123
	u, err := refUpdate("main", iceberg.SnapshotRef{SnapshotID: id, Type: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"snapshot-id":2700924816743450123`) {
		t.Errorf("set-snapshot-ref = %s, want snapshot-id 2700924816743450123", raw)
	}
}
