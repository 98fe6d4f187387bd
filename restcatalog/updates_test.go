package restcatalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base      func(t *testing.T) *iceberg.Metadata
		next      func(t *testing.T) *iceberg.Metadata
		want      []string // each update's action, in order
		wantMain  string   // the assert-ref-snapshot-id's snapshot-id, as JSON
		wantError string
		// wantSchemaReqs are the requirements after the first two, as JSON
		// (default: assert-current-schema-id 0)
		wantSchemaReqs string
	}{
		{name: "first append", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t) },
			next:     func(t *testing.T) *iceberg.Metadata { return withStats(t, testMetadata(t, 1)) },
			want:     []string{"add-snapshot", "set-snapshot-ref", "set-statistics"},
			wantMain: "null"},
		{name: "append", base: func(t *testing.T) *iceberg.Metadata { return withStats(t, testMetadata(t, 1, 2)) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := withStats(t, testMetadata(t, 1, 2, 3))
				md.Statistics = append(md.Statistics[:0], withStats(t, testMetadata(t, 1, 2)).Statistics[0], md.Statistics[0])
				return md
			},
			want: []string{"add-snapshot", "set-snapshot-ref", "set-statistics"}, wantMain: "2"},
		{name: "expiry and a property change", base: func(t *testing.T) *iceberg.Metadata { return withStats(t, testMetadata(t, 1, 2, 3)) },
			next: expired, want: []string{"remove-snapshots", "remove-properties", "set-properties"}, wantMain: "3"},
		{name: "expiry of a snapshot with statistics", base: func(t *testing.T) *iceberg.Metadata { return withStats(t, testMetadata(t, 1)) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1, 2)
				md.Snapshots = md.Snapshots[1:]
				return md
			}, want: []string{"remove-statistics", "remove-snapshots", "add-snapshot", "set-snapshot-ref"}, wantMain: "1"},
		{name: "nothing", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) },
			next: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) }, want: nil, wantMain: "1"},
		{name: "a schema change", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.Schemas = append(md.Schemas, md.Schemas[0])
				md.Schemas[1].SchemaID = 1
				md.CurrentSchemaID = 1
				return md
			}, want: []string{"add-schema", "set-current-schema"}, wantMain: "1",
			wantSchemaReqs: `[{"current-schema-id":0,"type":"assert-current-schema-id"},{"last-assigned-field-id":4,"type":"assert-last-assigned-field-id"}]`},
		{name: "back to an older schema", base: func(t *testing.T) *iceberg.Metadata {
			md := testMetadata(t, 1)
			md.Schemas = append(md.Schemas, md.Schemas[0])
			md.Schemas[1].SchemaID = 1
			md.CurrentSchemaID = 1
			return md
		},
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.Schemas = append(md.Schemas, md.Schemas[0])
				md.Schemas[1].SchemaID = 1
				return md
			}, want: []string{"set-current-schema"}, wantMain: "1",
			wantSchemaReqs: `[{"current-schema-id":1,"type":"assert-current-schema-id"}]`},
		{name: "a removed schema is refused", base: func(t *testing.T) *iceberg.Metadata {
			md := testMetadata(t, 1)
			md.Schemas = append(md.Schemas, md.Schemas[0])
			md.Schemas[1].SchemaID = 1
			return md
		},
			next: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) }, wantError: "removes or rewrites a schema"},
		{name: "another table", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.TableUUID = "other"
				return md
			}, wantError: "not 9b6f3b0e"},
		// Adopting another engine's table: its key in properties, our sort
		// order added and made the default (its was unsorted), and a v1
		// table upgraded.
		{name: "adopt", base: func(t *testing.T) *iceberg.Metadata {
			md := testMetadata(t, 1)
			md.SortOrders, md.DefaultSortOrderID = []iceberg.SortOrder{{OrderID: 0}}, 0
			md.FormatVersion = 1
			return md
		},
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.SortOrders = []iceberg.SortOrder{{OrderID: 0}, {OrderID: 1, Fields: []iceberg.SortField{{Transform: "identity", SourceID: 1, Direction: "asc", NullOrder: "nulls-first"}}}}
				md.DefaultSortOrderID = 1
				props := map[string]string{"adopted.by": "a test"}
				for k, v := range md.Properties {
					props[k] = v
				}
				md.Properties = props
				return md
			}, want: []string{"upgrade-format-version", "add-sort-order", "set-default-sort-order", "set-properties"}, wantMain: "1",
			wantSchemaReqs: `[{"current-schema-id":0,"type":"assert-current-schema-id"},{"default-sort-order-id":0,"type":"assert-default-sort-order-id"}]`},
		{name: "a changed sort order is refused", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.SortOrders[0].Fields = md.SortOrders[0].Fields[:0]
				return md
			}, wantError: "alters sort order"},
		{name: "a rewritten snapshot is refused", base: func(t *testing.T) *iceberg.Metadata { return testMetadata(t, 1) },
			next: func(t *testing.T) *iceberg.Metadata {
				md := testMetadata(t, 1)
				md.Snapshots[0].ManifestList += "x"
				return md
			}, wantError: "snapshot 1 differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Round trip through JSON, as the decider sees them.
			base, next := mustParse(t, raw(t, tc.base(t))), mustParse(t, raw(t, tc.next(t)))
			ups, reqs, err := Diff(base, next)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range ups {
				got = append(got, u["action"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("actions = %v, want %v", got, tc.want)
			}
			if len(reqs) < 2 || reqs[0]["type"] != "assert-table-uuid" || reqs[1]["type"] != "assert-ref-snapshot-id" {
				t.Fatalf("requirements = %v", reqs)
			}
			want := tc.wantSchemaReqs
			if want == "" { // every commit asserts the schema it was built for
				want = `[{"current-schema-id":0,"type":"assert-current-schema-id"}]`
			}
			if rest, _ := json.Marshal(reqs[2:]); string(rest) != want {
				t.Errorf("schema requirements = %s, want %s", rest, want)
			}
			if m, _ := json.Marshal(reqs[1]["snapshot-id"]); string(m) != tc.wantMain {
				t.Errorf("asserted main = %s, want %s", m, tc.wantMain)
			}
		})
	}
}

func TestParseIdent(t *testing.T) {
	for _, tc := range []struct {
		in, wantNS, wantName, wantErr string
	}{
		{in: "metrics.cpu", wantNS: "metrics", wantName: "cpu"},
		{in: "a.b.cpu", wantNS: "a\x1fb", wantName: "cpu"},
		{in: "cpu", wantErr: "want NAMESPACE.TABLE"},
		{in: "a..cpu", wantErr: "empty part"},
		{in: ".cpu", wantErr: "empty part"},
	} {
		id, err := ParseIdent(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || Code(err) != "BAD_TABLE_NAME" {
				t.Errorf("ParseIdent(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(id.Namespace, "\x1f") != tc.wantNS || id.Name != tc.wantName || id.String() != tc.in {
			t.Errorf("ParseIdent(%q) = %+v, %v", tc.in, id, err)
		}
	}
	if got := namespacePath([]string{"a", "b c"}); got != "a%1Fb%20c" {
		t.Errorf("namespacePath = %q", got)
	}
}

// TestDiffKeepsLargeSnapshotIDs: ids use all 63 bits; a float64 would round them.
func TestDiffKeepsLargeSnapshotIDs(t *testing.T) {
	const id = int64(979044168763429101)
	ups, _, err := Diff(testMetadata(t, 1), testMetadata(t, 1, id))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ups)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"ref-name":"main","snapshot-id":979044168763429101`) {
		t.Errorf("set-snapshot-ref lost the id's digits: %s", b)
	}
}
