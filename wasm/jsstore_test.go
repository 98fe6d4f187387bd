//go:build js && wasm

package main

import (
	"context"
	"errors"
	"strings"
	"syscall/js"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/store"
)

// A JavaScript store whose get records the maxBytes it was given and, when
// honour is set, rejects an object over it with code TOO_LARGE before
// "reading" it; otherwise it returns the whole object.
const jsStoreSource = `(function (size, honour) {
  const seen = [];
  return {
    seen,
    get(key, options) {
      const max = options === undefined ? undefined : options.maxBytes;
      if (honour && max !== undefined && size > max) {
        seen.push({ max, read: false });
        const e = new Error("object larger than the limit: " + JSON.stringify(key) + " has " + size + " bytes, the limit is " + max);
        e.code = "TOO_LARGE";
        return Promise.reject(e);
      }
      seen.push({ max, read: true });
      return Promise.resolve(new Uint8Array(size));
    },
  };
})`

func testJSStore(size int, honour bool) (*jsStore, js.Value) {
	v := js.Global().Call("eval", jsStoreSource).Invoke(size, honour)
	return &jsStore{v: v}, v.Get("seen")
}

// TestGetLimitedThroughBridge: the core's limit reaches the JavaScript get;
// a TOO_LARGE rejection and an oversized answer from a store that ignores
// the option are both store.ErrTooLarge, and an object within the limit is
// read.
func TestGetLimitedThroughBridge(t *testing.T) {
	ctx := context.Background()
	key := commit.MetadataKey(2)
	for _, honour := range []bool{true, false} {
		st, seen := testJSStore(commit.MaxMetadataBytes+1, honour)
		_, err := store.GetLimited(ctx, st, key, commit.MaxMetadataBytes)
		if !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), "has 134217729 bytes, the limit is 134217728") {
			t.Errorf("honour=%v: %v, want ErrTooLarge naming the size and limit", honour, err)
		}
		if seen.Length() != 1 || seen.Index(0).Get("max").Int() != commit.MaxMetadataBytes || seen.Index(0).Get("read").Bool() == honour {
			t.Errorf("honour=%v: the store saw %s", honour, js.Global().Get("JSON").Call("stringify", seen).String())
		}
	}
	st, _ := testJSStore(100, true)
	if b, err := store.GetLimited(ctx, st, key, 100); err != nil || len(b) != 100 {
		t.Errorf("an object at the limit: %d bytes, %v", len(b), err)
	}
}
