// Serves the explorer on 127.0.0.1 (no dependencies): the page and the
// client's build (client/dist/src, from scripts/build-client.sh) and, given a table
// directory, that table and its rollups' tables beside it
// (TABLE__rollup_NAME) under /tables/, so that they open by a link:
//
//   bash scripts/build-client.sh
//   node examples/explorer/serve.mjs demo-table      # prints the link
//
// /tables/<name>/?list=PREFIX answers the keys under that table as JSON
// (httpStore's listing); files answer Range requests. Read-only.
import { createServer } from "node:http";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html; charset=utf-8", ".css": "text/css", ".json": "application/json", ".png": "image/png" };

const SERVED = ["examples/explorer", "client/dist/src"];

/** The objects under dir, keys relative to it, sorted; the writers' temporary folder left out. */
async function listAll(dir, prefix) {
  const out = [];
  async function walk(d, rel) {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (e) {
      if (e.code === "ENOENT") return;
      throw e;
    }
    for (const e of entries) {
      const key = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== ".timelake-tmp") await walk(path.join(d, e.name), key);
      } else if (e.isFile() && key.startsWith(prefix)) {
        const s = await stat(path.join(d, e.name));
        out.push({ key, size: s.size, lastModified: s.mtimeMs });
      }
    }
  }
  await walk(dir, "");
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Starts the server; table (a directory, optional) is served under
 * /tables/<its name>/, and beside it its rollups' tables
 * (/tables/<name>__rollup_<rollup>/), nothing else of its folder.
 * Resolves with { origin, close }.
 */
export async function startServer({ table, port = 0 } = {}) {
  const tablesDir = table && path.dirname(path.resolve(table));
  const name = table && path.basename(path.resolve(table));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    try {
      let p = decodeURIComponent(url.pathname);
      if (p === "/") return void res.writeHead(302, { location: "/examples/explorer/" }).end();
      let base = repo;
      if (p.startsWith("/tables/")) {
        const first = p.split("/")[2] ?? "";
        if (!tablesDir || !(first === name || first.startsWith(`${name}__rollup_`))) return void res.writeHead(404).end();
        base = tablesDir;
        p = p.slice("/tables".length);
      }
      let file = path.resolve(base, "." + p);
      if (file !== base && !file.startsWith(base + path.sep)) return void res.writeHead(403).end();
      if (base === tablesDir && url.searchParams.has("list")) {
        const body = JSON.stringify(await listAll(file, url.searchParams.get("list")));
        return void res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(body);
      }
      if (p.endsWith("/")) file = path.join(file, "index.html");
      // Of the repository, only the page and the client's build.
      if (base === repo && !SERVED.some((d) => file.startsWith(path.join(repo, d) + path.sep))) return void res.writeHead(404).end();
      const body = await readFile(file);
      const head = { "content-type": types[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store", "accept-ranges": "bytes" };
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
      if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])];
        if (from >= body.length || to < from) return void res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
        const end = Math.min(to, body.length - 1);
        return void res.writeHead(206, { ...head, "content-range": `bytes ${from}-${end}/${body.length}` }).end(body.subarray(from, end + 1));
      }
      res.writeHead(200, head).end(body);
    } catch (e) {
      res.writeHead(e.code === "ENOENT" || e.code === "EISDIR" ? 404 : 500).end(String(e.message ?? e));
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const table = process.argv[2] && path.resolve(process.argv[2]);
  const port = Number(process.env.PORT || 8087);
  const { origin } = await startServer({ table, port });
  const page = `${origin}/examples/explorer/`;
  console.log(table ? `open ${page}?table=/tables/${encodeURIComponent(path.basename(table))}` : `open ${page}`);
  console.log("(Ctrl-C stops the server)");
}
