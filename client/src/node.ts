/**
 * The Node entry (also picked by Deno and Bun through the "node" export
 * condition): the default entry plus localStore, a store in a local directory.
 */
export * from "./index.js";
export { fileLocation, localStore, locationPath, TEMP_DIR } from "./stores/local.js";
export type { LocalStore } from "./stores/local.js";
