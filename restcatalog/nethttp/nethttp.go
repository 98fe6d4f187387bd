// Package nethttp is the native Transport of restcatalog: Go's net/http.
//
//	cat, err := restcatalog.New(restcatalog.Config{URI: uri, Transport: nethttp.New(30 * time.Second)})
package nethttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/timelake/timelake/restcatalog"
)

// MaxResponseBytes bounds a response body (a table's metadata is the largest).
const MaxResponseBytes = 256 << 20

// Transport sends requests with an http.Client. Redirects are not followed:
// a commit must not be resent by the transport behind the decider's back.
type Transport struct{ Client *http.Client }

// New is a Transport whose requests time out after timeout (0: none).
func New(timeout time.Duration) Transport {
	return Transport{Client: &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Do sends req.
func (t Transport) Do(ctx context.Context, req *restcatalog.Request) (*restcatalog.Response, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	c := t.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
	}
	h := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		if len(v) > 0 {
			h[http.CanonicalHeaderKey(k)] = v[0]
		}
	}
	return &restcatalog.Response{Status: resp.StatusCode, Header: h, Body: data}, nil
}
