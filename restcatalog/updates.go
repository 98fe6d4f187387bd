package restcatalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/timelake/timelake/iceberg"
)

// Update is one of the spec's TableUpdate objects, as JSON members
// ("action" and its fields).
type Update map[string]any

// Requirement is one of the spec's TableRequirement objects ("type" and its fields).
type Requirement map[string]any

// Action names. persisted (the REST spec's): must not change.
const (
	actionAddSnapshot      = "add-snapshot"
	actionSetSnapshotRef   = "set-snapshot-ref"
	actionRemoveSnapshots  = "remove-snapshots"
	actionRemoveRef        = "remove-snapshot-ref"
	actionSetProperties    = "set-properties"
	actionRemoveProperties = "remove-properties"
	actionSetStatistics    = "set-statistics"
	actionRemoveStatistics = "remove-statistics"
	actionAddSchema        = "add-schema"
	actionSetCurrentSchema = "set-current-schema"
	actionUpgradeFormat    = "upgrade-format-version"
	actionAddSortOrder     = "add-sort-order"
	actionSetDefaultSort   = "set-default-sort-order"
)

// Diff returns the updates that turn base into next, and the requirements
// that make them safe: the table is still base's (assert-table-uuid) and
// main still points where it did (assert-ref-snapshot-id), and the schema
// is the one the change was built for (assert-current-schema-id): a
// concurrent schema change is a conflict, and the change is rebuilt on the
// winner. A schema change (schemas added at the end, current-schema-id
// moved) is add-schema and set-current-schema, asserting also the last
// assigned field id when a schema is added. A difference the
// updates cannot express (a schema removed or rewritten, partition spec,
// sort order, location, format version) is an error: Timelake does not
// change those.
//
// The order matters to the catalog: schemas first (a new snapshot may name
// the new schema), then statistics of removed snapshots, removed snapshots
// and refs, new snapshots, refs, statistics, then properties.
func Diff(base, next *iceberg.Metadata) ([]Update, []Requirement, error) {
	if base.TableUUID != next.TableUUID {
		return nil, nil, fmt.Errorf("restcatalog: the change is for table %s, not %s", next.TableUUID, base.TableUUID)
	}
	for _, d := range []struct {
		what string
		a, b any
	}{
		{"location", base.Location, next.Location},
		{"partition specs", base.PartitionSpecs, next.PartitionSpecs},
		{"default partition spec", base.DefaultSpecID, next.DefaultSpecID},
	} {
		if !reflect.DeepEqual(d.a, d.b) {
			return nil, nil, fmt.Errorf("restcatalog: the change alters the table's %s, which a commit of Timelake's does not send", d.what)
		}
	}
	adoptUps, adoptReqs, err := adoptUpdates(base, next)
	if err != nil {
		return nil, nil, err
	}
	ups, schemaReqs, err := schemaUpdates(base, next)
	if err != nil {
		return nil, nil, err
	}
	ups = append(adoptUps, ups...)
	schemaReqs = append(schemaReqs, adoptReqs...)

	baseSnaps := map[int64]*iceberg.Snapshot{}
	for i := range base.Snapshots {
		baseSnaps[base.Snapshots[i].SnapshotID] = &base.Snapshots[i]
	}
	nextSnaps := map[int64]bool{}
	var added []*iceberg.Snapshot
	for i := range next.Snapshots {
		s := &next.Snapshots[i]
		nextSnaps[s.SnapshotID] = true
		if b, ok := baseSnaps[s.SnapshotID]; ok {
			if b.ManifestList != s.ManifestList || b.SequenceNumber != s.SequenceNumber {
				return nil, nil, fmt.Errorf("restcatalog: snapshot %d differs from the base's", s.SnapshotID)
			}
			continue
		}
		added = append(added, s)
	}
	var removed []int64
	for _, s := range base.Snapshots {
		if !nextSnaps[s.SnapshotID] {
			removed = append(removed, s.SnapshotID)
		}
	}

	// Statistics: by snapshot id.
	baseStats := statsBySnapshot(base.Statistics)
	nextStats := statsBySnapshot(next.Statistics)
	for _, id := range sortedKeys(baseStats) {
		if _, ok := nextStats[id]; !ok {
			ups = append(ups, Update{"action": actionRemoveStatistics, "snapshot-id": id})
		}
	}
	if len(removed) > 0 {
		ups = append(ups, Update{"action": actionRemoveSnapshots, "snapshot-ids": removed})
	}
	for _, name := range slices.Sorted(maps.Keys(base.Refs)) {
		if _, ok := next.Refs[name]; !ok {
			ups = append(ups, Update{"action": actionRemoveRef, "ref-name": name})
		}
	}
	for _, s := range added {
		ups = append(ups, Update{"action": actionAddSnapshot, "snapshot": s})
	}
	for _, name := range slices.Sorted(maps.Keys(next.Refs)) {
		r := next.Refs[name]
		if b, ok := base.Refs[name]; ok && reflect.DeepEqual(b, r) {
			continue
		}
		u, err := refUpdate(name, r)
		if err != nil {
			return nil, nil, err
		}
		ups = append(ups, u)
	}
	for _, id := range sortedKeys(nextStats) {
		st := nextStats[id]
		if b, ok := baseStats[id]; ok && sameStatistics(b, st) {
			continue
		}
		raw, err := st.JSON()
		if err != nil {
			return nil, nil, err
		}
		ups = append(ups, Update{"action": actionSetStatistics, "snapshot-id": id, "statistics": raw})
	}

	set := map[string]string{}
	var gone []string
	for k, v := range next.Properties {
		if bv, ok := base.Properties[k]; !ok || bv != v {
			set[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(base.Properties)) {
		if _, ok := next.Properties[k]; !ok {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		ups = append(ups, Update{"action": actionRemoveProperties, "removals": gone})
	}
	if len(set) > 0 {
		ups = append(ups, Update{"action": actionSetProperties, "updates": set})
	}

	reqs := []Requirement{
		{"type": "assert-table-uuid", "uuid": base.TableUUID},
		{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": mainSnapshot(base)},
	}
	return ups, append(reqs, schemaReqs...), nil
}

// schemaUpdates are the updates of a schema change, and its requirements.
func schemaUpdates(base, next *iceberg.Metadata) ([]Update, []Requirement, error) {
	if len(next.Schemas) < len(base.Schemas) || !reflect.DeepEqual(base.Schemas, next.Schemas[:len(base.Schemas)]) {
		return nil, nil, fmt.Errorf("restcatalog: the change removes or rewrites a schema, which a commit of Timelake's does not send")
	}
	added := next.Schemas[len(base.Schemas):]
	// Every commit asserts the schema it was built for: an append racing
	// another writer's schema change is a conflict, and its rebuild checks
	// its rows against the new schema (instead of the catalog taking them
	// unchecked).
	reqs := []Requirement{{"type": "assert-current-schema-id", "current-schema-id": base.CurrentSchemaID}}
	if len(added) == 0 && base.CurrentSchemaID == next.CurrentSchemaID {
		return nil, reqs, nil
	}
	var ups []Update
	for _, s := range added {
		ups = append(ups, Update{"action": actionAddSchema, "schema": s, "last-column-id": next.LastColumnID})
	}
	if base.CurrentSchemaID != next.CurrentSchemaID {
		// -1 is "the schema last added": the catalog may number it otherwise.
		id := next.CurrentSchemaID
		if len(added) > 0 && added[len(added)-1].SchemaID == id {
			id = -1
		}
		ups = append(ups, Update{"action": actionSetCurrentSchema, "schema-id": id})
	}
	if len(added) > 0 {
		reqs = append(reqs, Requirement{"type": "assert-last-assigned-field-id", "last-assigned-field-id": base.LastColumnID})
	}
	return ups, reqs, nil
}

// mainSnapshot is main's snapshot id, or nil (JSON null: the ref must not exist).
func mainSnapshot(md *iceberg.Metadata) any {
	if r, ok := md.Refs["main"]; ok {
		return r.SnapshotID
	}
	return nil
}

// refUpdate is set-snapshot-ref: the ref's own JSON (retention fields
// included) with the action and the name.
func refUpdate(name string, r iceberg.SnapshotRef) (Update, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	// UseNumber: a snapshot id is 64 bits; through float64 it would lose
	// its low digits and the catalog would refuse a ref to an unknown snapshot.
	u := Update{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&u); err != nil {
		return nil, err
	}
	u["action"] = actionSetSnapshotRef
	u["ref-name"] = name
	return u, nil
}

func statsBySnapshot(s []iceberg.StatisticsFile) map[int64]iceberg.StatisticsFile {
	out := make(map[int64]iceberg.StatisticsFile, len(s))
	for _, f := range s {
		out[f.SnapshotID] = f
	}
	return out
}

func sameStatistics(a, b iceberg.StatisticsFile) bool {
	ja, err1 := a.JSON()
	jb, err2 := b.JSON()
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func sortedKeys[V any](m map[int64]V) []int64 { return slices.Sorted(maps.Keys(m)) }

// adoptUpdates are the updates of adopting a table (table.Adopt): a format
// upgrade (1 to 2), sort orders added, the default sort order moved. Other
// changes to the sort orders, or a downgrade, are not sent.
func adoptUpdates(base, next *iceberg.Metadata) ([]Update, []Requirement, error) {
	var ups []Update
	var reqs []Requirement
	switch {
	case next.FormatVersion < base.FormatVersion:
		return nil, nil, fmt.Errorf("restcatalog: the change lowers the format version from %d to %d", base.FormatVersion, next.FormatVersion)
	case next.FormatVersion > base.FormatVersion:
		ups = append(ups, Update{"action": actionUpgradeFormat, "format-version": next.FormatVersion})
	}
	had := map[int]iceberg.SortOrder{}
	for _, o := range base.SortOrders {
		had[o.OrderID] = o
	}
	added := -1
	for _, o := range next.SortOrders {
		b, ok := had[o.OrderID]
		switch {
		case ok && !reflect.DeepEqual(b, o):
			return nil, nil, fmt.Errorf("restcatalog: the change alters sort order %d, which a commit of Timelake's does not send", o.OrderID)
		case !ok:
			ups = append(ups, Update{"action": actionAddSortOrder, "sort-order": o})
			added = o.OrderID
		}
		delete(had, o.OrderID)
	}
	if len(had) > 0 {
		return nil, nil, fmt.Errorf("restcatalog: the change removes sort orders, which a commit of Timelake's does not send")
	}
	if next.DefaultSortOrderID != base.DefaultSortOrderID {
		id := next.DefaultSortOrderID
		if id == added {
			id = -1 // the order just added, whatever id the catalog gives it
		}
		ups = append(ups, Update{"action": actionSetDefaultSort, "sort-order-id": id})
		reqs = append(reqs, Requirement{"type": "assert-default-sort-order-id", "default-sort-order-id": base.DefaultSortOrderID})
	}
	return ups, reqs, nil
}
