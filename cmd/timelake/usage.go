package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// command is one of timelake's commands: how it runs, the flags it parses
// (usage_test.go checks that its usage names every one, and no other) and
// its usage text.
type command struct {
	name string
	run  func(context.Context, []string, *io_) error
	// flags are the flag sets it parses, besides s3Flags and
	// catalogFlags (when common); rollup has one per subcommand.
	flags []flagSpec
	// common: the command takes the S3 and catalog flags (parseArgs).
	common bool
	// usage is its synopsis lines ("timelake NAME …", continuation lines
	// indented), a blank line, and what it does.
	usage string
}

// The flag sets of the commands, shared by the command and its usage test.
var (
	createFlags = flagSpec{"time": true, "series": true, "column": true, "partition": true, "prop": true, "json": false,
		"no-ingest-column": false, "location": true, "format-version": true}
	adoptFlags  = flagSpec{"time": true, "series": true, "suggest": false, "dry-run": false, "upgrade": false, "json": false}
	appendFlags = flagSpec{"format": true, "batch-rows": true, "time-unit": true, "ignore-unknown": false, "json": false,
		"evolve": false, "column": true, "commit-every": true}
	infoFlags    = flagSpec{"json": false, "verbose": false}
	latestFlags  = flagSpec{"json": false}
	historyFlags = flagSpec{"json": false, "limit": true}
	scanFlags    = flagSpec{"from": true, "to": true, "series": true, "where": true, "columns": true, "as-of": true,
		"raw": false, "limit": true, "format": true, "output": true, "stats": false}
	maintainFlags       = flagSpec{"compact": false, "retention": false, "expire": false, "orphans": false, "dry-run": false, "json": false}
	deleteFlags         = flagSpec{"series": true, "from": true, "to": true, "dry-run": false, "json": false, "purge": false, "now": false}
	registerFlags       = flagSpec{"from": true, "json": false}
	rollupAddFlags      = flagSpec{"every": true, "agg": true, "retention": true, "inline": false, "json": false}
	rollupListFlags     = flagSpec{"json": false}
	rollupDropFlags     = flagSpec{}
	rollupRefreshFlags  = flagSpec{"byte-cap": true, "json": false}
	versionCommandFlags = flagSpec{}
)

// alterFlags are alter's: --json and the change flags (alter.go).
func alterFlags() flagSpec {
	spec := flagSpec{"json": false, "upgrade": true}
	for _, f := range changeFlags {
		spec[f] = true
	}
	return spec
}

// commands are timelake's commands in the order usage lists them. Set in
// init: help reads it.
var commands []*command

func init() {
	commands = []*command{
		{name: "create", run: cmdCreate, flags: []flagSpec{createFlags}, common: true, usage: `timelake create TABLE --time COL [--series COL[,COL…]] --column NAME:TYPE[?] … [--partition day|hour|month|none|SPEC]
                [--prop KEY=VALUE …] [--no-ingest-column] [--format-version 2|3] [--location URI] [--json]

create makes an empty table. TYPE is long, int, double, float, boolean,
string, timestamptz or timestamp (no zone), or, in a format 3 table,
timestamptz_ns or timestamp_ns (nanoseconds, 1677 to 2262) or variant (any
JSON value per row); NAME:TYPE? makes the column optional. The time column is a required timestamptz (or
timestamp, timestamptz_ns, timestamp_ns); series
columns are required string, long or int (a series column without --column
is a string; no --series: one series). --partition is day (default), hour,
month, none, or fields such as 'day, bucket(16, host)'. --prop sets a table
property. --no-ingest-column creates a table without _ingest_ts (a duplicate
key: the later append wins), for engines that write every column (Spark).
--format-version 3 creates an Iceberg format 3 table (row lineage; read by
DuckDB 1.5, Spark with Iceberg 1.10 and pyiceberg 0.10+); the default is 2.
--location URI places a catalog table (default: the catalog chooses).
`},
		{name: "adopt", run: cmdAdopt, flags: []flagSpec{adoptFlags}, common: true, usage: `timelake adopt TABLE --time COL [--series COL[,COL…]] [--upgrade] [--dry-run] [--json]
timelake adopt TABLE --suggest [--json]

adopt records the key (time and series columns) of a table another engine
created, in a metadata-only commit, so that Timelake appends to and
maintains it; before that info, history and scan read it as stored.
--upgrade moves a format 1 table to format 2; --dry-run says what it would
do. --suggest proposes a key from its partition spec, sort order and
identifier fields.
`},
		{name: "append", run: cmdAppend, flags: []flagSpec{appendFlags}, common: true, usage: `timelake append TABLE FILE… [--format csv|ndjson|parquet|arrow] [--batch-rows N] [--commit-every N] [--time-unit s|ms|us|ns]
                [--ignore-unknown] [--evolve [--column NAME:TYPE …]] [--json]

append reads CSV (header row), NDJSON, Parquet or Arrow IPC; FILE '-' reads
stdin. The format is --format, else the file extension, else the first
bytes. It commits all its input (every FILE, every --batch-rows batch, of
100000 rows by default) as one snapshot, or nothing: batches are written and
uploaded as they are read, and a failure deletes them. --commit-every N
commits every N batches instead; after a failure the error (and --json)
says what was committed and the data row (and line) to resume from.
--time-unit is the unit of numeric times (default ms; a warning names the
column read so). --ignore-unknown skips input columns the table does not
have (else UNKNOWN_COLUMN). --evolve adds the input's unknown columns
(optional) in the commit of its first batch: typed from Parquet and Arrow,
from --column NAME:TYPE for CSV and NDJSON (else string; NDJSON numbers
double, true/false boolean).
`},
		{name: "alter", run: cmdAlter, flags: []flagSpec{alterFlags()}, common: true, usage: `timelake alter TABLE --add NAME:TYPE | --rename OLD=NEW | --widen NAME:TYPE | --optional NAME | --drop NAME … [--json]
       timelake alter TABLE --upgrade 3 [--json]

alter changes the schema in one commit, the changes applied in the order
given: --add a column (always optional), --rename one, --widen int to long or
float to double, --optional makes a value column optional, --drop removes a
value column (--required NAME of an optional column is refused: Iceberg never
makes one required). The time and series columns can be renamed, never
dropped or retyped. Files written before stay valid (columns are matched by
field id). A variant column (--add NAME:variant) needs a format 3 table.
--upgrade 3 raises the table to Iceberg format 3 in a commit of its
own (row lineage from then on; a format version is never lowered).
`},
		{name: "info", run: cmdInfo, flags: []flagSpec{infoFlags}, common: true, usage: `timelake info TABLE [--verbose] [--json]

info prints the table's version, current snapshot, rows, files, bytes, time
range, columns, key, partitions, schema history and the properties that
differ from a new table's defaults (--verbose: every property). The rows are
those stored: while a partition holds several files, one key's rows may be
stored twice until compaction, and the rows line says so. --json prints all
of it, every property included.
`},
		{name: "history", run: cmdHistory, flags: []flagSpec{historyFlags}, common: true, usage: `timelake history TABLE [--limit N] [--json]

history lists the snapshots of the table's current metadata, newest first:
id, parent, time (UTC), operation, rows and files added and removed (from
each snapshot's summary) and the writer when the summary tells it (Timelake,
Spark; else unknown). The current snapshot is marked '*'. --limit N prints
the newest N.
`},
		{name: "latest", run: cmdLatest, flags: []flagSpec{latestFlags}, common: true, usage: `timelake latest TABLE [--json]

latest prints the last-value index: the latest row of every series, sorted
by series, times as scan prints them.
`},
		{name: "scan", run: cmdScan, flags: []flagSpec{scanFlags}, common: true, usage: `timelake scan TABLE [--from TIME] [--to TIME] [--series COL=V[,V…]]… [--where EXPR]… [--columns C,…]
                [--as-of SNAPSHOT|TIME] [--raw] [--limit N] [--format csv|ndjson|parquet|arrow] [-o FILE | --output FILE] [--stats]

scan prints rows sorted by (series…, time), one per key (--raw: every stored
row) as CSV with a header (or --format ndjson; parquet: one file built in
memory; arrow: an Arrow IPC stream, a record batch per 8192 rows) to stdout
or -o FILE. TIME is RFC 3339 (2026-11-29T10:00:00Z), a date (2026-11-29) or
epoch milliseconds; --to is exclusive. --as-of takes a snapshot id or a
time. --where filters on a map's key or a struct's field: tags[env]=prod,
tags[env]!=prod (a row without the key matches !=), attrs.b=x; each --where
must hold. It reads each row's value (no statistics prune by it). --columns
projects; --limit N stops after N rows. --stats prints the plan and cost
(files, row groups, pages, requests, bytes) as JSON on stderr.
`},
		{name: "maintain", run: cmdMaintain, flags: []flagSpec{maintainFlags}, common: true, usage: `timelake maintain TABLE [--compact] [--retention] [--expire] [--orphans] [--dry-run] [--json]

maintain runs the steps named, or all of them when none is: --retention
drops partitions older than timelake.retention, --compact merges a
partition's small files (deduplicating, applying position deletes),
--expire expires old snapshots and deletes the files only they reached,
--orphans deletes files no retained snapshot reaches (past the graces).
Rollups are refreshed first and their tables maintained too. --dry-run
prints the plan and changes nothing.
`},
		{name: "delete", run: cmdDelete, flags: []flagSpec{deleteFlags}, common: true, usage: `timelake delete TABLE [--series COL=V[,V…]]… [--from T] [--to T] [--purge [--now]] [--dry-run] [--json]

delete removes the rows whose series columns hold one of the values given
and whose time is in [--from, --to), in one commit; at least one filter is
required. Files whose every row matches are dropped without being read, the
others rewritten without those rows. Rows appended while it runs are kept.
The deleted rows stay in files older snapshots reference until those
snapshots expire (timelake maintain, after history.expire.max-snapshot-age-ms).
--purge makes them physically gone: every snapshot that references a file
that may hold them expires (time travel to it is lost, said in a warning),
and those files are deleted by timelake maintain once past
timelake.orphan-grace, or at once with --now (when no reader is running).
`},
		{name: "register", run: cmdRegister, flags: []flagSpec{registerFlags}, common: true, usage: `timelake register NAMESPACE.TABLE --catalog URI --from TABLE [--json]

register moves the storage-only table --from TABLE into the catalog;
storage-only writers refuse it afterwards ([CATALOG_TABLE]).
`},
		{name: "rollup", run: cmdRollup, flags: []flagSpec{rollupAddFlags, rollupListFlags, rollupDropFlags, rollupRefreshFlags}, common: true,
			usage: `timelake rollup add TABLE NAME --every 1m|5m|15m|1h|1d --agg COL:FUNC[,FUNC…] … [--retention D] [--inline] [--json]
timelake rollup list TABLE [--json]
timelake rollup drop TABLE NAME
timelake rollup refresh TABLE [NAME] [--byte-cap BYTES] [--json]

rollup add defines a rollup of TABLE (FUNC: count, sum, min, max, avg, first,
last) kept as an Iceberg table at TABLE__rollup_NAME (with a catalog: the
table NS.TABLE__rollup_NAME of the same catalog; rollup drop drops it from the
catalog without purge); --retention D is the rollup table's own retention.
rollup refresh (and maintain, and with --inline every append) recomputes the
buckets that changed since its last refresh; --byte-cap stops a refresh
after the first raw snapshot past BYTES read (the next one goes on).
`},
		{name: "version", run: cmdVersion, flags: []flagSpec{versionCommandFlags}, usage: `timelake version
timelake --version

version prints the version of timelake, the commit it was built from (when
the build recorded it), the Go version, and the Iceberg format versions it
reads and writes.
`},
	}
}

// commonUsage ends the usage of every command that takes the S3 and
// catalog flags.
const commonUsage = `
Every command also takes:
  --endpoint URL, --region NAME, --virtual-hosted   S3 settings of an s3:// TABLE; the credentials come from
                                                    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
  --catalog URI, --warehouse W                      an Iceberg REST catalog (or TIMELAKE_CATALOG_URI,
                                                    TIMELAKE_CATALOG_WAREHOUSE): TABLE is then NAMESPACE.TABLE
`

// generalUsage follows the synopses in `timelake help`.
const generalUsage = `
TABLE is a directory, a file:// URI or s3://bucket/prefix.
'timelake help COMMAND' (or 'timelake COMMAND --help') prints a command's
flags and what it does.

S3 (every command): --endpoint URL, --region NAME, --virtual-hosted; the
credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN.

Iceberg REST catalogs (every command): --catalog URI (or TIMELAKE_CATALOG_URI)
makes TABLE NAMESPACE.TABLE in that catalog (levels joined by dots: a.b.table);
--warehouse W (or TIMELAKE_CATALOG_WAREHOUSE). Secrets from the environment
only: TIMELAKE_CATALOG_TOKEN (a bearer token) or TIMELAKE_CATALOG_CREDENTIAL
(CLIENT_ID:SECRET).
`

// usageText is `timelake help`: every command's synopsis, then what they
// share.
func usageText() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		syn, _, _ := strings.Cut(c.usage, "\n\n")
		for _, l := range strings.Split(syn, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString(generalUsage)
	return b.String()
}

// commandUsage is one command's usage: `timelake help CMD`, `CMD --help`.
func commandUsage(c *command) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	syn, rest, _ := strings.Cut(c.usage, "\n\n")
	for _, l := range strings.Split(syn, "\n") {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\n" + rest)
	if c.common {
		b.WriteString(commonUsage)
	}
	return b.String()
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// wantsHelp reports whether argv (a command's arguments) asks for its
// usage: --help or -h before any "--".
func wantsHelp(argv []string) bool {
	for _, s := range argv {
		switch s {
		case "--":
			return false
		case "--help", "-h":
			return true
		}
	}
	return false
}

// help runs `timelake help [CMD]`.
func help(argv []string, stdout, stderr io.Writer) int {
	if len(argv) == 0 {
		fmt.Fprint(stdout, usageText())
		return 0
	}
	c := findCommand(argv[0])
	if c == nil {
		fmt.Fprintf(stderr, "timelake help: unknown command %q\n\n%s", argv[0], usageText())
		return 2
	}
	fmt.Fprint(stdout, commandUsage(c))
	return 0
}
