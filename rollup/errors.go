package rollup

import (
	"errors"
	"fmt"
)

// Error codes. persisted (in user scripts): must not change.
const (
	CodeBadRollup    = "BAD_ROLLUP"      // a definition (property or command-line) that cannot be used
	CodeNoRollup     = "NO_ROLLUP"       // no rollup of that name
	CodeRollupExists = "ROLLUP_EXISTS"   // add of a name already defined
	CodeOverflow     = "ROLLUP_OVERFLOW" // an integer sum past a long
	CodeConflict     = "ROLLUP_CONFLICT" // another refresh committed first: run again
)

// Error is a coded rollup error naming what was wrong: a property key, a
// rollup, a column.
type Error struct {
	Code string
	Key  string // the property key or rollup name concerned, if any
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return "rollup: " + e.Msg
	}
	return fmt.Sprintf("rollup: %s: %s", e.Key, e.Msg)
}

func bad(key, format string, args ...any) error {
	return &Error{Code: CodeBadRollup, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Named returns err as an error of rollup name: err itself when it names
// the rollup already (an *Error whose Key is name), else "rollup NAME: err".
func Named(name string, err error) error {
	if e := (*Error)(nil); errors.As(err, &e) && e.Key == name {
		return err
	}
	return fmt.Errorf("rollup %s: %w", name, err)
}
