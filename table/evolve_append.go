package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// An append that evolves the schema: the input's unknown columns are added
// (evolve.Missing) and the rows committed in the same version as the new
// schema. The append runs as usual (Append) on a version that is not
// committed: the base with the new schema made current (schemaMeta). Its
// rows and the last-value index are already in the new schema; the index
// of the base is widened to it by field id (the added columns null).

// EvolvedSchema is the schema the changes (Add changes from
// evolve.Missing) give the table: the schema to align an evolving append's
// rows to.
func (tb *Table) EvolvedSchema(changes []evolve.Change) (*schema.Table, error) {
	if len(changes) == 0 {
		return tb.schema, nil
	}
	next, _, err := evolve.Apply(tb.schema, tb.meta.LastColumnID, changes)
	if err != nil {
		return nil, err
	}
	return next, requireV3(next, tb.meta.FormatVersion, "append")
}

// AppendEvolved commits changes and the batch b as one version: b must be
// aligned to EvolvedSchema(changes). Without changes it is Append. When
// another writer commits first, the append is rebased if that writer left
// the schema as it was (the changes applied again give the same field ids)
// or made the very same change. After any other schema change its data
// files carry field ids the table now gives other columns: it starts again
// on the newest version (at most maxEvolveRestarts times), its new columns
// added again by name and its other rows conformed by field id
// (rows.Conform); rows that no longer conform fail it with ErrSchemaMismatch
// naming the column, nothing committed.
func (tb *Table) AppendEvolved(ctx context.Context, changes []evolve.Change, b *rows.Batch) (*AppendResult, error) {
	return tb.AppendEvolvedWith(ctx, changes, b, AppendOptions{})
}

// AppendEvolvedWith is AppendEvolved with options (a caller's commit id).
func (tb *Table) AppendEvolvedWith(ctx context.Context, changes []evolve.Change, b *rows.Batch, opt AppendOptions) (*AppendResult, error) {
	for try := 0; ; try++ {
		old := tb.schema
		res, err := tb.appendEvolvedOnce(ctx, changes, b, opt)
		var raced *evolveRaced
		if !errors.As(err, &raced) {
			return res, err
		}
		if try == maxEvolveRestarts {
			return nil, raced.err
		}
		v, err := tb.latest(ctx)
		if err != nil {
			return nil, fmt.Errorf("append: %w", err)
		}
		if err := tb.reload(v); err != nil {
			return nil, fmt.Errorf("append: %w", err)
		}
		if changes, b, err = tb.carryOver(old, b); err != nil {
			return nil, err
		}
	}
}

// maxEvolveRestarts bounds the times an evolving append starts again after
// other writers' schema changes.
const maxEvolveRestarts = 3

// evolveRaced is an evolving append that lost to another schema change: it
// can start again on the winner (AppendEvolved).
type evolveRaced struct{ err error }

func (e *evolveRaced) Error() string { return e.err.Error() }
func (e *evolveRaced) Unwrap() error { return e.err }

// Retarget re-targets a later batch of an evolving append that spans
// several commits (the CLI's --batch-rows): b was aligned to base (the
// table's schema when the input was opened) plus the columns the first
// batch added. When a commit since restarted on another writer's schema
// change, the table now gives those columns other field ids, or gave their
// ids to other columns: b is conformed to the current schema as AppendEvolved
// does after a restart (base columns by field id, added columns by name),
// with the changes still to make (none once the first batch committed).
// A batch already in the current schema comes back as it is.
func (tb *Table) Retarget(base *schema.Table, b *rows.Batch) ([]evolve.Change, *rows.Batch, error) {
	if b == nil || sameSchema(b.Schema, tb.schema) {
		return nil, b, nil
	}
	return tb.carryOver(base, b)
}

// carryOver re-targets b, aligned to old plus the columns an evolving
// append added, to the current schema: the added columns are added again
// (by name: another writer may have added the same one, or taken their
// ids), the others follow by field id.
func (tb *Table) carryOver(old *schema.Table, b *rows.Batch) ([]evolve.Change, *rows.Batch, error) {
	var ours []evolve.Column
	for _, f := range b.Schema.Fields {
		if old.IndexOfID(f.ID) < 0 {
			ours = append(ours, evolve.Column{Name: f.Name, Type: f.Type})
		}
	}
	changes := evolve.Missing(tb.schema, ours)
	next, err := tb.EvolvedSchema(changes)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: after another writer's schema change: %w", ErrSchemaMismatch, err)
	}
	relabelled := *b.Schema
	relabelled.Fields = append([]schema.Field(nil), b.Schema.Fields...)
	for i, f := range relabelled.Fields {
		if old.IndexOfID(f.ID) >= 0 {
			continue
		}
		j := next.Index(f.Name)
		if j < 0 { // cannot be: Missing added every name the table lacks
			return nil, nil, fmt.Errorf("%w: column %q is not in the evolved schema", ErrSchemaMismatch, f.Name)
		}
		if next.Fields[j].Type != f.Type {
			return nil, nil, fmt.Errorf("%w: another writer added column %q meanwhile as %v; these rows hold %v for it", ErrSchemaMismatch, f.Name, next.Fields[j].Type, f.Type)
		}
		relabelled.Fields[i].ID = next.Fields[j].ID
	}
	rb := *b
	rb.Schema = &relabelled
	cb, err := rows.Conform(&rb, next)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: after another writer's schema change: %v", ErrSchemaMismatch, err)
	}
	return changes, cb, nil
}

// appendEvolvedOnce is one try of AppendEvolved.
func (tb *Table) appendEvolvedOnce(ctx context.Context, changes []evolve.Change, b *rows.Batch, opt AppendOptions) (*AppendResult, error) {
	if len(changes) == 0 {
		return tb.AppendWith(ctx, b, opt)
	}
	if err := tb.alterSupport(); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	old := tb.schema
	next, last, err := evolve.Apply(old, tb.meta.LastColumnID, changes)
	if err != nil {
		return nil, err
	}
	if err := requireV3(next, tb.meta.FormatVersion, "append"); err != nil {
		return nil, err
	}
	if sameSchema(next, old) {
		return tb.AppendWith(ctx, b, opt)
	}
	if b == nil || !sameSchema(b.Schema, next) {
		return nil, fmt.Errorf("%w: the batch was not aligned to the evolved schema", ErrSchemaMismatch)
	}
	saved := *tb
	restore := func() {
		tb.version, tb.meta, tb.schema, tb.settings, tb.writeErr, tb.lastIndex = saved.version, saved.meta, saved.schema, saved.settings, saved.writeErr, saved.lastIndex
	}
	// becomeEvolved makes the known version (a base) look as if the schema
	// change were in it: the metadata the append builds on, and its index.
	becomeEvolved := func(ctx context.Context) error {
		if err := tb.widenIndex(ctx, next); err != nil {
			return err
		}
		tb.meta, tb.schema = tb.schemaMeta(next, last), next
		return nil
	}
	if err := becomeEvolved(ctx); err != nil {
		restore()
		return nil, err
	}
	tb.rebaseHook = func(ctx context.Context, base commit.Version) error {
		if err := tb.reload(base); err != nil {
			return err
		}
		won := tb.schema
		if sameSchema(won, next) { // the winner made the same change
			return tb.writeErr
		}
		// The winner left the schema alone: the changes applied again must
		// give the ids the data files were written with.
		again, _, err := evolve.Apply(won, tb.meta.LastColumnID, changes)
		if err == nil && sameSchema(won, old) && sameSchema(again, next) {
			if err := tb.alterSupport(); err != nil {
				return err
			}
			return becomeEvolved(ctx)
		}
		return &evolveRaced{fmt.Errorf("%w: %s changed the schema meanwhile (%s); the rows were written for %s",
			ErrSchemaMismatch, base.Name(), describeDiff(old, won), describeDiff(old, next))}
	}
	defer func() { tb.rebaseHook = nil }()
	res, err := tb.AppendWith(ctx, b, opt)
	if err != nil {
		restore()
		return nil, err
	}
	idx := tb.lastIndex
	if err := tb.reload(tb.version); err != nil {
		return nil, fmt.Errorf("append: committed as version %d, then: %w", res.Version, err)
	}
	tb.lastIndex = idx
	return res, nil
}

// rebaseTo loads base for a commit's rebuild: loadForWrite, or what an
// evolving append does instead (AppendEvolved).
func (tb *Table) rebaseTo(ctx context.Context, base commit.Version) error {
	if tb.rebaseHook != nil {
		return tb.rebaseHook(ctx, base)
	}
	return tb.loadForWrite(base)
}

// widenIndex caches the current snapshot's last-value index widened to
// next: columns by field id, the added ones null.
func (tb *Table) widenIndex(ctx context.Context, next *schema.Table) error {
	parent := tb.meta.CurrentSnapshot()
	if parent == nil {
		return nil
	}
	st, err := tb.indexOf(ctx, parent)
	if err != nil {
		if unsupportedIndex(err) != nil {
			return nil // the append writes no index either (Append says why)
		}
		return err
	}
	if st.idx == nil {
		return nil
	}
	wide := &rows.Batch{Schema: next, Cols: make([]rows.Column, len(next.Fields)), Len: st.idx.Len}
	for i, f := range next.Fields {
		j := st.idx.Schema.IndexOfID(f.ID)
		if j < 0 {
			wide.Cols[i] = rows.MissingOf(f, st.idx.Len)
			continue
		}
		wide.Cols[i] = st.idx.Cols[j]
	}
	st.idx = wide
	tb.lastIndex = &st
	return nil
}

// describeDiff names the columns b has that a lacks, by name and id.
func describeDiff(a, b *schema.Table) string {
	out := ""
	for _, f := range b.Fields {
		if a.IndexOfID(f.ID) < 0 || a.Fields[a.IndexOfID(f.ID)] != f {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("column %q (id %d, %v)", f.Name, f.ID, f.Type)
		}
	}
	if out == "" {
		return "no new column"
	}
	return out
}
