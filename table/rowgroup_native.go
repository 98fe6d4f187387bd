//go:build !(js && wasm)

package table

// maxRowGroupBytes: natively the table property alone decides.
const maxRowGroupBytes = 1 << 62
