/**
 * Loading timelake.wasm outside Workers: from a URL (fetch, or the
 * filesystem for file: URLs in Node, Deno and Bun), bytes, a Response or a
 * compiled module.
 */
import { TimelakeError } from "./errors.js";
import { setWasmSource } from "./runtime.js";

export type WasmInput = WebAssembly.Module | URL | string | ArrayBuffer | ArrayBufferView | Response;

async function compile(input: WasmInput): Promise<WebAssembly.Module> {
  if (input instanceof WebAssembly.Module) return input;
  if (input instanceof ArrayBuffer) return WebAssembly.compile(input);
  if (ArrayBuffer.isView(input)) {
    return WebAssembly.compile(new Uint8Array(input.buffer, input.byteOffset, input.byteLength).slice());
  }
  if (typeof Response !== "undefined" && input instanceof Response) return WebAssembly.compile(await input.arrayBuffer());
  const url = input instanceof URL ? input : new URL(input as string, import.meta.url);
  if (url.protocol === "file:") {
    const fs = await import("node:fs/promises");
    return WebAssembly.compile(await fs.readFile(url));
  }
  const res = await fetch(url);
  if (!res.ok) throw new TimelakeError("INVALID_ARGUMENT", `timelake: fetching ${url.href}: HTTP ${res.status}`);
  return WebAssembly.compile(await res.arrayBuffer());
}

/** The timelake.wasm shipped beside this file. */
export const defaultWasmURL = (): URL => new URL("./timelake.wasm", import.meta.url);

/**
 * Gives the module to use (default: the timelake.wasm of this package). Only
 * records it: the module is compiled and the Go runtime started on the first
 * call.
 */
export function initWasm(input: WasmInput = defaultWasmURL()): void {
  setWasmSource(() => compile(input));
}
