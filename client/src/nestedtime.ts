/**
 * Epoch numbers at the timestamp leaves of a nested column. The core reads
 * a nested value as JSON text and takes a time there only as text (a number
 * has no unit in it), while a flat timestamp column takes a number or bigint
 * in AppendOptions.timeUnit. The client knows each column's type text
 * (TableWriter.columns), so it finds the timestamp leaves here (timeTree)
 * and nestedJSON writes a number or bigint at one as its ISO text, converted
 * as the core converts a flat column's: a bigint exactly (floor below a
 * microsecond for timestamptz), a number rounded half away from zero.
 */
import { RowError } from "./errors.js";
import type { NestedTimes } from "./nested.js";
import type { TimeUnit } from "./tabletypes.js";

/** The timestamp leaves of each nested type text seen (undefined: none), shared by writers. */
const treesByType = new Map<string, TimeTree | undefined>();

/**
 * The nested columns of a schema (the one a writer last saw) that hold a
 * timestamp leaf, with the unit of numbers given there; the trees kept per
 * column type text. A column another writer added since is not here: a
 * number at its timestamps is refused by the core (no time type changes,
 * so a stale schema never turns a number into a wrong time).
 */
export function nestedTimesOf(columns: readonly { name: string; type: string }[], unit: TimeUnit): Map<string, NestedTimes> | undefined {
  if (!["s", "ms", "us", "ns"].includes(unit)) return undefined; // the core refuses the option
  let out: Map<string, NestedTimes> | undefined;
  for (const c of columns) {
    if (!c.type.includes("<")) continue;
    let tree = treesByType.get(c.type);
    if (tree === undefined && !treesByType.has(c.type)) treesByType.set(c.type, (tree = timeTree(c.type)));
    if (tree !== undefined) (out ??= new Map()).set(c.name, { tree, unit });
  }
  return out;
}

/**
 * Where a nested type's timestamp leaves are: "us" (timestamptz,
 * timestamp), "ns" (the _ns types), or the parts of a list, map or struct
 * holding one; undefined where none is.
 */
export type TimeTree = "us" | "ns" | { list: TimeTree } | { key?: TimeTree; value?: TimeTree } | { fields: Map<string, TimeTree> };

/**
 * The timestamp leaves of the nested type text t (as schema type text
 * prints it: map<K, V>, list<T>, struct<a: T, …>); undefined when it holds
 * none, or when the text does not parse (field names are printed bare, so
 * one holding ": " can confuse it): then a number there goes as a number,
 * refused by the core as before.
 */
export function timeTree(t: string): TimeTree | undefined {
  let i = 0;
  const eat = (s: string): boolean => {
    if (t.startsWith(s, i)) {
      i += s.length;
      return true;
    }
    return false;
  };
  const fail = (): never => {
    throw new Error("unparsed");
  };
  const type = (): TimeTree | undefined => {
    if (eat("list<")) {
      const e = type();
      if (!eat(">")) fail();
      return e && { list: e };
    }
    if (eat("map<")) {
      const key = type();
      if (!eat(", ")) fail();
      const value = type();
      if (!eat(">")) fail();
      return key || value ? { ...(key ? { key } : {}), ...(value ? { value } : {}) } : undefined;
    }
    if (eat("struct<")) {
      const fields = new Map<string, TimeTree>();
      if (eat(">")) return undefined;
      for (;;) {
        const colon = t.indexOf(": ", i);
        if (colon < 0) fail();
        const name = t.slice(i, colon);
        i = colon + 2;
        const f = type();
        if (f) fields.set(name, f);
        if (eat(">")) break;
        if (!eat(", ")) fail();
      }
      return fields.size > 0 ? { fields } : undefined;
    }
    // a primitive: up to the next ',' or '>' outside parentheses (decimal(10, 2))
    const start = i;
    let depth = 0;
    for (; i < t.length; i++) {
      const c = t[i];
      if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (depth === 0 && (c === "," || c === ">")) break;
    }
    const p = t.slice(start, i);
    if (p === "") fail();
    if (p === "timestamptz" || p === "timestamp") return "us";
    if (p === "timestamptz_ns" || p === "timestamp_ns") return "ns";
    return undefined;
  };
  try {
    const tree = type();
    return i === t.length ? tree : undefined;
  } catch {
    return undefined;
  }
}

const NANOS_PER: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1000n, ns: 1n };
const MIN_MICROS = -62135596800000000n; // 0001-01-01T00:00:00Z
const MAX_MICROS = 253402300799999999n; // 9999-12-31T23:59:59.999999Z
const MIN_NANOS = -(1n << 63n);
const MAX_NANOS = (1n << 63n) - 1n;

/** Round half away from zero, as the core rounds a number's time. */
const roundAway = (x: number): number => {
  const r = Math.trunc(x);
  return Math.abs(x - r) >= 0.5 ? r + Math.sign(x) : r;
};

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b < 0n ? q - 1n : q;
};

/**
 * The ISO text of the time v (a number or bigint in unit) at a leaf of
 * precision leaf: microseconds (6 fraction digits) or nanoseconds (9), the
 * text the core reads back to the same instant. A time outside the leaf's
 * range (years 0001 to 9999; the int64 nanoseconds), NaN or ±Infinity is
 * TIME_OUT_OF_RANGE naming row and column.
 */
export function epochText(v: number | bigint, unit: TimeUnit, leaf: "us" | "ns", row: number, column: string): string {
  const per = NANOS_PER[unit];
  let x: bigint | undefined; // in the leaf's unit
  if (typeof v === "bigint") {
    x = leaf === "ns" ? v * per : unit === "ns" ? floorDiv(v, 1000n) : v * (per / 1000n);
  } else if (Number.isFinite(v)) {
    // as the core's float path: the float product, then rounded
    const r = leaf === "ns" ? roundAway(v * Number(per)) : roundAway(unit === "ns" ? v / 1000 : v * Number(per / 1000n));
    if (Number.isFinite(r)) x = BigInt(r);
  }
  const [lo, hi, perSec, digits] = leaf === "ns" ? [MIN_NANOS, MAX_NANOS, 1_000_000_000n, 9] : [MIN_MICROS, MAX_MICROS, 1_000_000n, 6];
  if (x === undefined || x < lo || x > hi) {
    throw new RowError("TIME_OUT_OF_RANGE", `timelake: row ${row + 1}, column ${column}: time ${String(v)} (unit ${unit}) inside a nested value is outside the range of a ${leaf === "ns" ? "nanosecond" : "microsecond"} timestamp`, {
      row: row + 1,
      column,
      value: String(v),
    });
  }
  const sec = floorDiv(x, perSec);
  const frac = (x - sec * perSec).toString().padStart(digits, "0");
  return `${new Date(Number(sec) * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}
