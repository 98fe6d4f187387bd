// The package root under the "workerd" condition: the Workers entry.
import { openTable, r2Store, TableBatcher, type R2BucketLike } from "@timelake/client";
// @ts-expect-error localStore is the Node entry's only
import { localStore } from "@timelake/client";

declare const bucket: R2BucketLike;
const table = await openTable(r2Store(bucket));
void [table, TableBatcher, localStore];
