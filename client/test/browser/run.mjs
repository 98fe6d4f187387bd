// Runs the browser test: serves client/dist on 127.0.0.1 (a random port) to
// headless Chromium (the system's, driven by playwright-core; no browser is
// downloaded), opens the test page (dist/test/browser/page.js) and writes the
// tables it sends back under OUT_DIR/<table>/… for the outside readers.
//
// Usage: node run.mjs OUT_DIR
// Env: TIMELAKE_CHROMIUM (default /usr/bin/chromium),
//      TIMELAKE_BROWSER_TIMEOUT_MS (default 180000).
// Exit status 0 when every check in the page passed; otherwise 1, with the
// page's error, its console messages and failed requests on stderr.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, "../../dist");
const outDir = process.argv[2] && path.resolve(process.argv[2]);
if (!outDir) {
  console.error("usage: node run.mjs OUT_DIR");
  process.exit(2);
}
const executablePath = process.env.TIMELAKE_CHROMIUM || "/usr/bin/chromium";
const timeoutMs = Number(process.env.TIMELAKE_BROWSER_TIMEOUT_MS || 180_000);

const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".map": "application/json" };
const page = `<!doctype html><meta charset="utf-8"><title>timelake browser test</title>
<script type="module" src="/test/browser/page.js"></script>`;

// The result the page POSTs to /result.
let deliver;
const result = new Promise((resolve) => (deliver = resolve));
const served = [];

const server = createServer(async (req, res) => {
  const url = new URL(req.url, "http://x");
  try {
    if (req.method === "POST" && url.pathname === "/result") {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      deliver(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    // Only the built package and the built tests, nothing outside dist.
    const file = path.resolve(dist, "." + decodeURIComponent(url.pathname));
    if (!(file.startsWith(path.join(dist, "src") + path.sep) || file.startsWith(path.join(dist, "test") + path.sep))) {
      res.writeHead(404).end();
      return;
    }
    const body = await readFile(file);
    served.push(url.pathname);
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
  } catch (e) {
    res.writeHead(e.code === "ENOENT" ? 404 : 500).end(String(e));
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const consoleLines = [];
const failedRequests = [];
const t0 = performance.now();
const browser = await chromium.launch({
  executablePath,
  headless: true,
  // Root in a container: no sandbox; /dev/shm is often small there.
  args: ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  timeout: 60_000,
});
let ok = false;
try {
  const version = browser.version();
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  p.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  p.on("pageerror", (e) => {
    consoleLines.push(`[pageerror] ${e.stack ?? e}`);
    deliver({ ok: false, checks: [], error: `uncaught in the page: ${e.stack ?? e}` });
  });
  p.on("requestfailed", (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
  p.on("response", (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()}: HTTP ${r.status()}`);
  });
  p.on("crash", () => deliver({ ok: false, checks: [], error: "the page crashed" }));

  const out = pathToFileURL(outDir).href;
  await p.goto(`${origin}/?out=${encodeURIComponent(out)}`, { timeout: 30_000 });
  let timer;
  const got = await Promise.race([
    result,
    new Promise((resolve) => (timer = setTimeout(() => resolve({ ok: false, checks: [], error: `no result from the page within ${timeoutMs} ms` }), timeoutMs))),
  ]);
  clearTimeout(timer);

  for (const c of got.checks ?? []) console.log(`  ok: ${c}`);
  if (!got.ok) throw new Error(`in the page: ${got.error}`);

  let files = 0;
  for (const [name, objs] of Object.entries(got.tables)) {
    for (const [key, b64] of Object.entries(objs)) {
      const file = path.join(outDir, name, ...key.split("/"));
      if (!file.startsWith(path.join(outDir, name) + path.sep)) throw new Error(`key leaves the table: ${key}`);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, Buffer.from(b64, "base64"));
      files++;
    }
  }
  const t = got.timings;
  const a = t.append10k;
  console.log(`browser: ${version} (${got.userAgent})`);
  console.log(`wasm served from ${served.find((s) => s.endsWith(".wasm"))}`);
  console.log(
    `10k-row append in Chromium: ${a.durationMs.toFixed(0)} ms (columns ${a.timings.columnsMs.toFixed(1)} ms, copy ${a.timings.copyMs} ms, align ${a.timings.alignMs} ms, core ${a.timings.appendMs} ms; ${a.files} files, ${a.bytes} bytes); warm repeats ${t.append10kWarmMs.map((x) => x.toFixed(0)).join(", ")} ms`,
  );
  console.log(`1k-row appends on the IndexedDB store: ${t.idbAppend1kMs.map((x) => x.toFixed(0)).join(", ")} ms`);
  console.log(`wrote ${files} objects of ${Object.keys(got.tables).length} tables under ${outDir}; whole run ${(performance.now() - t0).toFixed(0)} ms`);
  ok = true;
} catch (e) {
  console.error(`browser test FAILED: ${e?.stack ?? e}`);
  console.error(`--- page console (${consoleLines.length} messages)`);
  for (const l of consoleLines) console.error(l);
  if (failedRequests.length) console.error(`--- failed requests\n${failedRequests.join("\n")}`);
} finally {
  await browser.close().catch(() => {});
  server.close();
}
process.exit(ok ? 0 : 1);
