/**
 * TableBatcher, a Durable Object class that appends the rows many Workers
 * send it to one table in batches (see RowBatcher in batcher.ts for how no
 * acknowledged row is lost or appended twice), and sendRows, what a
 * producer calls. Extend it to say which table:
 *
 *   export class Batcher extends TableBatcher {
 *     constructor(ctx: DurableObjectState, env: Env) {
 *       super(ctx, { table: () => openTable(r2Store(env.BUCKET)), maxRows: 5000, maxWaitMs: 2000 });
 *     }
 *   }
 *   // in a producer Worker:
 *   await sendRows(env.BATCHER.get(env.BATCHER.idFromName("metrics")), rows);
 *
 * It speaks fetch (no RPC, which needs `extends DurableObject` from
 * cloudflare:workers and so would tie this module to workerd):
 *   POST /rows    body: rows as rowsJSON gives them → AddResult
 *   POST /flush   append what waits now → FlushResult
 *   GET  /status  → BatcherStatus
 *   GET  /dead    → the dead letters (chunks the table refused)
 * Errors answer with {name, code, message, …}: 503 and Retry-After for
 * BUFFER_FULL, 400 for a bad request, 500 otherwise.
 */
import { RowError, TimelakeError } from "./errors.js";
import { BufferFullError, RowBatcher, type AddResult, type BatcherOptions, type DurableStateLike } from "./batcher.js";
import { checkRows, rowsJSON } from "./rowjson.js";

export class TableBatcher {
  readonly batcher: RowBatcher;

  constructor(ctx: DurableStateLike, options: BatcherOptions) {
    this.batcher = new RowBatcher(ctx, options);
    // Storage is read before the first event; adds wait for it.
    void ctx.blockConcurrencyWhile?.(() => this.batcher.ready());
  }

  async fetch(request: Request): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      const route = `${request.method} ${pathname}`;
      switch (route) {
        case "POST /rows":
          return Response.json(await this.batcher.addJSON(await request.text()));
        case "POST /flush":
          return Response.json(await this.batcher.flush());
        case "GET /status":
          return Response.json(await this.batcher.status());
        case "GET /dead":
          return new Response(rowsJSON(await this.batcher.deadLetters()), { headers: { "content-type": "application/json" } });
        default:
          throw new TimelakeError("INVALID_ARGUMENT", `timelake: the batcher has no ${route} (POST /rows, POST /flush, GET /status, GET /dead)`);
      }
    } catch (e) {
      return errorResponse(e);
    }
  }

  alarm(): Promise<void> {
    return this.batcher.alarm();
  }
}

function errorResponse(e: unknown): Response {
  const x = e instanceof TimelakeError ? e : new TimelakeError("INTERNAL", `timelake: ${String(e)}`);
  const body: Record<string, unknown> = { name: x.name, code: x.code, message: x.message };
  const headers: Record<string, string> = {};
  let status = x.code === "INVALID_ARGUMENT" || x instanceof RowError ? 400 : 500;
  if (x instanceof BufferFullError) {
    Object.assign(body, { buffered: x.buffered, maxBufferedRows: x.maxBufferedRows, retryAfterMs: x.retryAfterMs });
    headers["retry-after"] = String(Math.ceil(x.retryAfterMs / 1000));
    status = 503;
  }
  return Response.json(body, { status, headers });
}

/** What sendRows needs of a Durable Object stub (or any fetcher serving TableBatcher). */
export interface BatcherStub {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/**
 * Sends rows to a TableBatcher; resolves once they are durable in its
 * storage. Rejects with the batcher's error: BufferFullError (BUFFER_FULL,
 * retry after retryAfterMs), INVALID_ARGUMENT, … A rejection from the
 * stub itself (the object restarting) leaves it unknown whether the rows
 * were kept: send them again, or accept that they may be missing.
 */
export async function sendRows(stub: BatcherStub, rows: readonly object[]): Promise<AddResult> {
  checkRows(rows);
  const res = await stub.fetch("https://batcher/rows", { method: "POST", body: rowsJSON(rows), headers: { "content-type": "application/json" } });
  const text = await res.text();
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new TimelakeError("INTERNAL", `timelake: the batcher answered ${res.status}: ${text.slice(0, 200)}`);
  }
  if (res.ok) return j as unknown as AddResult;
  const code = typeof j["code"] === "string" ? j["code"] : "INTERNAL";
  const message = typeof j["message"] === "string" ? j["message"] : `timelake: the batcher answered ${res.status}`;
  if (code === "BUFFER_FULL") throw new BufferFullError(message, j["buffered"] as number, j["maxBufferedRows"] as number, j["retryAfterMs"] as number);
  throw new TimelakeError(code, message);
}
