/**
 * The WebAssembly instance: started lazily on the first call (workerd forbids
 * randomness and timers at module scope, and the Go runtime needs both as it
 * starts), one per JavaScript realm, reused across calls. Calls run one at a
 * time through a queue, so every store call the Go side makes belongs to the
 * operation (and so the request) that started it.
 *
 * If the Go program ever exits (a panic outside a call, which the bridge
 * otherwise turns into a rejection), the next call starts a new instance.
 */
import { TimelakeError, fromWasm } from "./errors.js";
import { loadGo } from "./gen/wasm_exec.js";
import { deferredHook, listHook, settleHook } from "./bridgehooks.js";
import type { WireTransport } from "./catalog.js";
import type { StoreFactory } from "./catalogstore.js";
import type { WireScanBatch } from "./scanwire.js";
import type { RollupStoreResolver } from "./rollup.js";

/** What the bridge (wasm/main.go) exports. */
export interface WasmApi {
  createTable(store: object, schemaJSON: string, propsJSON: string, location: string): Promise<OpenedTable>;
  openTable(store: object): Promise<OpenedTable>;
  openCatalog(specJSON: string, transport: WireTransport): Promise<number>;
  createCatalogTable(
    catalog: number,
    name: string,
    storeFor: StoreFactory,
    schemaJSON: string,
    propsJSON: string,
    location: string,
  ): Promise<OpenedTable>;
  openCatalogTable(catalog: number, name: string, storeFor: StoreFactory): Promise<OpenedTable>;
  /** rollupStoreFor: the store of each rollup table for an inline refresh (the factory for a catalog table). */
  append(
    handle: number,
    rows: object,
    optionsJSON: string,
    rollupStoreFor?: RollupStoreResolver | StoreFactory,
    rollupHandles?: Record<string, number>,
  ): Promise<RawAppendResult>;
  findCommit(handle: number, commitId: string): Promise<string | null>;
  info(handle: number): Promise<string>;
  latest(handle: number): Promise<WireScanBatch>;
  history(handle: number): Promise<string>;
  files(handle: number): Promise<string>;
  scan(handle: number, optionsJSON: string, each: (b: WireScanBatch | Uint8Array) => Promise<boolean>): Promise<string>;
  maintain(handle: number, optionsJSON: string): Promise<string>;
  deleteRows(handle: number, optionsJSON: string): Promise<string>;
  alter(handle: number, changesJSON: string): Promise<string>;
  adopt(handle: number, optionsJSON: string): Promise<string>;
  suggestKey(handle: number): Promise<string>;
  /** A catalog table's rollup: storeFor for store; the result names the rollup table ("table"). */
  addRollup(handle: number, store: object | StoreFactory | RollupStoreResolver, specJSON: string): Promise<OpenedTable & { table?: string }>;
  rollups(handle: number): Promise<string>;
  refreshRollup(handle: number, rollupHandle: number, name: string, optionsJSON: string): Promise<string>;
  close(handle: number): Promise<void>;
  memStats(): GoMemStats;
  debugPanic(message: string): Promise<never>;
}

/** A table handle and what the metadata says without reading manifests: JSON {version, columns}. */
export interface OpenedTable {
  handle: number;
  head: string;
}

export interface RawAppendResult {
  version: number;
  snapshotId: string;
  commitId: string;
  inputRows: number;
  rowsWritten: number;
  files: number;
  bytes: number;
  retries: number;
  attempts: number;
  uploads: number;
  durationMs: number;
  warnings: string[];
  timings: { copyMs: number; alignMs: number; appendMs: number; rollupMs?: number; maintainMs?: number };
  /** With timelake.rollup.inline=true: JSON [{rollup, refresh} | {rollup, code, message}]. */
  rollups?: string;
  /** With timelake.auto-maintain=true: the maintenance run's JSON. */
  maintenance?: string;
  /** With evolve, when columns were added: the columns committed (JSON). */
  columns?: string;
}

/** Go heap figures (runtime.MemStats), in bytes. */
export interface GoMemStats {
  heapAlloc: number;
  heapSys: number;
  sys: number;
  totalAlloc: number;
  numGC: number;
}

/** Where the module comes from: a compiled module, or something that gives one. */
export type WasmSource = WebAssembly.Module | (() => Promise<WebAssembly.Module>);

interface Running {
  api: WasmApi;
  memory: WebAssembly.Memory;
  generation: number;
  exited: boolean;
}

let source: WasmSource | undefined;
let module: Promise<WebAssembly.Module> | undefined;
let running: Running | undefined;
let starting: Promise<Running> | undefined;
let generation = 0;
let tail: Promise<unknown> = Promise.resolve();

/** Sets the module (or its loader); takes effect for the next start. */
export function setWasmSource(s: WasmSource): void {
  source = s;
  module = undefined;
}

/** Whether a module or loader has been given. */
export function hasWasmSource(): boolean {
  return source !== undefined;
}

function getModule(): Promise<WebAssembly.Module> {
  if (!source) {
    return Promise.reject(
      new TimelakeError(
        "INVALID_ARGUMENT",
        "timelake: no WebAssembly module: call initWasm(module) first (in Workers: import wasm from \"@timelake/client/timelake.wasm\"; initWasm(wasm))",
      ),
    );
  }
  const s = source;
  module ??= s instanceof WebAssembly.Module ? Promise.resolve(s) : s();
  module.catch(() => (module = undefined)); // let a failed load be retried
  return module;
}

async function start(): Promise<Running> {
  const mod = await getModule();
  // The Go side sees this proxy as globalThis: wasm_exec.js's polyfills and
  // the register hook stay off the real global object, while reads fall
  // through to it (with the real global as receiver, so host getters work).
  const own = new Map<PropertyKey, unknown>();
  const globals = new Proxy(globalThis, {
    get: (t, k) => (own.has(k) ? own.get(k) : Reflect.get(t, k)),
    set: (_t, k, v) => (own.set(k, v), true),
    has: (t, k) => own.has(k) || Reflect.has(t, k),
    deleteProperty: (_t, k) => own.delete(k),
  });
  const Go = loadGo(globals);
  const go = new Go();
  let api: WasmApi | undefined;
  own.set("__timelakeRegister", (a: WasmApi) => {
    api = a;
  });
  own.set("__timelakeSettle", settleHook);
  own.set("__timelakeDeferred", deferredHook);
  own.set("__timelakeList", listHook);
  const instance = await WebAssembly.instantiate(mod, go.importObject);
  const r: Running = {
    api: undefined as unknown as WasmApi,
    memory: instance.exports["mem"] as WebAssembly.Memory,
    generation: ++generation,
    exited: false,
  };
  // run() executes main until it waits for calls; main registers the API first.
  const done = go.run(instance);
  done.then(
    () => (r.exited = true),
    () => (r.exited = true),
  );
  if (!api) throw new TimelakeError("INTERNAL", "timelake: the WebAssembly module did not register its API");
  r.api = api;
  return r;
}

async function instance(): Promise<Running> {
  if (running && !running.exited) return running;
  starting ??= start().finally(() => (starting = undefined));
  running = await starting;
  return running;
}

/**
 * Runs f with the instance, after every call queued before it. Rejections
 * become TimelakeErrors.
 */
export function enqueue<T>(f: (api: WasmApi, generation: number) => Promise<T>): Promise<T> {
  const p = tail.then(async () => {
    const r = await instance();
    try {
      return await f(r.api, r.generation);
    } catch (e) {
      throw fromWasm(e);
    }
  });
  tail = p.catch(() => undefined);
  return p;
}

/** Memory figures of the running instance, or undefined before the first call. */
export function memoryStats(): (GoMemStats & { wasmMemoryBytes: number }) | undefined {
  if (!running || running.exited) return undefined;
  return { ...running.api.memStats(), wasmMemoryBytes: running.memory.buffer.byteLength };
}
