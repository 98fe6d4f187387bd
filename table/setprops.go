package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rollup"
)

// SetProperties commits a metadata version whose properties are the
// current ones with set applied and remove removed (no snapshot: a
// rollup's definition, package rollup). check, when not nil, is called
// with the properties of every base the change is rebuilt on; its error
// ends the commit with nothing changed. The new properties must parse
// (ParseSettings, rollup.Parse), else ErrBadProperty or a *rollup.Error.
func (tb *Table) SetProperties(ctx context.Context, set map[string]string, remove []string, check func(props map[string]string) error) error {
	if tb.writeErr != nil {
		return fmt.Errorf("set properties: %w", tb.writeErr)
	}
	return tb.commitMetadata(ctx, "set properties", tb.loadForWrite, func(md *iceberg.Metadata) error {
		if check != nil {
			if err := check(md.Properties); err != nil {
				return err
			}
		}
		props := maps.Clone(md.Properties)
		if props == nil {
			props = map[string]string{}
		}
		maps.Copy(props, set)
		for _, k := range remove {
			delete(props, k)
		}
		if _, err := ParseSettings(props); err != nil {
			return err
		}
		if _, err := rollup.Parse(props); err != nil {
			return err
		}
		md.Properties = props
		return nil
	})
}

// commitMetadata commits a metadata-only version (no snapshot): change
// edits a copy of the newest metadata, rebuilt on every base the commit
// meets (each loaded with load, which may refuse it); its error ends the
// commit with nothing changed. what names the operation in errors.
func (tb *Table) commitMetadata(ctx context.Context, what string, load func(commit.Version) error, change func(md *iceberg.Metadata) error) error {
	v, err := tb.latest(ctx)
	if err != nil {
		return err
	}
	if !v.Same(tb.version) {
		if err := load(v); err != nil {
			return err
		}
	}
	var built *iceberg.Metadata
	var raw []byte
	var refused error // change's own error: it names what it refused, without what
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := load(base); err != nil {
				return commit.Attempt{}, err
			}
		}
		md := *tb.meta
		if err := change(&md); err != nil {
			refused = err
			return commit.Attempt{}, err
		}
		// The versions trimmed from the log are not kept for
		// deleteOldVersions here (fellOff): as before the builder.
		b, _, err := tb.snapshotBase(base).Next(&md, tb.env.Now().UnixMilli())
		if err != nil {
			return commit.Attempt{}, err
		}
		built, raw = &md, b
		return commit.Attempt{Metadata: b}, nil
	}
	// A metadata-only version has no commit id: ours is the exact bytes written.
	isOurs := func(v commit.Version) bool { return bytes.Equal(v.Raw, raw) }
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isOurs)
	if err != nil && refused != nil && errors.Is(err, refused) {
		return err // "rollup: h: no such rollup", not "set properties: rollup: h: …"
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tb.takeCommitted(cr.Version, built); err != nil {
		return err
	}
	if tb.settings, err = ParseSettings(tb.meta.Properties); err != nil {
		return err
	}
	tb.writeHints(ctx, nil)
	return nil
}
