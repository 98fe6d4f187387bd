//go:build js && wasm

package table

// maxRowGroupBytes caps row groups in the WebAssembly build: a row group's
// compressed chunks are held until it closes, and WebAssembly memory never
// shrinks, so a Worker's 128 MB isolate pays for the largest one forever.
const maxRowGroupBytes = 16 << 20
