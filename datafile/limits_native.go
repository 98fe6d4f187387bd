//go:build !(js && wasm)

package datafile

// MaxSortBytes bounds the memory of sorting one unsorted input file (a
// foreign one) before it is merged: natively 1 GiB.
const MaxSortBytes = 1 << 30
