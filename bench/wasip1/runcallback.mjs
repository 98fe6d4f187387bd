// Runs the GOOS=js build with -serve and calls its js.FuncOf append from
// JavaScript, as a driver would (Go's own wasm_exec.js, set up as
// wasm_exec_node.js does).
//   node runcallback.mjs bench.wasm callback [appends] [warmup]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import { args, drive } from "./common.mjs";

const require = createRequire(import.meta.url);
const goroot = execFileSync("go", ["env", "GOROOT"]).toString().trim();
globalThis.require = require;
globalThis.fs = require("fs");
globalThis.path = require("path");
require(`${goroot}/lib/wasm/wasm_exec.js`);

const a = args();
const go = new globalThis.Go();
go.argv = ["bench", "-serve"];
go.env = Object.assign({}, process.env);
const { instance } = await WebAssembly.instantiate(readFileSync(a.wasm), go.importObject);
go.run(instance); // main runs until select{}: the functions are set
const r = drive({
  target: "js/wasm", shape: "callback", warm: a.warm, n: a.n,
  prepare: globalThis.benchPrepare, once: globalThis.benchAppend, noop: globalThis.benchNoop,
});
console.log(JSON.stringify(r));
process.exit(0);
