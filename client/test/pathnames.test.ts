// Table directories named with a space, non-ASCII, "%" and "#": localStore
// writes the location as it is (not percent-encoded), so every path in the
// metadata is too, and a table an older client wrote percent-encoded stays
// readable and writable.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { createTable, openTable, type TableSchema } from "../src/index.js";
import { fileLocation, localStore, locationPath } from "../src/stores/local.js";

const schema: TableSchema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const rows = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ ts: new Date(T0 + (from + i) * 3_600_000), host: `h${i % 3}`, cpu: i }));

const names = ["my tablé", "100% cpu", "a#b", "ünï 50%25 #2"];

async function scanCount(dir: string): Promise<number> {
  const t = await openTable(localStore(dir));
  let n = 0;
  for await (const _ of t.scan().rows()) n++;
  return n;
}

/** The newest vN.metadata.json of the table at dir, parsed. */
async function newestMetadata(dir: string): Promise<{ location: string; snapshots?: { "manifest-list": string }[] }> {
  const files = (await fs.readdir(path.join(dir, "metadata"))).filter((f) => /^v\d+\.metadata\.json$/.test(f));
  files.sort((a, b) => Number(a.slice(1).split(".")[0]) - Number(b.slice(1).split(".")[0]));
  return JSON.parse(await fs.readFile(path.join(dir, "metadata", files.at(-1)!), "utf8"));
}

for (const name of names) {
  test(`localStore in ${JSON.stringify(name)}: locations as they are; create, append, maintain, reopen`, async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "tl-names-")), name);
    const st = localStore(dir);
    assert.equal(st.location, `file://${path.resolve(dir)}`);
    const t = await createTable(st, schema);
    await t.append(rows(0, 30));
    await t.append(rows(48, 30)); // another day
    await t.maintain();
    const meta = await newestMetadata(dir);
    assert.equal(meta.location, `file://${path.resolve(dir)}`);
    for (const s of meta.snapshots ?? []) assert.ok(s["manifest-list"].startsWith(`${meta.location}/metadata/`), s["manifest-list"]);
    assert.equal(await scanCount(dir), 60);
    // The location leads back to the directory, and to its sibling.
    assert.equal(locationPath(meta.location), path.resolve(dir));
    assert.equal(st.sibling?.(`${meta.location}__rollup_h`)?.location, `${meta.location}__rollup_h`);
  });

  test(`a table in ${JSON.stringify(name)} an older client wrote percent-encoded stays readable and writable`, async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "tl-names-")), name);
    const old = pathToFileURL(path.resolve(dir)).href;
    assert.notEqual(old, fileLocation(dir));
    const t = await createTable(localStore(dir), schema, { location: old });
    await t.append(rows(0, 30));
    const again = await openTable(localStore(dir));
    await again.append(rows(48, 30));
    await again.maintain();
    assert.equal((await newestMetadata(dir)).location, old);
    assert.equal(await scanCount(dir), 60);
    assert.equal(locationPath(old), path.resolve(dir));
  });
}
