/**
 * @timelake/client: create Timelake tables and append rows from JavaScript,
 * through the Go core built for WebAssembly.
 *
 *   import { createTable, memoryStore } from "@timelake/client";
 *   const t = await createTable(memoryStore(), { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });
 *   const r = await t.append([{ ts: new Date(), host: "web-1", cpu: 0.5 }]);
 *   console.log(r.version, r.snapshotId, r.rowsWritten);
 *
 * This default entry (browsers, Deno, Bun) loads timelake.wasm from beside
 * itself on the first call unless initWasm was given another source.
 */
import { initWasm } from "./load.js";
import { hasWasmSource } from "./runtime.js";

export * from "./api.js";
export { initWasm, defaultWasmURL } from "./load.js";
export type { WasmInput } from "./load.js";

if (!hasWasmSource()) initWasm();
