// A tags map<string, string> column added to a table as another engine's
// schema change would add it (createTable has no nested type): the next
// metadata version with the field, then the version hint. Timelake reads
// and writes such a column.
import type { Store } from "../src/index.js";

export async function addTagsColumn(store: Store): Promise<void> {
  const hint = await store.get("metadata/version-hint.text");
  const v = Number(new TextDecoder().decode(hint!));
  const md = JSON.parse(new TextDecoder().decode((await store.get(`metadata/v${v}.metadata.json`))!)) as Record<string, any>;
  const id = (md["last-column-id"] as number) + 1;
  const schema = (md["schemas"] as Record<string, any>[]).find((s) => s["schema-id"] === md["current-schema-id"])!;
  schema["fields"].push({
    id,
    name: "tags",
    required: false,
    type: { type: "map", "key-id": id + 1, key: "string", "value-id": id + 2, value: "string", "value-required": false },
  });
  md["last-column-id"] = id + 2;
  // put, not putIfAbsent: nothing else writes the test's table, and R2's
  // conditional put does not cross Miniflare's proxy from Node
  await store.put(`metadata/v${v + 1}.metadata.json`, new TextEncoder().encode(JSON.stringify(md)));
  await store.put("metadata/version-hint.text", new TextEncoder().encode(String(v + 1)));
}
