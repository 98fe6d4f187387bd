//go:build !(js && wasm)

package table

// maxRowGroupBytes: natively the table property alone decides.
const maxRowGroupBytes = 1 << 62

// maxSortBytes bounds the memory of sorting one unsorted input file (a
// foreign one) before it is merged: natively 1 GiB.
const maxSortBytes = 1 << 30
