package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// s3Table is a fresh s3:// TABLE on the local test server
// (scripts/s3server.sh); the test skips without one.
func s3Table(t *testing.T) string {
	t.Helper()
	bucket := os.Getenv("TIMELAKE_S3_BUCKET")
	if bucket == "" || os.Getenv("AWS_ENDPOINT_URL") == "" {
		t.Skip("no S3 server: run under scripts/test.sh, or eval \"$(bash scripts/s3server.sh start)\" first")
	}
	var r [6]byte
	rand.Read(r[:])
	return "s3://" + bucket + "/cli/" + hex.EncodeToString(r[:]) + "/metrics"
}

func TestS3CreateAppendInfoLatestMaintain(t *testing.T) {
	tbl := s3Table(t)
	out := mustCLI(t, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long", "--json")
	var created struct{ Table string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Table != tbl {
		t.Fatalf("create --json = %s (%v), want table %q", out, err, tbl)
	}
	if code, _, errs := cli(t, "", "create", tbl, "--time", "ts", "--series", "host"); code != 1 || !strings.HasSuffix(strings.TrimSpace(errs), "[TABLE_EXISTS]") {
		t.Errorf("second create: exit %d, %s; want 1 [TABLE_EXISTS]", code, errs)
	}

	// Concurrent appends from several writers: every one commits (rebasing on
	// conflicts), none is lost.
	const writers, perWriter = 4, 50
	var wg sync.WaitGroup
	errs := make([]string, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			csv := "ts,host,cpu,mem\n"
			for j := range perWriter {
				csv += fmt.Sprintf("2020-01-01T%02d:%02d:00Z,w%d,%d.5,%d\n", j/60, j%60, w, j, j)
			}
			if code, _, e := cli(t, csv, "append", tbl, "-", "--format", "csv"); code != 0 {
				errs[w] = e
			}
		}()
	}
	wg.Wait()
	for w, e := range errs {
		if e != "" {
			t.Fatalf("writer %d: %s", w, e)
		}
	}
	var info struct {
		Version  int
		Rows     int64
		Location string
	}
	out = mustCLI(t, "", "info", tbl, "--json")
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("info --json: %v\n%s", err, out)
	}
	if info.Version != 1+writers || info.Rows != writers*perWriter {
		t.Errorf("info = %+v, want version %d and %d rows\n%s", info, 1+writers, writers*perWriter, out)
	}
	if !strings.Contains(out, tbl) {
		t.Errorf("info does not show the s3:// location %q:\n%s", tbl, out)
	}
	out = mustCLI(t, "", "latest", tbl, "--json")
	for w := range writers {
		if !strings.Contains(out, fmt.Sprintf("\"w%d\"", w)) {
			t.Errorf("latest lacks series w%d:\n%s", w, out)
		}
	}

	// The metadata names the s3:// location, and the files are where the
	// posix backend keeps them.
	if root := os.Getenv("TIMELAKE_S3_ROOT"); root != "" {
		rel := strings.TrimPrefix(tbl, "s3://")
		b, err := os.ReadFile(filepath.Join(root, rel, "metadata", fmt.Sprintf("v%d.metadata.json", 1+writers)))
		if err != nil {
			t.Fatal(err)
		}
		var md struct{ Location string }
		if err := json.Unmarshal(b, &md); err != nil || md.Location != tbl {
			t.Errorf("metadata location = %q (%v), want %q", md.Location, err, tbl)
		}
	}

	out = mustCLI(t, "", "maintain", tbl, "--compact", "--json")
	var res struct {
		Merges    int   `json:"merges"`
		RowsAfter int64 `json:"rows-after"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Merges != 1 || res.RowsAfter != writers*perWriter {
		t.Errorf("maintain --compact = %s (%v), want one merge keeping %d rows", out, err, writers*perWriter)
	}
	out = mustCLI(t, "", "info", tbl, "--json")
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Rows != writers*perWriter || info.Version != 2+writers {
		t.Errorf("after maintain: info = %+v (%v), want %d rows at version %d", info, err, writers*perWriter, 2+writers)
	}
}

func TestS3Errors(t *testing.T) {
	tbl := s3Table(t)
	secret := os.Getenv("AWS_SECRET_ACCESS_KEY")
	if code, _, errs := cli(t, "", "info", tbl); code != 1 || !strings.HasSuffix(strings.TrimSpace(errs), "[NO_TABLE]") {
		t.Errorf("info of a missing s3 table: exit %d, %s; want 1 [NO_TABLE]", code, errs)
	}
	mustCLI(t, "", "create", tbl, "--time", "ts", "--series", "host")

	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-0123456789")
	code, _, errs := cli(t, "ts,host\n2026-01-01T00:00:00Z,a\n", "append", tbl, "-", "--format", "csv")
	if code != 1 || !strings.HasSuffix(strings.TrimSpace(errs), "[STORE_ERROR]") || !strings.Contains(errs, "403") || !strings.Contains(errs, "metadata/") {
		t.Errorf("append with a wrong secret: exit %d, %s; want 1, a 403 naming a metadata key, [STORE_ERROR]", code, errs)
	}
	for _, s := range []string{secret, "not-the-secret-0123456789"} {
		if strings.Contains(errs, s) {
			t.Errorf("the error output carries a secret: %s", errs)
		}
	}

	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	missing := "s3://no-such-bucket-timelake/t"
	code, _, errs = cli(t, "", "info", missing)
	if code != 1 || !strings.Contains(errs, "NoSuchBucket") || !strings.HasSuffix(strings.TrimSpace(errs), "[STORE_ERROR]") {
		t.Errorf("info in a missing bucket: exit %d, %s; want 1, NoSuchBucket, [STORE_ERROR]", code, errs)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	if code, _, errs := cli(t, "", "info", tbl); code != 2 || !strings.Contains(errs, "AWS_ACCESS_KEY_ID") {
		t.Errorf("info without credentials: exit %d, %s; want 2 naming AWS_ACCESS_KEY_ID", code, errs)
	}
}

// TestS3Flags: --endpoint and --region stand in for the AWS variables (here
// unset), and a wrong endpoint given by flag is what is used.
func TestS3Flags(t *testing.T) {
	tbl := s3Table(t)
	endpoint, region := os.Getenv("AWS_ENDPOINT_URL"), os.Getenv("AWS_REGION")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_REGION", "")
	flags := []string{"--endpoint", endpoint}
	if region != "" {
		flags = append(flags, "--region", region)
	}
	mustCLI(t, "", append([]string{"create", tbl, "--time", "ts", "--series", "host"}, flags...)...)
	out := mustCLI(t, "", append([]string{"info", tbl, "--json"}, flags...)...)
	if !strings.Contains(out, `"version": 1`) {
		t.Errorf("info through --endpoint: %s", out)
	}
	// The flag wins over the environment: a dead endpoint by flag fails.
	t.Setenv("AWS_ENDPOINT_URL", endpoint)
	if code, _, errs := cli(t, "", "info", tbl, "--endpoint", "http://127.0.0.1:1"); code != 1 || !strings.Contains(errs, "[STORE_ERROR]") {
		t.Errorf("info with a dead --endpoint: exit %d, %s; want 1 and STORE_ERROR", code, errs)
	}
}

func TestS3FlagsOnLocalTable(t *testing.T) {
	code, _, errs := cli(t, "", "info", t.TempDir(), "--endpoint", "http://127.0.0.1:9000")
	if code != 2 || !strings.Contains(errs, "--endpoint applies to s3:// tables only") {
		t.Errorf("--endpoint on a local table: exit %d, %s", code, errs)
	}
}
