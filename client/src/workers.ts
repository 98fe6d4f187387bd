/**
 * The Workers entry. Workers cannot compile WebAssembly from bytes, so the
 * module comes compiled, imported by the bundler:
 *
 *   import wasm from "@timelake/client/timelake.wasm";
 *   import { initWasm, createTable, r2Store } from "@timelake/client/workers";
 *   initWasm(wasm); // cheap: the Go runtime starts on the first call, inside a request
 *
 * It also holds the Durable Object batcher (TableBatcher, sendRows): many
 * Workers' rows appended to one table in batches, exactly once.
 */
import { TimelakeError } from "./errors.js";
import { setWasmSource } from "./runtime.js";

export * from "./api.js";
export { TableBatcher, sendRows } from "./batcherdo.js";
export type { BatcherStub } from "./batcherdo.js";
export { RowBatcher, BufferFullError } from "./batcher.js";
export type { AddResult, BatcherOptions, BatcherStatus, DeadLetter, DurableStateLike, DurableStorageLike, FlushResult } from "./batcher.js";

/** Gives the compiled timelake.wasm. Nothing runs until the first call. */
export function initWasm(module: WebAssembly.Module): void {
  if (!(module instanceof WebAssembly.Module)) {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: initWasm takes a compiled WebAssembly.Module");
  }
  setWasmSource(module);
}
