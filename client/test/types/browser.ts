// The package root with no runtime condition (browsers): the default entry.
import { createTable, initWasm, memoryStore } from "@timelake/client";
// @ts-expect-error localStore is the Node entry's only
import { localStore } from "@timelake/client";

initWasm(new URL("https://example.com/timelake.wasm"));
const table = await createTable(memoryStore(), { time: "ts", series: [], columns: [{ name: "cpu", type: "double" }] });
void [table, localStore];
