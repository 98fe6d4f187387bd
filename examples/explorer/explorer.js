// The table explorer: opens a Timelake table in the browser through
// @timelake/client (the Go core as WebAssembly) from a picked or dropped
// folder (fileListStore), an S3-compatible bucket (s3Store) or a table
// served by serve.mjs (httpStore), and shows its history, partitions,
// files, schema, latest rows and a chart of series over a time range, read
// with scan — or with a rollup's buckets when one is up to date and the
// range is wide enough that raw points would crowd the chart.
//
// URL parameters (links, tests): table=URL (a served table), s3=s3://b/p
// with endpoint= and region= (unsigned), and for the chart series=COL=V
// (repeatable), column=, from=, to=, rollups=0.
import { directoryFiles, fileListStore, openTable, s3Store } from "@timelake/client";
import { drawChart, PLOT_WIDTH, timeAt } from "./chart.js";
import { httpStore } from "./httpstore.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
/** The link's chart parameters: for the first table opened only. */
let chartParams = params;
const MAX_POINTS = 200_000; // a scan stops here (the note says so)
const NUMERIC = new Set(["double", "float", "long", "int"]);

/** The open table and what the chart needs of it. */
let cur = null;

function status(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

function fail(e) {
  console.error(e);
  status(`${e?.code ? `[${e.code}] ` : ""}${e?.message ?? e}`, true);
  document.body.dataset.state = "error";
}

/** A <table> of rows (arrays of cells) under headers; numbers right-aligned. Text only: no markup from the table's data. */
function grid(headers, rows) {
  const t = document.createElement("table");
  const tr = t.createTHead().insertRow();
  for (const h of headers) tr.append(Object.assign(document.createElement("th"), { textContent: h }));
  const body = t.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    for (const c of r) {
      const td = row.insertCell();
      td.textContent = c === null || c === undefined ? "" : String(c);
      if (typeof c === "number" || typeof c === "bigint") td.className = "n";
    }
  }
  return t;
}

const put = (id, node) => $(id).replaceChildren(node);
const iso = (ms) => new Date(ms).toISOString();
const bytes = (n) => (n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);
/** Epoch ms of a scan's time value (ISO 8601 with microseconds; Date.parse keeps the ms). */
const ms = (t) => Date.parse(t);

// ---- opening ------------------------------------------------------------

$("pick").onclick = async () => {
  if (!window.showDirectoryPicker) return $("folder").click(); // Firefox, Safari: the input's dialog
  try {
    const dir = await window.showDirectoryPicker();
    await open(fileListStore(await directoryFiles(dir, dir.name)), `folder ${dir.name}`);
  } catch (e) {
    if (e?.name !== "AbortError") fail(e);
  }
};

$("folder").onchange = (ev) => {
  const files = ev.target.files;
  if (files.length) open(fileListStore(files), `folder ${files[0].webkitRelativePath.split("/")[0]}`);
};

const drop = $("drop");
drop.ondragover = (ev) => (ev.preventDefault(), drop.classList.add("over"));
drop.ondragleave = () => drop.classList.remove("over");
drop.ondrop = async (ev) => {
  ev.preventDefault();
  drop.classList.remove("over");
  try {
    const items = [...ev.dataTransfer.items].filter((i) => i.kind === "file");
    // Each item's handle or entry must be taken before the first await.
    const got = items.map((i) => (i.getAsFileSystemHandle ? i.getAsFileSystemHandle() : Promise.resolve(null)));
    const entries = items.map((i) => i.webkitGetAsEntry?.());
    const files = [];
    for (let k = 0; k < items.length; k++) {
      const h = await got[k];
      if (h?.kind === "directory") files.push(...(await directoryFiles(h, h.name)));
      else if (entries[k]) files.push(...(await entryFiles(entries[k], entries[k].name)));
    }
    await open(fileListStore(files), "the dropped folder");
  } catch (e) {
    fail(e);
  }
};

/** The files under a dropped FileSystemEntry (browsers without getAsFileSystemHandle). */
async function entryFiles(entry, p) {
  if (entry.isFile) return [[p, await new Promise((ok, ko) => entry.file(ok, ko))]];
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((ok, ko) => reader.readEntries(ok, ko)); // a batch at a time until []
    if (batch.length === 0) return out;
    for (const e of batch) out.push(...(await entryFiles(e, `${p}/${e.name}`)));
  }
}

/** An s3Store for s3://bucket/prefix; without keys its requests go unsigned (public buckets). */
function s3For(url, { endpoint, region, key, secret, token }) {
  const m = /^s3a?:\/\/([^/]+)\/?(.*?)\/*$/.exec(url.trim());
  if (!m) throw new Error(`not an s3:// URL: ${url}`);
  const anonymous = !key;
  // No HTTP cache: a cached listing or version-hint would hide new versions,
  // and in Chromium a second read of the same range from the test's server
  // (versitygw) failed its CORS check when served through the cache.
  const uncached = (input, init) => fetch(input, { ...init, cache: "no-store" });
  const unsigned = (input, init) => {
    const h = new Headers(init?.headers);
    for (const k of ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]) h.delete(k);
    return uncached(input, { ...init, headers: h });
  };
  return s3Store({
    bucket: m[1],
    prefix: m[2] || undefined,
    endpoint: endpoint || undefined,
    region: region || "us-east-1",
    credentials: anonymous ? { accessKeyId: "anonymous", secretAccessKey: "anonymous" } : { accessKeyId: key, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) },
    fetch: anonymous ? unsigned : uncached,
  });
}

$("s3").onsubmit = (ev) => {
  ev.preventDefault();
  const f = Object.fromEntries(new FormData(ev.target));
  try {
    open(s3For(f.url, f), f.url);
  } catch (e) {
    fail(e);
  }
};

async function open(store, label) {
  document.body.dataset.state = "loading";
  status(`Opening ${label}…`);
  try {
    for (const t of cur ? [cur.table, ...cur.rollups.map((r) => r.table)] : []) await t?.close().catch(() => {});
    cur = null;
    const table = await openTable(store);
    const info = await table.info();
    const history = await table.history();
    const files = await table.files();
    const latest = await table.latest();
    const key = { time: info.timeColumn, series: info.seriesColumns ?? [] };
    const rollups = await openRollups(table, info);
    cur = { table, info, key, latest, rollups };
    render(info, history, files, latest, rollups);
    setupChart();
    $("view").hidden = false;
    status(`${label}: version ${info.version}, ${info.rows} rows in ${info.files} files, ${info.minTime ?? "-"} to ${info.maxTime ?? "-"}`);
    await draw();
  } catch (e) {
    fail(e);
  }
}

/** The table's rollups, each opened (or the reason it is not) with its freshness. */
async function openRollups(table, info) {
  const out = [];
  for (const def of await table.rollups()) {
    const r = { def, every: everyMs(def.every), aggs: aggregates(def.aggregates) };
    try {
      r.table = await table.rollup(def.name);
      const h = await r.table.history();
      const last = h.find((s) => s.current);
      r.source = last?.summary["timelake.rollup.source-snapshot"];
      r.fresh = info.snapshotId !== undefined && r.source === String(info.snapshotId);
      r.minTime = (await r.table.info()).minTime;
    } catch (e) {
      r.error = `${e?.code ? `[${e.code}] ` : ""}${e?.message ?? e}`;
    }
    out.push(r);
  }
  return out;
}

const everyMs = (e) => ({ "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "1d": 86_400_000 })[e] ?? NaN;

/** "cpu:min,max,avg;mem:max" → { cpu: ["min","max","avg"], mem: ["max"] }. */
function aggregates(text) {
  const out = {};
  for (const part of text.split(";").filter(Boolean)) {
    const [col, fns] = part.split(":");
    out[col] = fns.split(",");
  }
  return out;
}

function render(info, history, files, latest, rollups) {
  put("overview", grid(["location", "version", "snapshot", "rows", "files", "bytes", "from", "to", "partitioned by"], [
    [info.location, info.version, info.snapshotId ?? "none", info.rows, info.files, bytes(info.bytes), info.minTime, info.maxTime, info.partition],
  ]));
  put("history", grid(["snapshot", "time", "operation", "rows added", "files added", "files removed", ""],
    history.slice().reverse().map((s) => [String(s.snapshotId), iso(s.timestampMs), s.operation, s.addedRows, s.addedFiles, s.removedFiles, s.current ? "current" : ""])));
  put("partitions", grid(["partition", "rows", "files", "bytes"], info.partitions.map((p) => [p.name, p.rows, p.files, bytes(p.bytes)])));
  const rel = (p) => (p.startsWith(info.location) ? p.slice(info.location.length).replace(/^\//, "") : p);
  put("files", grid(["file", "rows", "bytes", "first time", "last time"],
    files.slice().sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => [rel(f.path), f.rows, bytes(f.bytes), f.minTime, f.maxTime])));
  put("schema", grid(["id", "column", "type", "required", "key"], info.columns.map((c) => [c.id, c.name, c.type, c.required ? "yes" : "", keyRole(c.name)])));
  const cols = info.columns.map((c) => c.name);
  put("latest", grid(cols, latest.map((r) => cols.map((c) => r[c]))));
  put("rollups", rollups.length === 0 ? document.createTextNode("none")
    : grid(["name", "every", "aggregates", "state"], rollups.map((r) => [r.def.name, r.def.every, r.def.aggregates, r.error ?? (r.fresh ? "up to date" : `reflects snapshot ${r.source ?? "none"}`)])));
}

function keyRole(name) {
  if (!cur) return "";
  if (name === cur.key.time) return "time";
  return cur.key.series.includes(name) ? "series" : "";
}

// ---- the chart ----------------------------------------------------------

/** A series' label and identity: "host=a, region=eu". */
const seriesLabel = (row, cols) => cols.map((c) => `${c}=${row[c]}`).join(", ") || "(one series)";

function setupChart() {
  const { info, key, latest } = cur;
  const sel = $("series");
  sel.replaceChildren();
  const wanted = chartParams.getAll("series"); // COL=V, as the CLI's --series: one value per parameter
  latest.forEach((row, i) => {
    const label = seriesLabel(row, key.series);
    const o = new Option(label, String(i));
    o.selected = wanted.length ? key.series.every((c) => wanted.includes(`${c}=${row[c]}`)) : i < 3;
    sel.append(o);
  });
  const values = info.columns.filter((c) => NUMERIC.has(c.type) && c.name !== key.time && !key.series.includes(c.name) && c.name !== "_ingest_ts");
  $("column").replaceChildren(...values.map((c) => new Option(c.name, c.name, false, c.name === chartParams.get("column"))));
  // The whole table by default: to is exclusive, so a millisecond past the last row.
  $("from").value = chartParams.get("from") ?? info.minTime ?? "";
  $("to").value = chartParams.get("to") ?? (info.maxTime ? iso(ms(info.maxTime) + 1) : "");
  $("use-rollups").checked = chartParams.get("rollups") !== "0";
  chartParams = new URLSearchParams();
}

$("chart-form").onsubmit = (ev) => {
  ev.preventDefault();
  draw().catch(fail);
};

// Zoom: drag across the chart to draw that span; "Zoom out" doubles the range around its middle.
let dragX;
$("chart").onpointerdown = (ev) => (dragX = ev.clientX);
$("chart").onpointerup = (ev) => {
  const [a, b] = [dragX, ev.clientX].sort((x, y) => x - y);
  dragX = undefined;
  if (a === undefined || b - a < 5 || !cur?.drawn) return; // a click, not a drag
  const { fromMs, toMs } = cur.drawn;
  setRange(timeAt($("chart"), a, fromMs, toMs), timeAt($("chart"), b, fromMs, toMs));
};
$("zoom-out").onclick = () => {
  if (!cur?.drawn) return;
  const { fromMs, toMs } = cur.drawn;
  setRange(fromMs - (toMs - fromMs) / 2, toMs + (toMs - fromMs) / 2);
};
function setRange(fromMs, toMs) {
  $("from").value = iso(Math.round(fromMs));
  $("to").value = iso(Math.round(toMs));
  draw().catch(fail);
}

/**
 * The rollup to draw from, if any: up to date with the table, holding the
 * rows from the range's start, with an aggregate of column, and the
 * coarsest whose buckets are still at most 4 px apart on the chart.
 */
function chooseRollup(column, fromMs, toMs, from) {
  if (!$("use-rollups").checked) return undefined;
  const fit = cur.rollups.filter((r) => r.table && r.fresh && r.aggs[column] && (toMs - fromMs) / r.every >= PLOT_WIDTH / 4);
  const covered = fit.filter((r) => r.minTime && ms(r.minTime) <= Math.max(fromMs, ms(cur.info.minTime ?? from)));
  return covered.sort((a, b) => b.every - a.every)[0];
}

/** The value a rollup bucket shows: the average when kept (sum/count), else last, max, min, first. */
function rollupValue(r, column) {
  const fns = r.aggs[column];
  if (fns.includes("avg") || (fns.includes("sum") && fns.includes("count"))) {
    return { fn: "avg", cols: [`${column}_sum`, `${column}_count`], value: (b, i) => Number(b.columns[`${column}_sum`][i]) / Number(b.columns[`${column}_count`][i]) };
  }
  const fn = ["last", "max", "min", "first"].find((f) => fns.includes(f));
  return { fn, cols: [`${column}_${fn}`], value: (b, i) => Number(b.columns[`${column}_${fn}`][i]) };
}

async function draw() {
  const { table, key, latest } = cur;
  const column = $("column").value;
  const from = $("from").value.trim();
  const to = $("to").value.trim();
  const picked = [...$("series").selectedOptions].map((o) => latest[Number(o.value)]);
  const fromMs = ms(from);
  const toMs = ms(to);
  if (!column || picked.length === 0 || !(toMs > fromMs) || !key.time) {
    $("chart-note").textContent = key.time ? "Choose a column, one or more series and a range (RFC 3339 times, to after from)." : "The table has no time column recorded (another engine's, not adopted): no chart.";
    document.body.dataset.state = "ready";
    return;
  }
  document.body.dataset.state = "drawing";
  // IN filters per series column; a row is kept when its whole key was picked.
  const filter = {};
  for (const c of key.series) filter[c] = [...new Set(picked.map((r) => r[c]))];
  const want = new Map(picked.map((r) => [seriesLabel(r, key.series), []]));
  const rollup = chooseRollup(column, fromMs, toMs, from);
  let reader;
  let source;
  if (rollup) {
    const v = rollupValue(rollup, column);
    source = `rollup ${rollup.def.name} (${rollup.def.every} buckets, ${v.fn})`;
    reader = { scan: rollup.table.scan({ from, to, series: filter, columns: v.cols }), time: "bucket", value: v.value };
  } else {
    source = "scan";
    reader = { scan: table.scan({ from, to, series: filter, columns: [column], limit: MAX_POINTS }), time: key.time, value: (b, i) => b.columns[column][i] };
  }
  let rows = 0;
  for await (const b of reader.scan) {
    rows += b.length;
    const times = b.columns[reader.time];
    for (let i = 0; i < b.length; i++) {
      const pts = want.get(key.series.map((c) => `${c}=${b.columns[c][i]}`).join(", ") || "(one series)");
      const v = reader.value(b, i);
      if (pts) pts.push([times[i], v === null ? null : Number(v)]);
    }
  }
  const series = [...want].map(([label, points]) => ({ label, points }));
  cur.drawn = { fromMs, toMs };
  const colors = drawChart($("chart"), series.map((s) => ({ label: s.label, points: s.points.map(([t, v]) => [ms(t), v ?? NaN]) })), fromMs, toMs, column);
  $("legend").replaceChildren(...series.map((s) => {
    const item = document.createElement("span");
    item.style.borderColor = colors[s.label];
    item.textContent = `${s.label} (${s.points.length})`;
    return item;
  }));
  $("chart-data").textContent = JSON.stringify({ source, column, from, to, series: series.map((s) => ({ key: s.label, points: s.points })) });
  const stats = await reader.scan.stats;
  $("chart-note").textContent = `${column} from ${source}: ${rows} rows, ${stats.filesRead} of ${stats.files} files read, ${bytes(stats.bytesRead)}` +
    (source === "scan" && rows >= MAX_POINTS ? ` — stopped at ${MAX_POINTS} rows: narrow the range` : "");
  document.body.dataset.state = "ready";
}

// ---- links --------------------------------------------------------------

if (params.get("table")) open(httpStore(params.get("table")), params.get("table"));
else if (params.get("s3")) open(s3For(params.get("s3"), { endpoint: params.get("endpoint"), region: params.get("region") }), params.get("s3"));
