// s3Store inside workerd (Miniflare): the Store conformance suite and
// appends, with fetch from workerd to the local S3 server; Node appends to
// the same table concurrently (conflicts resolved by the core's rebase).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import type { Miniflare } from "miniflare";
import { openTable, s3Store } from "../src/node.js";
import { callWorker, s3ServerEnv, startS3Worker } from "./s3mf.js";

const env = s3ServerEnv();
const skip = env ? false : "no S3 server: run scripts/test-client.sh (it starts scripts/s3server.sh)";
let mf: Miniflare | undefined;
const run = randomBytes(6).toString("hex");

before(async () => {
  if (env) mf = await startS3Worker(env);
});
after(async () => {
  await mf?.dispose();
});

test("s3Store passes the Store conformance suite inside workerd (fetch to the local server)", { skip }, async () => {
  const got = await callWorker(mf!, `/conformance?prefix=mf-${run}/conformance`);
  assert.ok(got.length >= 10);
  const failed = got.filter((c: { error?: string }) => c.error);
  assert.deepEqual(failed, [], JSON.stringify(failed, null, 2));
});

test("a Worker and Node append to one S3 table at once; every append lands", { skip }, async () => {
  const prefix = `mf-${run}/table`;
  const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
  assert.equal((await callWorker(mf!, `/create?prefix=${prefix}`, schema)).version, 1);
  const store = s3Store({
    bucket: env!.S3_BUCKET!, prefix, endpoint: env!.S3_ENDPOINT!, region: env!.S3_REGION!,
    credentials: { accessKeyId: env!.S3_ACCESS_KEY_ID!, secretAccessKey: env!.S3_SECRET_ACCESS_KEY! },
  });
  const node = await openTable(store);
  const rows = (k: number) => Array.from({ length: 100 }, (_, i) => ({ ts: Date.UTC(2026, 10, 28, k, 0, i % 60, i), host: `h${i % 5}`, cpu: i / 2 }));
  const results = await Promise.all([
    callWorker(mf!, `/append?prefix=${prefix}`, rows(0)),
    node.append(rows(1)),
    callWorker(mf!, `/append?prefix=${prefix}`, rows(2)),
    node.append(rows(3)),
  ]);
  assert.deepEqual(results.map((r) => Number(r.version)).sort(), [2, 3, 4, 5]);
  const meta = await store.list("metadata/");
  assert.ok(meta.some((o) => o.key === "metadata/v5.metadata.json"), meta.map((o) => o.key).join(" "));
  assert.ok(!meta.some((o) => o.key === "metadata/v6.metadata.json"));
});
