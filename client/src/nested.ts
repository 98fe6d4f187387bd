/**
 * Values of nested columns (map, list, struct) between JavaScript and the
 * core, which holds each row's value as JSON text:
 *
 * - in (append): a plain object, a Map or an array becomes its JSON text
 *   here (nestedJSON); the core checks it against the column's type as it
 *   checks an NDJSON value. A Map key is its text (mapKeyText): a string,
 *   a number's or bigint's decimal text, true/false, a Date's ISO text; the
 *   core reads it as the map's key type. At a timestamp leaf (times: the
 *   column's leaves from its type text, nestedtime.ts) a number or bigint is
 *   a time in the append's unit, written as its ISO text. Elsewhere
 *   inside, a Date is its toISOString() text, a bigint its digits, NaN and
 *   ±Infinity the strings
 *   "NaN", "Infinity", "-Infinity" (as scan prints them), undefined a
 *   missing member (null in an array), as JSON.stringify does; anything
 *   else (a Set, a class instance, a function) is refused naming row and
 *   column rather than turned into {}.
 * - out (scan rows, latest): the text parsed (parseNested): objects,
 *   arrays, strings, numbers, booleans, null. In a column whose type holds
 *   a long, an integer beyond ±2^53 comes as a bigint (JSON.parse would
 *   round it); other numbers are numbers.
 */
import { RowError } from "./errors.js";
import { epochText, type TimeTree } from "./nestedtime.js";
import type { TimeUnit } from "./tabletypes.js";

/** A nested column's timestamp leaves (nestedtime.ts) and the unit of numbers given at them. */
export interface NestedTimes {
  tree: TimeTree;
  unit: TimeUnit;
}

/** The part of t for a list's element, a map's key or value, a struct's field name. */
const elemOf = (t: TimeTree | undefined) => (t !== undefined && typeof t === "object" && "list" in t ? t.list : undefined);
const keyOf = (t: TimeTree | undefined) => (t !== undefined && typeof t === "object" && !("list" in t) && !("fields" in t) ? t.key : undefined);
const memberOf = (t: TimeTree | undefined, name: string) => {
  if (t === undefined || typeof t !== "object") return undefined;
  if ("fields" in t) return t.fields.get(name);
  if ("list" in t) return undefined;
  return t.value;
};

/** Nesting deeper than this is refused (the core reads at most 32 levels; a cycle would never end). */
const MAX_DEPTH = 64;

const plain = (v: object): boolean => {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
};

/** Whether append sends v as a nested value (JSON text): a plain object, a Map or an array. */
export function isNestedValue(v: object): boolean {
  return Array.isArray(v) || v instanceof Map || plain(v);
}

/**
 * The JSON text of a nested value v of row (0-based) in column; times: the
 * column's timestamp leaves, where a number or bigint is a time in its unit
 * (written as its ISO text), as in a flat timestamp column.
 */
export function nestedJSON(v: object, row: number, column: string, times?: NestedTimes): string {
  // Labels: a plain object of strings (or nulls), which JSON.stringify
  // writes as the walk below would, several times faster.
  if (flatStrings(v)) return JSON.stringify(v);
  const bad = (what: string, value?: string) =>
    new RowError("TYPE_MISMATCH", `timelake: row ${row + 1}, column ${column}: ${what}`, { row: row + 1, column, ...(value !== undefined ? { value } : {}) });
  const out: string[] = [];
  const unit = times?.unit ?? "ms";
  const put = (x: unknown, depth: number, tt: TimeTree | undefined): boolean => {
    if ((tt === "us" || tt === "ns") && (typeof x === "number" || typeof x === "bigint")) {
      out.push(`"${epochText(x, unit, tt, row, column)}"`);
      return true;
    }
    switch (typeof x) {
      case "string":
        out.push(JSON.stringify(x));
        return true;
      case "number":
        out.push(Number.isFinite(x) ? JSON.stringify(x) : `"${String(x)}"`); // NaN, Infinity, -Infinity
        return true;
      case "bigint":
        out.push(x.toString());
        return true;
      case "boolean":
        out.push(x ? "true" : "false");
        return true;
      case "undefined":
        return false;
      case "object":
        break;
      default:
        throw bad(`a ${typeof x} inside a nested value`);
    }
    if (x === null) {
      out.push("null");
      return true;
    }
    if (depth >= MAX_DEPTH) throw bad(`nested more than ${MAX_DEPTH} levels deep (or a cycle)`);
    if (x instanceof Date) {
      if (Number.isNaN(x.getTime())) throw new RowError("BAD_TIME", `timelake: row ${row + 1}, column ${column}: an invalid Date inside a nested value`, { row: row + 1, column, value: "Invalid Date" });
      out.push(`"${x.toISOString()}"`);
      return true;
    }
    if (Array.isArray(x)) {
      out.push("[");
      for (let i = 0; i < x.length; i++) {
        if (i > 0) out.push(",");
        if (!put(x[i], depth + 1, elemOf(tt))) out.push("null");
      }
      out.push("]");
      return true;
    }
    if (x instanceof Map) {
      out.push("{");
      let first = true;
      for (const [k, e] of x) {
        const kk = keyOf(tt);
        const kt = (kk === "us" || kk === "ns") && (typeof k === "number" || typeof k === "bigint") ? epochText(k, unit, kk, row, column) : mapKeyText(k);
        if (kt === undefined) throw bad(`a Map key must be a string, number, bigint, boolean or Date, not ${keyWhat(k)}`, String(k));
        if (kt === null) throw new RowError("BAD_TIME", `timelake: row ${row + 1}, column ${column}: an invalid Date as a Map key`, { row: row + 1, column, value: "Invalid Date" });
        const at = out.length;
        out.push(first ? "" : ",", JSON.stringify(kt), ":");
        if (put(e, depth + 1, memberOf(tt, kt))) first = false;
        else out.length = at; // undefined: no member
      }
      out.push("}");
      return true;
    }
    if (!plain(x)) throw bad(`a ${Object.prototype.toString.call(x).slice(8, -1)} inside a nested value: want plain objects, Maps, arrays and scalars`);
    out.push("{");
    let first = true;
    for (const k of Object.keys(x)) {
      const at = out.length;
      out.push(first ? "" : ",", JSON.stringify(k), ":");
      if (put((x as Record<string, unknown>)[k], depth + 1, memberOf(tt, k))) first = false;
      else out.length = at;
    }
    out.push("}");
    return true;
  };
  put(v, 0, times?.tree);
  return out.join("");
}

/**
 * The text a Map key k travels as (JSON member names are strings): a string
 * itself, a number or bigint its decimal text, a boolean true/false, a Date
 * its ISO text, so a Map keyed by numbers, booleans or Dates fills a
 * map<long, …>, map<boolean, …> or map<timestamptz, …>. The client does not
 * know the column's key type here: the core reads the text as it (a text
 * that is not one, "x" for a long, is TYPE_MISMATCH naming row, column and
 * key). undefined: any other key (an object, null, a symbol); null: an
 * invalid Date.
 */
export function mapKeyText(k: unknown): string | null | undefined {
  switch (typeof k) {
    case "string":
      return k;
    case "number":
    case "bigint":
      return String(k);
    case "boolean":
      return k ? "true" : "false";
  }
  if (k instanceof Date) return Number.isNaN(k.getTime()) ? null : k.toISOString();
  return undefined;
}

/** What a refused Map key is, for the message. */
export function keyWhat(k: unknown): string {
  if (k === null) return "null";
  if (typeof k === "object") return `a ${Object.prototype.toString.call(k).slice(8, -1)}`;
  return `the ${typeof k} ${String(k)}`;
}

/** Whether v is a plain object whose every own value is a string or null. */
function flatStrings(v: object): boolean {
  if (Array.isArray(v) || v instanceof Map || !plain(v)) return false;
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (typeof x !== "string" && x !== null) return false;
    if (!Object.hasOwn(v, k)) return false;
  }
  return true;
}

/** The value of a nested column's JSON text; big: the column's type holds a long (integers past 2^53 as bigints). */
export function parseNested(text: string, big: boolean): unknown {
  if (!big || !/\d{16}/.test(text)) return JSON.parse(text);
  return new BigParser(text).value();
}

/** JSON.parse, but an integer outside the safe range is a bigint. The core's text is compact, valid JSON. */
class BigParser {
  private i = 0;
  constructor(private readonly s: string) {}
  value(): unknown {
    const s = this.s;
    this.ws();
    const c = s[this.i];
    if (c === "{") {
      const o: Record<string, unknown> = {};
      this.i++;
      this.ws();
      if (s[this.i] === "}") {
        this.i++;
        return o;
      }
      for (;;) {
        this.ws();
        const k = this.str();
        this.ws();
        this.i++; // :
        o[k] = this.value();
        this.ws();
        if (s[this.i++] === "}") return o;
      }
    }
    if (c === "[") {
      const a: unknown[] = [];
      this.i++;
      this.ws();
      if (s[this.i] === "]") {
        this.i++;
        return a;
      }
      for (;;) {
        a.push(this.value());
        this.ws();
        if (s[this.i++] === "]") return a;
      }
    }
    if (c === '"') return this.str();
    const start = this.i;
    while (this.i < s.length && !",}] \t\n\r".includes(s[this.i]!)) this.i++;
    const tok = s.slice(start, this.i);
    if (/^-?\d+$/.test(tok)) {
      const n = Number(tok);
      return Number.isSafeInteger(n) ? n : BigInt(tok);
    }
    return JSON.parse(tok);
  }
  private str(): string {
    const s = this.s;
    const start = this.i;
    for (this.i++; s[this.i] !== '"'; this.i++) if (s[this.i] === "\\") this.i++;
    this.i++;
    return JSON.parse(s.slice(start, this.i)) as string;
  }
  private ws(): void {
    while (" \t\n\r".includes(this.s[this.i] ?? "x")) this.i++;
  }
}
