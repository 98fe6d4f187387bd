// Command timelake creates, appends to and inspects Timelake tables: Apache
// Iceberg tables of time series in a local directory or an S3 bucket, kept
// by storage alone or in an Iceberg REST catalog.
//
//	timelake create TABLE --time COL --series COL[,COL…] --column NAME:TYPE[?] … [--partition day|hour|month] [--prop KEY=VALUE …] [--no-ingest-column] [--location URI]
//	timelake adopt TABLE --time COL [--series COL[,COL…]] [--upgrade] [--dry-run] [--json] | --suggest
//	timelake append TABLE FILE… [--format csv|ndjson|parquet|arrow] [--batch-rows N] [--commit-every N] [--time-unit s|ms|us|ns] [--evolve [--column NAME:TYPE …]] [--json]
//	timelake alter TABLE --add NAME:TYPE | --rename OLD=NEW | --widen NAME:TYPE | --optional NAME | --drop NAME … [--json]
//	timelake info TABLE [--json]
//	timelake latest TABLE [--json]
//	timelake scan TABLE [--from TIME] [--to TIME] [--series COL=V[,V…]]… [--columns C,…] [--as-of SNAPSHOT|TIME] [--raw] [--limit N] [--format csv|ndjson|parquet|arrow] [-o FILE] [--stats]
//	timelake maintain TABLE [--compact] [--retention] [--expire] [--orphans] [--dry-run] [--json]
//	timelake register NAMESPACE.TABLE --catalog URI --from TABLE [--json]
//	timelake rollup add TABLE NAME --every 1h --agg cpu:min,max,avg,last … [--retention 365d] | list | drop | refresh
//
// TABLE is a directory, a file:// or an s3:// URI; with a catalog named
// (--catalog URI or TIMELAKE_CATALOG_URI, --warehouse W or
// TIMELAKE_CATALOG_WAREHOUSE) it is NAMESPACE.TABLE in that catalog, and the
// catalog decides each version. The catalog's secrets come from the
// environment only (TIMELAKE_CATALOG_TOKEN, or TIMELAKE_CATALOG_CREDENTIAL as
// CLIENT_ID:SECRET) and are never printed. A catalog table's files are
// read and written where its location says (file:// or s3://): S3 settings
// the user gives win, the catalog's vended ones fill the rest (catalog.go).
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

	"github.com/timelake/timelake/redact"
	"github.com/timelake/timelake/table"
)

const usage = `usage:
  timelake create TABLE --time COL --series COL[,COL…] --column NAME:TYPE[?] … [--partition day|hour|month] [--prop KEY=VALUE …] [--no-ingest-column] [--location URI]
  timelake adopt TABLE --time COL [--series COL[,COL…]] [--upgrade] [--dry-run] [--json] | --suggest [--json]
  timelake append TABLE FILE… [--format csv|ndjson|parquet|arrow] [--batch-rows N] [--commit-every N] [--time-unit s|ms|us|ns]
                [--evolve [--column NAME:TYPE …]] [--json]
  timelake alter TABLE --add NAME:TYPE | --rename OLD=NEW | --widen NAME:TYPE | --optional NAME | --drop NAME … [--json]
  timelake info TABLE [--json]
  timelake latest TABLE [--json]
  timelake scan TABLE [--from TIME] [--to TIME] [--series COL=V[,V…]]… [--columns C,…] [--as-of SNAPSHOT|TIME]
                [--raw] [--limit N] [--format csv|ndjson|parquet|arrow] [-o FILE] [--stats]
  timelake maintain TABLE [--compact] [--retention] [--expire] [--orphans] [--dry-run] [--json]
  timelake register NAMESPACE.TABLE --catalog URI --from TABLE [--json]
  timelake rollup add TABLE NAME --every 1m|5m|15m|1h|1d --agg COL:FUNC[,FUNC…] … [--retention D] [--inline] [--json]
  timelake rollup list TABLE [--json]
  timelake rollup drop TABLE NAME
  timelake rollup refresh TABLE [NAME] [--byte-cap BYTES] [--json]

TABLE is a directory, a file:// URI or s3://bucket/prefix. TYPE is long, int,
double, float, boolean, string, timestamptz or timestamp (no zone); NAME:TYPE? makes the column
optional. --no-ingest-column creates a table without _ingest_ts (a duplicate
key: the later append wins), for engines that write every column (Spark).
FILE '-' reads stdin.

adopt records the key (time and series columns) of a table another engine
created, in a metadata-only commit, so that Timelake appends to and
maintains it; before that info and scan read it as stored. --suggest
proposes a key from its partition spec, sort order and identifier fields.

alter changes the schema in one commit, the changes applied in the order
given: --add a column (always optional), --rename one, --widen int to long or
float to double, --optional makes a value column optional, --drop removes a
value column (--required NAME of an optional column is refused: Iceberg never
makes one required). The time and series columns can be renamed, never
dropped or retyped. Files written before stay valid (columns are matched by field id).
append commits all its input (every FILE, every --batch-rows batch) as one
snapshot, or nothing: batches are written and uploaded as they are read, and
a failure deletes them. --commit-every N commits every N batches instead;
after a failure the error (and --json) says what was committed and the data
row (and line) to resume from.
append --evolve adds the input's unknown columns (optional) in the commit of
its first batch: typed from Parquet and Arrow, from --column NAME:TYPE for
CSV and NDJSON (else string; NDJSON numbers double, true/false boolean).

scan prints rows sorted by (series…, time), one per key (--raw: every stored
row) as CSV with a header (or --format ndjson; parquet: one file built in
memory; arrow: an Arrow IPC stream, a record batch per 8192 rows) to stdout
or -o FILE. TIME is
RFC 3339 (2026-11-29T10:00:00Z), a date (2026-11-29) or epoch milliseconds;
--to is exclusive. --as-of takes a snapshot id or a time. --stats prints the
plan and cost (files, row groups, pages, requests, bytes) as JSON on stderr.

S3 (every command): --endpoint URL, --region NAME, --virtual-hosted; the
credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN.

Iceberg REST catalogs (every command): --catalog URI (or TIMELAKE_CATALOG_URI)
makes TABLE NAMESPACE.TABLE in that catalog (levels joined by dots: a.b.table);
--warehouse W (or TIMELAKE_CATALOG_WAREHOUSE). Secrets from the environment
only: TIMELAKE_CATALOG_TOKEN (a bearer token) or TIMELAKE_CATALOG_CREDENTIAL
(CLIENT_ID:SECRET). create --location URI places the table (default: the
catalog chooses). register moves the storage-only table --from TABLE into the
catalog; storage-only writers refuse it afterwards ([CATALOG_TABLE]).

rollup add defines a rollup of TABLE (FUNC: count, sum, min, max, avg, first,
last) kept as an Iceberg table at TABLE__rollup_NAME (with a catalog: the
table NS.TABLE__rollup_NAME of the same catalog; rollup drop drops it from the
catalog without purge); rollup refresh (and maintain, and with --inline every
append) recomputes the buckets that changed since its last refresh.
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
		"adopt":    cmdAdopt,
		"append":   cmdAppend,
		"alter":    cmdAlter,
		"info":     cmdInfo,
		"latest":   cmdLatest,
		"scan":     cmdScan,
		"maintain": cmdMaintain,
		"register": cmdRegister,
		"rollup":   cmdRollup,
	}
	// Every secret the process holds is scrubbed from what it prints (an
	// echoing server puts them into errors): stderr always, stdout but for
	// the rows scan and latest print, which are the user's data.
	keepEnvSecrets()
	stderr = secrets.Writer(stderr)
	if argv[0] != "scan" && argv[0] != "latest" {
		stdout = secrets.Writer(stdout)
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

// secrets are the process's secrets: the AWS secret key and session token,
// the catalog's token or client secret (keepEnvSecrets), and what the
// catalog client fetches or is vended (restcatalog.Config.Secrets). Only
// ever added to.
var secrets redact.Set

// keepEnvSecrets adds the secrets of the environment to secrets.
func keepEnvSecrets() {
	secrets.Add(os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"), os.Getenv(envCatalogToken))
	if c := os.Getenv(envCatalogCredential); c != "" {
		secrets.AddCredential(c)
	}
}
