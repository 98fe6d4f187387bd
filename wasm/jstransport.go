//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"net/url"
	"syscall/js"

	"github.com/timelake/timelake/restcatalog"
)

// jsTransport is a restcatalog.Transport over a JavaScript function the
// client passes (the TypeScript side calls fetch):
//
//	(method, url, headers: {name: value}, body: Uint8Array | null)
//	  → Promise<{status: number, headers: {name: value}, body: Uint8Array}>
//
// A rejection or a result of the wrong shape is an error (no response: the
// catalog client reports CATALOG_UNAVAILABLE, and a commit's outcome is then
// unknown). The error names the method and the URL without its query, never
// the headers (they carry the token).
type jsTransport struct{ fn js.Value }

func (t *jsTransport) Do(ctx context.Context, req *restcatalog.Request) (resp *restcatalog.Response, err error) {
	where := req.Method + " " + stripQuery(req.URL)
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("fetch %s: threw: %s", where, panicMessage(r))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hdr := js.Global().Get("Object").New()
	for k, v := range req.Header {
		hdr.Set(k, v)
	}
	body := js.Null()
	if req.Body != nil {
		body = toJSBytes(req.Body)
	}
	s, err := settle(ctx, t.fn.Invoke(req.Method, req.URL, hdr, body))
	if err != nil {
		return nil, err
	}
	if !s.ok {
		return nil, fmt.Errorf("fetch %s: %s", where, jsMessage(s.v))
	}
	v := s.v
	if v.Type() != js.TypeObject || v.Get("status").Type() != js.TypeNumber {
		return nil, fmt.Errorf("fetch %s: resolved with %s, want {status, headers, body}", where, describe(v))
	}
	out := &restcatalog.Response{Status: v.Get("status").Int(), Header: map[string]string{}}
	if h := v.Get("headers"); h.Type() == js.TypeObject {
		keys := js.Global().Get("Object").Call("keys", h)
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			if hv := h.Get(k); hv.Type() == js.TypeString {
				out.Header[k] = hv.String()
			}
		}
	}
	if b := v.Get("body"); !isNullish(b) {
		if out.Body, err = bytesOf("fetch", where, b); err != nil {
			return nil, fmt.Errorf("fetch %s: body: %w", where, err)
		}
	}
	return out, nil
}

// stripQuery drops a URL's query and user info for messages.
func stripQuery(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

var _ restcatalog.Transport = (*jsTransport)(nil)
