//go:build js && wasm

package table

// maxRowGroupBytes caps row groups in the WebAssembly build: a row group's
// compressed chunks are held until it closes, and WebAssembly memory never
// shrinks, so a Worker's 128 MB isolate pays for the largest one forever.
const maxRowGroupBytes = 16 << 20

// maxSortBytes bounds the memory of sorting one unsorted input file (a
// foreign one) before it is merged: in the isolate 48 MiB, beside the
// merge's windows and the output's row group.
const maxSortBytes = 48 << 20
