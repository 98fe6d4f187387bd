/**
 * Opening, creating and adding rollups to tables kept in a catalog (the
 * Catalog forms of createTable/openTable and addRollup of a catalog table).
 * Each returns what table.ts builds the TableWriter from, so this file does
 * not import table.ts (no import cycle).
 */
import { createProperties } from "./createopts.js";
import { TimelakeError } from "./errors.js";
import { enqueue, type OpenedTable, type WasmApi } from "./runtime.js";
import type { Catalog } from "./catalog.js";
import { storeFactory, type StoreFactory } from "./catalogstore.js";
import { rollupSpecJSON, type RollupSpec } from "./rollup.js";
import type { Store } from "./store.js";
import type { CatalogCreateOptions, CatalogTableOptions, TableSchema } from "./tabletypes.js";

/** The catalog a TableWriter's table is kept in, and how its files are reached: its rollups are opened the same way. */
export interface CatalogRef {
  catalog: Catalog;
  options: CatalogTableOptions;
}

/** A catalog table opened in the instance of generation gen: what a TableWriter is made of. */
export interface CatalogOpened {
  /** The Store the factory gave for the table's files (TableWriter.store). */
  store: Store;
  handle: number;
  gen: number;
  /** The head as the core returned it (parseHead reads it). */
  head: string;
  /** Opens the table again in a restarted instance. */
  reopen: (api: WasmApi, gen: number) => Promise<OpenedTable>;
  ref: CatalogRef;
}

function checkName(name: unknown): asserts name is string {
  if (typeof name !== "string" || name === "") {
    throw new TimelakeError("INVALID_ARGUMENT", 'timelake: a catalog table is named "namespace.table"');
  }
}

/** The factory handed to the core, remembering the Store it gave (TableWriter.store). */
function remembering(options: CatalogTableOptions | undefined): { factory: StoreFactory; last: () => Store } {
  const inner = storeFactory(options?.store);
  let last: Store | undefined;
  return {
    factory: async (location, vended) => (last = await inner(location, vended)),
    last: () => last!,
  };
}

/** Creates table name in catalog (createTable(catalog, …)). */
export async function createInCatalog(
  catalog: Catalog,
  name: string,
  schema: TableSchema,
  options: CatalogCreateOptions = {},
): Promise<CatalogOpened> {
  checkName(name);
  const { factory, last } = remembering(options);
  const r = await enqueue(async (api, gen) => {
    const cat = await catalog.handle(api, gen);
    const o = await api.createCatalogTable(cat, name, factory, JSON.stringify(schema), JSON.stringify(createProperties(options)), options.location ?? "");
    return { ...o, gen };
  });
  const reopen = async (api: WasmApi, gen: number) => api.openCatalogTable(await catalog.handle(api, gen), name, factory);
  return { store: last(), handle: r.handle, gen: r.gen, head: r.head, reopen, ref: { catalog, options } };
}

/** Loads table name from catalog (openTable(catalog, …)). */
export async function openInCatalog(catalog: Catalog, name: string, options: CatalogTableOptions = {}): Promise<CatalogOpened> {
  checkName(name);
  const { factory, last } = remembering(options);
  const reopen = async (api: WasmApi, gen: number) => api.openCatalogTable(await catalog.handle(api, gen), name, factory);
  const r = await enqueue(async (api, gen) => ({ ...(await reopen(api, gen)), gen }));
  return { store: last(), handle: r.handle, gen: r.gen, head: r.head, reopen, ref: { catalog, options } };
}

/**
 * addRollup of a catalog table: the rollup is table "ns.<table>__rollup_<name>"
 * of the same catalog (where it chooses), its files through store (a Store or
 * factory as CatalogTableOptions.store; default the table's own).
 */
export async function addCatalogRollup(
  ref: CatalogRef,
  use: (api: WasmApi, gen: number) => Promise<number>,
  name: string,
  spec: RollupSpec,
  store: Store | StoreFactory | undefined,
): Promise<CatalogOpened> {
  const options = store === undefined ? ref.options : { ...ref.options, store };
  const { factory, last } = remembering(options);
  const r = await enqueue(async (api, gen) => ({ ...(await api.addRollup(await use(api, gen), factory, rollupSpecJSON(name, spec, undefined))), gen }));
  const ident = r.table!;
  const reopen = async (api: WasmApi, gen: number) => api.openCatalogTable(await ref.catalog.handle(api, gen), ident, factory);
  return { store: last(), handle: r.handle, gen: r.gen, head: r.head, reopen, ref: { catalog: ref.catalog, options } };
}
