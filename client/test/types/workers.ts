// The Workers entry and the module beside it, under any resolution.
import wasm from "@timelake/client/timelake.wasm";
import { initWasm, openTable, r2Store, sendRows, TableBatcher, type R2BucketLike } from "@timelake/client/workers";

const module: WebAssembly.Module = wasm;
initWasm(module);
declare const bucket: R2BucketLike;
const table = await openTable(r2Store(bucket, { prefix: "tables/metrics" }));
void [table, sendRows, TableBatcher];
