//go:build js && wasm

package datafile

// MaxSortBytes bounds the memory of sorting one unsorted input file (a
// foreign one) before it is merged: in the isolate 48 MiB, beside the
// merge's windows and the output's row group.
const MaxSortBytes = 48 << 20
