//go:build js && wasm

package main

import (
	"context"
	"os"
	"reflect"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/timelake/timelake/store"
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
  g.__timelakeList = function (v) {
    if (!Array.isArray(v)) return null;
    const keys = new Array(v.length);
    const nums = new Float64Array(v.length * 3);
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      if (e === null || typeof e !== "object") return null;
      const { key, size, lastModified: lm } = e;
      if (typeof key !== "string" || typeof size !== "number" || key.includes("\n")) return null;
      keys[i] = key;
      nums[3 * i] = size;
      if (typeof lm === "number") { nums[3 * i + 1] = 1; nums[3 * i + 2] = lm; }
      else if (lm instanceof Date) { nums[3 * i + 1] = 1; nums[3 * i + 2] = lm.getTime(); }
    }
    return [keys.join("\n"), new Uint8Array(nums.buffer)];
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

// TestListThroughHook: a listing crosses as keys and numbers (sizes, times
// as numbers, Dates or absent) and comes out as the per-entry reading gave
// it; a listing the hook declines (a key with a newline, an entry of another
// shape) is read entry by entry, with the same errors as before.
func TestListThroughHook(t *testing.T) {
	ctx := context.Background()
	mk := func(entries string) *jsStore {
		return &jsStore{v: js.Global().Call("eval", "(function () { return { list(p) { return Promise.resolve("+entries+"); } }; })").Invoke()}
	}
	got, err := mk(`[{key: "b/2", size: 5, lastModified: 1700000000123}, {key: "a/1", size: 0}, {key: "b/3", size: 7, lastModified: new Date(1700000000456)}]`).List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Object{
		{Key: "a/1", Size: 0},
		{Key: "b/2", Size: 5, LastModified: time.UnixMilli(1700000000123).UTC()},
		{Key: "b/3", Size: 7, LastModified: time.UnixMilli(1700000000456).UTC()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, err := mk(`[{key: "a\nb", size: 1}]`).List(ctx, ""); err != nil || len(got) != 1 || got[0].Key != "a\nb" {
		t.Errorf("a key with a newline: %+v %v", got, err)
	}
	if _, err := mk(`[{key: "a", size: 1}, {key: 3, size: 1}]`).List(ctx, ""); err == nil || !strings.Contains(err.Error(), "entry 1: key is a number and size a number") {
		t.Errorf("a malformed entry: %v", err)
	}
	if _, err := mk(`[{key: "x/a", size: 1}]`).List(ctx, "y/"); err == nil || !strings.Contains(err.Error(), `does not start with the prefix "y/"`) {
		t.Errorf("an entry outside the prefix: %v", err)
	}
	if got, err := mk(`[]`).List(ctx, ""); err != nil || len(got) != 0 {
		t.Errorf("empty: %+v %v", got, err)
	}
}
