package iceberg

import (
	"encoding/json"
	"fmt"
)

// Format version 1 metadata, read as version 2.
//
// A v1 metadata file may lack members v2 requires, holding their older
// forms instead (spec, "Table Metadata Fields"):
//
//	v1 member            v2 member(s) it stands for
//	schema               schemas + current-schema-id
//	partition-spec       partition-specs + default-spec-id (spec 0)
//	(none)               last-partition-id (the highest partition field id)
//	(none)               sort-orders + default-sort-order-id (unsorted)
//	(none)               last-sequence-number (0: v1 has no sequence numbers)
//	snapshot.manifests   snapshot.manifest-list (a list of manifest paths)
//
// Writers since Iceberg 0.11 write both forms into v1 files, which the fast
// decoder takes as they are; upgradeV1 fills in the v2 members of a file
// that has only the old ones, so every reader above sees one shape. The v1
// members stay in Extra, as they were.
//
// A v1 table is read, never written: Timelake writes v2 manifests, whose
// sequence numbers a v1 table does not have (WriteSupport refuses it).

// upgradeV1 rewrites the members of a v1 document that v2 requires from
// their v1 forms; members already present are kept. It changes nothing in a
// document of another version.
func upgradeV1(members map[string]json.RawMessage) error {
	if string(members["format-version"]) != "1" {
		return nil
	}
	missing := func(k string) bool {
		raw, ok := members[k]
		return !ok || string(raw) == "null"
	}
	if missing("schemas") {
		raw, ok := members["schema"]
		if !ok {
			return fmt.Errorf("iceberg: table metadata: format v1 without schema or schemas")
		}
		var s struct {
			ID *int `json:"schema-id"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return describeJSONError("table metadata schema", raw, err)
		}
		if s.ID == nil { // v1 schemas may carry no id: 0
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil {
				return describeJSONError("table metadata schema", raw, err)
			}
			obj["schema-id"] = json.RawMessage("0")
			raw, _ = json.Marshal(obj)
			s.ID = new(int)
		}
		members["schemas"] = json.RawMessage("[" + string(raw) + "]")
		if missing("current-schema-id") {
			members["current-schema-id"] = json.RawMessage(fmt.Sprint(*s.ID))
		}
	}
	if missing("partition-specs") {
		raw, ok := members["partition-spec"]
		if !ok {
			return fmt.Errorf("iceberg: table metadata: format v1 without partition-spec or partition-specs")
		}
		var fields []PartitionField
		if err := json.Unmarshal(raw, &fields); err != nil {
			return describeJSONError("table metadata partition-spec", raw, err)
		}
		members["partition-specs"] = json.RawMessage(`[{"spec-id":0,"fields":` + string(raw) + `}]`)
		if missing("default-spec-id") {
			members["default-spec-id"] = json.RawMessage("0")
		}
		if missing("last-partition-id") {
			last := 999 // the id before the first partition field's (1000)
			for _, f := range fields {
				last = max(last, f.FieldID)
			}
			members["last-partition-id"] = json.RawMessage(fmt.Sprint(last))
		}
	}
	if missing("last-partition-id") {
		var specs []PartitionSpec
		if err := json.Unmarshal(members["partition-specs"], &specs); err != nil {
			return describeJSONError("table metadata partition-specs", members["partition-specs"], err)
		}
		last := 999
		for _, s := range specs {
			for _, f := range s.Fields {
				last = max(last, f.FieldID)
			}
		}
		members["last-partition-id"] = json.RawMessage(fmt.Sprint(last))
	}
	if missing("sort-orders") {
		members["sort-orders"] = json.RawMessage(`[{"order-id":0,"fields":[]}]`)
		members["default-sort-order-id"] = json.RawMessage("0")
	}
	if missing("default-sort-order-id") {
		members["default-sort-order-id"] = json.RawMessage("0")
	}
	if missing("last-sequence-number") {
		members["last-sequence-number"] = json.RawMessage("0")
	}
	if missing("table-uuid") {
		// Optional in v1. Nothing Timelake reads keys on it, and a v1 table
		// is never written back, so an empty id is not carried anywhere.
		members["table-uuid"] = json.RawMessage(`""`)
	}
	return nil
}

// V1Manifests are the manifest paths of a v1 snapshot written without a
// manifest list (its "manifests" member), or nil.
func (s *Snapshot) V1Manifests() []string {
	raw, ok := s.Extra["manifests"]
	if !ok {
		return nil
	}
	var paths []string
	if json.Unmarshal(raw, &paths) != nil {
		return nil
	}
	return paths
}
