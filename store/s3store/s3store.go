// Package s3store is a store.Store on an S3-compatible bucket (AWS S3,
// Cloudflare R2's S3 endpoint, MinIO, versitygw, …): key "a/b" is the object
// <prefix>/a/b. It is a native driver over the AWS SDK for Go v2; the core
// never imports it, so it stays out of the WebAssembly build.
//
//	cfg, err := s3store.ConfigFromEnv("s3://my-bucket/tables/metrics", os.Getenv)
//	if err != nil { ... }
//	s, err := s3store.New(cfg)
//	created, err := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", b)
//
// The conditional create is PutObject with "If-None-Match: *": 412
// PreconditionFailed means the key exists (false); 409
// ConditionalRequestConflict (a concurrent conditional write to the same key
// still in flight) is retried. Because a write whose answer was lost may have
// happened, PutIfAbsent retries 5xx answers and network errors itself and,
// when a retry meets 412, reads the object back: if it holds our bytes the
// write was ours (true). Other calls use the SDK's retryer (5xx, throttling
// and network errors; never other 4xx).
//
// Errors name the operation, the key and the server's answer (status, S3
// error code, message, request id) and never a credential: a server (or a
// proxy) that echoes the request in its answer would show the session token
// (X-Amz-Security-Token), so every text of an answer is scrubbed of the
// secret access key and the session token in each form package redact knows. A missing key is
// store.ErrNotFound only when the server says NoSuchKey; a missing bucket is an
// error like any other.
package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/redact"
	"github.com/timelake/timelake/store"
)

// Config says where a table lives and how to reach it.
type Config struct {
	Bucket string
	// Prefix is the table's folder in the bucket ("tables/metrics"), without
	// leading or trailing "/"; empty for the bucket's root.
	Prefix string
	// Endpoint is the server's base URL ("http://127.0.0.1:9000",
	// "https://<account>.r2.cloudflarestorage.com"); empty for AWS S3.
	Endpoint string
	// Region is the signing region ("us-east-1"; "auto" for R2).
	Region string
	// PathStyle addresses the bucket as <endpoint>/<bucket>/key rather than
	// <bucket>.<endpoint>/key. ConfigFromEnv sets it for custom endpoints.
	PathStyle       bool
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	// HTTPClient is optional (tests inject faults through it).
	HTTPClient *http.Client
	// MaxAttempts bounds tries of one request (default 5).
	MaxAttempts int
}

// Location is the table's URI as written into its metadata: s3://bucket/prefix.
func (c Config) Location() string {
	if c.Prefix == "" {
		return "s3://" + c.Bucket
	}
	return "s3://" + c.Bucket + "/" + c.Prefix
}

// ConfigFromEnv parses uri (s3://bucket[/prefix]) and reads the standard AWS
// variables through getenv: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (a custom
// endpoint, addressed path-style), AWS_REGION or AWS_DEFAULT_REGION (default
// us-east-1), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN.
func ConfigFromEnv(uri string, getenv func(string) string) (Config, error) {
	// The prefix as written ("s3://b/my tablé #1", as Iceberg Java and
	// Timelake write locations), or percent-decoded when it looks encoded
	// ("s3://b/my%20tabl%C3%A9": a URI a user typed, or an older location).
	rest, ok := strings.CutPrefix(uri, "s3://")
	bucket, path, _ := strings.Cut(rest, "/")
	if !ok || bucket == "" || strings.ContainsAny(uri, "?\x00") {
		return Config{}, fmt.Errorf("s3store: %q: want s3://bucket[/prefix]", uri)
	}
	if !validBucket(bucket) {
		return Config{}, fmt.Errorf("s3store: %q: bucket %q: want 3-255 of a-z 0-9 . - _", uri, bucket)
	}
	path, _ = location.Unescape(path)
	prefix := strings.Trim(path, "/")
	if prefix != "" {
		if err := store.CheckKey(prefix); err != nil {
			return Config{}, fmt.Errorf("s3store: %q: prefix: %w", uri, err)
		}
	}
	c := Config{
		Bucket:          bucket,
		Prefix:          prefix,
		Endpoint:        first(getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL")),
		Region:          first(getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"), "us-east-1"),
		AccessKeyID:     getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken:    getenv("AWS_SESSION_TOKEN"),
	}
	c.PathStyle = c.Endpoint != ""
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return Config{}, fmt.Errorf("s3store: %s: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", c.Location())
	}
	return c, nil
}

// validBucket accepts S3 bucket names (3-63 characters on AWS; other servers
// allow longer ones): lower-case letters, digits, ".", "-" and "_".
func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 255 {
		return false
	}
	for _, r := range b {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Store is a store.Store on one prefix of one bucket. Safe for concurrent use.
type Store struct {
	client      *s3.Client
	bucket      string
	base        string // prefix + "/", or ""
	location    string
	maxAttempts int
	secrets     *redact.Set // the secret access key and session token
}

var (
	_ store.Store         = (*Store)(nil)
	_ store.LimitedGetter = (*Store)(nil)
)

// New makes the client. It does no request; a wrong endpoint, bucket or
// credential shows in the first call's error.
func New(c Config) (*Store, error) {
	if !validBucket(c.Bucket) {
		return nil, fmt.Errorf("s3store: bucket %q: want 3-255 of a-z 0-9 . - _", c.Bucket)
	}
	if c.Prefix != "" {
		if err := store.CheckKey(c.Prefix); err != nil {
			return nil, fmt.Errorf("s3store: prefix: %w", err)
		}
	}
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("s3store: endpoint %q: want http(s)://host[:port]", c.Endpoint)
		}
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	creds := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken, Source: "timelake"}
	opts := s3.Options{
		Region:       first(c.Region, "us-east-1"),
		UsePathStyle: c.PathStyle,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		}),
		RetryMaxAttempts: c.MaxAttempts,
		// Checksums only where S3 requires them (DeleteObjects): trailing
		// checksums on every PUT need aws-chunked bodies, which not every
		// S3-compatible server takes.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if c.Endpoint != "" {
		opts.BaseEndpoint = aws.String(c.Endpoint)
	}
	if c.HTTPClient != nil {
		opts.HTTPClient = c.HTTPClient
	}
	s := &Store{client: s3.New(opts), bucket: c.Bucket, location: c.Location(), maxAttempts: c.MaxAttempts, secrets: &redact.Set{}}
	s.secrets.Add(c.SecretAccessKey, c.SessionToken)
	if c.Prefix != "" {
		s.base = c.Prefix + "/"
	}
	return s, nil
}

// Location is s3://bucket/prefix.
func (s *Store) Location() string { return s.location }

// Error is a request the server refused or that never got an answer.
type Error struct {
	Op, Key string // the store operation and the table-relative key (or prefix)
	Object  string // s3://bucket/full-key
	Status  int    // HTTP status; 0 when there was no answer
	Code    string // S3 error code (AccessDenied, NoSuchBucket, …), if any
	Message string // the server's message, or the transport error
	Request string // the server's request id, if any
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "s3store: %s %q (%s): ", e.Op, e.Key, e.Object)
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d", e.Status)
		if e.Code != "" {
			b.WriteString(" " + e.Code)
		}
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		if e.Request != "" {
			b.WriteString(" (request id " + e.Request + ")")
		}
		if hint := hintFor(e.Status, e.Code); hint != "" {
			b.WriteString("; " + hint)
		}
		return b.String()
	}
	b.WriteString(e.Message)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// hintFor says what usually causes a refusal, in terms of the settings.
func hintFor(status int, code string) string {
	switch code {
	case "NoSuchBucket":
		return "the bucket does not exist (check the TABLE URI and AWS_ENDPOINT_URL)"
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "XAdminUserNotFound":
		return "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
	case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
		return "check AWS_REGION"
	case "ExpiredToken", "InvalidToken":
		return "check AWS_SESSION_TOKEN"
	}
	if status == http.StatusForbidden {
		return "the credentials may not be allowed this operation on this prefix"
	}
	return ""
}

func (s *Store) full(key string) string { return s.base + key }

func (s *Store) fail(op, key string, err error) error {
	e := &Error{Op: op, Key: key, Object: "s3://" + s.bucket + "/" + s.full(key), Err: err}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		e.Status = re.HTTPStatusCode()
		e.Request = re.ServiceRequestID()
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		e.Code, e.Message = ae.ErrorCode(), ae.ErrorMessage()
	}
	if e.Status == 0 {
		e.Message = err.Error()
	} else if e.Message == "" && e.Code == "" {
		e.Message = http.StatusText(e.Status)
	}
	e.Code, e.Message, e.Request = s.secrets.Scrub(e.Code), s.secrets.Scrub(e.Message), s.secrets.Scrub(e.Request)
	return e
}

func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func codeOf(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func (s *Store) notFound(key string) error {
	return fmt.Errorf("s3store: %q (s3://%s/%s): %w", key, s.bucket, s.full(key), store.ErrNotFound)
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.full(key))})
	if err != nil {
		if codeOf(err) == "NoSuchKey" {
			return nil, s.notFound(key)
		}
		return nil, s.fail("get", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, s.fail("get", key, err)
	}
	return b, nil
}

// GetLimited implements store.LimitedGetter: an object whose Content-Length
// is over limit is refused before its body is read; without a length, the
// body is read up to limit+1 bytes and refused there.
func (s *Store) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.full(key))})
	if err != nil {
		if codeOf(err) == "NoSuchKey" {
			return nil, s.notFound(key)
		}
		return nil, s.fail("get", key, err)
	}
	defer out.Body.Close()
	if out.ContentLength != nil && *out.ContentLength > limit {
		return nil, store.TooLarge(key, *out.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, s.fail("get", key, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %q has more than %d bytes, the limit is %d", store.ErrTooLarge, key, limit, limit)
	}
	return b, nil
}

// GetRange implements store.Store with a Range request.
func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, err
	}
	past := func(size string) error {
		return fmt.Errorf("s3store: %q: %w: %d+%d of %s bytes", key, store.ErrRange, offset, length, size)
	}
	if offset < 0 || length < 0 {
		return nil, past("?")
	}
	if length == 0 {
		// HTTP has no empty range: ask for the size.
		h, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.full(key))})
		if err != nil {
			if statusOf(err) == http.StatusNotFound {
				// HEAD has no body to tell a missing key from a missing bucket.
				if _, gerr := s.Get(ctx, key); gerr != nil {
					return nil, gerr
				}
				return nil, s.notFound(key)
			}
			return nil, s.fail("getRange", key, err)
		}
		if size := aws.ToInt64(h.ContentLength); offset > size {
			return nil, past(fmt.Sprint(size))
		}
		return []byte{}, nil
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)),
	})
	if err != nil {
		switch {
		case codeOf(err) == "NoSuchKey":
			return nil, s.notFound(key)
		case statusOf(err) == http.StatusRequestedRangeNotSatisfiable:
			return nil, past("fewer")
		}
		return nil, s.fail("getRange", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, length+1))
	if err != nil {
		return nil, s.fail("getRange", key, err)
	}
	if int64(len(b)) != length {
		// S3 answers a range running past the end with the bytes there are.
		return nil, past(fmt.Sprintf("%d+%d", offset, len(b)))
	}
	return b, nil
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)),
		Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return s.fail("put", key, err)
	}
	return nil
}

// PutIfAbsent implements store.Store with "If-None-Match: *". See the package
// comment for the retries and the read-back after a lost answer.
func (s *Store) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if err := store.CheckKey(key); err != nil {
		return false, err
	}
	uncertain := false // an earlier attempt may have written the object
	var last error
	for attempt := range s.maxAttempts {
		if attempt > 0 {
			if err := sleep(ctx, attempt); err != nil {
				return false, s.fail("putIfAbsent", key, err)
			}
		}
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: aws.String(s.full(key)),
			Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
			IfNoneMatch: aws.String("*"),
		}, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
		if err == nil {
			return true, nil
		}
		if ctx.Err() != nil {
			return false, s.fail("putIfAbsent", key, err)
		}
		last = err
		switch st := statusOf(err); {
		case st == http.StatusPreconditionFailed:
			if !uncertain {
				return false, nil
			}
			got, gerr := s.Get(ctx, key)
			if gerr != nil {
				return false, s.fail("putIfAbsent", key, fmt.Errorf("after a lost answer, reading the key back: %w", gerr))
			}
			return bytes.Equal(got, data), nil
		case st == http.StatusConflict:
			// ConditionalRequestConflict: nothing was written; try again.
		case st >= 500 || st == 0:
			uncertain = true
		default:
			return false, s.fail("putIfAbsent", key, err)
		}
	}
	return false, s.fail("putIfAbsent", key, last)
}

// sleep waits a jittered exponential backoff: 50 ms × 2^(attempt-1), up to 2 s.
func sleep(ctx context.Context, attempt int) error {
	d := min(50*time.Millisecond<<(attempt-1), 2*time.Second)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Delete implements store.Store with DeleteObjects, 1,000 keys a request.
func (s *Store) Delete(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.CheckKey(k); err != nil {
			return err
		}
	}
	for batch := range slices.Chunk(keys, 1000) {
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			ids[i] = types.ObjectIdentifier{Key: aws.String(s.full(k))}
		}
		out, err := s.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: &s.bucket, Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return s.fail("delete", batch[0], err)
		}
		for _, e := range out.Errors {
			if aws.ToString(e.Code) == "NoSuchKey" {
				continue
			}
			key := strings.TrimPrefix(aws.ToString(e.Key), s.base)
			return &Error{Op: "delete", Key: key, Object: "s3://" + s.bucket + "/" + aws.ToString(e.Key),
				Status: http.StatusOK, Code: s.secrets.Scrub(aws.ToString(e.Code)), Message: s.secrets.Scrub(aws.ToString(e.Message))}
		}
	}
	return nil
}

// List implements store.Store with ListObjectsV2, page by page.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	var objs []store.Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.full(prefix))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.fail("list", prefix, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if !strings.HasPrefix(k, s.base) {
				continue
			}
			objs = append(objs, store.Object{Key: k[len(s.base):], Size: aws.ToInt64(o.Size), LastModified: aws.ToTime(o.LastModified)})
		}
	}
	slices.SortFunc(objs, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}
