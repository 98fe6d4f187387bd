// Appends JavaScript values to a table directory through localStore, for
// the Go tests that mix the client's input with the CLI's on one table
// (cmd/timelake TestNestedAllInputs). The file holds one JSON row a line,
// in which {"$bigint": "digits"} is a bigint, {"$map": [[key, value], …]}
// a Map and {"$date": "ISO text"} a Date, so that the rows reach append as
// the JS values a program would give (Maps, bigints past 2^53).
// Prints the append result as JSON; exits 1 with the error's code and
// message.
// Usage: node dist/test/e2e/appendjs.js <table dir> <rows file>
import * as fs from "node:fs/promises";
import { openTable, TimelakeError } from "../../src/index.js";
import { localStore } from "../../src/stores/local.js";

function typed(_k: string, x: unknown): unknown {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    if (typeof o["$bigint"] === "string") return BigInt(o["$bigint"]);
    if (Array.isArray(o["$map"])) return new Map(o["$map"] as [unknown, unknown][]);
    if (typeof o["$date"] === "string") return new Date(o["$date"]);
  }
  return x;
}

const [dir, file] = process.argv.slice(2);
const rows = (await fs.readFile(file!, "utf8"))
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l, typed) as object);
const t = await openTable(localStore(dir!));
try {
  const r = await t.append(rows);
  process.stdout.write(JSON.stringify(r, (_k, x) => (typeof x === "bigint" ? x.toString() : x)) + "\n");
} catch (e) {
  process.stderr.write(e instanceof TimelakeError ? `${e.code}: ${e.message}\n` : `${String(e)}\n`);
  process.exitCode = 1;
} finally {
  await t.close();
}
