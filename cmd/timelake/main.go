// Command timelake creates, appends to and inspects Timelake tables: Apache
// Iceberg tables of time series in a local directory or an S3 bucket, kept
// by storage alone or in an Iceberg REST catalog.
//
//	timelake create|adopt|append|alter|info|history|latest|scan|maintain|register|rollup|version …
//	timelake help [COMMAND]
//
// Each command's flags and usage are in usage.go (`timelake help COMMAND`).
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
	"strings"

	"github.com/timelake/timelake/redact"
	"github.com/timelake/timelake/table"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(argv) == 0 {
		fmt.Fprint(stderr, usageText())
		return 2
	}
	switch argv[0] {
	case "-h", "--help", "help":
		return help(argv[1:], stdout, stderr)
	case "--version", "-version":
		argv = append([]string{"version"}, argv[1:]...)
	}
	c := findCommand(argv[0])
	if c == nil {
		fmt.Fprintf(stderr, "timelake: unknown command %q\n\n%s", argv[0], usageText())
		return 2
	}
	if wantsHelp(argv[1:]) {
		fmt.Fprint(stdout, commandUsage(c))
		return 0
	}
	// Every secret the process holds is scrubbed from what it prints (an
	// echoing server puts them into errors): stderr always, stdout but for
	// the rows scan and latest print, which are the user's data.
	keepEnvSecrets()
	stderr = secrets.Writer(stderr)
	if argv[0] != "scan" && argv[0] != "latest" {
		stdout = secrets.Writer(stdout)
	}
	err := c.run(ctx, argv[1:], &io_{stdin: stdin, stdout: stdout, stderr: stderr})
	if err == nil {
		return 0
	}
	name := commandName(argv)
	msg := errorText(name, err)
	var ue *usageError
	if !errors.As(err, &ue) {
		// The stable code lets scripts tell failures apart (table.Code).
		fmt.Fprintf(stderr, "timelake %s: %s [%s]\n", name, msg, table.Code(err))
		return 1
	}
	fmt.Fprintf(stderr, "timelake %s: %s\n\n%s", name, msg, commandUsage(c))
	return 2
}

// commandName names the command in messages: "append", or "rollup add"
// for a subcommand.
func commandName(argv []string) string {
	if argv[0] == "rollup" && len(argv) > 1 && !strings.HasPrefix(argv[1], "-") {
		switch argv[1] {
		case "add", "list", "drop", "refresh":
			return "rollup " + argv[1]
		}
	}
	return argv[0]
}

// errorText is err's message without a leading word the command's name
// already says ("rollup: h: …" after "timelake rollup add: ").
func errorText(name string, err error) string {
	msg := err.Error()
	first, _, _ := strings.Cut(name, " ")
	return strings.TrimPrefix(msg, first+": ")
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
