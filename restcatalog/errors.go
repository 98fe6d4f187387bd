package restcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timelake/timelake/commit"
)

// Kinds of catalog failure. An *Error wraps one of them (errors.Is).
var (
	// ErrNoSuchTable: the catalog has no such table (404). It also
	// wraps commit.ErrNoTable, so drivers report NO_TABLE as for a
	// storage-only table.
	ErrNoSuchTable = fmt.Errorf("no such table in the catalog: %w", commit.ErrNoTable)
	// ErrNoSuchNamespace: the namespace does not exist (404).
	ErrNoSuchNamespace = errors.New("no such namespace in the catalog")
	// ErrAlreadyExists: a table or namespace of that name exists (409 on create).
	ErrAlreadyExists = errors.New("already exists in the catalog")
	// ErrNotAuthorized: the catalog refused the credentials (401, 403, 419).
	ErrNotAuthorized = errors.New("the catalog refused the credentials")
	// ErrUnavailable: no response (refused, timed out, cut off) or 502/503/504.
	ErrUnavailable = errors.New("the catalog is unavailable")
	// ErrServer: the catalog failed (500 and other 5xx).
	ErrServer = errors.New("the catalog failed")
	// ErrRateLimited: 429 Too Many Requests.
	ErrRateLimited = errors.New("the catalog is rate limiting")
	// ErrCommitFailed: 409 on a commit: a requirement no longer holds (another writer won).
	ErrCommitFailed = errors.New("commit refused: the table changed")
	// ErrRejected: any other 4xx (a request the catalog found invalid, 406 unsupported, …).
	ErrRejected = errors.New("the catalog rejected the request")
	// ErrBadIdent: a table name that is not NAMESPACE.TABLE.
	ErrBadIdent = errors.New("bad table name")
	// ErrBadResponse: a response that does not follow the spec.
	ErrBadResponse = errors.New("bad response from the catalog")
)

// Error is a failed catalog request: what was asked, the HTTP status and
// the catalog's ErrorModel (type and message). It never holds credentials.
type Error struct {
	Op         string // e.g. "load table metrics.cpu"
	Status     int    // 0 when no response arrived
	Type       string // the catalog's error type, e.g. "NoSuchTableException"
	Message    string // the catalog's message, or the transport's error
	RetryAfter time.Duration
	kind       error
	cause      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("catalog: ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.Status == 0 {
		b.WriteString("no response")
	} else {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	}
	if e.Type != "" {
		b.WriteString(" ")
		b.WriteString(e.Type)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.kind != nil {
		b.WriteString(": ")
		b.WriteString(e.kind.Error())
	}
	return b.String()
}

// Unwrap gives the kind (ErrNoSuchTable, …) and the transport's error.
func (e *Error) Unwrap() []error {
	out := []error{e.kind}
	if e.cause != nil {
		out = append(out, e.cause)
	}
	return out
}

// Code is the stable code drivers report. persisted (in user scripts): must not change.
func (e *Error) Code() string { return Code(e) }

// Code is the stable code of a catalog error, or "" when err is not one.
func Code(err error) string {
	switch {
	case errors.Is(err, ErrNoSuchTable):
		return "NO_TABLE"
	case errors.Is(err, ErrNoSuchNamespace):
		return "NO_NAMESPACE"
	case errors.Is(err, ErrAlreadyExists):
		return "TABLE_EXISTS"
	case errors.Is(err, ErrNotAuthorized):
		return "CATALOG_AUTH"
	case errors.Is(err, ErrUnavailable):
		return "CATALOG_UNAVAILABLE"
	case errors.Is(err, ErrRateLimited):
		return "CATALOG_RATE_LIMITED"
	case errors.Is(err, ErrBadIdent):
		return "BAD_TABLE_NAME"
	case errors.Is(err, ErrServer), errors.Is(err, ErrRejected), errors.Is(err, ErrBadResponse), errors.Is(err, ErrCommitFailed):
		return "CATALOG_ERROR"
	}
	return ""
}

// errorModel is the spec's ErrorModel inside {"error": …}.
type errorModel struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// responseError builds the Error of a non-2xx response.
func responseError(op string, resp *Response, notFound error, now func() time.Time) *Error {
	e := &Error{Op: op, Status: resp.Status}
	var m errorModel
	if json.Unmarshal(resp.Body, &m) == nil && (m.Error.Type != "" || m.Error.Message != "") {
		e.Type, e.Message = m.Error.Type, m.Error.Message
	} else if len(resp.Body) > 0 {
		// Not an ErrorModel (a proxy's page, an OAuth error): a short excerpt.
		var oauth struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(resp.Body, &oauth) == nil && oauth.Error != "" {
			e.Type, e.Message = oauth.Error, oauth.Description
		} else {
			e.Message = excerpt(resp.Body)
		}
	}
	switch s := resp.Status; {
	case s == 404 && e.Type == "NoSuchNamespaceException":
		e.kind = ErrNoSuchNamespace
	case s == 404 && (e.Type == "NoSuchTableException" || notFound == nil):
		e.kind = ErrNoSuchTable
	case s == 404:
		e.kind = notFound
	case s == 409 && e.Type == "AlreadyExistsException":
		e.kind = ErrAlreadyExists
	case s == 409:
		e.kind = ErrCommitFailed
	case s == 401, s == 403, s == 419:
		e.kind = ErrNotAuthorized
	case s == 429:
		e.kind = ErrRateLimited
		e.RetryAfter = retryAfter(header(resp.Header, "Retry-After"), now)
	case s == 502, s == 503, s == 504:
		e.kind = ErrUnavailable
	case s >= 500:
		e.kind = ErrServer
	default:
		e.kind = ErrRejected
	}
	return e
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// retryAfter parses Retry-After: seconds, or an HTTP date (needs now).
// Unparsable or absent is 0 (the caller backs off on its own).
func retryAfter(v string, now func() time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && fmt.Sprint(secs) == v {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if now != nil {
		if t, err := time.Parse(time.RFC1123, v); err == nil {
			return max(t.Sub(now()), 0)
		}
	}
	return 0
}
