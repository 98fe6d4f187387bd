package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/table"
)

// version is the release of timelake, set when building one:
//
//	go build -ldflags "-X main.version=0.3.0" ./cmd/timelake
var version = "dev"

// cmdVersion runs `timelake version` (and `timelake --version`).
func cmdVersion(_ context.Context, argv []string, io *io_) error {
	if len(argv) > 0 {
		return usageErr("version takes no arguments")
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprint(io.stdout, versionText(bi))
	return nil
}

// versionText is what `timelake version` prints: the version, the commit
// the build recorded (a build from a git checkout records vcs.revision,
// and vcs.modified when the tree had changes), the Go version and the
// Iceberg format versions read and written.
func versionText(bi *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "timelake %s\n", version)
	if bi != nil {
		var rev, when string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += " (with uncommitted changes)"
			}
			if when != "" {
				rev += ", " + when
			}
			fmt.Fprintf(&b, "commit: %s\n", rev)
		}
	}
	fmt.Fprintf(&b, "go: %s\n", runtime.Version())
	read := make([]string, len(iceberg.ReadableVersions))
	for i, v := range iceberg.ReadableVersions {
		read[i] = strconv.Itoa(v)
	}
	write := make([]string, len(table.WritableFormatVersions))
	for i, v := range table.WritableFormatVersions {
		write[i] = strconv.Itoa(v)
	}
	fmt.Fprintf(&b, "iceberg format: reads v%s, writes v%s (new tables v%d)\n", strings.Join(read, ", v"), strings.Join(write, ", v"), table.DefaultFormatVersion)
	return b.String()
}
