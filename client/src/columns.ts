/**
 * Rows of JavaScript objects → the columnar form the WebAssembly module
 * copies in with one call per array (see wasm/colrows in the Go module for
 * the receiving side and the layout):
 *
 *   column: { name, tag, tags?, f64?, i64?, str?, off? }
 *     tag   the Tag of every row, or MIXED with `tags` (one byte per row)
 *     f64   numbers and Dates (getTime() ms), one float64 per row
 *     i64   bigints within int64, one int64 per row
 *     str   UTF-8 of every string value (and the JSON text of a plain object,
 *           Map or array: nested.ts), `off` = rows+1 int32 byte offsets
 *     idx   (dictionary) one int32 per row: row r's string is entry idx[r] of
 *           str/off, which then hold each distinct string once (off = entries+1)
 *
 * Nothing is converted to the schema here: a value travels with its
 * JavaScript type and the Go core converts it exactly as it converts CSV and
 * NDJSON input (so "9007199254740993" reaches a long column intact, and a
 * number past 2^53 for a long is refused there, naming row and column).
 */
import { RowError } from "./errors.js";
import { isNestedValue, nestedJSON, type NestedTimes } from "./nested.js";
import { utf8Length } from "./store.js";

/** Tag values. persisted (in wasm/colrows): must not change. */
export const Tag = {
  Absent: 0,
  Null: 1,
  Number: 2,
  BigInt: 3,
  String: 4,
  False: 5,
  True: 6,
  Date: 7,
  Other: 8,
  /** A plain object, Map or array: its JSON text in str (nested.ts), for a map, list or struct column. */
  Json: 9,
  Mixed: 255,
} as const;

export interface WireColumn {
  name: string;
  tag: number;
  tags?: Uint8Array;
  f64?: Uint8Array;
  i64?: Uint8Array;
  str?: Uint8Array;
  off?: Uint8Array;
  idx?: Uint8Array;
}

export interface WireRows {
  length: number;
  columns: WireColumn[];
}

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * The most distinct strings a column keeps as a dictionary, for n rows: past
 * it the strings are mostly unique (ids, messages) and go row by row.
 */
const maxDict = (n: number) => Math.max(64, n >>> 3);

class ColumnBuilder {
  readonly tags: Uint8Array;
  f64: Float64Array | undefined;
  i64: BigInt64Array | undefined;
  /** Row by row, or the dictionary's entries while idx is set. */
  strs: string[] | undefined;
  /** Dictionary mode (the start): each row's entry, and the entries' numbers. */
  idx: Int32Array | undefined;
  dict: Map<string, number> | undefined;
  constructor(
    readonly name: string,
    readonly n: number,
    /** A nested column's timestamp leaves: numbers there are times (nestedtime.ts). */
    readonly times?: NestedTimes,
  ) {
    this.tags = new Uint8Array(n);
  }

  set(r: number, v: unknown): void {
    switch (typeof v) {
      case "number":
        (this.f64 ??= new Float64Array(this.n))[r] = v;
        this.tags[r] = Tag.Number;
        return;
      case "string":
        this.str(r, v);
        this.tags[r] = Tag.String;
        return;
      case "bigint":
        if (v >= I64_MIN && v <= I64_MAX) {
          (this.i64 ??= new BigInt64Array(this.n))[r] = v;
          this.tags[r] = Tag.BigInt;
        } else {
          this.str(r, v.toString()); // the core refuses it as out of range, with the digits
          this.tags[r] = Tag.String;
        }
        return;
      case "boolean":
        this.tags[r] = v ? Tag.True : Tag.False;
        return;
      case "undefined":
        this.tags[r] = Tag.Absent;
        return;
      case "object":
        if (v === null) {
          this.tags[r] = Tag.Null;
          return;
        }
        if (v instanceof Date) {
          (this.f64 ??= new Float64Array(this.n))[r] = v.getTime();
          this.tags[r] = Tag.Date;
          return;
        }
        if (isNestedValue(v)) {
          this.str(r, nestedJSON(v, r, this.name, this.times));
          this.tags[r] = Tag.Json;
          return;
        }
        this.str(r, Object.prototype.toString.call(v).slice(8, -1)); // "Set", "Uint8Array", a class's name, …
        this.tags[r] = Tag.Other;
        return;
      default:
        this.str(r, typeof v);
        this.tags[r] = Tag.Other;
    }
  }

  private str(r: number, s: string): void {
    if (!this.strs) {
      this.strs = [];
      this.dict = new Map();
      this.idx = new Int32Array(this.n);
    }
    if (this.dict) {
      let k = this.dict.get(s);
      if (k === undefined) {
        if (this.dict.size < maxDict(this.n)) {
          k = this.dict.size;
          this.dict.set(s, k);
          this.strs.push(s);
        } else {
          this.undict(r);
        }
      }
      if (k !== undefined) {
        this.idx![r] = k;
        return;
      }
    }
    this.strs![r] = s;
  }

  /** Leaves dictionary mode at row r: the rows before it get their strings. */
  private undict(r: number): void {
    const entries = this.strs!;
    const rows = new Array<string>(this.n).fill("");
    for (let i = 0; i < r; i++) {
      const t = this.tags[i];
      if (t === Tag.String || t === Tag.Other || t === Tag.Json) rows[i] = entries[this.idx![i]!]!;
    }
    this.strs = rows;
    this.dict = undefined;
    this.idx = undefined;
  }

  finish(): WireColumn {
    const c: WireColumn = { name: this.name, tag: this.tags[0] ?? Tag.Absent };
    for (let r = 1; r < this.n; r++) {
      if (this.tags[r] !== c.tag) {
        c.tag = Tag.Mixed;
        c.tags = this.tags;
        break;
      }
    }
    if (this.f64) c.f64 = bytes(this.f64);
    if (this.i64) c.i64 = bytes(this.i64);
    if (this.strs) {
      const strs = this.strs;
      const off = new Int32Array(strs.length + 1);
      let pos = 0;
      for (let r = 0; r < strs.length; r++) {
        pos += utf8Length(strs[r]!);
        off[r + 1] = pos;
      }
      const all = strs.join("");
      const buf = new TextEncoder().encode(all);
      if (buf.length !== pos) throw new Error(`timelake: UTF-8 length mismatch in column ${this.name}`); // a bug
      c.str = buf;
      c.off = bytes(off);
      if (this.idx) c.idx = bytes(this.idx);
    }
    return c;
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/**
 * Builds the columns of rows (plain objects: keys are column names). A row
 * that is not an object throws a RowError (TYPE_MISMATCH) naming it; every
 * other check is the core's. times: the nested columns with timestamp
 * leaves, by name (a number or bigint at one is a time in its unit).
 */
export function toColumns(rows: readonly unknown[], times?: ReadonlyMap<string, NestedTimes>): WireRows {
  if (!Array.isArray(rows)) {
    throw new RowError("TYPE_MISMATCH", `rows must be an array of objects, not ${describe(rows)}`, {});
  }
  const n = rows.length;
  let protoEnumerable = false;
  for (const _ in {}) protoEnumerable = true;
  const byName = new Map<string, ColumnBuilder>();
  const cols: ColumnBuilder[] = [];
  const seenKeys: string[] = [];
  const seenCols: ColumnBuilder[] = [];
  for (let r = 0; r < n; r++) {
    const row = rows[r] as Record<string, unknown>;
    if (row === null || typeof row !== "object" || Array.isArray(row) || row instanceof Date) {
      throw new RowError("TYPE_MISMATCH", `row ${r + 1}: ${describe(row)} given, want an object of column values`, {
        row: r + 1,
      });
    }
    // One for-in per row: V8 reads row[k] from its enum cache, where a
    // lookup by each column's name would be a megamorphic keyed load. Only
    // own keys count; a plain object has no inherited enumerable ones unless
    // Object.prototype was given some.
    //
    // Rows from one producer have their keys in one order: the builder of
    // the key at position j is remembered, and a key equal to the one there
    // in the row before (property names are interned strings, so === is a
    // pointer compare) skips the lookup by name.
    const proto = Object.getPrototypeOf(row);
    const plain = proto === null || (proto === Object.prototype && !protoEnumerable);
    let j = 0;
    for (const k in row) {
      if (!plain && !Object.hasOwn(row, k)) continue;
      const v = row[k];
      let c: ColumnBuilder | undefined;
      if (j < seenKeys.length && seenKeys[j] === k) {
        c = seenCols[j]!;
      } else {
        c = byName.get(k);
        if (!c) {
          c = new ColumnBuilder(k, n, times?.get(k));
          byName.set(k, c);
          cols.push(c);
        }
        seenKeys[j] = k;
        seenCols[j] = c;
      }
      j++;
      if (v !== undefined) c.set(r, v);
    }
  }
  return { length: n, columns: cols.map((c) => c.finish()) };
}
