// Shared by nestedshapes.test.ts (Node) and nestedshapes-workerd.test.ts:
// a table of list, struct (depth 3) and map columns created from type
// text, the JS values appended to it (objects, arrays, Maps, bigints at the
// int64 ends and past 2^53) and the values a scan gives back, and a reader
// of apache-arrow's nested values as plain JS values.
import { DataType, type Field, type Table } from "apache-arrow";
import type { TableSchema } from "../src/index.js";

export const shapesSchema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "lst", type: "list<long>" },
    { name: "st", type: "struct<a: long, b: list<string>, c: struct<d: double, e: map<string, long>>>" },
    { name: "mp", type: "map<string, long>" },
    { name: "deep", type: "map<string, list<struct<a: long>>>" },
  ],
};

export const shapeNames = ["lst", "st", "mp", "deep"] as const;

export const MAX = 2n ** 63n - 1n;
export const MIN = -(2n ** 63n);
export const BIG = 2n ** 53n + 1n;

/** The nested values of four rows as appended: [lst, st, mp, deep]. */
export function shapesIn(): unknown[][] {
  return [
    [
      [MAX, MIN, null, 0],
      { b: ["x", null, 'é"\n'], a: BIG, c: { d: 1.5, e: new Map<string, bigint | number | null>([["k", 1], ["z", null]]) } },
      new Map<string, number | null>([["k", -5], ["日本", null]]),
      { q: [{ a: 1 }, null, { a: null }], r: [] },
    ],
    [null, null, null, null],
    [[], { b: [] }, {}, new Map()],
    [[7n], { a: -1n, c: { d: -0.25, e: {} } }, { "": 0 }, { x: null }],
  ];
}

/** What a scan gives for them: structs with every field in the type's order, bigints past 2^53. */
export const shapesOut: unknown[][] = [
  [
    [MAX, MIN, null, 0],
    { a: BIG, b: ["x", null, 'é"\n'], c: { d: 1.5, e: { k: 1, z: null } } },
    { k: -5, "日本": null },
    { q: [{ a: 1 }, null, { a: null }], r: [] },
  ],
  [null, null, null, null],
  [[], { a: null, b: [], c: null }, {}, {}],
  [[7], { a: -1, b: null, c: { d: -0.25, e: {} } }, { "": 0 }, { x: null }],
];

/** A long as scan parses one: a number within 2^53, else a bigint. */
function long(v: bigint): bigint | number {
  return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v;
}

/** A value apache-arrow read (of the field's type) as the JS value a row scan gives. */
export function arrowValue(v: unknown, f: Field): unknown {
  if (v === null || v === undefined) return null;
  const t = f.type as DataType;
  if (DataType.isMap(t)) {
    const [kf, vf] = t.children[0]!.type.children as Field[];
    const o: Record<string, unknown> = {};
    for (const [k, x] of v as Iterable<[unknown, unknown]>) o[String(arrowValue(k, kf!))] = arrowValue(x, vf!);
    return o;
  }
  if (DataType.isList(t)) {
    const vec = v as { length: number; get(i: number): unknown };
    return Array.from({ length: vec.length }, (_, i) => arrowValue(vec.get(i), t.children[0]!));
  }
  if (DataType.isStruct(t)) {
    const o: Record<string, unknown> = {};
    for (const c of t.children) o[c.name] = arrowValue((v as Record<string, unknown>)[c.name], c);
    return o;
  }
  if (typeof v === "bigint") return long(v);
  return v;
}

/** The rows of an Arrow table as [host, ...the named columns' JS values]. */
export function arrowRows(a: Table, names: readonly string[]): unknown[][] {
  const fields = names.map((n) => a.schema.fields.find((x) => x.name === n)!);
  const host = a.getChild("host")!;
  return Array.from({ length: a.numRows }, (_, i) => [host.get(i), ...names.map((n, j) => arrowValue(a.getChild(n)!.get(i), fields[j]!))]);
}

/** The Arrow type text the table's nested columns have. */
export const shapesArrowTypes: Record<string, string> = {
  lst: "List<Int64>",
  st: "Struct<{a:Int64, b:List<Utf8>, c:Struct<{d:Float64, e:Map<{key:Utf8, value:Int64}>}>}>",
  mp: "Map<{key:Utf8, value:Int64}>",
  deep: "Map<{key:Utf8, value:List<Struct<{a:Int64}>>}>",
};
