package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// changeFlags are alter's change flags; each may repeat, and they apply in
// the order given.
var changeFlags = []string{"add", "rename", "widen", "optional", "drop", "required"}

// cmdAlter runs `timelake alter TABLE --add NAME:TYPE | --rename OLD=NEW |
// --widen NAME:TYPE | --optional NAME | --drop NAME … [--json]`: the
// changes, in order, as one schema change (one commit, or none).
func cmdAlter(ctx context.Context, argv []string, io *io_) error {
	spec := alterFlags()
	a, err := parseArgs(argv, spec)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("alter takes one TABLE and at least one of --add, --rename, --widen, --optional, --drop, --upgrade")
	}
	if v := a.one("upgrade", ""); v != "" {
		return alterUpgrade(ctx, a, v, io)
	}
	changes, err := orderedChanges(argv, spec)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		return usageErr("alter needs at least one of --add NAME:TYPE, --rename OLD=NEW, --widen NAME:TYPE, --optional NAME, --drop NAME")
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	res, err := tb.Alter(ctx, changes)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(io.stderr, "timelake alter: warning: %s\n", w)
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, res)
	}
	if !res.Changed {
		fmt.Fprintf(io.stdout, "nothing to change: the schema is as asked (schema %d, version %d)\n", res.SchemaID, res.Version)
		return nil
	}
	fmt.Fprintf(io.stdout, "schema %d is current at version %d: %s\n", res.SchemaID, res.Version, columnList(res.Columns))
	return nil
}

// orderedChanges reads the change flags of argv in the order given (parseArgs
// groups values by flag), each parsed by evolve.Parse. argv has passed
// parseArgs with spec, so every flag in it is known.
func orderedChanges(argv []string, spec flagSpec) ([]evolve.Change, error) {
	var out []evolve.Change
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" {
			break
		}
		if !strings.HasPrefix(s, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(s[2:], "=")
		takes := spec[name] || s3Flags[name] || catalogFlags[name]
		if takes && !hasVal {
			i++
			if i >= len(argv) {
				return nil, usageErr("flag --%s needs a value", name)
			}
			val = argv[i]
		}
		if !contains(changeFlags, name) {
			continue
		}
		c, err := evolve.Parse(name, val)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// columnList renders columns as create takes them: "ts:timestamptz cpu:double?".
func columnList(cols []table.ColumnInfo) string {
	var parts []string
	for _, c := range cols {
		opt := ""
		if !c.Required {
			opt = "?"
		}
		parts = append(parts, fmt.Sprintf("%s:%s%s", c.Name, c.Type, opt))
	}
	return strings.Join(parts, " ")
}

// printSchemaHistory lists the schemas, oldest first, the current one marked.
func printSchemaHistory(w io.Writer, hist []table.SchemaVersion) {
	fmt.Fprintln(w, "\nschemas:")
	for _, s := range hist {
		mark := " "
		if s.Current {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %d  %s\n", mark, s.ID, columnList(s.Columns))
	}
}

// alterUpgrade runs `alter TABLE --upgrade N`, alone: a format upgrade is
// a commit of its own.
func alterUpgrade(ctx context.Context, a *args, v string, io *io_) error {
	for _, f := range changeFlags {
		if len(a.flags[f]) > 0 {
			return usageErr("--upgrade is a commit of its own: give the schema changes in another alter")
		}
	}
	to, err := strconv.Atoi(v)
	if err != nil {
		return usageErr("--upgrade %q: want a format version (3)", v)
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	res, err := tb.UpgradeFormat(ctx, to)
	if err != nil {
		return err
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, res)
	}
	if !res.Changed {
		fmt.Fprintf(io.stdout, "nothing to change: the table is format %d (version %d)\n", res.From, res.Version)
		return nil
	}
	fmt.Fprintf(io.stdout, "upgraded from format %d to %d at version %d\n", res.From, res.To, res.Version)
	return nil
}
