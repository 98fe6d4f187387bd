// A Node project importing the package root: the "node" condition's entry,
// with localStore (scripts/test-client-types.sh type-checks it).
import { createTable, fileLocation, localStore, memoryStore, type LocalStore, type TableWriter } from "@timelake/client";
import { localStore as fromLocal } from "@timelake/client/local";

const store: LocalStore = localStore("/tmp/metrics");
const same: LocalStore = fromLocal("/tmp/metrics");
const where: string = fileLocation("/tmp/metrics");
const table: TableWriter = await createTable(memoryStore(), { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });
const r = await table.append([{ ts: new Date(), host: "web-1", cpu: 0.5 }]);
const snapshot: bigint = r.snapshotId;
void [store, same, where, snapshot];
