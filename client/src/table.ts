/**
 * createTable, openTable and TableWriter: the public operations, each one
 * queued on the WebAssembly instance (see runtime.ts). Each takes a Store
 * (a storage-only table) or a Catalog (catalog.ts) and a table name; the
 * Catalog forms open and create through catalogtable.ts.
 */
import { createProperties } from "./createopts.js";
import { deleteJSON, parseDeleteResult, type DeleteOptions, type DeleteResult } from "./delete.js";
import { TimelakeError } from "./errors.js";
import { toColumns, type WireRows } from "./columns.js";
import { nestedTimesOf } from "./nestedtime.js";
import { arrowBytes } from "./arrow.js";
import { enqueue, type OpenedTable, type RawAppendResult, type WasmApi } from "./runtime.js";
import { Catalog } from "./catalog.js";
import { storeFactory, type StoreFactory } from "./catalogstore.js";
import { addCatalogRollup, createInCatalog, openInCatalog, type CatalogOpened, type CatalogRef } from "./catalogtable.js";
import { parseMaintainResult, type MaintainOptions, type MaintainResult } from "./maintain.js";
import { changesJSON, parseAlterResult, type AlterResult, type SchemaChange, type SchemaVersion } from "./alter.js";
import { adoptJSON, parseAdoptResult, parseKeySuggestion, type AdoptOptions, type AdoptResult, type KeySuggestion } from "./adopt.js";
import { missingStoreMethods, type Store } from "./store.js";
import { Scan } from "./scan.js";
import { rowsFromWire } from "./scanwire.js";
import { parseFiles, parseHistory, type DataFileEntry, type SnapshotEntry } from "./history.js";
import {
  parseInlineRefreshes,
  parseRefreshResult,
  rollupSpecJSON,
  type InlineRollupRefresh,
  type RollupStoreResolver,
  type RefreshOptions,
  type RefreshResult,
  type RollupDefinition,
  type RollupMaintenance,
  type RollupSpec,
} from "./rollup.js";
import { scanOptionsJSON, type ScanOptions } from "./scanoptions.js";
import {
  parseHead,
  parseInfo,
  type AppendOptions,
  type AppendResult,
  type CatalogCreateOptions,
  type CatalogTableOptions,
  type CreateTableOptions,
  type FoundCommit,
  type OpenTableOptions,
  type TableHead,
  type TableInfo,
  type TableSchema,
  type TimeUnit,
} from "./tabletypes.js";


function checkStore(store: unknown): asserts store is Store {
  const missing = missingStoreMethods(store);
  if (missing.length > 0) {
    throw new TimelakeError("INVALID_ARGUMENT", `timelake: not a Store: missing ${missing.join(", ")}`);
  }
}

const now = () => (globalThis.performance ? performance.now() : Date.now());

/** Creates a table (version 1) in store; TABLE_EXISTS if one is there. */
export function createTable(store: Store, schema: TableSchema, options?: CreateTableOptions): Promise<TableWriter>;
/**
 * Creates table "ns.t" in the catalog (and the namespace when missing);
 * TABLE_EXISTS if the catalog has one. See CatalogTableOptions for the store.
 */
export function createTable(catalog: Catalog, name: string, schema: TableSchema, options?: CatalogCreateOptions): Promise<TableWriter>;
export async function createTable(
  target: Store | Catalog,
  a: TableSchema | string,
  b?: CreateTableOptions | TableSchema,
  c?: CatalogCreateOptions,
): Promise<TableWriter> {
  if (target instanceof Catalog) return catalogWriter(await createInCatalog(target, a as string, b as TableSchema, c));
  const store = target;
  const schema = a as TableSchema;
  const options = (b ?? {}) as CreateTableOptions;
  checkStore(store);
  const location = options.location ?? store.location ?? "memory://timelake";
  if (typeof location !== "string" || location === "") {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: createTable needs a non-empty location (options.location or store.location)");
  }
  const r = await enqueue((api, gen) =>
    api
      .createTable(store, JSON.stringify(schema), JSON.stringify(createProperties(options)), location)
      .then((o) => ({ ...o, gen })),
  );
  return new TableWriter(store, r.handle, r.gen, parseHead(r.head), undefined, undefined, options.rollupStore);
}

/** Opens the newest version of the table in store; NO_TABLE if there is none. */
export function openTable(store: Store, options?: OpenTableOptions): Promise<TableWriter>;
/** Loads table "ns.t" from the catalog; NO_TABLE (or NO_NAMESPACE) if it has none. */
export function openTable(catalog: Catalog, name: string, options?: CatalogTableOptions): Promise<TableWriter>;
export async function openTable(target: Store | Catalog, name?: string | OpenTableOptions, options?: CatalogTableOptions): Promise<TableWriter> {
  if (target instanceof Catalog) return catalogWriter(await openInCatalog(target, name as string, options));
  const store = target;
  const opts = (typeof name === "object" && name !== null ? name : {}) as OpenTableOptions;
  checkStore(store);
  if (opts.rollupStore !== undefined && typeof opts.rollupStore !== "function") {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: options.rollupStore is a function (location, name) => Store | undefined");
  }
  const r = await enqueue((api, gen) => api.openTable(store).then((o) => ({ ...o, gen })));
  return new TableWriter(store, r.handle, r.gen, parseHead(r.head), undefined, undefined, opts.rollupStore);
}

/** Opens another engine's table and adopts it (TableWriter.adopt): the writer, adopted. */
export function adoptTable(store: Store, options: AdoptOptions & OpenTableOptions): Promise<TableWriter>;
/** Loads catalog table "ns.t" and adopts it. */
export function adoptTable(catalog: Catalog, name: string, options: AdoptOptions & CatalogTableOptions): Promise<TableWriter>;
export async function adoptTable(target: Store | Catalog, name: string | (AdoptOptions & OpenTableOptions), options?: AdoptOptions & CatalogTableOptions): Promise<TableWriter> {
  const t = target instanceof Catalog ? await openTable(target, name as string, options) : await openTable(target, name as OpenTableOptions);
  await t.adopt((target instanceof Catalog ? options : name) as AdoptOptions);
  return t;
}

/** The TableWriter of a catalog table catalogtable.ts opened. */
function catalogWriter(o: CatalogOpened): TableWriter {
  return new TableWriter(o.store, o.handle, o.gen, parseHead(o.head), o.reopen, o.ref);
}

/**
 * An open table. Appends commit one snapshot each; calls on any writer run one
 * at a time per WebAssembly instance.
 */
export class TableWriter {
  #handle: number;
  #generation: number;
  #head: TableHead;
  #closed = false;
  #reopen: (api: WasmApi, generation: number) => Promise<OpenedTable>;
  #catalog: CatalogRef | undefined;
  #rollupStore: RollupStoreResolver | undefined;
  /** The table's location, from its metadata when opened. */
  #location: string | undefined;
  /** The Stores given to addRollup/rollup(name, store), by rollup name. */
  #rollupStores = new Map<string, Store>();
  /** The rollup tables addRollup/rollup(name) returned, by name: inline refreshes refresh them, so they read the refresh. */
  #rollupWriters = new Map<string, TableWriter>();
  /** A catalog table's store factory, for its rollup tables (made once). */
  #catalogFactory: StoreFactory | undefined;

  /** @internal */
  constructor(
    readonly store: Store,
    handle: number,
    generation: number,
    head: TableHead,
    reopen: (api: WasmApi, generation: number) => Promise<OpenedTable> = (api) => api.openTable(store),
    catalog?: CatalogRef,
    rollupStore?: RollupStoreResolver,
  ) {
    this.#reopen = reopen;
    this.#catalog = catalog;
    this.#rollupStore = rollupStore;
    this.#location = (head as { location?: string }).location;
    this.#handle = handle;
    this.#generation = generation;
    this.#head = head;
  }

  /** The metadata version this writer last saw (opened at or committed). */
  get version(): number {
    return this.#head.version;
  }

  /** The table's columns, _ingest_ts included (none in a table created with ingestColumn: false). */
  get columns(): TableInfo["columns"] {
    return this.#head.columns;
  }

  /** The handle in the instance of this generation, reopening after a restart. */
  async #use(api: Parameters<Parameters<typeof enqueue>[0]>[0], gen: number): Promise<number> {
    if (this.#closed) throw new TimelakeError("INVALID_ARGUMENT", "timelake: the table writer is closed");
    if (gen !== this.#generation) {
      const r = await this.#reopen(api, gen);
      this.#handle = r.handle;
      this.#generation = gen;
    }
    return this.#handle;
  }

  /**
   * The Store of rollup name's table at location: options.rollupStore, then
   * the Store given to addRollup/rollup on this writer, then the table
   * store's sibling(location); undefined when none gives one.
   */
  async #resolveRollupStore(location: string, name: string): Promise<Store | undefined> {
    const fromOption = await this.#rollupStore?.(location, name);
    if (fromOption !== undefined && fromOption !== null) {
      checkStore(fromOption);
      return fromOption;
    }
    const given = this.#rollupStores.get(name);
    if (given !== undefined && (given.location === undefined || given.location === location)) return given;
    return this.#siblingStore(location);
  }

  /**
   * The table store's sibling for location. The table's location need not
   * be its store's (createTable's location option: the URI outside readers
   * use): a location that is the table's plus a suffix in its last segment
   * (a rollup's default) is asked of the store as its own plus that suffix.
   */
  #siblingStore(location: string): Store | undefined {
    const s = this.store;
    if (typeof s.sibling !== "function") return undefined;
    const own = s.location?.replace(/\/+$/, "");
    const table = this.#location?.replace(/\/+$/, "");
    if (own && table && own !== table && location.startsWith(table)) {
      const rest = location.slice(table.length);
      if (rest !== "" && !rest.includes("/")) return s.sibling(own + rest) ?? undefined;
    }
    return s.sibling(location) ?? undefined;
  }

  /** Moves the held rollup tables' heads to the versions the inline refreshes committed. */
  #heldRefreshed(outs: InlineRollupRefresh[]): InlineRollupRefresh[] {
    for (const o of outs) {
      const w = this.#rollupWriters.get(o.rollup);
      if (w && o.refresh) w.#head = { ...w.#head, version: o.refresh.version };
    }
    return outs;
  }

  /** Remembers a rollup table returned to the caller (the newest of a name). */
  #held(name: string, w: TableWriter): TableWriter {
    this.#rollupWriters.set(name, w);
    return w;
  }

  /** What append hands the core for an inline refresh: the factory of a catalog table, else the resolver. */
  #inlineStoreFor(): RollupStoreResolver | StoreFactory {
    if (this.#catalog) return (this.#catalogFactory ??= storeFactory(this.#catalog.options.store));
    return async (location: string, name: string) => (await this.#resolveRollupStore(location, name)) ?? null;
  }

  /**
   * Appends rows — plain objects keyed by column name, or the bytes of an
   * Arrow IPC stream or file (Uint8Array, ArrayBuffer) — as one snapshot.
   *
   * With timelake.rollup.inline=true (addRollup's inline option) the
   * append then refreshes every rollup of the table, after its commit and
   * in the same call: result.rollups, and a warning for each failure (the
   * append stands; the next refresh catches up). A storage-only table's
   * rollup tables are found by OpenTableOptions.rollupStore, the Stores
   * given to addRollup/rollup on this writer, or its store's sibling (the
   * rollup's default location beside the table); a catalog table's through
   * its catalog, with its own store option.
   * Values: Date, ISO 8601 strings or numbers/bigints in options.timeUnit for
   * timestamptz; bigint or decimal strings for long (numbers only up to 2^53);
   * null or a missing key for null. Arrow columns match by name and convert
   * by the same rules (see the README). On any error nothing is committed.
   */
  async append(rows: readonly object[] | Uint8Array | ArrayBuffer, options: AppendOptions = {}): Promise<AppendResult> {
    return enqueue(async (api, gen) => {
      const t0 = now();
      const wire: WireRows | Uint8Array = arrowBytes(rows) ?? toColumns(rows as readonly object[], nestedTimesOf(this.#head.columns, options.timeUnit ?? "ms"));
      const t1 = now();
      const handle = await this.#use(api, gen);
      const held: Record<string, number> = {};
      for (const [name, w] of this.#rollupWriters) if (!w.#closed) held[name] = await w.#use(api, gen);
      const raw: RawAppendResult = await api.append(handle, wire, JSON.stringify(options), this.#inlineStoreFor(), held);
      this.#head = { version: raw.version, columns: raw.columns === undefined ? this.#head.columns : (JSON.parse(raw.columns) as TableInfo["columns"]) };
      return {
        version: raw.version,
        snapshotId: BigInt(raw.snapshotId),
        commitId: raw.commitId,
        inputRows: raw.inputRows,
        rowsWritten: raw.rowsWritten,
        files: raw.files,
        bytes: raw.bytes,
        retries: raw.retries,
        durationMs: now() - t0,
        warnings: raw.warnings,
        timings: { columnsMs: t1 - t0, ...raw.timings },
        ...(raw.rollups === undefined ? {} : { rollups: this.#heldRefreshed(parseInlineRefreshes(raw.rollups)) }),
        ...(raw.maintenance === undefined ? {} : { maintenance: parseMaintainResult(raw.maintenance) }),
      };
    });
  }

  /**
   * The retained snapshot whose commit id (AppendOptions.commitId) is
   * commitId, in the newest version; undefined when none holds it — never
   * committed, or its snapshot expired (history.expire.* and the snapshot
   * count bound decide how long an id stays findable).
   */
  async findCommit(commitId: string): Promise<FoundCommit | undefined> {
    if (typeof commitId !== "string") throw new TimelakeError("INVALID_ARGUMENT", "timelake: findCommit takes a commit id string");
    return enqueue(async (api, gen) => {
      const raw = await api.findCommit(await this.#use(api, gen), commitId);
      if (raw === null || raw === undefined) return undefined;
      const j = JSON.parse(raw) as Record<string, unknown>;
      this.#head = { ...this.#head, version: j["version"] as number };
      return {
        snapshotId: BigInt(j["snapshotId"] as string),
        sequenceNumber: j["sequenceNumber"] as number,
        timestampMs: j["timestampMs"] as number,
        operation: j["operation"] as string,
        addedRows: j["addedRows"] as number,
        version: j["version"] as number,
      };
    });
  }

  /** What the current version holds: rows, files and bytes by partition. */
  async info(): Promise<TableInfo> {
    return enqueue(async (api, gen) => {
      const info = parseInfo(await api.info(await this.#use(api, gen)));
      this.#head = { version: info.version, columns: info.columns };
      return info;
    });
  }

  /**
   * The latest row of every series (the last-value index), sorted by series:
   * long values as bigint, timestamptz as ISO 8601 strings with microseconds.
   */
  async latest(): Promise<Record<string, unknown>[]> {
    return rowsFromWire(await enqueue(async (api, gen) => api.latest(await this.#use(api, gen))));
  }

  /** The retained snapshots of the version this writer last saw, oldest first (no file read). */
  async history(): Promise<SnapshotEntry[]> {
    return enqueue(async (api, gen) => parseHistory(await api.history(await this.#use(api, gen))));
  }

  /** The live data files of the current snapshot (its manifests read). */
  async files(): Promise<DataFileEntry[]> {
    return enqueue(async (api, gen) => parseFiles(await api.files(await this.#use(api, gen))));
  }

  /**
   * Reads the rows passing options' filters (time range, series filters),
   * projected, deduplicated unless raw, sorted by (series…, time), in
   * batches pulled one at a time (see Scan). Nothing runs until the first
   * batch is asked for; from then the scan holds this instance's queue
   * until it ends or the loop is left. Bad options reject the first
   * batch with a coded error (UNKNOWN_COLUMN, BAD_FILTER, BAD_TIME,
   * BAD_RANGE, NO_SNAPSHOT, BAD_OPTION).
   */
  scan(options: ScanOptions = {}): Scan {
    return new Scan((arrow, each) =>
      enqueue(async (api, gen) => {
        const json = scanOptionsJSON(options, arrow);
        return api.scan(await this.#use(api, gen), json, each);
      }),
    );
  }

  /**
   * Runs maintenance on the newest version of the table — retention,
   * compaction, snapshot expiry, file cleanup; all of them unless options
   * name some — each step committed on its own, within
   * timelake.maintain-byte-cap (a run that stops there says so in
   * capReached; the next run continues). A compaction that loses to a
   * concurrent append is rebased; one whose inputs another writer removed is
   * dropped (COMMIT_DROPPED).
   */
  async maintain(options: MaintainOptions = {}): Promise<MaintainResult> {
    const { rollups, ...steps } = options;
    if (rollups !== undefined && !steps.dryRun) return this.#maintainWithRollups(steps, rollups);
    return enqueue(async (api, gen) => {
      const r = parseMaintainResult(await api.maintain(await this.#use(api, gen), JSON.stringify(steps)));
      this.#head = { ...this.#head, version: r.version };
      return r;
    });
  }

  /**
   * Deletes the rows whose series columns hold one of the values given and
   * whose time is in [from, to), in one commit (files whose every row
   * matches dropped unread, the others rewritten); `purge` makes them
   * physically gone. A delete without a filter is refused (BAD_FILTER).
   */
  async delete(options: DeleteOptions): Promise<DeleteResult> {
    const json = deleteJSON(options);
    return enqueue(async (api, gen) => {
      const r = parseDeleteResult(await api.deleteRows(await this.#use(api, gen), json));
      this.#head = { ...this.#head, version: r.version };
      return r;
    });
  }

  /**
   * Changes the schema: the changes in order, as one commit (or none, when
   * every change is a no-op). Files written before stay valid: Iceberg
   * matches columns by field id. A change Iceberg's rules forbid is refused
   * with a coded error naming the column (SCHEMA_CHANGE_FORBIDDEN,
   * UNKNOWN_COLUMN, DUPLICATE_COLUMN, BAD_TYPE, BAD_COLUMN_NAME) and nothing
   * is written. A concurrent schema change is met by applying the changes
   * again on top of it.
   */
  async alter(changes: readonly SchemaChange[]): Promise<AlterResult> {
    const json = changesJSON(changes);
    return enqueue(async (api, gen) => {
      const r = parseAlterResult(await api.alter(await this.#use(api, gen), json));
      this.#head = { version: r.version, columns: r.columns };
      return r;
    });
  }

  /**
   * Records the key of a table another engine created (see adopt.ts): its
   * time and series columns, in one metadata-only commit. BAD_KEY_COLUMN
   * names a column that is missing or of the wrong type, or a table adopted
   * with another key; the same key again is nothing to do.
   */
  async adopt(options: AdoptOptions): Promise<AdoptResult> {
    const json = adoptJSON(options);
    return enqueue(async (api, gen) => {
      const r = parseAdoptResult(await api.adopt(await this.#use(api, gen), json));
      this.#head = { ...this.#head, version: r.version };
      return r;
    });
  }

  /** A key for adopt() read from the table's metadata (no data read). */
  async suggestKey(): Promise<KeySuggestion> {
    return enqueue(async (api, gen) => parseKeySuggestion(await api.suggestKey(await this.#use(api, gen))));
  }

  /** maintain({ rollups }): refresh them, hold retention while one lags, maintain their tables. */
  async #maintainWithRollups(steps: MaintainOptions, rollups: Record<string, TableWriter>): Promise<MaintainResult> {
    const done: RollupMaintenance = { refreshes: {}, tables: {}, retentionHeld: false };
    for (const [name, ru] of Object.entries(rollups)) {
      try {
        const r = await this.refreshRollup(name, ru);
        done.refreshes[name] = r;
        done.retentionHeld ||= r.capReached;
      } catch (e) {
        done.refreshes[name] = { error: String((e as Error)?.message ?? e) };
        done.retentionHeld = true;
      }
    }
    const all = !steps.compact && !steps.retention && !steps.expire && !steps.orphans;
    let own = steps;
    if (done.retentionHeld && (all || steps.retention)) {
      own = { ...steps, retention: false, ...(all ? { compact: true, expire: true, orphans: true } : {}) };
    }
    const res = await this.maintain(own);
    if (done.retentionHeld && (all || steps.retention)) {
      res.warnings = [...res.warnings, "retention skipped: a rollup does not reflect the current snapshot yet (the next maintain runs it)"];
    }
    for (const [name, ru] of Object.entries(rollups)) {
      try {
        done.tables[name] = await ru.maintain(steps);
      } catch (e) {
        res.warnings = [...res.warnings, `rollup ${name} table: ${String((e as Error)?.message ?? e)}`];
      }
    }
    res.rollups = done;
    return res;
  }

  /**
   * Defines rollup name of this table (its definition goes into the
   * table's properties) and creates its table in store; returns the rollup
   * table, empty until a refresh (refreshRollup, maintain, or the next
   * append with spec.inline). Without a store (storage-only table) the
   * rollup is at its default location, "<location>__rollup_<name>", in the
   * Store OpenTableOptions.rollupStore or the table store's sibling gives
   * (NO_ROLLUP_STORE when neither does); with one, at store.location. BAD_ROLLUP names a bad definition,
   * ROLLUP_EXISTS a name in use. For a table opened through a catalog the
   * rollup is table "ns.<table>__rollup_<name>" of that catalog, at the
   * location it chooses; store is then optional (a Store or factory as
   * CatalogTableOptions.store; default the table's own).
   */
  async addRollup(name: string, spec: RollupSpec, store?: Store | StoreFactory): Promise<TableWriter> {
    if (this.#catalog) return this.#held(name, catalogWriter(await addCatalogRollup(this.#catalog, (api, gen) => this.#use(api, gen), name, spec, store)));
    if (typeof store === "function") {
      throw new TimelakeError("INVALID_ARGUMENT", "timelake: addRollup of a storage-only table takes the Store of the rollup table, not a factory (see openTable's rollupStore option)");
    }
    if (store !== undefined) checkStore(store);
    // Without a Store: the core calls the resolver with the rollup's
    // default location (beside the table); NO_ROLLUP_STORE when it has none.
    let chosen = store;
    const target = store ?? (async (location: string, n: string) => (chosen = await this.#resolveRollupStore(location, n)) ?? null);
    const r = await enqueue(async (api, gen) => ({
      ...(await api.addRollup(await this.#use(api, gen), target, rollupSpecJSON(name, spec, store?.location))),
      gen,
    }));
    this.#rollupStores.set(name, chosen!);
    return this.#held(name, new TableWriter(chosen!, r.handle, r.gen, parseHead(r.head)));
  }

  /** The rollups the table's properties define. */
  async rollups(): Promise<RollupDefinition[]> {
    return enqueue(async (api, gen) => JSON.parse(await api.rollups(await this.#use(api, gen))) as RollupDefinition[]);
  }

  /**
   * Opens the table of rollup name, in store: scan and latest it like any
   * table. NO_ROLLUP if the table has none of that name. For a table opened
   * through a catalog the rollup table is opened through the same catalog
   * (store optional, as in addRollup). A storage-only table's rollup
   * without a store: found as append's inline refresh finds it
   * (NO_ROLLUP_STORE when it is not).
   */
  async rollup(name: string, store?: Store | StoreFactory): Promise<TableWriter> {
    const defs = await this.rollups();
    const d = defs.find((d) => d.name === name);
    if (d === undefined) {
      throw new TimelakeError("NO_ROLLUP", `timelake: no rollup ${JSON.stringify(name)} (the table has: ${defs.map((d) => d.name).join(", ")})`);
    }
    if (this.#catalog && d.table) {
      return this.#held(name, await openTable(this.#catalog.catalog, d.table, store === undefined ? this.#catalog.options : { ...this.#catalog.options, store }));
    }
    if (typeof store === "function") {
      throw new TimelakeError("INVALID_ARGUMENT", `timelake: rollup ${JSON.stringify(name)} is a storage-only table at ${d.location}: give its Store, not a factory`);
    }
    if (store !== undefined) checkStore(store);
    const found = store ?? (await this.#resolveRollupStore(d.location, name));
    if (found === undefined) {
      throw new TimelakeError(
        "NO_ROLLUP_STORE",
        `timelake: rollup ${JSON.stringify(name)} is a storage-only table at ${d.location}: give its Store (rollup(name, store), or openTable's rollupStore option); this table's store derives no sibling there`,
      );
    }
    if (store !== undefined) this.#rollupStores.set(name, store);
    return this.#held(name, await openTable(found));
  }

  /**
   * Brings rollup name up to date: the buckets changed since the raw
   * snapshot it reflects are recomputed from this table and appended to
   * the rollup table (rollupTable, from addRollup or rollup).
   */
  async refreshRollup(name: string, rollupTable: TableWriter, options: RefreshOptions = {}): Promise<RefreshResult> {
    return enqueue(async (api, gen) => {
      const h = await this.#use(api, gen);
      const rh = await rollupTable.#use(api, gen);
      const r = parseRefreshResult(await api.refreshRollup(h, rh, name, JSON.stringify(options)));
      rollupTable.#head = { ...rollupTable.#head, version: r.version };
      return r;
    });
  }

  /** Releases the table in the instance. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await enqueue(async (api, gen) => {
      if (gen === this.#generation) await api.close(this.#handle);
    });
  }
}
