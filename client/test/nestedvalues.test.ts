// nested.ts alone: the JSON text append sends for a nested value, and the
// values a scan gives back (bigints for integers past 2^53 where the type
// holds a long).
import assert from "node:assert/strict";
import { test } from "node:test";
import { nestedJSON, parseNested } from "../src/nested.js";

test("nestedJSON: objects, Maps, arrays, and what sits inside them", () => {
  const d = new Date(Date.UTC(2026, 10, 28, 1, 2, 3, 4));
  assert.equal(
    nestedJSON({ s: "a\"b\n", n: 1.5, big: 12345678901234567890n, t: true, z: null, u: undefined, d, inf: -Infinity, nan: NaN, l: [1, undefined, "x"], m: new Map([["k", { x: 1 }]]) }, 0, "c"),
    '{"s":"a\\"b\\n","n":1.5,"big":12345678901234567890,"t":true,"z":null,"d":"2026-11-28T01:02:03.004Z","inf":"-Infinity","nan":"NaN","l":[1,null,"x"],"m":{"k":{"x":1}}}',
  );
  // a plain object of strings goes through JSON.stringify: the same text
  assert.equal(nestedJSON({ a: "x", 'b"': null, c: "\u2028\u0000é" }, 0, "c"), '{"a":"x","b\\"":null,"c":"\u2028\\u0000é"}');
  assert.equal(nestedJSON(new Map([["b", "1"], ["a", undefined], ["c", "2"]]), 0, "c"), '{"b":"1","c":"2"}');
  assert.equal(nestedJSON(Object.create(null, { k: { value: "v", enumerable: true } }) as object, 0, "c"), '{"k":"v"}');
  const cyc: Record<string, unknown> = {};
  cyc["self"] = cyc;
  assert.throws(() => nestedJSON(cyc, 4, "tags"), /row 5, column tags: nested more than 64 levels deep \(or a cycle\)/);
  assert.throws(() => nestedJSON({ f: () => 1 }, 0, "tags"), /a function inside a nested value/);
});

test("parseNested: JSON.parse, with bigints past 2^53 where the type holds a long", () => {
  const text = '{"a":9007199254740993,"b":[1,-12345678901234567890,2.5e3],"c":"9999999999999999\\"","d":{"e":null,"f":true},"g":[]}';
  assert.deepEqual(parseNested(text, true), { a: 9007199254740993n, b: [1, -12345678901234567890n, 2500], c: '9999999999999999"', d: { e: null, f: true }, g: [] });
  assert.deepEqual(parseNested(text, false), JSON.parse(text));
  assert.deepEqual(parseNested('{"a":9007199254740991}', true), { a: 9007199254740991 });
});
