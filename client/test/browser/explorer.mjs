// Tests the table explorer (examples/explorer) in headless Chromium (the
// system's, driven by playwright-core; no browser downloaded): the timelake
// CLI creates a table of three series every 10 s over two days (two
// appends) with two rollups (5m and 1m buckets), the explorer opens it, and
// the points its chart drew (the page's #chart-data) must equal what
// `timelake scan` prints for the same range, series and column:
//   1. by a link to the table served by serve.mjs (?table=), zoomed out:
//      the coarsest rollup dense enough (5m, avg = cpu_sum / cpu_count)
//      against a scan of the rollup table;
//   2. the same link with rollups off and a three-hour range: a raw scan;
//   3. the folder given to the page's <input webkitdirectory> (the
//      fallback of showDirectoryPicker), the form filled in and submitted;
//      its history, partitions and files tables against `timelake info`.
// Writes a screenshot of (1) to docs/explorer.png.
//
// Usage: node explorer.mjs TIMELAKE_CLI WORK_DIR
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../../examples/explorer/serve.mjs";

const [cli, work] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!cli || !work) {
  console.error("usage: node explorer.mjs TIMELAKE_CLI WORK_DIR");
  process.exit(2);
}
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const tl = (...args) => execFileSync(cli, args, { cwd: work, encoding: "utf8", maxBuffer: 1 << 28 });

// ---- the table, made by the CLI
mkdirSync(work, { recursive: true });
const T0 = Date.UTC(2026, 10, 28, 0, 0, 0);
const HOSTS = ["web-1", "web-2", "db-1"];
for (const day of [0, 1]) {
  const lines = ["time,host,cpu,mem"];
  for (let i = 0; i < 8640; i++) {
    const t = T0 + day * 86_400_000 + i * 10_000;
    HOSTS.forEach((h, k) => {
      const cpu = 40 + 25 * Math.sin((t / 3_600_000 + 5 * k) / 2) + ((i * 7919 + k * 104729) % 1000) / 100;
      lines.push(`${new Date(t).toISOString()},${h},${cpu.toFixed(3)},${1_000_000 + ((i * 31 + k) % 5000)}`);
    });
  }
  writeFileSync(path.join(work, `day${day}.csv`), lines.join("\n") + "\n");
}
tl("create", "metrics", "--time", "time", "--series", "host", "--column", "cpu:double", "--column", "mem:long");
tl("append", "metrics", "day0.csv");
tl("append", "metrics", "day1.csv");
tl("rollup", "add", "metrics", "fivemin", "--every", "5m", "--agg", "cpu:avg,max");
tl("rollup", "add", "metrics", "minutely", "--every", "1m", "--agg", "cpu:avg");
tl("rollup", "refresh", "metrics");
const info = JSON.parse(tl("info", "metrics", "--json"));

/** `timelake scan` as [{time, host, …}]. */
function scanCLI(table, from, to, hosts, columns) {
  const out = tl("scan", table, "--from", from, "--to", to, "--series", `host=${hosts.join(",")}`, "--columns", columns, "--format", "ndjson");
  return out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** The chart's points by series label, from rows of the CLI's scan. */
function expected(rows, value) {
  const by = {};
  for (const r of rows) (by[`host=${r.host}`] ??= []).push([r.time, value(r)]);
  return by;
}

const server = await startServer({ tablesDir: work });
const page0 = `${server.origin}/examples/explorer/`;
const browser = await chromium.launch({
  executablePath: process.env.TIMELAKE_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  timeout: 60_000,
});
const logs = [];
let ok = false;
try {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p = await ctx.newPage();
  p.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  p.on("pageerror", (e) => logs.push(`[pageerror] ${e.stack ?? e}`));
  p.on("response", (r) => r.status() >= 400 && logs.push(`[http ${r.status()}] ${r.url()}`));

  /** Waits for the page to be done (ready or error) and returns #chart-data; an error fails the test. */
  async function settled() {
    await p.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), null, { timeout: 120_000 });
    const state = await p.evaluate(() => document.body.dataset.state);
    if (state !== "ready") throw new Error(`page: ${await p.textContent("#status")}`);
    return JSON.parse(await p.textContent("#chart-data"));
  }
  const drawn = (data) => Object.fromEntries(data.series.map((s) => [s.key, s.points]));

  // 1. a link, zoomed out: the 5m rollup.
  const from = info["min-time"];
  const to = new Date(Date.parse(info["max-time"]) + 1).toISOString();
  const q = (o) => new URLSearchParams([["table", "/tables/metrics"], ["series", "host=web-1"], ["series", "host=db-1"], ["column", "cpu"], ...Object.entries(o)]);
  await p.goto(`${page0}?${q({ from, to })}`);
  let data = await settled();
  assert.match(data.source, /^rollup fivemin \(5m buckets, avg\)$/);
  const ru = scanCLI("metrics__rollup_fivemin", from, to, ["web-1", "db-1"], "cpu_sum,cpu_count");
  const wantRollup = expected(
    ru.map((r) => ({ ...r, time: r.bucket })),
    (r) => r.cpu_sum / r.cpu_count,
  );
  assert.equal(ru.length, 2 * 576);
  assert.deepEqual(drawn(data), wantRollup);
  const polylines = await p.$$eval("#chart polyline", (ls) => ls.map((l) => [l.dataset.series, l.getAttribute("points").split(" ").length]));
  assert.deepEqual(polylines, [["host=db-1", 576], ["host=web-1", 576]]); // in series order
  console.log(`  ok: link, two days: ${data.source}, ${ru.length} buckets as timelake scan of the rollup table gives them`);
  mkdirSync(path.join(repo, "docs"), { recursive: true });
  await p.screenshot({ path: path.join(repo, "docs/explorer.png"), fullPage: true });

  // 2. rollups off, three hours: the raw rows.
  const f2 = "2026-11-28T22:30:00Z";
  const t2 = "2026-11-29T01:30:00Z";
  await p.goto(`${page0}?${q({ from: f2, to: t2, rollups: "0" })}`);
  data = await settled();
  assert.equal(data.source, "scan");
  const raw = scanCLI("metrics", f2, t2, ["web-1", "db-1"], "cpu");
  assert.equal(raw.length, 2 * 1080);
  assert.deepEqual(drawn(data), expected(raw, (r) => r.cpu));
  console.log(`  ok: link, rollups off, three hours across two partitions: ${raw.length} rows as timelake scan gives them`);

  // 3. the folder through <input webkitdirectory>, then the form.
  await p.goto(page0);
  await p.setInputFiles("#folder", path.join(work, "metrics"));
  await settled();
  const cells = (id) => p.$$eval(`#${id} tbody tr`, (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  const hist = await cells("history");
  assert.deepEqual(hist.map((r) => [r[2], r[3], r[6]]), [["append", "25920", "current"], ["append", "25920", ""]]);
  assert.equal(hist[0][0], info["snapshot-id"]);
  assert.deepEqual((await cells("partitions")).map((r) => [r[0], Number(r[1]), Number(r[2])]), info.partitions.map((x) => [x.name, x.rows, x.files]));
  assert.equal((await cells("files")).length, info.files);
  assert.deepEqual((await cells("latest")).map((r) => r[1]).sort(), [...HOSTS].sort());
  // The folder holds no rollup table: the rollups are listed as not found, the chart scans.
  assert.match(await p.textContent("#rollups"), /NO_ROLLUP_STORE/);
  const f3 = "2026-11-29T12:00:00Z";
  const t3 = "2026-11-29T12:20:00.5Z";
  await p.fill("#from", f3);
  await p.fill("#to", t3);
  await p.selectOption("#series", { label: "host=web-2" });
  await p.selectOption("#column", "mem");
  await p.click("#chart-form button[type=submit]");
  data = await settled();
  const mem = scanCLI("metrics", f3, t3, ["web-2"], "mem");
  assert.equal(mem.length, 121);
  assert.equal(data.source, "scan");
  assert.deepEqual(drawn(data), expected(mem, (r) => r.mem));
  console.log(`  ok: the folder through <input webkitdirectory>: history, partitions, files, latest as timelake info gives them; ${mem.length} rows of mem as timelake scan gives them`);
  ok = true;
} catch (e) {
  console.error(`explorer test FAILED: ${e?.stack ?? e}`);
  console.error(`--- page console (${logs.length} messages)\n${logs.join("\n")}`);
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
process.exit(ok ? 0 : 1);
