// Types of wasm_exec.js, which scripts/build-client.sh generates from Go's
// $(go env GOROOT)/lib/wasm/wasm_exec.js wrapped in loadGo: nothing in it
// runs at module scope, and the globals it would install (fs, process, path,
// Go) land on the object given instead of the real globalThis.
export interface GoInstance {
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
  exited: boolean;
}
export type GoClass = new () => GoInstance;
export declare function loadGo(globals: object): GoClass;
