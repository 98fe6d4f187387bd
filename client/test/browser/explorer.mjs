// Tests the table explorer (examples/explorer) in headless Chromium (the
// system's, driven by playwright-core; no browser downloaded): the timelake
// CLI creates a table of three series every 10 s over two days (two
// appends) with two rollups (5m and 1m buckets), the explorer opens it, and
// the points its chart drew (the page's #chart-data) must equal what
// `timelake scan` prints for the same range, series and column:
//   1. by a link to the table served by serve.mjs (?table=), zoomed out:
//      the coarsest rollup dense enough (5m, avg = cpu_sum / cpu_count)
//      against a scan of the rollup table;
//      Then dragged across 2% of the chart (about an hour): a raw scan;
//   2. the same link with rollups off and a three-hour range: a raw scan;
//   3. the folder given to the page's <input webkitdirectory> (the
//      fallback of showDirectoryPicker), the form filled in and submitted;
//      its history, partitions and files tables against `timelake info`.
//   4. a folder from the picker button (showDirectoryPicker answering with
//      a real directory handle of the origin's private file system) holding
//      the table and its rollups: the rollup drawn as in (1);
//   5. with S3 (AWS_ENDPOINT_URL…: scripts/s3server.sh), a table in a bucket
//      allowing the page's origin: the S3 form with keys typed in, then a
//      link with no keys, its requests unsigned (the bucket readable by all).
// Takes a screenshot of (1) into WORK_DIR/explorer.png, and into
// docs/explorer.png when that is missing or TIMELAKE_EXPLORER_SCREENSHOT=1
// (its snapshot ids and times differ each run: the test leaves it alone).
//
// Usage: node explorer.mjs TIMELAKE_CLI WORK_DIR
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../../examples/explorer/serve.mjs";
import { signRequest } from "../../dist/src/stores/sigv4.js";

const [cli, work] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!cli || !work) {
  console.error("usage: node explorer.mjs TIMELAKE_CLI WORK_DIR");
  process.exit(2);
}
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const shot = path.join(repo, "docs/explorer.png");
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
function scanCLI(table, from, to, hosts, columns, ...more) {
  const out = tl("scan", table, "--from", from, "--to", to, "--series", `host=${hosts.join(",")}`, "--columns", columns, "--format", "ndjson", ...more);
  return out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** The chart's points by series label, from rows of the CLI's scan. */
function expected(rows, value) {
  const by = {};
  for (const r of rows) (by[`host=${r.host}`] ??= []).push([r.time, value(r)]);
  return by;
}

const server = await startServer({ table: path.join(work, "metrics") });
const s3 = process.env.AWS_ENDPOINT_URL && process.env.AWS_ACCESS_KEY_ID ? await s3Table() : undefined;
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
  /** Marks the page as not done, before an action whose handler sets its state only after an await. */
  const pending = () => p.evaluate(() => (document.body.dataset.state = "pending"));
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
  await p.screenshot({ path: path.join(work, "explorer.png"), fullPage: true });
  if (process.env.TIMELAKE_EXPLORER_SCREENSHOT === "1" || !existsSync(shot)) copyFileSync(path.join(work, "explorer.png"), shot);

  // 1b. dragged across 2% of the chart (about an hour): too narrow for a rollup, the raw rows.
  const box = await p.locator("#chart").boundingBox();
  const plotX = (f) => box.x + ((64 + f * 820) / 900) * box.width; // chart.js: 64 + 820 + 16 = 900 units
  await pending();
  await p.mouse.move(plotX(0.5), box.y + box.height / 2);
  await p.mouse.down();
  await p.mouse.move(plotX(0.52), box.y + box.height / 2, { steps: 4 });
  await p.mouse.up();
  data = await settled();
  assert.equal(data.source, "scan");
  const [zf, zt] = [await p.inputValue("#from"), await p.inputValue("#to")];
  const zoomMs = Date.parse(zt) - Date.parse(zf);
  assert.ok(zoomMs > 3_000_000 && zoomMs < 3_900_000, `zoomed to ${zf} – ${zt}`);
  const zoomed = scanCLI("metrics", zf, zt, ["web-1", "db-1"], "cpu");
  assert.ok(zoomed.length > 600);
  assert.deepEqual(drawn(data), expected(zoomed, (r) => r.cpu));
  console.log(`  ok: dragged across the chart to ${zf} – ${zt}: ${zoomed.length} raw rows as timelake scan gives them`);
  await pending();
  await p.click("#zoom-out");
  data = await settled();
  assert.equal(Date.parse(data.to) - Date.parse(data.from), 2 * zoomMs);

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
  await pending();
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
  await pending();
  await p.click("#chart-form button[type=submit]");
  data = await settled();
  const mem = scanCLI("metrics", f3, t3, ["web-2"], "mem");
  assert.equal(mem.length, 121);
  assert.equal(data.source, "scan");
  assert.deepEqual(drawn(data), expected(mem, (r) => r.mem));
  console.log(`  ok: the folder through <input webkitdirectory>: history, partitions, files, latest as timelake info gives them; ${mem.length} rows of mem as timelake scan gives them`);

  // 4. "Choose the table's folder…": showDirectoryPicker answers with a real
  // FileSystemDirectoryHandle, a folder of the origin's private file system
  // holding the table and its rollups' tables, copied there from the server.
  await p.evaluate(async (names) => {
    const top = await (await navigator.storage.getDirectory()).getDirectoryHandle("picked", { create: true });
    for (const name of names) {
      const objs = await (await fetch(`/tables/${name}/?list=`)).json();
      for (const { key } of objs) {
        let d = await top.getDirectoryHandle(name, { create: true });
        const parts = key.split("/");
        for (const seg of parts.slice(0, -1)) d = await d.getDirectoryHandle(seg, { create: true });
        const w = await (await d.getFileHandle(parts.at(-1), { create: true })).createWritable();
        await w.write(await (await fetch(`/tables/${name}/${key}`)).arrayBuffer());
        await w.close();
      }
    }
    window.showDirectoryPicker = async () => top;
  }, ["metrics", "metrics__rollup_fivemin", "metrics__rollup_minutely"]);
  await pending();
  await p.click("#pick");
  data = await settled();
  assert.match(await p.textContent("#status"), /^folder picked: version 5, 51840 rows/);
  assert.equal(data.source, "rollup fivemin (5m buckets, avg)");
  assert.equal(data.series.length, 3); // the first three series by default
  assert.deepEqual(Object.fromEntries(Object.entries(drawn(data)).filter(([k]) => k !== "host=web-2")), wantRollup);
  console.log("  ok: a folder from showDirectoryPicker (a FileSystemDirectoryHandle) with the rollup tables beside the table: the 5m rollup drawn as before");

  if (s3) await s3Cases(p, settled, drawn, pending);
  else console.log("  skipped: S3 (no AWS_ENDPOINT_URL: scripts/test-client.sh starts scripts/s3server.sh)");
  ok = true;
} catch (e) {
  console.error(`explorer test FAILED: ${e?.stack ?? e}`);
  console.error(`--- page console (${logs.length} messages)\n${logs.join("\n")}`);
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
process.exit(ok ? 0 : 1);

/** A signed request to the S3 server (bucket set-up the CLI does not do). */
async function s3Request(method, bucket, query, body = "") {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL);
  const credentials = { accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY };
  const signed = await signRequest({
    method, path: `/${bucket}`, query, headers: [["host", endpoint.host], ...(body ? [["content-md5", createHash("md5").update(body).digest("base64")]] : [])], body, region: process.env.AWS_REGION || "us-east-1", service: "s3", credentials, date: new Date(),
  });
  const headers = { ...signed.headers, ...(body ? { "content-md5": createHash("md5").update(body).digest("base64") } : {}) };
  const res = await fetch(new URL(`/${bucket}${query.length ? "?" + query.map(([k, v]) => (v ? `${k}=${v}` : k)).join("&") : ""}`, endpoint), { method, headers, body: body || undefined });
  if (!res.ok) throw new Error(`S3 ${method} ${bucket}?${query.map(([k]) => k)}: HTTP ${res.status} ${await res.text()}`);
}

/**
 * A bucket of its own for the explorer on the test's S3 server: CORS
 * allowing the page's origin, a policy letting anyone read and list it
 * (the page's unsigned requests), and the table written there by the CLI.
 */
async function s3Table() {
  const bucket = `explorer-${process.pid}`;
  await s3Request("PUT", bucket, []);
  await s3Request("PUT", bucket, [["cors", ""]], `<CORSConfiguration><CORSRule><AllowedOrigin>${server.origin}</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>`);
  await s3Request("PUT", bucket, [["policy", ""]], JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: "*", Action: ["s3:GetObject", "s3:ListBucket"], Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`] }],
  }));
  const url = `s3://${bucket}/tables/metrics`;
  const at = ["--endpoint", process.env.AWS_ENDPOINT_URL];
  tl("create", url, "--time", "time", "--series", "host", "--column", "cpu:double", "--column", "mem:long", ...at);
  tl("append", url, "day1.csv", ...at);
  return { url, at };
}

/** 4. the S3 form with the keys typed in; 5. a link to the bucket, unsigned. */
async function s3Cases(p, settled, drawn, pending) {
  const from = "2026-11-29T06:00:00Z";
  const to = "2026-11-29T07:00:00Z";
  const want = expected(scanCLI(s3.url, from, to, ["web-2"], "cpu", ...s3.at), (r) => r.cpu);
  assert.equal(want["host=web-2"].length, 360);
  await p.goto(page0);
  await p.fill("#s3 [name=url]", s3.url);
  await p.fill("#s3 [name=endpoint]", process.env.AWS_ENDPOINT_URL);
  await p.fill("#s3 [name=key]", process.env.AWS_ACCESS_KEY_ID);
  await p.fill("#s3 [name=secret]", process.env.AWS_SECRET_ACCESS_KEY);
  await pending();
  await p.click("#s3 button[type=submit]");
  await settled();
  await p.fill("#from", from);
  await p.fill("#to", to);
  await p.selectOption("#series", { label: "host=web-2" });
  await pending();
  await p.click("#chart-form button[type=submit]");
  assert.deepEqual(drawn(await settled()), want);
  console.log(`  ok: S3 with keys typed into the page: 360 rows as timelake scan gives them`);

  const q = new URLSearchParams({ s3: s3.url, endpoint: process.env.AWS_ENDPOINT_URL, region: "us-east-1", series: "host=web-2", column: "cpu", from, to });
  await p.goto(`${page0}?${q}`);
  assert.deepEqual(drawn(await settled()), want);
  const signed = [];
  p.on("request", (r) => r.headers()["authorization"] && signed.push(r.url()));
  await pending();
  await p.click("#chart-form button[type=submit]");
  assert.deepEqual(drawn(await settled()), want);
  assert.deepEqual(signed, []);
  console.log(`  ok: S3 by a link, unsigned (a public bucket): the same rows`);
}
