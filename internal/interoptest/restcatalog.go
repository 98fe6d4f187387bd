package interoptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireCatalogEnv names the environment variable that makes a missing REST
// catalog set-up (Java 17, Maven) a test failure (CI sets it); without it
// such tests skip, saying why.
const RequireCatalogEnv = "TIMELAKE_REQUIRE_CATALOG"

// RESTCatalogOptions configures a test REST catalog (scripts/restcatalog.sh).
type RESTCatalogOptions struct {
	S3     bool   // warehouse on the S3 server of the environment (AWS_*, TIMELAKE_S3_BUCKET) instead of a directory
	Token  string // non-empty: /v1/ requests need "Authorization: Bearer <Token>"
	Client string // "id:secret": POST /v1/oauth/tokens gives Token for those, 401 otherwise
	VendS3 bool   // load/create-table responses carry the server's S3 settings as config
}

// RESTCatalog is a running test REST catalog: Iceberg's own server
// (interop/restcatalog) on 127.0.0.1.
type RESTCatalog struct {
	URI       string // http://127.0.0.1:PORT
	Warehouse string // file:///… or s3://bucket/prefix
	Dir       string // the server's directory: pid, log, SQLite database, file warehouse
	Options   RESTCatalogOptions

	stopped bool
}

// FindRESTCatalog makes the launcher ready: with TIMELAKE_REQUIRE_CATALOG
// set it builds it (scripts/restcatalog.sh build) and a failed build is err;
// without it a launcher not built yet, or no java/mvn, is missing: why, and
// the command that builds it (tests skip).
func FindRESTCatalog() (missing string, err error) {
	script := filepath.Join(Root(), "scripts", "restcatalog.sh")
	required := os.Getenv(RequireCatalogEnv) != ""
	for _, tool := range []string{"java", "mvn", "curl"} {
		if _, lookErr := exec.LookPath(tool); lookErr != nil {
			if required {
				return "", fmt.Errorf("the REST catalog needs %s: %v", tool, lookErr)
			}
			return fmt.Sprintf("the REST catalog needs %s (not found); set %s=1 to fail instead", tool, RequireCatalogEnv), nil
		}
	}
	mode := "check"
	if required {
		mode = "build"
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", script, mode)
	cmd.Stdout, cmd.Stderr = &out, &out
	if runErr := cmd.Run(); runErr != nil {
		if !required {
			return fmt.Sprintf("the REST catalog launcher is not built (%v): run `bash scripts/restcatalog.sh build`, or set %s=1 to build it and fail instead", runErr, RequireCatalogEnv), nil
		}
		return "", fmt.Errorf("scripts/restcatalog.sh build: %v\n%s", runErr, out.String())
	}
	return "", nil
}

// StartRESTCatalog starts a catalog server with opt and waits until it
// answers; t's cleanup stops it. Start one per test group (TestMain or a
// sync.Once): each costs about a second. Without the set-up it skips t, or
// fails it under TIMELAKE_REQUIRE_CATALOG (see FindRESTCatalog). With opt.S3
// and no S3 server in the environment it skips t, or fails it under
// TIMELAKE_REQUIRE_CATALOG.
func StartRESTCatalog(t testing.TB, opt RESTCatalogOptions) *RESTCatalog {
	t.Helper()
	missing, err := FindRESTCatalog()
	if err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	if missing != "" {
		t.Skipf("interoptest: %s", missing)
	}
	if opt.S3 && (os.Getenv("AWS_ENDPOINT_URL") == "" || os.Getenv("TIMELAKE_S3_BUCKET") == "") {
		msg := "an S3-warehouse catalog needs the S3 server: eval \"$(bash scripts/s3server.sh start)\" first"
		if os.Getenv(RequireCatalogEnv) != "" {
			t.Fatalf("interoptest: %s", msg)
		}
		t.Skipf("interoptest: %s", msg)
	}
	c, err := LaunchRESTCatalog(opt)
	if err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// LaunchRESTCatalog runs `scripts/restcatalog.sh start` with opt (the
// launcher must be built: see FindRESTCatalog). The caller Stops it.
func LaunchRESTCatalog(opt RESTCatalogOptions) (*RESTCatalog, error) {
	args := []string{filepath.Join(Root(), "scripts", "restcatalog.sh"), "start"}
	if opt.S3 {
		args = append(args, "--s3")
	}
	cmd := exec.Command("bash", args...)
	env := []string{}
	for _, kv := range os.Environ() {
		// The switches come from opt only, not from the test's environment.
		if strings.HasPrefix(kv, "TIMELAKE_CATALOG_") {
			continue
		}
		env = append(env, kv)
	}
	if opt.Token != "" {
		env = append(env, "TIMELAKE_CATALOG_TEST_TOKEN="+opt.Token)
	}
	if opt.Client != "" {
		env = append(env, "TIMELAKE_CATALOG_TEST_CLIENT="+opt.Client)
	}
	if opt.VendS3 {
		env = append(env, "TIMELAKE_CATALOG_VEND_S3=1")
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/restcatalog.sh start: %v\n%s", err, stderr.String())
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = strings.Trim(v, "'")
		}
	}
	c := &RESTCatalog{URI: vars["TIMELAKE_CATALOG_URI"], Warehouse: vars["TIMELAKE_CATALOG_WAREHOUSE"], Dir: vars["TIMELAKE_CATALOG_DIR"], Options: opt}
	if c.URI == "" || c.Warehouse == "" || c.Dir == "" {
		return nil, fmt.Errorf("scripts/restcatalog.sh start printed no catalog:\n%s\n%s", out, stderr.String())
	}
	return c, nil
}

// LogTail returns the last n bytes of the server's log, for failure messages.
func (c *RESTCatalog) LogTail(n int) string {
	b, err := os.ReadFile(filepath.Join(c.Dir, "log"))
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Stop stops the server and removes its directory (the file warehouse with
// it). Calling it again does nothing.
func (c *RESTCatalog) Stop() {
	if c.stopped {
		return
	}
	c.stopped = true
	exec.Command("bash", filepath.Join(Root(), "scripts", "restcatalog.sh"), "stop", c.Dir).Run()
}

// CatalogAuth is how a client authenticates to a test catalog.
type CatalogAuth struct {
	Token      string // a bearer token, sent as is
	Credential string // "id:secret": the client does the client_credentials exchange
	S3Env      bool   // the client gets the S3 settings of the environment (else only what the catalog vends)
}

func (a CatalogAuth) args(dashes string) []string {
	var out []string
	if a.Token != "" {
		out = append(out, dashes+"token", a.Token)
	}
	if a.Credential != "" {
		out = append(out, dashes+"credential", a.Credential)
	}
	if a.S3Env {
		out = append(out, dashes+"s3-env")
	}
	return out
}

// CatalogSummary has reader r (iceberg-go: interop/cmd/icebergread
// -catalog-uri; duckdb, pyiceberg: interop/catalogclient.py … read) load table
// ("ns.t") through c and summarize it; the error is the reader's own (the
// summary's error, or a command that could not run).
func CatalogSummary(c *RESTCatalog, auth CatalogAuth, r Reader, table string, q Query) (Summary, error) {
	if err := ready(r); err != nil {
		return Summary{}, err
	}
	var cmd *exec.Cmd
	switch r {
	case IcebergGo:
		if auth.S3Env {
			return Summary{}, fmt.Errorf("icebergread takes S3 settings from the catalog only")
		}
		args := append(q.args(), "-catalog-uri", c.URI, "-warehouse", c.Warehouse, "-table", table)
		cmd = exec.Command(icebergReadBin, append(args, auth.args("-")...)...)
	case DuckDB, PyIceberg:
		args := []string{filepath.Join(Root(), "interop", "catalogclient.py"), string(r), "read",
			"--uri", c.URI, "--warehouse", c.Warehouse, "--table", table}
		args = append(append(args, auth.args("--")...), q.args()...)
		cmd = exec.Command(pythonBin, args...)
	default:
		return Summary{}, fmt.Errorf("unknown reader %q", r)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var s Summary
	d := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		return Summary{}, fmt.Errorf("%s printed no summary (%v): %v\nstdout: %s\nstderr: %s", r, runErr, err, stdout.String(), stderr.String())
	}
	if s.Error != "" {
		return s, fmt.Errorf("%s", s.Error)
	}
	return s, nil
}

// CatalogClient runs `interop/catalogclient.py CLIENT CMD` against c with
// args (e.g. "--table", "ns.t", "--where", "cpu < 3") and returns its JSON
// answer; an answer without "ok": true fails t.
func CatalogClient(t testing.TB, c *RESTCatalog, auth CatalogAuth, client Reader, command string, args ...string) map[string]any {
	t.Helper()
	python := Python(t)
	full := []string{filepath.Join(Root(), "interop", "catalogclient.py"), string(client), command,
		"--uri", c.URI, "--warehouse", c.Warehouse}
	full = append(append(full, auth.args("--")...), args...)
	cmd := exec.Command(python, full...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ans map[string]any
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	if decErr := d.Decode(&ans); decErr != nil {
		t.Fatalf("catalogclient.py %s %s: %v (%v)\nstdout: %s\nstderr: %s", client, command, err, decErr, out, stderr.String())
	}
	if ok, _ := ans["ok"].(bool); !ok {
		t.Fatalf("catalogclient.py %s %s: %v\nstderr: %s\ncatalog log:\n%s", client, command, ans["error"], stderr.String(), c.LogTail(3000))
	}
	return ans
}
