// httpStore: a read-only Store over a table directory that serve.mjs serves
// (GET for objects, Range for parts, ?list=PREFIX for a JSON listing). It
// is this example's own protocol, for opening the demo's table by a link;
// a bucket is opened with the client's s3Store instead.

import { storeError } from "@timelake/client";

/** base: the table's URL ("/tables/demo-table", or absolute). */
export function httpStore(base) {
  const root = new URL(base.replace(/\/*$/, "/"), location.href);
  const url = (key) => new URL(key.split("/").map(encodeURIComponent).join("/"), root);
  const fail = (op, key, res) => storeError("STORE_ERROR", `httpStore ${op} ${JSON.stringify(key)}: HTTP ${res.status}`, key);
  const readOnly = async () => {
    throw storeError("STORE_ERROR", "httpStore is read-only");
  };
  return {
    async get(key) {
      const res = await fetch(url(key), { cache: "no-store" });
      if (res.status === 404) return null;
      if (!res.ok) throw fail("get", key, res);
      return new Uint8Array(await res.arrayBuffer());
    },
    async getRange(key, offset, length) {
      if (length === 0) return new Uint8Array(0);
      const res = await fetch(url(key), { headers: { range: `bytes=${offset}-${offset + length - 1}` }, cache: "no-store" });
      if (res.status === 404) return null;
      if (res.status === 416) throw storeError("RANGE", `httpStore: range ${offset}+${length} past the end of ${key}`, key);
      if (res.status !== 206) throw fail("getRange", key, res);
      return new Uint8Array(await res.arrayBuffer());
    },
    put: readOnly,
    putIfAbsent: readOnly,
    delete: readOnly,
    async list(prefix) {
      const res = await fetch(new URL(`?list=${encodeURIComponent(prefix)}`, root), { cache: "no-store" });
      if (!res.ok) throw fail("list", prefix, res);
      return res.json();
    },
    /** A rollup's table beside this one: the same parent URL, the location's last segment. */
    sibling(loc) {
      const name = loc.replace(/\/+$/, "").split("/").pop();
      return name ? httpStore(new URL(`../${encodeURIComponent(name)}/`, root).href) : undefined;
    },
  };
}
