// What createTable sends the core as the new table's properties.
import { TimelakeError } from "./errors.js";
import type { CatalogCreateOptions, CreateTableOptions } from "./tabletypes.js";

/**
 * The properties of a new table: options.properties, and formatVersion as
 * the `format-version` create property (as Spark, pyiceberg and REST
 * catalogs take it; the table does not keep it as a property).
 */
export function createProperties(options: CreateTableOptions | CatalogCreateOptions): Record<string, string> {
  const props = { ...(options.properties ?? {}) };
  if (options.formatVersion !== undefined) {
    if (options.formatVersion !== 2 && options.formatVersion !== 3) {
      throw new TimelakeError("INVALID_ARGUMENT", `timelake: formatVersion ${String(options.formatVersion)}: want 2 or 3`);
    }
    if ("format-version" in props && props["format-version"] !== String(options.formatVersion)) {
      throw new TimelakeError("INVALID_ARGUMENT", "timelake: formatVersion and properties[\"format-version\"] disagree");
    }
    props["format-version"] = String(options.formatVersion);
  }
  return props;
}
