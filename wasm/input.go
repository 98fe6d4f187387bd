//go:build js && wasm

package main

import (
	"syscall/js"
	"time"
	"unsafe"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/wasm/colrows"
)

// alignInput aligns the rows argument of append to t: a Uint8Array is Arrow
// IPC bytes (a stream or a file), parsed by arrowipc; anything else is the
// client's columnar rows (readInput). copied is when the input was in Go
// memory, for the timings.
//
// evolveTo, when not nil ({ evolve: true }), is given the input's columns
// and returns the schema to align to.
func alignInput(v js.Value, t *schema.Table, opt rows.Options, evolveTo func([]evolve.Column) (*schema.Table, error)) (b *rows.Batch, copied time.Time, err error) {
	if v.InstanceOf(jsUint8Array) {
		data := make([]byte, v.Get("byteLength").Int())
		js.CopyBytesToGo(data, v)
		copied = time.Now()
		if evolveTo != nil {
			cols, err := arrowipc.Columns(data)
			if err != nil {
				return nil, copied, err
			}
			if t, err = evolveTo(cols); err != nil {
				return nil, copied, err
			}
		}
		b, err = arrowipc.Read(data, t, opt) // the batch copies what it keeps: data can go
		return b, copied, err
	}
	in, err := readInput(v)
	if err != nil {
		return nil, copied, err
	}
	copied = time.Now()
	if evolveTo != nil {
		if t, err = evolveTo(colrows.Columns(in)); err != nil {
			return nil, copied, err
		}
	}
	b, err = colrows.Build(t, in, opt)
	return b, copied, err // the copied arrays go with in, before the append allocates
}

// readInput copies the client's columnar rows into Go: per column, a few
// property reads and one js.CopyBytesToGo per array, straight into the
// []float64, []int64 and []int32 backing stores (WebAssembly is
// little-endian, as are the client's typed arrays).
//
//	{length, columns: [{name, tag, tags?, f64?, i64?, str?, off?, idx?}]}
//
// Every array arrives as a Uint8Array view of the typed array's bytes.
func readInput(v js.Value) (*colrows.Input, error) {
	n := v.Get("length")
	cols := v.Get("columns")
	if n.Type() != js.TypeNumber || cols.Type() != js.TypeObject || !jsArray.Call("isArray", cols).Bool() {
		return nil, badArg("columnar rows: want {length: number, columns: array}")
	}
	in := &colrows.Input{Len: n.Int(), Cols: make([]colrows.Column, cols.Length())}
	for i := range in.Cols {
		c := cols.Index(i)
		name, tag := c.Get("name"), c.Get("tag")
		if name.Type() != js.TypeString || tag.Type() != js.TypeNumber {
			return nil, badArg("columnar rows: column %d needs a string name and a number tag", i)
		}
		col := &in.Cols[i]
		col.Name, col.Tag = name.String(), colrows.Tag(tag.Int())
		var err error
		if col.Tags, err = bytesProp(c, "tags", 1); err != nil {
			return nil, err
		}
		f64, err := bytesProp(c, "f64", 8)
		if err != nil {
			return nil, err
		}
		col.F64 = asSlice[float64](f64)
		i64, err := bytesProp(c, "i64", 8)
		if err != nil {
			return nil, err
		}
		col.I64 = asSlice[int64](i64)
		str, err := bytesProp(c, "str", 1)
		if err != nil {
			return nil, err
		}
		if len(str) > 0 {
			col.Str = unsafe.String(&str[0], len(str)) // never written again
		}
		off, err := bytesProp(c, "off", 4)
		if err != nil {
			return nil, err
		}
		col.Off = asSlice[int32](off)
		idx, err := bytesProp(c, "idx", 4)
		if err != nil {
			return nil, err
		}
		col.Idx = asSlice[int32](idx)
	}
	return in, nil
}

// bytesProp copies the Uint8Array property name of c into Go memory aligned
// for elements of size elem; nil when the property is absent.
func bytesProp(c js.Value, name string, elem int) ([]byte, error) {
	p := c.Get(name)
	if isNullish(p) {
		return nil, nil
	}
	if p.Type() != js.TypeObject || !p.InstanceOf(jsUint8Array) {
		return nil, badArg("columnar rows: column %q: %s must be a Uint8Array", c.Get("name").String(), name)
	}
	n := p.Get("byteLength").Int()
	if n%elem != 0 {
		return nil, badArg("columnar rows: column %q: %s has %d bytes, not a multiple of %d", c.Get("name").String(), name, n, elem)
	}
	if n == 0 {
		return []byte{}, nil
	}
	var b []byte
	switch elem {
	case 8:
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(make([]uint64, n/8)))), n)
	case 4:
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(make([]uint32, n/4)))), n)
	default:
		b = make([]byte, n)
	}
	js.CopyBytesToGo(b, p)
	return b, nil
}

// asSlice reinterprets aligned bytes from bytesProp as a slice of T.
func asSlice[T float64 | int64 | int32](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(zero)))
}
