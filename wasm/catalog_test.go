//go:build js && wasm

package main

import (
	"context"
	"errors"
	"strings"
	"syscall/js"
	"testing"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// A JavaScript transport answering by a mode: "ok" echoes the request,
// "reject" rejects, "shape" resolves with a string.
const jsTransportSource = `(function (mode) {
  return (method, url, headers, body) => {
    if (mode === "reject") return Promise.reject(new Error("connect ECONNREFUSED"));
    if (mode === "shape") return Promise.resolve("nope");
    const echo = JSON.stringify({ method, url, headers, body: body === null ? null : new TextDecoder().decode(body) });
    return Promise.resolve({ status: 201, headers: { "retry-after": "3" }, body: new TextEncoder().encode(echo) });
  };
})`

func testTransport(mode string) *jsTransport {
	return &jsTransport{fn: js.Global().Call("eval", jsTransportSource).Invoke(mode)}
}

// TestJSTransport: a request crosses whole (method, URL, headers, body) and
// the response comes back; a rejection or a wrong shape is an error naming
// the method and the URL without its query, never a header.
func TestJSTransport(t *testing.T) {
	ctx := context.Background()
	req := &restcatalog.Request{Method: "POST", URL: "http://h/v1/x?warehouse=w", Header: map[string]string{"Authorization": "Bearer sekrit-token"}, Body: []byte(`{"a":1}`)}
	resp, err := testTransport("ok").Do(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"method":"POST","url":"http://h/v1/x?warehouse=w","headers":{"Authorization":"Bearer sekrit-token"},"body":"{\"a\":1}"}`
	if resp.Status != 201 || string(resp.Body) != want || resp.Header["retry-after"] != "3" {
		t.Errorf("got %d %q %v", resp.Status, resp.Body, resp.Header)
	}
	for _, mode := range []string{"reject", "shape"} {
		_, err := testTransport(mode).Do(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "fetch POST http://h/v1/x") || strings.Contains(err.Error(), "sekrit") || strings.Contains(err.Error(), "warehouse") {
			t.Errorf("%s: %v", mode, err)
		}
	}
}

// TestCatalogErrorsScrubbed: through the bridge's catalog client, an
// unreachable catalog is CATALOG_UNAVAILABLE and the rejection's message
// holds neither the token nor the client secret.
func TestCatalogErrorsScrubbed(t *testing.T) {
	spec := js.ValueOf(`{"uri":"http://h","credential":"id:client-secret-42"}`)
	h, err := openCatalog(context.Background(), []js.Value{spec, testTransport("reject").fn})
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogs[h.(int)]
	_, err = table.OpenInCatalog(context.Background(), cat, restcatalog.MustIdent("a.b"), sysenv.Env(), nil)
	if err == nil {
		t.Fatal("opened")
	}
	if !errors.Is(err, restcatalog.ErrUnavailable) || table.Code(err) != "CATALOG_UNAVAILABLE" || strings.Contains(err.Error(), "client-secret-42") {
		t.Errorf("%v (%s): want CATALOG_UNAVAILABLE without the secret", err, table.Code(err))
	}
	remember("the-token-1234", `tök"en/+=`)
	e := toJSError("openCatalogTable", errors.New(`oops the-token-1234 and client-secret-42, client_secret=client%2Dsecret%2D42, "t\u00f6k\"en\/+="`))
	if msg := e.Get("message").String(); strings.Contains(msg, "the-token-1234") || strings.Contains(msg, "secret-42") || strings.Contains(msg, "secret%2D42") || strings.Contains(msg, "en\\/") {
		t.Errorf("not scrubbed: %s", msg)
	}
}
