package restcatalog

import (
	"context"
	"strings"
)

// Request is one HTTP request. Header names are canonical
// (as net/http's CanonicalHeaderKey makes them); Body is nil for none.
type Request struct {
	Method string
	URL    string
	Header map[string]string
	Body   []byte
}

// Response is an HTTP response read whole. Header names are canonical.
type Response struct {
	Status int
	Header map[string]string
	Body   []byte
}

// This package does not import net/http: the WebAssembly build (which
// brings its own transport) would carry all of it for one helper.

// header returns the value of header name in h, whatever its case.
func header(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// Transport sends a request and returns its response. An error means no
// response arrived (refused, timed out, cut off): for a commit the outcome
// is then unknown. Implementations must not follow redirects of
// non-idempotent requests silently, nor log headers (they carry the token).
type Transport interface {
	Do(ctx context.Context, req *Request) (*Response, error)
}

// TransportFunc adapts a function to Transport.
type TransportFunc func(ctx context.Context, req *Request) (*Response, error)

// Do calls f.
func (f TransportFunc) Do(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }
