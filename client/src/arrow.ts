/**
 * Arrow IPC input for append: bytes of an Arrow IPC stream (or file) go to
 * the WebAssembly module as they are, and the Go core parses them (package
 * arrowipc) — no JavaScript Arrow library at run time (apache-arrow's
 * builders generate code at run time, which workerd forbids).
 */

/** Bytes given to append, as a same-realm Uint8Array view; undefined when rows is not bytes. */
export function arrowBytes(rows: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(rows)) return new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  if (rows instanceof ArrayBuffer || Object.prototype.toString.call(rows) === "[object ArrayBuffer]") {
    return new Uint8Array(rows as ArrayBuffer);
  }
  return undefined;
}
