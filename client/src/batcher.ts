/**
 * RowBatcher: many producers' rows, kept in a Durable Object's storage,
 * appended to one table in batches (maxRows rows, or maxWaitMs after the
 * first waiting row, through the object's alarm). TableBatcher (batcherdo.ts)
 * is the Durable Object class around it.
 *
 * Exactly once, across restarts and evictions:
 *   1. add() writes the rows to storage and only then answers; the object's
 *      output gate holds the answer until the write is durable.
 *   2. A flush names the batch — a new commit id — and stores that name
 *      (FLUSH_KEY) before appending.
 *   3. It appends with that commit id (AppendOptions.commitId), then deletes
 *      the batch's rows and, last, the name.
 *   4. After a restart a stored name means step 3 may or may not have
 *      landed: findCommit(id) decides, and the batch is appended only if
 *      no retained snapshot holds the id. An append that finds the id on a
 *      rebase fails with COMMIT_EXISTS, taken as landed.
 * Assumption: the snapshot a batch landed in is still retained when the
 * object settles the batch — within one flush normally, or at the next
 * alarm after a restart (seconds). Snapshot expiry by age or count
 * (history.expire.*) must keep at least the snapshots committed in that
 * window; every default does, by far.
 *
 * Storage layout (persisted: must not change):
 *   tl:r:<seq, 16 digits>   {n, rows}: n rows as JSON text (rowjson.ts), ≤ CHUNK_CHARS
 *   tl:flush                {id, from, to, rows}: the batch being appended (chunks from..to)
 *   tl:dead:<seq>           {n, rows, code, message, row?, column?}: a chunk the table refused
 */
import { RowError, TimelakeError } from "./errors.js";
import { checkRows, parseRows, rowJSON } from "./rowjson.js";
import type { TableWriter } from "./table.js";
import type { AppendOptions } from "./tabletypes.js";

/** The storage of a Durable Object, as far as the batcher uses it. */
export interface DurableStorageLike {
  get(key: string): Promise<unknown>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options: { prefix?: string; start?: string; end?: string }): Promise<Map<string, unknown>>;
  setAlarm(when: number): Promise<void>;
}

/** A Durable Object's state (its ctx). */
export interface DurableStateLike {
  storage: DurableStorageLike;
  blockConcurrencyWhile?<T>(f: () => Promise<T>): Promise<T>;
}

export interface BatcherOptions {
  /** Opens the table; called on the first flush and again after an append failed. */
  table: () => Promise<TableWriter>;
  /** Append when this many rows wait; default 5,000. */
  maxRows?: number;
  /** Append at most this long after the first waiting row arrived; default 2,000 ms. */
  maxWaitMs?: number;
  /** Refuse add() (BUFFER_FULL) past this many rows kept, in flight included; default 200,000. */
  maxBufferedRows?: number;
  /** Passed to every append (commitId is the batcher's). */
  append?: Omit<AppendOptions, "commitId">;
  /** New commit ids; default crypto.randomUUID(). */
  newId?: () => string;
  /**
   * Called after a batch's append committed, before the batch leaves
   * storage (a rollup refresh; tests stop the object here). If it throws,
   * the batch stays, the next flush finds it committed and deletes it, and
   * this is not called again for it.
   */
  afterCommit?: (commitId: string) => void | Promise<void>;
}

export interface AddResult {
  accepted: number;
  /** Rows kept after this add, in flight included. */
  buffered: number;
}

export interface FlushResult {
  rows: number;
  commits: number;
  /** Batches found already committed (after a restart or an unknown outcome) and not appended again. */
  replayed: number;
  /** Chunks the table refused (RowError), moved to tl:dead:. */
  deadLettered: number;
}

export interface BatcherStatus {
  buffered: number;
  waiting: number;
  inFlight: { commitId: string; rows: number } | undefined;
  deadLetters: number;
  lastError: { code: string; message: string } | undefined;
  /** Since this object (re)started: appends made, and batches found already committed. */
  commits: number;
  replayed: number;
}

/** A chunk the table refused, with why. */
export interface DeadLetter {
  key: string;
  rows: object[];
  code: string;
  message: string;
  row?: number;
  column?: string;
}

/** BUFFER_FULL: add() would pass maxBufferedRows. */
export class BufferFullError extends TimelakeError {
  override name = "BufferFullError";
  constructor(
    message: string,
    readonly buffered: number,
    readonly maxBufferedRows: number,
    readonly retryAfterMs: number,
  ) {
    super("BUFFER_FULL", message);
  }
}

const ROWS = "tl:r:";
const FLUSH_KEY = "tl:flush";
const DEAD = "tl:dead:";
/** Bound of one stored value's JSON text: under 128 KiB even as UTF-16. */
const CHUNK_CHARS = 60_000;
/** Batches one alarm appends at most. */
const ALARM_BATCHES = 4;
/** Keys per storage call (the Durable Object limit). */
const KEYS_PER_CALL = 128;

interface Chunk {
  n: number;
  rows: string;
}
interface Flush {
  id: string;
  from: number;
  to: number;
  rows: number;
}

const seqKey = (prefix: string, seq: number) => prefix + String(seq).padStart(16, "0");
const seqOf = (key: string) => Number(key.slice(key.lastIndexOf(":") + 1));

function groups<T>(xs: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += KEYS_PER_CALL) out.push(xs.slice(i, i + KEYS_PER_CALL));
  return out;
}

/** Splits rows into chunks of at most CHUNK_CHARS of JSON (one longer row makes a chunk of its own). */
function chunksOf(rows: readonly object[]): Chunk[] {
  const out: Chunk[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const r of rows) {
    const j = rowJSON(r);
    if (parts.length > 0 && size + j.length + 1 > CHUNK_CHARS) {
      out.push({ n: parts.length, rows: `[${parts.join(",")}]` });
      parts = [];
      size = 2;
    }
    parts.push(j);
    size += j.length + 1;
  }
  out.push({ n: parts.length, rows: `[${parts.join(",")}]` });
  return out;
}

export class RowBatcher {
  readonly #st: DurableStorageLike;
  readonly #o: Required<Omit<BatcherOptions, "afterCommit" | "append">> & Pick<BatcherOptions, "afterCommit" | "append">;
  /** Chunks waiting for a flush, key → rows (sorted when a batch is taken: adds may finish out of order). */
  readonly #waiting = new Map<string, number>();
  #waitingRows = 0;
  #reserved = 0; // rows of adds whose write is under way
  readonly #pending = new Set<number>(); // and their chunks' seqs
  #inFlight: { flush: Flush; keys: string[] } | undefined;
  #seq = 0;
  #dead = 0;
  #alarmAt: number | null = null;
  #failures = 0;
  #totals = { commits: 0, replayed: 0 };
  #lastError: { code: string; message: string } | undefined;
  #loaded: Promise<void> | undefined;
  #flushing: Promise<FlushResult> | undefined;
  #table: TableWriter | undefined;

  constructor(state: DurableStateLike, options: BatcherOptions) {
    this.#st = state.storage;
    const positive = (name: string, v: number | undefined, d: number) => {
      if (v === undefined) return d;
      if (!Number.isSafeInteger(v) || v <= 0) throw new TimelakeError("INVALID_ARGUMENT", `timelake: batcher option ${name} must be a positive whole number, not ${v}`);
      return v;
    };
    if (typeof options?.table !== "function") throw new TimelakeError("INVALID_ARGUMENT", "timelake: the batcher needs options.table, a function opening the table");
    this.#o = {
      table: options.table,
      maxRows: positive("maxRows", options.maxRows, 5_000),
      maxWaitMs: positive("maxWaitMs", options.maxWaitMs, 2_000),
      maxBufferedRows: positive("maxBufferedRows", options.maxBufferedRows, 200_000),
      newId: options.newId ?? (() => crypto.randomUUID()),
      afterCommit: options.afterCommit,
      append: options.append,
    };
  }

  /** Reads what storage holds (once per object life). */
  ready(): Promise<void> {
    this.#loaded ??= this.#load().catch((e) => {
      this.#loaded = undefined;
      throw e;
    });
    return this.#loaded;
  }

  async #load(): Promise<void> {
    const flush = (await this.#st.get(FLUSH_KEY)) as Flush | undefined;
    const keys: string[] = [];
    for (const [k, v] of await this.#st.list({ prefix: ROWS })) {
      const seq = seqOf(k);
      this.#seq = Math.max(this.#seq, seq + 1);
      if (flush && seq >= flush.from && seq <= flush.to) keys.push(k);
      else {
        this.#waiting.set(k, (v as Chunk).n);
        this.#waitingRows += (v as Chunk).n;
      }
    }
    if (flush) this.#inFlight = { flush, keys };
    for (const k of (await this.#st.list({ prefix: DEAD })).keys()) {
      this.#seq = Math.max(this.#seq, seqOf(k) + 1);
      this.#dead++;
    }
    // Rows kept by an earlier life: set the alarm again, for now, whatever
    // getAlarm() answers. workerd keeps an alarm's time in storage but not in
    // its scheduler across a restart, so a time it answers — past or still
    // ahead — may never fire (client/test/batcher.miniflare.test.ts, "the
    // runtime killed while the alarm is set for later"). On the platform
    // this only brings a flush forward by at most maxWaitMs.
    this.#alarmAt = null;
    if (this.#waitingRows > 0 || this.#inFlight) await this.#schedule(0);
  }

  get #buffered(): number {
    return this.#waitingRows + this.#reserved + (this.#inFlight?.flush.rows ?? 0);
  }

  /**
   * Keeps rows (plain objects; values as append takes them) for the next
   * flush. Resolves once they are in storage: acknowledged rows are
   * appended exactly once, whatever happens to the object after. Rejects
   * with BUFFER_FULL (BufferFullError) when they would pass maxBufferedRows.
   */
  async add(rows: readonly object[]): Promise<AddResult> {
    checkRows(rows);
    return this.#add(rows, undefined);
  }

  /**
   * add() of rows as rowsJSON's text (what sendRows posts): kept as given
   * when it fits one chunk, so small sends are not encoded again.
   */
  async addJSON(text: string): Promise<AddResult> {
    return this.#add(parseRows(text), text);
  }

  async #add(rows: readonly object[], text: string | undefined): Promise<AddResult> {
    await this.ready();
    const n = rows.length;
    const { maxBufferedRows, maxRows, maxWaitMs } = this.#o;
    if (this.#buffered + n > maxBufferedRows) {
      const why = n > maxBufferedRows ? `${n} rows are more than maxBufferedRows (${maxBufferedRows}): send fewer at a time` : `the batcher holds ${this.#buffered} rows; ${n} more would pass maxBufferedRows (${maxBufferedRows}); it appends up to maxRows (${maxRows}) at least every ${maxWaitMs} ms`;
      throw new BufferFullError(`timelake: buffer full: ${why}${this.#lastError ? `; last append failed: ${this.#lastError.code}` : ""}`, this.#buffered, maxBufferedRows, maxWaitMs);
    }
    const chunks = text !== undefined && text.length <= CHUNK_CHARS ? [{ n, rows: text }] : chunksOf(rows);
    const seqs = chunks.map(() => this.#seq++);
    const entries: [string, Chunk][] = chunks.map((c, i) => [seqKey(ROWS, seqs[i]!), c]);
    this.#reserved += n;
    for (const q of seqs) this.#pending.add(q);
    try {
      // One put per 128 keys, none awaited before the next: written atomically together.
      await Promise.all(groups(entries).map((g) => this.#st.put(Object.fromEntries(g))));
    } finally {
      this.#reserved -= n;
      for (const q of seqs) this.#pending.delete(q);
    }
    for (const [k, c] of entries) this.#waiting.set(k, c.n);
    this.#waitingRows += n;
    await this.#schedule();
    return { accepted: n, buffered: this.#buffered };
  }

  /** Sets the alarm for the waiting rows: now when maxRows wait, else maxWaitMs from now unless one is due sooner. */
  async #schedule(retryMs?: number): Promise<void> {
    if (this.#waitingRows === 0 && !this.#inFlight && retryMs === undefined) return;
    const now = Date.now();
    const at = retryMs !== undefined ? now + retryMs : this.#waitingRows >= this.#o.maxRows ? now : now + this.#o.maxWaitMs;
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    await this.#st.setAlarm(at);
  }

  /** The Durable Object's alarm handler: flushes, and on failure tries again later (backing off to a minute). */
  async alarm(): Promise<void> {
    this.#alarmAt = null;
    // A bounded run per alarm (the platform limits one event's duration);
    // what is left waits for the next alarm, set at once below.
    let res: FlushResult;
    try {
      res = await this.flush(ALARM_BATCHES);
    } catch {
      this.#failures++;
      await this.#schedule(Math.min(60_000, 1_000 * 2 ** (this.#failures - 1)));
      return;
    }
    // Cut short with rows still waiting: go on at once.
    await this.#schedule(res.commits + res.replayed + res.deadLettered >= ALARM_BATCHES && this.#waitingRows > 0 ? 0 : undefined);
  }

  /**
   * Appends what waits now, batch by batch; first settles a batch left in
   * flight by an earlier life of the object. Concurrent calls share one run.
   */
  flush(maxBatches = Infinity): Promise<FlushResult> {
    this.#flushing ??= this.#flushAll(maxBatches).finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #flushAll(maxBatches: number): Promise<FlushResult> {
    await this.ready();
    const res: FlushResult = { rows: 0, commits: 0, replayed: 0, deadLettered: 0 };
    try {
      if (this.#inFlight) await this.#settle(res, true);
      const last = [...this.#waiting.keys()].sort().pop(); // rows added while this runs wait for the next alarm
      for (let b = 0; last !== undefined && b < maxBatches; b++) {
        // A batch is a run of consecutive chunks (the record keeps its
        // first and last seq), so it stops before any chunk whose write is
        // still under way: that chunk must not fall inside the range.
        const below = this.#pending.size ? Math.min(...this.#pending) : Infinity;
        const keys: string[] = [];
        let rows = 0;
        for (const k of [...this.#waiting.keys()].sort()) {
          const n = this.#waiting.get(k)!;
          if (k > last! || seqOf(k) >= below || (rows > 0 && rows + n > this.#o.maxRows)) break;
          keys.push(k);
          rows += n;
        }
        if (keys.length === 0) break;
        const flush: Flush = { id: this.#o.newId(), from: seqOf(keys[0]!), to: seqOf(keys[keys.length - 1]!), rows };
        await this.#st.put({ [FLUSH_KEY]: flush });
        for (const k of keys) this.#waiting.delete(k);
        this.#waitingRows -= rows;
        this.#inFlight = { flush, keys };
        await this.#settle(res, false);
      }
      this.#failures = 0;
      this.#lastError = undefined;
      return res;
    } catch (e) {
      const x = e instanceof TimelakeError ? e : new TimelakeError("INTERNAL", String(e));
      this.#lastError = { code: x.code, message: x.message };
      throw e;
    }
  }

  /** Appends the batch in flight unless it landed before (replay), then removes it from storage. */
  async #settle(res: FlushResult, replay: boolean): Promise<void> {
    const f = this.#inFlight!;
    const tb = await this.#writer();
    let landed = replay && (await tb.findCommit(f.flush.id)) !== undefined;
    if (landed) {
      res.replayed++;
      this.#totals.replayed++;
    }
    while (!landed && f.keys.length > 0) {
      const mine = new Set(f.keys);
      const listed = await this.#st.list({ start: seqKey(ROWS, f.flush.from), end: seqKey(ROWS, f.flush.to + 1) });
      const stored = new Map([...listed].filter(([k]) => mine.has(k)));
      const rows: object[] = [];
      const bounds: [string, number][] = []; // chunk key, rows before it
      for (const [k, v] of stored) {
        bounds.push([k, rows.length]);
        for (const r of parseRows((v as Chunk).rows)) rows.push(r);
      }
      if (rows.length === 0) break;
      try {
        await tb.append(rows, { ...this.#o.append, commitId: f.flush.id });
        res.rows += rows.length;
        res.commits++;
        this.#totals.commits++;
        await this.#o.afterCommit?.(f.flush.id);
        landed = true;
      } catch (e) {
        if (e instanceof TimelakeError && e.code === "COMMIT_EXISTS") {
          res.replayed++;
          this.#totals.replayed++;
          landed = true;
        } else if (e instanceof RowError) {
          await this.#deadLetter(f, stored, bounds, e);
          res.deadLettered++;
        } else {
          this.#table = undefined; // reopen at the newest version next time
          throw e;
        }
      }
    }
    // The rows first, the batch's name last: a crash between leaves a name
    // whose commit findCommit finds, and what rows remain are deleted then.
    await Promise.all(groups(f.keys).map((g) => this.#st.delete(g)));
    await this.#st.delete([FLUSH_KEY]);
    this.#inFlight = undefined;
  }

  /** Moves the chunk holding the refused row (all of the batch when the error names none) to tl:dead:. */
  async #deadLetter(f: { flush: Flush; keys: string[] }, stored: Map<string, unknown>, bounds: [string, number][], e: RowError): Promise<void> {
    let bad = bounds.map(([k]) => k);
    let row = e.row;
    if (row !== undefined) {
      const i = bounds.findLastIndex(([, before]) => before < row!);
      row -= bounds[i]![1];
      bad = [bounds[i]![0]];
    }
    const entries: Record<string, DeadLetterValue> = {};
    let n = 0;
    for (const k of bad) {
      const c = stored.get(k) as Chunk;
      n += c.n;
      entries[seqKey(DEAD, seqOf(k))] = { ...c, code: e.code, message: e.message, ...(row !== undefined ? { row } : {}), ...(e.column !== undefined ? { column: e.column } : {}) };
    }
    f.keys = f.keys.filter((k) => !bad.includes(k));
    f.flush = { ...f.flush, rows: f.flush.rows - n };
    // Written together (no await between): the chunk moves, the batch shrinks.
    const writes = [...groups(Object.entries(entries)).map((g) => this.#st.put(Object.fromEntries(g))), ...groups(bad).map((g) => this.#st.delete(g)), this.#st.put({ [FLUSH_KEY]: f.flush })];
    await Promise.all(writes);
    this.#dead += bad.length;
  }

  async #writer(): Promise<TableWriter> {
    this.#table ??= await this.#o.table();
    return this.#table;
  }

  async status(): Promise<BatcherStatus> {
    await this.ready();
    return {
      buffered: this.#buffered,
      waiting: this.#waitingRows,
      inFlight: this.#inFlight ? { commitId: this.#inFlight.flush.id, rows: this.#inFlight.flush.rows } : undefined,
      deadLetters: this.#dead,
      lastError: this.#lastError,
      ...this.#totals,
    };
  }

  /** The chunks the table refused, oldest first. */
  async deadLetters(): Promise<DeadLetter[]> {
    const out: DeadLetter[] = [];
    for (const [key, v] of await this.#st.list({ prefix: DEAD })) {
      const d = v as DeadLetterValue;
      out.push({ key, rows: parseRows(d.rows), code: d.code, message: d.message, ...(d.row !== undefined ? { row: d.row } : {}), ...(d.column !== undefined ? { column: d.column } : {}) });
    }
    return out;
  }

  /** Forgets dead letters (all, or those keys). */
  async dropDeadLetters(keys?: string[]): Promise<number> {
    const ks = keys ?? [...(await this.#st.list({ prefix: DEAD })).keys()];
    const dead = ks.filter((k) => k.startsWith(DEAD));
    await Promise.all(groups(dead).map((g) => this.#st.delete(g)));
    this.#dead = Math.max(0, this.#dead - dead.length);
    return dead.length;
  }
}

interface DeadLetterValue extends Chunk {
  code: string;
  message: string;
  row?: number;
  column?: string;
}
