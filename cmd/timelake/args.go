package main

import (
	"fmt"
	"strings"
)

// args is a command line split into positionals and --flags. Flags may come
// before or after positionals (`timelake append TABLE --format csv FILE`),
// take their value as `--name value` or `--name=value`, and may repeat.
type args struct {
	pos   []string
	flags map[string][]string
	bools map[string]bool
}

// flagSpec says which flags a command takes and whether each takes a value.
type flagSpec map[string]bool // name → takes a value

// s3Flags are taken by every command: they override the AWS environment for
// an s3:// TABLE. Credentials have no flags on purpose: a command line is
// visible to other users of the machine (ps), so they come from the
// environment only.
var s3Flags = flagSpec{"endpoint": true, "region": true, "virtual-hosted": false}

func parseArgs(argv []string, spec flagSpec) (*args, error) {
	a := &args{flags: map[string][]string{}, bools: map[string]bool{}}
	merged := flagSpec{}
	for k, v := range s3Flags {
		merged[k] = v
	}
	for k, v := range catalogFlags {
		merged[k] = v
	}
	for k, v := range spec {
		merged[k] = v
	}
	spec = merged
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" {
			a.pos = append(a.pos, argv[i+1:]...)
			break
		}
		if !strings.HasPrefix(s, "--") || s == "-" {
			if strings.HasPrefix(s, "-") && s != "-" {
				return nil, usageErr("unknown flag %s (flags are spelled --name)", s)
			}
			a.pos = append(a.pos, s)
			continue
		}
		name, val, hasVal := strings.Cut(s[2:], "=")
		takes, ok := spec[name]
		if !ok {
			return nil, usageErr("unknown flag --%s", name)
		}
		if !takes {
			if hasVal {
				return nil, usageErr("flag --%s takes no value", name)
			}
			a.bools[name] = true
			continue
		}
		if !hasVal {
			if i+1 >= len(argv) {
				return nil, usageErr("flag --%s needs a value", name)
			}
			i++
			val = argv[i]
		}
		a.flags[name] = append(a.flags[name], val)
	}
	return a, nil
}

// one returns the flag's value (the last if repeated) or def.
func (a *args) one(name, def string) string {
	if v := a.flags[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return def
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }
