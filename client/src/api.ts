/** Everything every entry exports. */
export { adoptTable, createTable, openTable, TableWriter } from "./table.js";
export type {
  AppendOptions,
  AppendResult,
  CatalogCreateOptions,
  CatalogTableOptions,
  ColumnSpec,
  ColumnType,
  CreateTableOptions,
  OpenTableOptions,
  FoundCommit,
  PartitionInfo,
  TableInfo,
  TableSchema,
  TimeUnit,
} from "./tabletypes.js";
export { Scan } from "./scan.js";
export type { DataFileEntry, SnapshotEntry } from "./history.js";
export type { ColumnBatch, NestedValue, ScanStats, ScanValue } from "./scan.js";
export type { ScanOptions, SeriesValue, TimeInput } from "./scanoptions.js";
export type { MaintainOptions, MaintainResult } from "./maintain.js";
export type { DeleteOptions, DeleteResult, PurgeResult } from "./delete.js";
export type { AlterResult, SchemaChange, SchemaVersion } from "./alter.js";
export type { AdoptOptions, AdoptResult, KeySuggestion } from "./adopt.js";
export type {
  InlineRollupRefresh,
  RefreshOptions,
  RefreshResult,
  RollupDefinition,
  RollupFunc,
  RollupMaintenance,
  RollupSpec,
  RollupStoreResolver,
} from "./rollup.js";
export { TimelakeError, RowError, StoreError, storeError } from "./errors.js";
export type { ErrorCode, StoreErrorCode } from "./errors.js";
export { checkKey, checkPrefix, overLimit, tooLarge } from "./store.js";
export type { GetOptions, Store, StoreObject } from "./store.js";
export { memoryStore } from "./stores/memory.js";
export type { MemoryStore } from "./stores/memory.js";
export { r2Store } from "./stores/r2.js";
export type { R2BucketLike, R2Store, R2StoreOptions } from "./stores/r2.js";
export { memoryStats } from "./runtime.js";
export type { GoMemStats } from "./runtime.js";
export * from "./stores/s3.js";
export { Catalog, restCatalog } from "./catalog.js";
export type { RestCatalogOptions } from "./catalog.js";
export type { StoreFactory, VendedConfig } from "./catalogstore.js";
export { prefixStore } from "./stores/prefix.js";
export { directoryFiles, fileListStore, tableFolders } from "./stores/files.js";
export type { DirectoryHandleLike, FileEntry, FileListOptions, FileListStore } from "./stores/files.js";
