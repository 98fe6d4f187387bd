//go:build js && wasm

package main

import (
	"context"
	"syscall/js"
	"testing"
)

// settleFuncOf is how settle waited before the hook: two js.FuncOf per
// Promise, p.then read and called from Go. Kept here to measure against.
func settleFuncOf(ctx context.Context, p js.Value) (settled, error) {
	if p.Type() != js.TypeObject || p.Get("then").Type() != js.TypeFunction {
		return settled{p, true}, nil
	}
	ch := make(chan settled, 1)
	arg0 := func(a []js.Value) js.Value {
		if len(a) == 0 {
			return js.Undefined()
		}
		return a[0]
	}
	onOK := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- settled{arg0(a), true}; return nil })
	onErr := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- settled{arg0(a), false}; return nil })
	release := func() { onOK.Release(); onErr.Release() }
	p.Call("then", onOK, onErr)
	select {
	case r := <-ch:
		release()
		return r, nil
	case <-ctx.Done():
		go func() { <-ch; release() }()
		return settled{}, ctx.Err()
	}
}

// BenchmarkSettle: one wait on a resolved Promise, as each store call makes.
//
//	GOOS=js GOARCH=wasm go test ./wasm -run '^$' -bench Settle -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
func BenchmarkSettle(b *testing.B) {
	ctx := context.Background()
	resolved := js.Global().Get("Promise").Get("resolve").Call("bind", js.Global().Get("Promise"))
	for _, c := range []struct {
		name string
		f    func(context.Context, js.Value) (settled, error)
	}{{"funcof", settleFuncOf}, {"hook", settle}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.f(ctx, resolved.Invoke(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
