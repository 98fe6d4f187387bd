//go:build js && wasm

package main

import (
	"context"
	"sync"
	"syscall/js"
)

// Waiting on a JavaScript Promise through one long-lived callback.
//
// A js.FuncOf per Promise (two: fulfilment and rejection) costs a call out
// to JavaScript to make each wrapper, a map entry, and a js.Value the
// collector finalizes; a store call also paid for reading p.then and calling
// it. Here the client's settle hook (client/src/bridgehooks.ts) does the
// thenable test and the subscription in one call, and every settlement comes
// back through settledCB with the number that names the wait.

type settled struct {
	v  js.Value
	ok bool
}

var (
	hooksOnce  sync.Once
	settleHook js.Value // (cb, id, p) → whether p was a thenable (then cb(id, ok, value))
	deferHook  js.Value // () → {promise, resolve, reject}
	listHook   js.Value // (entries) → [keys joined by "\n", Float64Array bytes] or null
	settledCB  js.Func

	waitsMu  sync.Mutex
	waits    = map[uint32]chan settled{}
	nextWait uint32
)

func hooks() {
	hooksOnce.Do(func() {
		settleHook = js.Global().Get("__timelakeSettle")
		deferHook = js.Global().Get("__timelakeDeferred")
		listHook = js.Global().Get("__timelakeList")
		if settleHook.Type() != js.TypeFunction || deferHook.Type() != js.TypeFunction || listHook.Type() != js.TypeFunction {
			panic("timelake: globalThis.__timelakeSettle, __timelakeDeferred or __timelakeList is not a function; load timelake.wasm through @timelake/client")
		}
		settledCB = js.FuncOf(func(_ js.Value, a []js.Value) any {
			if len(a) < 3 {
				return nil
			}
			id := uint32(a[0].Int())
			waitsMu.Lock()
			ch, ok := waits[id]
			delete(waits, id)
			waitsMu.Unlock()
			if ok { // gone when the waiter's context ended first
				ch <- settled{a[2], a[1].Truthy()}
			}
			return nil
		})
	})
}

// settle waits for p if it is a thenable (a plain value is its own
// fulfilment); the error is only the context's. A then that throws panics,
// as calling it directly would; callers recover.
func settle(ctx context.Context, p js.Value) (settled, error) {
	if p.Type() != js.TypeObject { // the type is in the reference: no call out
		return settled{p, true}, nil
	}
	hooks()
	ch := make(chan settled, 1)
	waitsMu.Lock()
	nextWait++
	id := nextWait
	waits[id] = ch
	waitsMu.Unlock()
	if !settleHook.Invoke(settledCB.Value, id, p).Truthy() {
		forget(id)
		return settled{p, true}, nil
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		forget(id) // its settlement, when it comes, is dropped
		return settled{}, ctx.Err()
	}
}

func forget(id uint32) {
	waitsMu.Lock()
	delete(waits, id)
	waitsMu.Unlock()
}

// newDeferred is a Promise with its resolve and reject functions.
func newDeferred() (promise, resolve, reject js.Value) {
	hooks()
	d := deferHook.Invoke()
	return d.Get("promise"), d.Get("resolve"), d.Get("reject")
}
