/**
 * Schema changes: what TableWriter.alter() takes and returns. Each change
 * is one object naming its kind by its key; the bridge sends them as
 * {op, column, to?, type?} to the core (package schema/evolve), which
 * checks them against Iceberg's rules and commits them as one new schema.
 */
import { TimelakeError } from "./errors.js";

type ColumnType = "long" | "int" | "double" | "float" | "boolean" | "string" | "timestamptz" | "timestamp" | "timestamptz_ns" | "timestamp_ns"
  /** A nested type's text, as `timelake create --column` takes it: map<string, string>, list<double>, struct<a: long, b: list<string>>. */
  | `map<${string}>` | `list<${string}>` | `struct<${string}>`;

/**
 * One schema change:
 * - `{ add: "mem", type: "long" }` adds an optional column (files written
 *   before read it as null);
 * - `{ rename: "cpu", to: "load" }` renames a column (the time and series
 *   columns too);
 * - `{ widen: "errors", type: "long" }` widens int → long or float → double;
 * - `{ optional: "region" }` makes a required value column optional;
 * - `{ drop: "note" }` drops a value column (never the time or series columns).
 */
export type SchemaChange =
  | { add: string; type: ColumnType }
  | { rename: string; to: string }
  | { widen: string; type: "long" | "double" }
  | { optional: string }
  | { drop: string }
  /** Refused on an optional column (SCHEMA_CHANGE_FORBIDDEN): Iceberg never makes one required. */
  | { required: string };

export interface AlterResult {
  /** Metadata version after the alter (unchanged when nothing changed). */
  version: number;
  /** The current schema's id. */
  schemaId: number;
  /** false: every change was a no-op and nothing was committed. */
  changed: boolean;
  /** The columns after the alter. */
  columns: { id: number; name: string; type: ColumnType; required: boolean }[];
  /** Versions other writers committed first (the changes were applied again on each). */
  conflicts: number;
  warnings: string[];
}

/** One schema of the table's history (TableInfo.schemas). */
export interface SchemaVersion {
  id: number;
  current: boolean;
  columns: AlterResult["columns"];
}

const OPS = ["add", "rename", "widen", "optional", "drop", "required"] as const;

/** The changes as the bridge takes them; INVALID_ARGUMENT for a shape that is none of SchemaChange's. */
export function changesJSON(changes: readonly SchemaChange[]): string {
  if (!Array.isArray(changes)) {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: alter takes an array of changes");
  }
  const wire = changes.map((c, i) => {
    const o = (c ?? {}) as Record<string, unknown>;
    const ops = OPS.filter((k) => k in o);
    if (ops.length !== 1 || typeof o[ops[0]!] !== "string") {
      throw new TimelakeError(
        "INVALID_ARGUMENT",
        `timelake: change ${i + 1} must have exactly one of ${OPS.join(", ")} naming a column (got ${JSON.stringify(c)})`,
      );
    }
    const op = ops[0]!;
    return { op, column: o[op], to: o["to"] ?? "", type: o["type"] ?? "" };
  });
  return JSON.stringify(wire);
}

export function parseAlterResult(raw: string): AlterResult {
  const j = JSON.parse(raw) as Record<string, unknown>;
  return {
    version: j["version"] as number,
    schemaId: j["schema-id"] as number,
    changed: j["changed"] as boolean,
    columns: j["columns"] as AlterResult["columns"],
    conflicts: j["conflicts"] as number,
    warnings: (j["warnings"] as string[] | undefined) ?? [],
  };
}
