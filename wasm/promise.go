//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall/js"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
	"github.com/timelake/timelake/wasm/colrows"
)

// op is one exported call: its result must be something js.ValueOf takes
// (or a js.Value).
type op func(ctx context.Context, args []js.Value) (any, error)

var (
	jsError = js.Global().Get("Error")
)

// async wraps f as a JavaScript function returning a Promise. f runs on a
// goroutine of its own (a worker, see runOnWorker), so it may block on store
// Promises; a panic in it rejects the Promise instead of ending the program.
func async(name string, f op) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		p, resolve, reject := newDeferred()
		args = append([]js.Value(nil), args...)
		runOnWorker(func() {
			v, err := call(name, f, args)
			if skipCollectAfterCall {
				skipCollectAfterCall = false
			} else {
				collectAfterCall()
			}
			scanEnded() // the soft limit back, if paceStoreCall raised it
			if err != nil {
				reject.Invoke(toJSError(name, err))
				return
			}
			resolve.Invoke(v)
		})
		return p
	})
}

// idleWorker hands a call to a worker goroutine waiting for one.
var idleWorker = make(chan func())

// runOnWorker runs f on an idle worker, or on a new one when every worker is
// busy (calls may overlap: a scan's batches and an append). A worker then
// waits for the next call instead of ending. A goroutine per call started
// on a small stack that the call grew by copying, every call: 2.6% of a
// settled 1k-row append's CPU in Node was runtime.newstack, 0.9% with
// workers (a V8 profile, TIERUP_PROFILE in bench/tierup.mjs; the append's
// CPU moved within the noise). A worker keeps the stack its calls grew until
// a collection shrinks it, and there are as many workers as calls ever ran
// at once.
func runOnWorker(f func()) {
	select {
	case idleWorker <- f:
	default:
		go func() {
			for {
				f()
				f = <-idleWorker
			}
		}()
	}
}

// collectAfter is how much a call must have allocated since the last
// collection for collectAfterCall to collect.
const collectAfter = 4 << 20

var (
	allocsAtLastGC uint64
	heapAllocs     = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
)

// collectEvery collects, in the middle of a long call (a streamed scan),
// once n bytes were allocated since the last collection: with the
// proportional collector off, a scan of a day's 1.2M rows would otherwise
// leave garbage up to the memory limit, and WebAssembly memory keeps that
// high-water mark. Its memory is then its live windows plus n.
func collectEvery(n uint64) {
	metrics.Read(heapAllocs)
	if heapAllocs[0].Value.Uint64()-allocsAtLastGC < n {
		return
	}
	runtime.GC()
	metrics.Read(heapAllocs)
	allocsAtLastGC = heapAllocs[0].Value.Uint64()
}

// collectAfterCall collects once a call has left garbage worth reusing.
// WebAssembly memory never shrinks, so collecting after an append, before the
// next one, lets it reuse the memory instead of growing the high-water mark
// (proportional GC is off, see main). A call that allocated little (opening
// a table, info) is not followed by a collection: in a fresh isolate that
// collection runs in V8's baseline code and is pure cost on the first call.
func collectAfterCall() { collectEvery(collectAfter) }

// skipCollectAfterCall, set by a call, leaves its garbage to the next
// call's collection (see appendRows).
var skipCollectAfterCall bool

// call runs f, turning a panic into a *panicError.
func call(name string, f op, args []js.Value) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{op: name, value: r, stack: string(debug.Stack())}
		}
	}()
	return f(context.Background(), args)
}

// panicError is a recovered panic: a bug (or a JavaScript value of a shape
// nothing expected), reported with where it happened.
type panicError struct {
	op    string
	value any
	stack string
}

func (e *panicError) Error() string {
	return fmt.Sprintf("timelake: internal error in %s: %v\n%s", e.op, e.value, trimStack(e.stack))
}

// trimStack keeps the frames below the panic and drops the runtime's own.
func trimStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "panic(") || strings.Contains(lines[i], "runtime/debug.Stack") {
			out = out[:0]
			i++ // skip the file line of that frame
			continue
		}
		out = append(out, lines[i])
	}
	if len(out) > 24 {
		out = out[:24]
	}
	return strings.Join(out, "\n")
}

// argError is a call made with arguments of the wrong shape.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArg(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// toJSError builds the Error a Promise rejects with: message, code and, for
// row errors, row, column and value. The client turns it into its Error
// subclasses.
func toJSError(name string, err error) js.Value {
	var (
		re *rows.Error
		se *storeError
	)
	errors.As(err, &re)
	errors.As(err, &se)
	code := jsErrorCode(err)
	e := jsError.New(scrubSecrets(err.Error()))
	e.Set("code", code)
	e.Set("op", name)
	if re != nil {
		if re.Row > 0 {
			e.Set("row", re.Row)
		}
		if re.Column != "" {
			e.Set("column", re.Column)
		}
		if re.Value != "" {
			e.Set("value", re.Value)
		}
		e.Set("detail", re.Msg)
	}
	if se != nil && se.key != "" {
		e.Set("key", se.key)
	}
	return e
}

// jsErrorCode is the code a rejection carries for err (an inline rollup
// refresh's warning too).
func jsErrorCode(err error) string {
	var (
		re *rows.Error
		pe *panicError
		ae *argError
		ie *colrows.InputError
		se *storeError
	)
	code := table.Code(err)
	switch {
	case errors.As(err, &pe):
		code = "INTERNAL"
	case errors.As(err, &ae), errors.As(err, &ie):
		code = "INVALID_ARGUMENT"
	case errors.As(err, &re):
	case errors.As(err, &se) && se.code != "":
		code = se.code
	}
	return code
}

func memStats(js.Value, []js.Value) any {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return map[string]any{
		"heapAlloc":  float64(m.HeapAlloc),
		"heapSys":    float64(m.HeapSys),
		"sys":        float64(m.Sys),
		"totalAlloc": float64(m.TotalAlloc),
		"numGC":      int(m.NumGC),
	}
}

func debugPanic(_ context.Context, args []js.Value) (any, error) {
	msg := "debugPanic"
	if len(args) > 0 && args[0].Type() == js.TypeString {
		msg = args[0].String()
	}
	var m map[string]int
	if msg == "nil map" {
		m["x"] = 1 // a runtime error, not only a panic(value)
	}
	panic(msg)
}
