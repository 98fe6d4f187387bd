package table

import (
	"bytes"
	"context"
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
	v, err := tb.latest(ctx)
	if err != nil {
		return err
	}
	if !v.Same(tb.version) {
		if err := tb.loadForWrite(v); err != nil {
			return err
		}
	}
	var built *iceberg.Metadata
	var raw []byte
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := tb.loadForWrite(base); err != nil {
				return commit.Attempt{}, err
			}
		}
		if check != nil {
			if err := check(tb.meta.Properties); err != nil {
				return commit.Attempt{}, err
			}
		}
		props := maps.Clone(tb.meta.Properties)
		if props == nil {
			props = map[string]string{}
		}
		maps.Copy(props, set)
		for _, k := range remove {
			delete(props, k)
		}
		if _, err := ParseSettings(props); err != nil {
			return commit.Attempt{}, err
		}
		if _, err := rollup.Parse(props); err != nil {
			return commit.Attempt{}, err
		}
		md := *tb.meta
		md.Properties = props
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
	if err != nil {
		return fmt.Errorf("set properties: %w", err)
	}
	if err := tb.adopt(cr.Version, built); err != nil {
		return err
	}
	if tb.settings, err = ParseSettings(tb.meta.Properties); err != nil {
		return err
	}
	tb.writeHints(ctx, nil)
	return nil
}
