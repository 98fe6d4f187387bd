// Faults between the JS client and Iceberg's REST server, injected by the
// fetch given to restCatalog: the bridge's transport must carry a rejected
// fetch as "no response" (an unknown outcome the core resolves by commit
// id) and a status as a status (429 waits Retry-After, 5xx reloads).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTable, openTable, restCatalog, TimelakeError, type TableSchema } from "../src/node.js";
import { localStore } from "../src/stores/local.js";

const uri = process.env.TIMELAKE_CATALOG_URI;
const warehouse = process.env.TIMELAKE_CATALOG_WAREHOUSE;
const token = process.env.TIMELAKE_CATALOG_TEST_TOKEN;
const skip = uri && warehouse ? false : "no REST catalog: TIMELAKE_CATALOG_URI is unset (scripts/test-client.sh starts scripts/restcatalog.sh)";
const ns = `jsf_${randomBytes(4).toString("hex")}`;
const schema: TableSchema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
const files = (loc: string) => localStore(fileURLToPath(loc));

/** A fetch whose commit requests (POST …/tables/NAME) go through fault, n counting from 1. */
function faultyFetch(name: string, fault: (n: number, forward: () => Promise<Response>) => Promise<Response>) {
  let n = 0;
  const commits: number[] = [];
  const f: typeof fetch = async (input, init) => {
    const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if ((init?.method ?? "GET") === "POST" && u.pathname.endsWith(`/tables/${name}`)) {
      n++;
      commits.push(n);
      return fault(n, () => fetch(input, init));
    }
    return fetch(input, init);
  };
  return { fetch: f, commits };
}

const rows = (t: number, k: number) => Array.from({ length: 10 }, (_, i) => ({ ts: t + i * 60_000, host: `h${i % 2}`, cpu: k + i }));

for (const c of [
  {
    name: "lost response after the commit applied",
    fault: async (n: number, forward: () => Promise<Response>) => {
      if (n === 1) {
        await forward();
        throw new TypeError("fetch failed: socket hang up");
      }
      return forward();
    },
    commits: 1,
  },
  {
    name: "500 after the commit applied",
    fault: async (n: number, forward: () => Promise<Response>) => {
      if (n === 1) {
        await forward();
        return new Response(JSON.stringify({ error: { message: "gateway", type: "ServiceFailureException", code: 500 } }), { status: 500 });
      }
      return forward();
    },
    commits: 1,
  },
  {
    name: "429 with Retry-After 1",
    fault: async (n: number, forward: () => Promise<Response>) =>
      n === 1 ? new Response("{}", { status: 429, headers: { "Retry-After": "1" } }) : forward(),
    commits: 2,
  },
]) {
  test(`catalog fault: ${c.name}: the append lands once`, { skip }, async () => {
    const tname = `t${randomBytes(3).toString("hex")}`;
    const plain = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) });
    const w = await createTable(plain, `${ns}.${tname}`, schema, { store: files });
    const t0 = Date.UTC(2026, 10, 30, 8);
    await w.append(rows(t0, 0));
    const ff = faultyFetch(tname, c.fault);
    const faulty = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}), fetch: ff.fetch });
    const fw = await openTable(faulty, `${ns}.${tname}`, { store: files });
    const started = Date.now();
    const r = await fw.append(rows(t0 + 3_600_000, 100));
    assert.equal(r.rowsWritten, 10);
    assert.equal(ff.commits.length, c.commits, `commit requests: ${ff.commits.length}`);
    if (c.name.startsWith("429")) assert.ok(Date.now() - started >= 900, "Retry-After was waited");
    const again = await openTable(plain, `${ns}.${tname}`, { store: files });
    const info = await again.info();
    assert.equal(info.rows, 20, "rows after the faulty append");
    assert.equal(info.snapshots, 2, "one snapshot per append: none twice");
  });
}

test("catalog fault: the catalog down during the commit is COMMIT_UNKNOWN, and nothing landed", { skip }, async () => {
  const tname = `t${randomBytes(3).toString("hex")}`;
  const plain = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) });
  const w = await createTable(plain, `${ns}.${tname}`, schema, { store: files });
  await w.append(rows(Date.UTC(2026, 10, 30, 8), 0));
  let down = false;
  const f: typeof fetch = async (input, init) => {
    if (down) throw new TypeError("fetch failed: connect ECONNREFUSED");
    return fetch(input, init);
  };
  const fw = await openTable(restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}), fetch: f }), `${ns}.${tname}`, { store: files });
  down = true;
  await assert.rejects(fw.append(rows(Date.UTC(2026, 10, 30, 9), 5)), (e: unknown) => {
    assert.ok(e instanceof TimelakeError, String(e));
    assert.equal(e.code, "COMMIT_UNKNOWN", e.message);
    return true;
  });
  const info = await (await openTable(plain, `${ns}.${tname}`, { store: files })).info();
  assert.equal(info.rows, 10);
});
