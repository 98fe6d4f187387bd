package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/echoserver"
)

// Secrets that change under every encoding: "+", "/", "=", a quote, a
// space, non-ASCII.
const (
	echoAWSSecret  = `wJalrXUtnFEMI/K7MDENG+bPxRfi"CYEXAMPLEKEY=`
	echoAWSSession = `FwoGZXIvYXdzE+session/tökén "quoted" ==`
	echoClientID   = "timelake-cli"
	echoSecret     = "supersecretAB+cd/ef=="
	echoToken      = `tok "quoted" ünïcode/+=`
)

// echoForms are every spelling of every secret above.
func echoForms() [][]string {
	return [][]string{
		echoserver.Forms("", echoAWSSecret), echoserver.Forms("", echoAWSSession),
		echoserver.Forms(echoClientID, echoSecret), echoserver.Forms("", echoToken),
	}
}

// checkEchoed runs the command, which must fail with code, and fails the
// test when its output (stdout and stderr, --json or not) holds a secret,
// or does not show that the server's echo reached it.
func checkEchoed(t *testing.T, code, stdin string, argv ...string) {
	t.Helper()
	for _, asJSON := range []bool{false, true} {
		args := argv
		if asJSON {
			args = append(append([]string{}, argv...), "--json")
		}
		exit, out, errs := cli(t, stdin, args...)
		if exit != 1 || !strings.HasSuffix(strings.TrimSpace(errs), "["+code+"]") {
			t.Errorf("%s: exit %d, %s; want 1 [%s]", strings.Join(args, " "), exit, errs, code)
		}
		if !strings.Contains(errs, "[redacted]") {
			t.Errorf("%s: the echo did not reach the output (the test would prove nothing): %s", strings.Join(args, " "), errs)
		}
		echoserver.Check(t, strings.Join(args, " "), out+errs, echoForms()...)
	}
}

// An S3 endpoint that echoes the request headers (X-Amz-Security-Token)
// in a 403: info, create, append and maintain fail with STORE_ERROR and
// print neither the session token nor the secret key.
func TestS3EchoScrubbed(t *testing.T) {
	srv := echoserver.S3(t, 403)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", echoAWSSecret)
	t.Setenv("AWS_SESSION_TOKEN", echoAWSSession)
	tbl := "s3://echo-bucket/tables/m"
	flags := []string{"--endpoint", srv.URL, "--region", "us-east-1"}
	checkEchoed(t, "STORE_ERROR", "", append([]string{"info", tbl}, flags...)...)
	checkEchoed(t, "STORE_ERROR", "", append([]string{"create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double"}, flags...)...)
	checkEchoed(t, "STORE_ERROR", "", append([]string{"maintain", tbl}, flags...)...)
	checkEchoed(t, "STORE_ERROR", goodCSV, append([]string{"append", tbl, "-", "--format", "csv"}, flags...)...)
}

// A REST catalog whose token endpoint echoes the request (client_secret
// percent-encoded in the form body) and whose other calls echo the bearer
// token (JSON-escaped: it holds a quote and non-ASCII): info and create
// print neither.
func TestCatalogEchoScrubbed(t *testing.T) {
	for _, auth := range []struct{ env, value string }{
		{envCatalogCredential, echoClientID + ":" + echoSecret},
		{envCatalogToken, echoToken},
	} {
		for _, status := range []int{401, 500} {
			srv := echoserver.Catalog(t, status, map[string]string{"/v1/config": `{}`})
			t.Setenv(envCatalogToken, "")
			t.Setenv(envCatalogCredential, "")
			t.Setenv(auth.env, auth.value)
			code := map[int]string{401: "CATALOG_AUTH", 500: "CATALOG_ERROR"}[status]
			checkEchoed(t, code, "", "info", "ns.t", "--catalog", srv.URL)
			checkEchoed(t, code, "", "create", "ns.t", "--catalog", srv.URL, "--time", "ts", "--series", "host")
		}
	}
}

// A catalog that vends S3 credentials for a table whose bucket echoes the
// request: the vended secret key and session token are printed by no
// command (they reach the CLI only through the catalog).
func TestVendedEchoScrubbed(t *testing.T) {
	s3 := echoserver.S3(t, 403)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", envCatalogCredential} {
		t.Setenv(k, "")
	}
	t.Setenv(envCatalogToken, "catalog-token-123")
	// The table's metadata, as the catalog holds it, placed in the bucket.
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long", "--column", "ok:boolean?", "--column", "note:string?")
	raw, err := os.ReadFile(filepath.Join(dir, "metadata", "v1.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	const loc = "s3://echo-bucket/wh/ns/t"
	meta["location"] = loc
	load, _ := json.Marshal(map[string]any{
		"metadata-location": loc + "/metadata/v1.metadata.json",
		"metadata":          meta,
		"config": map[string]string{"s3.access-key-id": "AKIDVENDED", "s3.secret-access-key": echoAWSSecret,
			"s3.session-token": echoAWSSession, "s3.endpoint": s3.URL, "s3.region": "us-east-1", "s3.path-style-access": "true"},
	})
	cat := echoserver.Catalog(t, 500, map[string]string{"/v1/config": `{}`, "/v1/namespaces/ns/tables/t": string(load)})
	checkEchoed(t, "STORE_ERROR", goodCSV, "append", "ns.t", "-", "--format", "csv", "--catalog", cat.URL)
	checkEchoed(t, "STORE_ERROR", "", "maintain", "ns.t", "--orphans", "--catalog", cat.URL)
}
