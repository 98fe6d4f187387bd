package s3store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/echoserver"
	"github.com/timelake/timelake/store/s3store"
)

// Secrets with characters that every encoding changes: "/", "+", "=", a
// quote, a space, non-ASCII.
const (
	echoSecretKey    = `wJalrXUtnFEMI/K7MDENG+bPxRfi"CYEXAMPLEKEY=`
	echoSessionToken = `FwoGZXIvYXdzE+session/tökén "quoted" ==`
)

// TestErrorsScrubEchoedSecrets: a server that echoes the request (its
// session token header among the rest) in a 403 or a 500: every
// operation's error names the status and the code, never the session
// token or the secret key in any spelling.
func TestErrorsScrubEchoedSecrets(t *testing.T) {
	for _, status := range []int{403, 500} {
		srv := echoserver.S3(t, status)
		s, err := s3store.New(s3store.Config{
			Bucket: "echo-bucket", Prefix: "tables/m", Endpoint: srv.URL, Region: "us-east-1", PathStyle: true,
			AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: echoSecretKey, SessionToken: echoSessionToken,
			MaxAttempts: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ops := map[string]error{}
		_, ops["get"] = s.Get(ctx, "metadata/v1.metadata.json")
		_, ops["getRange"] = s.GetRange(ctx, "data/a.parquet", 0, 10)
		ops["put"] = s.Put(ctx, "data/a.parquet", []byte("x"))
		_, ops["putIfAbsent"] = s.PutIfAbsent(ctx, "metadata/v2.metadata.json", []byte("x"))
		_, ops["list"] = s.List(ctx, "metadata/")
		ops["delete"] = s.Delete(ctx, []string{"data/a.parquet"})
		for op, err := range ops {
			if err == nil {
				t.Fatalf("%d %s: no error", status, op)
			}
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprint(status)) || !strings.Contains(msg, "AccessDenied") {
				t.Errorf("%d %s: %s: want the status and code", status, op, msg)
			}
			if !strings.Contains(msg, "[redacted]") {
				t.Errorf("%d %s: %s: the echo was not seen (the test would prove nothing)", status, op, msg)
			}
			echoserver.Check(t, fmt.Sprintf("%d %s", status, op), msg,
				echoserver.Forms("", echoSecretKey), echoserver.Forms("", echoSessionToken))
		}
	}
}
