// A line chart in SVG, drawn by hand: one polyline per series over a time
// axis [from, to), a value axis fitted to the points and a few ticks. No
// library: the explorer keeps its dependencies to the client.

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

/** The chart's size in SVG units; WIDTH - margins is the plot, which the explorer's rollup choice reads. */
export const WIDTH = 900;
const HEIGHT = 340;
const M = { left: 64, right: 16, top: 16, bottom: 28 };
export const PLOT_WIDTH = WIDTH - M.left - M.right;

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** "Nice" tick values covering [lo, hi]: about n of them, at 1, 2 or 5 × 10^k. */
function ticks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const S = 1000;
const STEPS = [S, 5 * S, 15 * S, 30 * S, 60 * S, 300 * S, 900 * S, 1800 * S, 3600 * S, 3 * 3600 * S, 6 * 3600 * S, 12 * 3600 * S, 86_400 * S, 2 * 86_400 * S, 7 * 86_400 * S, 30 * 86_400 * S, 365 * 86_400 * S];

/** Time ticks on whole seconds, minutes, hours or days (UTC): about n of them. */
function timeTicks(from, to, n) {
  const step = STEPS.find((s) => (to - from) / s <= n) ?? STEPS[STEPS.length - 1];
  const out = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

/** A time label: the date when the range spans days, else the time of day (UTC). */
function timeLabel(ms, spanMs) {
  const iso = new Date(ms).toISOString();
  if (spanMs > 3 * 86_400_000) return iso.slice(0, 10);
  if (spanMs > 86_400_000) return iso.slice(5, 16).replace("T", " ");
  return iso.slice(11, spanMs > 600_000 ? 16 : 19);
}

/**
 * Draws into svg (emptied first). series: [{ label, points: [[ms, value], …] }]
 * with points in time order; fromMs/toMs the time axis. Returns the
 * polylines' colors by label, for the page's legend.
 */
export function drawChart(svg, series, fromMs, toMs, yLabel) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) for (const [, v] of s.points) if (Number.isFinite(v)) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
  if (lo === Infinity) (lo = 0), (hi = 1);
  if (lo === hi) (lo -= 1), (hi += 1);
  const pad = (hi - lo) * 0.05;
  (lo -= pad), (hi += pad);
  const w = PLOT_WIDTH;
  const h = HEIGHT - M.top - M.bottom;
  const x = (ms) => M.left + ((ms - fromMs) / (toMs - fromMs)) * w;
  const y = (v) => M.top + (1 - (v - lo) / (hi - lo)) * h;

  const axes = el("g", { class: "axes", "font-size": 11, fill: "#444" });
  axes.append(el("rect", { x: M.left, y: M.top, width: w, height: h, fill: "none", stroke: "#bbb" }));
  for (const v of ticks(lo, hi, 5)) {
    axes.append(el("line", { x1: M.left, x2: M.left + w, y1: y(v), y2: y(v), stroke: "#eee" }));
    axes.append(el("text", { x: M.left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const span = toMs - fromMs;
  for (const t of timeTicks(fromMs, toMs, 8)) {
    if (t < fromMs || t > toMs) continue;
    axes.append(el("line", { x1: x(t), x2: x(t), y1: M.top, y2: M.top + h, stroke: "#eee" }));
    axes.append(el("text", { x: x(t), y: M.top + h + 16, "text-anchor": "middle" }, timeLabel(t, span)));
  }
  if (yLabel) axes.append(el("text", { x: 12, y: M.top + h / 2, transform: `rotate(-90 12 ${M.top + h / 2})`, "text-anchor": "middle" }, yLabel));
  svg.append(axes);

  const colors = {};
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    colors[s.label] = color;
    const pts = s.points.filter(([, v]) => Number.isFinite(v)).map(([t, v]) => `${x(t).toFixed(2)},${y(v).toFixed(2)}`);
    const line = el("polyline", { points: pts.join(" "), fill: "none", stroke: color, "stroke-width": 1.5, "data-series": s.label });
    svg.append(line);
    if (s.points.length === 1) svg.append(el("circle", { cx: pts[0]?.split(",")[0] ?? 0, cy: pts[0]?.split(",")[1] ?? 0, r: 3, fill: color }));
  });
  return colors;
}

/** The time under clientX on a chart drawn over [fromMs, toMs), clamped to it. */
export function timeAt(svg, clientX, fromMs, toMs) {
  const box = svg.getBoundingClientRect();
  const x = ((clientX - box.left) * WIDTH) / box.width;
  const f = Math.min(1, Math.max(0, (x - M.left) / PLOT_WIDTH));
  return fromMs + f * (toMs - fromMs);
}
