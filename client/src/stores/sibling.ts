/**
 * Sibling stores. A rollup's table is by default beside its raw table: at
 * "<location>__rollup_<name>", the same scheme, bucket and parent folder
 * (rollup.SiblingLocation in the core). A store rooted at a prefix of a
 * bucket (r2Store, s3Store, prefixStore) reaches such a table with the same
 * bucket binding and credentials and the last segment of its prefix
 * swapped: Store.sibling(location) builds that store, so that addRollup,
 * rollup(name) and the inline refresh of an append find the rollup's table
 * without being given its Store. Only a sibling: a location elsewhere (a
 * table's properties may name any) gets undefined, never a store outside
 * the raw table's folder.
 *
 * The store's location need not spell its prefix (r2Store(bucket, { prefix:
 * "metrics", location: "s3://metrics/metrics" }) or any URI outside readers
 * use): a location that is the store's own plus a suffix within the last
 * segment ("…/metrics__rollup_hourly") maps to the prefix plus that suffix;
 * otherwise, when the prefix and location end in the same segment, a
 * sibling's last segment replaces it.
 */

const URI = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/]*)\/?(.*)$/;

function parts(location: string): { scheme: string; authority: string; path: string } | undefined {
  const m = URI.exec(location);
  if (!m) return undefined;
  return { scheme: m[1]!.toLowerCase(), authority: m[2]!, path: m[3]!.replace(/\/+$/, "") };
}

const parent = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/**
 * The prefix of the table at location, for a store whose table is at
 * ownLocation under ownPrefix of its bucket: ownPrefix's last segment
 * replaced by location's, when location is a sibling of ownLocation (same
 * scheme, authority and parent path; another last segment); else undefined.
 */
export function siblingPrefix(ownLocation: string, ownPrefix: string, location: string): string | undefined {
  const own = parts(ownLocation);
  const loc = parts(location);
  const prefix = ownPrefix.replace(/^\/+|\/+$/g, "");
  if (!own || !loc || own.scheme !== loc.scheme || own.authority !== loc.authority) return undefined;
  if (own.path === "" || loc.path === "" || prefix === "" || parent(own.path) !== parent(loc.path)) return undefined;
  const name = base(loc.path);
  if (name === base(own.path) || name === "." || name === ".." || name.includes("\\")) return undefined;
  if (name.startsWith(base(own.path))) return prefix + name.slice(base(own.path).length);
  if (base(prefix) !== base(own.path)) return undefined;
  const dir = parent(prefix);
  return dir === "" ? name : `${dir}/${name}`;
}
