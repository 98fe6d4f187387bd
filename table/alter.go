package table

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// AlterResult tells what an alter committed.
type AlterResult struct {
	Version   int          `json:"version"`   // metadata version committed (or the current one, when nothing changed)
	SchemaID  int          `json:"schema-id"` // the current schema after the alter
	Changed   bool         `json:"changed"`   // false: every change was a no-op and nothing was committed
	Columns   []ColumnInfo `json:"columns"`
	Conflicts int          `json:"conflicts"` // versions other writers won first (each one a re-apply)
	Attempts  int          `json:"attempts"`
	Warnings  []string     `json:"warnings,omitempty"`
}

// Alter commits changes (package schema/evolve) as one new schema: a
// metadata-only version with the schema added to schemas, current-schema-id
// moved, last-column-id raised and, when the time or series columns are
// renamed, their timelake.* properties following. Through a catalog it is
// add-schema and set-current-schema, asserting the current schema id.
//
// Changes are checked against the current schema first: a refused change
// is a *rows.Error (evolve's codes) and nothing is written. When another
// writer commits first, the changes are applied again to its version (as
// Iceberg's own clients do); if they no longer apply (that writer dropped
// or renamed the column) the alter fails with that error, the table as the
// other writer left it.
func (tb *Table) Alter(ctx context.Context, changes []evolve.Change) (*AlterResult, error) {
	if err := tb.alterSupport(); err != nil {
		return nil, fmt.Errorf("alter: %w", err)
	}
	for _, c := range changes {
		if c.Default != nil && tb.meta.FormatVersion < 3 {
			return nil, &rows.Error{Code: evolve.CodeBadChange, Column: c.Column,
				Msg: fmt.Sprintf("a column default needs an Iceberg format 3 table (this one is format %d: timelake alter TABLE --upgrade 3)", tb.meta.FormatVersion)}
		}
	}
	next, _, err := evolve.Apply(tb.schema, tb.meta.LastColumnID, changes)
	if err != nil {
		return nil, err
	}
	if err := requireV3(next, tb.meta.FormatVersion, "alter"); err != nil {
		return nil, err
	}
	if sameSchema(next, tb.schema) {
		return &AlterResult{Version: tb.version.N, SchemaID: tb.meta.CurrentSchemaID, Columns: tb.Columns()}, nil
	}
	var want iceberg.Schema // the schema of the last attempt, to recognise it
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := tb.reload(base); err != nil {
				return commit.Attempt{}, err
			}
			if err := tb.alterSupport(); err != nil {
				return commit.Attempt{}, err
			}
		}
		next, last, err := evolve.Apply(tb.schema, tb.meta.LastColumnID, changes)
		if err != nil {
			return commit.Attempt{}, err
		}
		if err := requireV3(next, tb.meta.FormatVersion, "alter"); err != nil {
			return commit.Attempt{}, err
		}
		md := tb.schemaMeta(next, last)
		want = *md.CurrentSchema()
		// What falls off the metadata log is not kept (fellOff): an alter
		// never deleted old versions, and still does not.
		raw, _, err := tb.snapshotBase(base).Next(md, tb.env.Now().UnixMilli())
		return commit.Attempt{Metadata: raw, Base: tb.meta, Next: md}, err
	}
	isOurs := func(v commit.Version) bool {
		md, err := iceberg.ParseMetadata(v.Raw)
		return err == nil && sameFields(*md.CurrentSchema(), want)
	}
	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isOurs)
	if err != nil {
		return nil, fmt.Errorf("alter: %w", err)
	}
	if err := tb.reload(res.Version); err != nil {
		return nil, fmt.Errorf("alter: %w", err)
	}
	out := &AlterResult{Version: tb.version.N, SchemaID: tb.meta.CurrentSchemaID, Changed: true, Columns: tb.Columns(),
		Conflicts: res.Conflicts, Attempts: res.Attempts}
	tb.writeHints(ctx, func(err error) { out.Warnings = append(out.Warnings, err.Error()) })
	return out, nil
}

// alterSupport is why this writer may not change the schema, or nil: what
// it may not write (a format it does not keep, a catalog's table).
func (tb *Table) alterSupport() error { return tb.writeErr }

// reload makes v current, its schema whatever it is (load follows a
// changed schema, carrying what this Table holds over by field id).
func (tb *Table) reload(v commit.Version) error { return tb.load(v) }

// schemaMeta is tb.meta with next as the current schema: a schema identical
// to one in the history is made current again (as Iceberg's own writers
// do), otherwise it is added with the next schema id; last-column-id
// raised, and the time and series properties following renames.
func (tb *Table) schemaMeta(next *schema.Table, lastColumnID int) *iceberg.Metadata {
	md := *tb.meta
	sch := iceberg.TableSchema(next)
	// Docs and members another engine wrote on a field carry over.
	if cur := tb.meta.CurrentSchema(); cur != nil {
		for i, f := range sch.Fields {
			for _, o := range cur.Fields {
				if o.ID == f.ID {
					sch.Fields[i].Doc, sch.Fields[i].Extra = o.Doc, o.Extra
				}
			}
		}
	}
	id, top := -1, -1
	for _, s := range md.Schemas {
		top = max(top, s.SchemaID)
		if sameFields(s, sch) {
			id = s.SchemaID
		}
	}
	if id < 0 {
		id = top + 1
		sch.SchemaID = id
		md.Schemas = append(slices.Clone(md.Schemas), sch)
	}
	md.CurrentSchemaID = id
	md.LastColumnID = max(md.LastColumnID, lastColumnID)
	md.Properties = maps.Clone(md.Properties)
	md.Properties[iceberg.PropTimeColumn] = next.TimeField().Name
	var series []string
	for _, s := range next.Series {
		series = append(series, next.Fields[s].Name)
	}
	md.Properties[iceberg.PropSeriesColumns] = strings.Join(series, ",")
	if raw, ok := md.Properties[propNameMapping]; ok {
		if updated, err := updateNameMapping(raw, tb.schema, next); err == nil {
			md.Properties[propNameMapping] = updated
		} // a mapping that does not parse is left as it is: reads refuse it by name
	}
	return &md
}

// propNameMapping is Iceberg's name mapping of files without field ids.
// persisted (Iceberg's): must not change.
const propNameMapping = "schema.name-mapping.default"

// updateNameMapping is what Iceberg's own schema updates do to a table's
// name mapping: a renamed column keeps its old names (files written before
// carry them) and gains the new one; an added column is mapped by its name.
func updateNameMapping(raw string, old, next *schema.Table) (string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var mapping []map[string]any
	if err := dec.Decode(&mapping); err != nil {
		return "", err
	}
	if mapping == nil {
		return "", fmt.Errorf("not a list of mapped fields")
	}
	byID := map[string]map[string]any{}
	for _, m := range mapping {
		if names, ok := m["names"].([]any); !ok || slices.ContainsFunc(names, func(n any) bool { _, s := n.(string); return !s }) {
			return "", fmt.Errorf("an entry without a list of names")
		}
		if id, ok := m["field-id"].(json.Number); ok {
			byID[id.String()] = m
		}
	}
	for _, f := range next.Fields {
		id := strconv.Itoa(f.ID)
		m, ok := byID[id]
		if !ok {
			if old.Index(f.Name) >= 0 || slices.ContainsFunc(old.Fields, func(o schema.Field) bool { return o.ID == f.ID }) {
				continue // a column the mapping leaves out stays out
			}
			mapping = append(mapping, map[string]any{"field-id": json.Number(id), "names": []any{f.Name}})
			continue
		}
		names, _ := m["names"].([]any)
		if !slices.Contains(names, any(f.Name)) {
			m["names"] = append(names, f.Name)
		}
	}
	b, err := json.Marshal(mapping)
	return string(b), err
}

// sameFields reports whether two schemas have the same fields (ids, names,
// types, required) and identifier fields, whatever their schema ids.
func sameFields(a, b iceberg.Schema) bool {
	return slices.Equal(a.IdentifierFieldIDs, b.IdentifierFieldIDs) &&
		slices.EqualFunc(a.Fields, b.Fields, func(x, y iceberg.SchemaField) bool {
			return x.ID == y.ID && x.Name == y.Name && x.Required == y.Required && string(x.Type) == string(y.Type)
		})
}

// SchemaVersion is one schema of the table's history.
type SchemaVersion struct {
	ID      int          `json:"id"`
	Current bool         `json:"current"`
	Columns []ColumnInfo `json:"columns"`
}

// SchemaHistory lists the table's schemas, oldest first (as metadata keeps
// them), with the current one marked. A nested column Timelake reads is
// listed with its type's text ("map<string, string>"); a column of a type
// Timelake does not read, with its Iceberg type's JSON.
func (tb *Table) SchemaHistory() []SchemaVersion {
	out := make([]SchemaVersion, 0, len(tb.meta.Schemas))
	for _, s := range tb.meta.Schemas {
		v := SchemaVersion{ID: s.SchemaID, Current: s.SchemaID == tb.meta.CurrentSchemaID, Columns: []ColumnInfo{}}
		for _, f := range s.Fields {
			typ := f.PrimitiveType()
			if nt, err := schema.ParseNested(f.Type); typ == "" && err == nil {
				typ = nt.String()
			} else if typ == "" {
				typ = string(f.Type)
			}
			v.Columns = append(v.Columns, ColumnInfo{ID: f.ID, Name: f.Name, Type: typ, Required: f.Required})
		}
		out = append(out, v)
	}
	return out
}
