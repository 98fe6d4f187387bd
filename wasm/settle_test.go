//go:build js && wasm

package main

import (
	"context"
	"os"
	"syscall/js"
	"testing"
)

// The client's hooks (client/src/bridgehooks.ts), which the Go tests run
// without: the same two functions.
const hooksSource = `(function (g) {
  g.__timelakeSettle = function (cb, id, p) {
    if (p === null || typeof p !== "object") return false;
    const then = p.then;
    if (typeof then !== "function") return false;
    then.call(p, (v) => cb(id, true, v), (e) => cb(id, false, e));
    return true;
  };
  g.__timelakeDeferred = function () {
    let resolve, reject;
    const promise = new Promise((a, b) => { resolve = a; reject = b; });
    return { promise, resolve, reject };
  };
})`

func TestMain(m *testing.M) {
	js.Global().Call("eval", hooksSource).Invoke(js.Global())
	os.Exit(m.Run())
}

// TestSettle: fulfilment, rejection, a plain value, a thenable that is not a
// Promise, and many waits at once each get their own outcome; nothing is
// left registered.
func TestSettle(t *testing.T) {
	ctx := context.Background()
	ev := func(src string) js.Value { return js.Global().Call("eval", src) }
	if r, err := settle(ctx, ev("Promise.resolve(7)")); err != nil || !r.ok || r.v.Int() != 7 {
		t.Errorf("resolved: %v %v", r, err)
	}
	if r, err := settle(ctx, ev("Promise.reject(new Error('no'))")); err != nil || r.ok || jsMessage(r.v) != "no" {
		t.Errorf("rejected: %v %v", r, err)
	}
	if r, err := settle(ctx, js.ValueOf(3)); err != nil || !r.ok || r.v.Int() != 3 {
		t.Errorf("plain: %v %v", r, err)
	}
	if r, err := settle(ctx, ev("({then(ok) { ok('x'); }})")); err != nil || !r.ok || r.v.String() != "x" {
		t.Errorf("thenable: %v %v", r, err)
	}
	if r, err := settle(ctx, ev("({a: 1})")); err != nil || !r.ok || r.v.Get("a").Int() != 1 {
		t.Errorf("object without then: %v %v", r, err)
	}
	done := make(chan int, 50)
	for i := 0; i < 50; i++ {
		go func() {
			p := js.Global().Get("Promise").Call("resolve", i)
			r, err := settle(ctx, p)
			if err != nil || !r.ok || r.v.Int() != i {
				t.Errorf("wait %d: %v %v", i, r, err)
			}
			done <- i
		}()
	}
	for i := 0; i < 50; i++ {
		<-done
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := settle(cctx, ev("new Promise(() => {})")); err == nil {
		t.Error("a cancelled wait returned no error")
	}
	if n := len(waits); n != 0 {
		t.Errorf("%d waits left registered", n)
	}
}
