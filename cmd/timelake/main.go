// Command timelake creates, appends to and inspects Timelake tables: Apache
// Iceberg tables of time series in a local directory (S3 comes later).
//
//	timelake create TABLE --time COL --series COL[,COL…] --column NAME:TYPE[?] … [--partition day|hour|month] [--prop KEY=VALUE …] [--no-ingest-column]
//	timelake append TABLE FILE… [--format csv|ndjson|parquet] [--batch-rows N] [--time-unit s|ms|us|ns] [--json]
//	timelake info TABLE [--json]
//	timelake latest TABLE [--json]
//	timelake maintain TABLE [--compact] [--retention] [--expire] [--orphans] [--dry-run] [--json]
//
// It is a thin driver: every file is built and every step decided by the core
// packages; this command only reads inputs, opens the store and prints.
// Exit codes: 0 success, 1 failure, 2 a mistake in the command line.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/timelake/timelake/table"
)

const usage = `usage:
  timelake create TABLE --time COL --series COL[,COL…] --column NAME:TYPE[?] … [--partition day|hour|month] [--prop KEY=VALUE …] [--no-ingest-column]
  timelake append TABLE FILE… [--format csv|ndjson|parquet] [--batch-rows N] [--time-unit s|ms|us|ns] [--json]
  timelake info TABLE [--json]
  timelake latest TABLE [--json]
  timelake maintain TABLE [--compact] [--retention] [--expire] [--orphans] [--dry-run] [--json]

TABLE is a directory or a file:// URI. TYPE is long, int, double, float, boolean,
string or timestamptz; NAME:TYPE? makes the column optional. --no-ingest-column
creates a table without _ingest_ts (a duplicate key: the later append wins), for
engines that write every column (Spark). FILE '-' reads stdin.
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(argv) == 0 || argv[0] == "-h" || argv[0] == "--help" || argv[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(argv) == 0 {
			return 2
		}
		return 0
	}
	cmds := map[string]func(context.Context, []string, *io_) error{
		"create":   cmdCreate,
		"append":   cmdAppend,
		"info":     cmdInfo,
		"latest":   cmdLatest,
		"maintain": cmdMaintain,
	}
	cmd, ok := cmds[argv[0]]
	if !ok {
		fmt.Fprintf(stderr, "timelake: unknown command %q\n\n%s", argv[0], usage)
		return 2
	}
	err := cmd(ctx, argv[1:], &io_{stdin: stdin, stdout: stdout, stderr: stderr})
	if err == nil {
		return 0
	}
	var ue *usageError
	if !errors.As(err, &ue) {
		// The stable code lets scripts tell failures apart (table.Code).
		fmt.Fprintf(stderr, "timelake %s: %v [%s]\n", argv[0], err, table.Code(err))
		return 1
	}
	fmt.Fprintf(stderr, "timelake %s: %v\n", argv[0], err)
	{
		fmt.Fprintf(stderr, "\n%s", usage)
		return 2
	}
}

// io_ carries the process's streams to a command.
type io_ struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}
