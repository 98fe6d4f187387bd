/**
 * A scan batch as the bridge hands it over (wasm/scanwire.go: typed-array
 * bytes and one string per column) → a ColumnBatch of plain arrays, with
 * the values latest() gives: long → bigint, timestamptz → ISO 8601 string
 * with microseconds (timestamptz_ns and timestamp_ns: nanoseconds), null → null.
 */
import type { ColumnBatch, ScanValue } from "./scan.js";

export interface WireScanColumn {
  name: string;
  kind: "f64" | "i64" | "ts" | "tsns" | "bool" | "str";
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

let pad3: string[] | undefined;

const pad6 = (v: number): string => String(v).padStart(6, "0");

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
      pad3 ??= Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
      out = new Array<ScanValue>(n);
      for (let i = 0; i < n; i++) {
        const s = new Date(ms[i]!).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
        out[i] = s.slice(0, -1) + pad3[us[i]!]! + "Z";
      }
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
