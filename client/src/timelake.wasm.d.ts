/**
 * The types of "@timelake/client/timelake.wasm": the Go core built for
 * WebAssembly, imported as a compiled module where the bundler compiles
 * .wasm imports (wrangler, Miniflare), for initWasm of the Workers entry.
 * scripts/build-client.sh copies this file beside dist/src/timelake.wasm.
 */
declare const module: WebAssembly.Module;
export default module;
