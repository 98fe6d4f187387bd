/**
 * A scan batch as the bridge hands it over (wasm/scanwire.go: typed-array
 * bytes and one string per column) → a ColumnBatch of plain arrays, with
 * the values latest() gives: long → bigint, timestamptz → ISO 8601 string
 * with microseconds (timestamptz_ns and timestamp_ns: nanoseconds), null → null,
 * a nested column's JSON text parsed (nested.ts).
 */
import { parseNested } from "./nested.js";
import type { ColumnBatch, ScanValue } from "./scan.js";

export interface WireScanColumn {
  name: string;
  kind: "f64" | "i64" | "ts" | "tsns" | "bool" | "str" | "json";
  /** json: the column's type holds a long (integers past 2^53 as bigints). */
  big?: boolean;
  nulls?: Uint8Array;
  data?: Uint8Array;
  us?: Uint8Array;
  /** tsns: the nanoseconds (0 to 999,999) past each millisecond of data, as uint32. */
  ns?: Uint8Array;
  str?: string;
  off?: Uint8Array;
}

export interface WireScanBatch {
  length: number;
  columns: WireScanColumn[];
}

const view = <T>(C: new (b: ArrayBufferLike, off: number, n: number) => T, b: Uint8Array | undefined, n: number): T =>
  new C(b!.buffer, b!.byteOffset, n);

let pad2: string[] | undefined;
let pad3: string[] | undefined;

const pad6 = (v: number): string => String(v).padStart(6, "0");
const DAY_MS = 86_400_000;
// Years 0000–9999, which toISOString writes with four digits.
const ISO_MIN = -62_167_219_200_000, ISO_MAX = 253_402_300_800_000;
let isoDay = NaN, isoDayText = "";

/**
 * ms (whole milliseconds since the epoch) and us (0–999) as
 * toISOString with the microseconds after the milliseconds:
 * YYYY-MM-DDTHH:MM:SS.mmmuuuZ. The date part is computed once per day
 * (a scan's rows come sorted by series and time, so runs of one day), the
 * time of day from tables: a Date per row was most of a batch's decoding.
 */
export function isoMicros(ms: number, us: number): string {
  pad2 ??= Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
  pad3 ??= Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
  if (!(ms >= ISO_MIN && ms < ISO_MAX)) {
    const s = new Date(ms).toISOString(); // ±YYYYYY-MM-DDTHH:MM:SS.mmmZ
    return s.slice(0, -1) + pad3[us]! + "Z";
  }
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDay = day;
    isoDayText = new Date(day * DAY_MS).toISOString().slice(0, 11); // YYYY-MM-DDT
  }
  let r = ms - day * DAY_MS;
  const h = Math.floor(r / 3_600_000);
  r -= h * 3_600_000;
  const m = Math.floor(r / 60_000);
  r -= m * 60_000;
  const sec = Math.floor(r / 1000);
  return isoDayText + pad2[h]! + ":" + pad2[m]! + ":" + pad2[sec]! + "." + pad3[r - sec * 1000]! + pad3[us]! + "Z";
}

function column(c: WireScanColumn, n: number): ScanValue[] {
  let out: ScanValue[];
  switch (c.kind) {
    case "f64":
      out = Array.from(view(Float64Array, c.data, n));
      break;
    case "i64":
      out = Array.from(view(BigInt64Array, c.data, n));
      break;
    case "bool": {
      const d = c.data!;
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) out[i] = d[i] !== 0;
      break;
    }
    case "ts": {
      const ms = view(Float64Array, c.data, n);
      const us = view(Uint16Array, c.us, n);
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) out[i] = isoMicros(ms[i]!, us[i]!);
      break;
    }
    case "tsns": {
      const ms = view(Float64Array, c.data, n);
      const ns = view(Uint32Array, c.ns, n);
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) {
        const s = new Date(ms[i]!).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
        out[i] = s.slice(0, -1) + pad6(ns[i]!) + "Z";
      }
      break;
    }
    case "str": {
      const s = c.str!;
      const off = view(Int32Array, c.off, n + 1);
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) out[i] = s.slice(off[i]!, off[i + 1]!);
      break;
    }
    case "json": {
      // a nested column: each row's JSON text, parsed (a null row's empty text is left to the nulls below)
      const s = c.str!;
      const off = view(Int32Array, c.off, n + 1);
      const z = c.nulls;
      const big = c.big === true;
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) out[i] = z && z[i] !== 0 ? null : (parseNested(s.slice(off[i]!, off[i + 1]!), big) as ScanValue);
      break;
    }
  }
  if (c.nulls) {
    const z = c.nulls;
    for (let i = 0; i < n; i++) if (z[i] !== 0) out[i] = null;
  }
  return out;
}

export function fromWire(w: WireScanBatch): ColumnBatch {
  const columns: Record<string, ScanValue[]> = {};
  for (const c of w.columns) columns[c.name] = column(c, w.length);
  return { length: w.length, columns };
}

/** A wire batch as one object per row, properties in column order: what latest() returns. */
export function rowsFromWire(w: WireScanBatch): Record<string, unknown>[] {
  const cols = w.columns.map((c) => [c.name, column(c, w.length)] as const);
  const out = new Array<Record<string, unknown>>(w.length);
  for (let r = 0; r < w.length; r++) {
    const o: Record<string, unknown> = {};
    for (const [name, vals] of cols) o[name] = vals[r];
    out[r] = o;
  }
  return out;
}
