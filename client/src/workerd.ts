/**
 * The "workerd" condition of the package root: the Workers entry with the
 * module imported beside it (wrangler and Miniflare compile .wasm imports),
 * so `import { createTable } from "@timelake/client"` needs no initWasm.
 */
import wasm from "./timelake.wasm";
import { initWasm } from "./workers.js";

export * from "./workers.js";

initWasm(wasm);
