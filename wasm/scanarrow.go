//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// arrowChunks is a scan's Arrow IPC stream in chunks, one per batch (the
// schema message before the first), each copied into a Uint8Array: the
// client concatenates them (scan.arrow()) or streams them on
// (scan.arrowStream()), so the Go side holds one batch's bytes.
type arrowChunks struct {
	w   *arrowipc.StreamWriter
	buf []byte
}

func (a *arrowChunks) batch(b *rows.Batch) (js.Value, error) {
	if a.w == nil {
		w, err := arrowipc.NewStreamWriter(b.Schema)
		if err != nil {
			return js.Value{}, err
		}
		a.w = w
	}
	var err error
	if a.buf, err = a.w.Append(a.buf[:0], b); err != nil {
		return js.Value{}, err
	}
	return toJSBytes(a.buf), nil
}

// end is the last chunk: the end-of-stream marker, after the schema of
// proj (the scan's columns) when no batch came.
func (a *arrowChunks) end(proj *schema.Table) (js.Value, error) {
	if a.w == nil {
		w, err := arrowipc.NewStreamWriter(proj)
		if err != nil {
			return js.Value{}, err
		}
		a.w = w
	}
	return toJSBytes(a.w.End(a.buf[:0])), nil
}
