//go:build js && wasm

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"syscall/js"
	"time"

	"github.com/timelake/timelake/store"
)

var (
	jsUint8Array  = js.Global().Get("Uint8Array")
	jsArrayBuffer = js.Global().Get("ArrayBuffer")
	jsDate        = js.Global().Get("Date")
	jsArray       = js.Global().Get("Array")
)

// jsStore is a store.Store over a JavaScript object with the client's Store
// methods (get, getRange, put, putIfAbsent, delete, list), each returning a
// Promise (or a plain value). Calls run one goroutine each, so the parallel
// uploads of a commit have several Promises in flight at once.
//
// Whatever the object does — throw, reject, resolve with the wrong type — is
// an error naming the method and key, never a panic.
type jsStore struct{ v js.Value }

// storeError is a failed store call. code, when set, is what the client's
// errors use (STORE_ERROR otherwise, by table.Code).
type storeError struct {
	method, key string
	code        string
	msg         string
	wrapped     error // ErrNotFound, ErrRange, ErrBadKey when the store said so
}

func (e *storeError) Error() string {
	if e.key != "" {
		return fmt.Sprintf("store.%s(%q): %s", e.method, e.key, e.msg)
	}
	return fmt.Sprintf("store.%s: %s", e.method, e.msg)
}

func (e *storeError) Unwrap() error { return e.wrapped }

// call invokes method and awaits its result.
func (s *jsStore) call(ctx context.Context, method, key string, args ...any) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &storeError{method: method, key: key, msg: fmt.Sprintf("threw: %s", panicMessage(r))}
		}
	}()
	if err := ctx.Err(); err != nil {
		return js.Undefined(), err
	}
	paceStoreCall()
	if t := s.v.Get(method).Type(); t != js.TypeFunction {
		return js.Undefined(), &storeError{method: method, key: key, msg: fmt.Sprintf("the store has no %s method (found %s)", method, t)}
	}
	res := s.v.Call(method, args...)
	return await(ctx, method, key, res)
}

func panicMessage(r any) string {
	if e, ok := r.(js.Error); ok {
		return jsMessage(e.Value)
	}
	return fmt.Sprint(r)
}

// jsMessage describes a thrown or rejected JavaScript value.
func jsMessage(v js.Value) string {
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return m.String()
		}
	}
	return js.Global().Get("String").Invoke(v).String()
}

// await waits for p if it is a thenable; any other value is its own result.
func await(ctx context.Context, method, key string, p js.Value) (js.Value, error) {
	r, err := settle(ctx, p)
	if err != nil {
		return js.Undefined(), err
	}
	if !r.ok {
		return js.Undefined(), rejected(method, key, r.v)
	}
	return r.v, nil
}

// rejected maps a rejection to an error; a code of NOT_FOUND, RANGE,
// BAD_KEY or TOO_LARGE on the rejected value maps to the store's sentinel
// errors.
func rejected(method, key string, v js.Value) error {
	e := &storeError{method: method, key: key, msg: "rejected: " + jsMessage(v)}
	if v.Type() == js.TypeObject {
		if c := v.Get("code"); c.Type() == js.TypeString {
			switch c.String() {
			case "NOT_FOUND":
				e.wrapped = store.ErrNotFound
			case "RANGE":
				e.wrapped = store.ErrRange
			case "BAD_KEY":
				e.wrapped, e.code = store.ErrBadKey, "BAD_KEY"
			case "TOO_LARGE":
				e.wrapped = store.ErrTooLarge
			}
		}
	}
	return e
}

func wrongType(method, key string, v js.Value, want string) error {
	return &storeError{method: method, key: key, msg: fmt.Sprintf("resolved with %s, want %s", describe(v), want)}
}

func describe(v js.Value) string {
	switch v.Type() {
	case js.TypeObject:
		if c := v.Get("constructor"); c.Type() == js.TypeFunction {
			name := c.Get("name").String()
			if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
				return "an " + name
			}
			return "a " + name
		}
		return "an object"
	case js.TypeString:
		return "a string"
	case js.TypeNumber:
		return "a number"
	}
	return v.Type().String()
}

// bytesOf copies a Uint8Array (or ArrayBuffer) into Go.
func bytesOf(method, key string, v js.Value) ([]byte, error) {
	if v.Type() == js.TypeObject && v.InstanceOf(jsArrayBuffer) {
		v = jsUint8Array.New(v)
	}
	if v.Type() != js.TypeObject || !v.InstanceOf(jsUint8Array) {
		return nil, wrongType(method, key, v, "a Uint8Array")
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b, nil
}

func toJSBytes(b []byte) js.Value {
	a := jsUint8Array.New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

func isNullish(v js.Value) bool { return v.IsNull() || v.IsUndefined() }

func (s *jsStore) Get(ctx context.Context, key string) ([]byte, error) {
	return s.GetLimited(ctx, key, -1)
}

// GetLimited makes the core's size limits real for JavaScript stores: it
// calls get(key, {maxBytes: limit}), and a store that supports the option
// refuses a larger object (rejecting with code TOO_LARGE) from its size —
// a stat, a Content-Length, R2's object size — before reading the body. A
// store that ignores the option returns the whole object, which is refused
// here, after the fact, as store.GetLimited does for a Go store without
// the method: the same error either way. A negative limit is none: a plain
// get(key), which is Get.
func (s *jsStore) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, err
	}
	args := []any{key}
	if limit >= 0 {
		opts := js.Global().Get("Object").New()
		opts.Set("maxBytes", float64(limit))
		args = append(args, opts)
	}
	v, err := s.call(ctx, "get", key, args...)
	if err != nil {
		return nil, err
	}
	if isNullish(v) {
		return nil, fmt.Errorf("store.get(%q): %w", key, store.ErrNotFound)
	}
	if limit >= 0 && v.Type() == js.TypeObject && (v.InstanceOf(jsUint8Array) || v.InstanceOf(jsArrayBuffer)) {
		if n := int64(v.Get("byteLength").Int()); n > limit {
			return nil, store.TooLarge(key, n, limit)
		}
	}
	return bytesOf("get", key, v)
}

func (s *jsStore) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, err
	}
	if offset < 0 || length < 0 {
		return nil, fmt.Errorf("store.getRange(%q, %d, %d): %w", key, offset, length, store.ErrRange)
	}
	// s.call paces the collections (paceStoreCall): a scan opening many
	// files allocates its footers, indexes and first windows before the
	// first batch reaches the consumer.
	v, err := s.call(ctx, "getRange", key, key, offset, length)
	if err != nil {
		return nil, err
	}
	if isNullish(v) {
		return nil, fmt.Errorf("store.getRange(%q): %w", key, store.ErrNotFound)
	}
	b, err := bytesOf("getRange", key, v)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != length {
		// A store that returns what it has: short means the range ran past the end.
		if int64(len(b)) < length {
			return nil, fmt.Errorf("store.getRange(%q, %d, %d) gave %d bytes: %w", key, offset, length, len(b), store.ErrRange)
		}
		return nil, &storeError{method: "getRange", key: key, msg: fmt.Sprintf("gave %d bytes for a range of %d", len(b), length)}
	}
	return b, nil
}

func (s *jsStore) Put(ctx context.Context, key string, data []byte) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	_, err := s.call(ctx, "put", key, key, toJSBytes(data))
	return err
}

func (s *jsStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if err := store.CheckKey(key); err != nil {
		return false, err
	}
	v, err := s.call(ctx, "putIfAbsent", key, key, toJSBytes(data))
	if err != nil {
		return false, err
	}
	if v.Type() != js.TypeBoolean {
		return false, wrongType("putIfAbsent", key, v, "a boolean")
	}
	return v.Bool(), nil
}

func (s *jsStore) Delete(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	arr := jsArray.New(len(keys))
	for i, k := range keys {
		if err := store.CheckKey(k); err != nil {
			return err
		}
		arr.SetIndex(i, k)
	}
	_, err := s.call(ctx, "delete", keys[0], arr)
	return err
}

func (s *jsStore) List(ctx context.Context, prefix string) (out []store.Object, err error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	v, err := s.call(ctx, "list", "", prefix)
	if err != nil {
		return nil, err
	}
	if v.Type() != js.TypeObject || !jsArray.Call("isArray", v).Bool() {
		return nil, wrongType("list", "", v, "an array of {key, size, lastModified}")
	}
	defer func() { // a malformed entry (a getter that throws, say)
		if r := recover(); r != nil {
			out, err = nil, &storeError{method: "list", msg: fmt.Sprintf("malformed entry: %s", panicMessage(r))}
		}
	}()
	if out, ok := listFlat(v); ok {
		for _, o := range out {
			if !strings.HasPrefix(o.Key, prefix) {
				return nil, &storeError{method: "list", msg: fmt.Sprintf("entry %q does not start with the prefix %q", o.Key, prefix)}
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out, nil
	}
	n := v.Length()
	out = make([]store.Object, 0, n)
	for i := 0; i < n; i++ {
		e := v.Index(i)
		if e.Type() != js.TypeObject {
			return nil, wrongType("list", "", e, "{key, size, lastModified} entries")
		}
		k, size := e.Get("key"), e.Get("size")
		if k.Type() != js.TypeString || size.Type() != js.TypeNumber {
			return nil, &storeError{method: "list", msg: fmt.Sprintf("entry %d: key is %s and size %s, want a string and a number", i, describe(k), describe(size))}
		}
		o := store.Object{Key: k.String(), Size: int64(size.Float())}
		if !strings.HasPrefix(o.Key, prefix) {
			return nil, &storeError{method: "list", msg: fmt.Sprintf("entry %q does not start with the prefix %q", o.Key, prefix)}
		}
		switch lm := e.Get("lastModified"); {
		case lm.Type() == js.TypeNumber:
			o.LastModified = time.UnixMilli(int64(lm.Float())).UTC()
		case lm.Type() == js.TypeObject && lm.InstanceOf(jsDate):
			o.LastModified = time.UnixMilli(int64(lm.Call("getTime").Float())).UTC()
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

var (
	_ store.Store         = (*jsStore)(nil)
	_ store.LimitedGetter = (*jsStore)(nil)
)

// listFlat reads a listing through the client's list hook (bridgehooks.ts):
// two values cross the bridge instead of three per entry. ok is false when
// the hook declined (an entry of another shape): the caller then reads
// entry by entry, which names what is wrong.
func listFlat(v js.Value) (out []store.Object, ok bool) {
	hooks()
	r := listHook.Invoke(v)
	if r.Type() != js.TypeObject {
		return nil, false
	}
	joined, nb := r.Index(0).String(), r.Index(1)
	n := v.Length()
	nums := make([]byte, nb.Get("byteLength").Int())
	if len(nums) != 24*n || js.CopyBytesToGo(nums, nb) != len(nums) {
		return nil, false
	}
	out = make([]store.Object, n)
	for i := range out {
		key, rest, _ := strings.Cut(joined, "\n")
		joined = rest
		f := func(k int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(nums[8*(3*i+k):])) }
		out[i] = store.Object{Key: key, Size: int64(f(0))}
		if f(1) != 0 {
			out[i].LastModified = time.UnixMilli(int64(f(2))).UTC()
		}
	}
	return out, true
}
