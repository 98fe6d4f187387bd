/**
 * Scan: the result of table.scan(options), an async iterable of column
 * batches pulled from the core one at a time. The core hands a batch to
 * the callback below and waits for the Promise it returns, which resolves
 * when the consumer asks for the next batch (true) or stops (false: break
 * in for await, return(), or the iterator collected unreturned). So memory
 * holds one batch, and the scan holds the instance's queue from the first
 * next() until it ends or is abandoned.
 */
import { TimelakeError } from "./errors.js";
import { fromWire, type WireScanBatch } from "./scanwire.js";

/**
 * A value as latest() gives it: long → bigint, timestamptz → ISO 8601 string
 * with microseconds, null → null; a map, list or struct column's value
 * parsed from its JSON (nested.ts): an object (a map's keys, a struct's
 * fields), an array.
 */
export type ScanValue = string | number | bigint | boolean | null | NestedValue;

/** The value of a nested column, or one inside it. */
export type NestedValue = string | number | bigint | boolean | null | NestedValue[] | { [key: string]: NestedValue };

/** Rows in columns: time, series, then the projected columns, in table order. */
export interface ColumnBatch {
  length: number;
  columns: Record<string, ScanValue[]>;
}

/** A scan's plan and cost (data and delete files' reads; metadata not counted). */
export interface ScanStats {
  /** The snapshot read; undefined for a table without snapshots. */
  snapshotId: bigint | undefined;
  files: number;
  filesRead: number;
  rowGroups: number;
  rowGroupsRead: number;
  pages: number;
  pagesRead: number;
  requests: number;
  bytesRead: number;
  /** Of those, the page reads (footers and page indexes apart): the compressed bytes of the
   *  pages decoded (data and dictionary pages), and the requests and bytes that fetched them. */
  pageBytes: number;
  pageRequests: number;
  pageReadBytes: number;
  /** Rows handed out. */
  rows: number;
  /** The consumer stopped before the end. */
  stopped: boolean;
}

export function parseScanStats(raw: string): ScanStats {
  const j = JSON.parse(raw) as Record<string, unknown>;
  const n = (k: string) => j[k] as number;
  const id = j["snapshot-id"] as string;
  return {
    snapshotId: id === "0" ? undefined : BigInt(id),
    files: n("files"),
    filesRead: n("files-read"),
    rowGroups: n("row-groups"),
    rowGroupsRead: n("row-groups-read"),
    pages: n("pages"),
    pagesRead: n("pages-read"),
    requests: n("requests"),
    bytesRead: n("bytes-read"),
    pageBytes: n("page-bytes"),
    pageRequests: n("page-requests"),
    pageReadBytes: n("page-read-bytes"),
    rows: n("rows"),
    stopped: j["stopped"] === true,
  };
}

/**
 * Runs the scan: each batch goes to each as the bridge sends it (column
 * batches, or with arrow the Arrow IPC stream in chunks); resolves with the
 * stats JSON.
 */
export type ScanRunner = (arrow: boolean, each: (b: WireScanBatch | Uint8Array) => Promise<boolean>) => Promise<string>;

type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };

/** One run of a scan: the hand-over between the core and the consumer. Holds no reference to its iterator. */
class Run<T> {
  #buffered: T | undefined;
  #waiter: Waiter<T> | undefined;
  #resume: ((more: boolean) => void) | undefined;
  #ended = false;
  #error: unknown;
  #failed = false;
  #done: Promise<void> | undefined;

  constructor(
    readonly runner: (each: (b: T) => Promise<boolean>) => Promise<string>,
    readonly onStats: (s: ScanStats) => void,
    readonly onError: (e: unknown) => void,
  ) {}

  #start(): void {
    this.#done = this.runner((b) => this.#deliver(b)).then(
      (raw) => {
        this.#ended = true;
        this.onStats(parseScanStats(raw));
        this.#settle();
      },
      (e: unknown) => {
        this.#ended = true;
        this.#failed = true;
        this.#error = e;
        this.onError(e);
        this.#settle();
      },
    );
  }

  #deliver(b: T): Promise<boolean> {
    this.#buffered = b;
    this.#settle();
    return new Promise<boolean>((r) => (this.#resume = r));
  }

  #settle(): void {
    const w = this.#waiter;
    if (!w) return;
    if (this.#buffered !== undefined) {
      const b = this.#buffered;
      this.#buffered = undefined;
      this.#waiter = undefined;
      w.resolve({ value: b, done: false });
    } else if (this.#ended) {
      this.#waiter = undefined;
      if (this.#failed) {
        this.#failed = false; // thrown once; later next() calls are done
        w.reject(this.#error);
      } else {
        w.resolve({ value: undefined, done: true });
      }
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (!this.#done) {
      if (this.#ended) return Promise.resolve({ value: undefined, done: true }); // stopped before it ran
      this.#start();
    }
    const resume = this.#resume;
    this.#resume = undefined;
    resume?.(true); // the batch handed out before is consumed: read on
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#settle();
    });
  }

  /** Stops the scan (a no-op once it ended) and waits for the core to let go of the queue. */
  async stop(): Promise<void> {
    this.#buffered = undefined;
    const resume = this.#resume;
    this.#resume = undefined;
    resume?.(false);
    if (!this.#done) {
      this.#ended = true;
      this.onError(new TimelakeError("INVALID_ARGUMENT", "timelake: the scan was abandoned before its first batch was asked for: it did not run"));
      return;
    }
    await this.#done;
  }
}

/** Stops the runs of iterators collected without return() (a dropped iterator would hold the queue). */
const abandoned =
  typeof FinalizationRegistry === "function" ? new FinalizationRegistry<Run<unknown>>((run) => void run.stop()) : undefined;

class ScanIterator<T> implements AsyncIterator<T> {
  #run: Run<T>;
  #tail: Promise<unknown> = Promise.resolve();
  constructor(run: Run<T>) {
    this.#run = run;
    abandoned?.register(this, run as Run<unknown>, this);
  }
  next(): Promise<IteratorResult<T>> {
    const p = this.#tail.then(() => this.#run.next()); // next() calls in a row, not at once
    this.#tail = p.catch(() => undefined);
    return p;
  }
  async return(): Promise<IteratorResult<T>> {
    abandoned?.unregister(this);
    await this.#run.stop();
    return { value: undefined, done: true };
  }
}

/**
 * A table's rows passing a scan's filters, sorted by (series…, time),
 * deduplicated unless raw. Read it once, one way: `for await (const batch
 * of scan)`, `for await (const row of scan.rows())`, `await scan.arrow()`
 * or `scan.arrowStream()`. The scan starts at the first batch asked for
 * and holds the instance's queue (other operations wait) until it ends or
 * the loop is left.
 */
export class Scan implements AsyncIterable<ColumnBatch> {
  /** Resolves when the scan ends (completed, or stopped early); rejects with its error. */
  readonly stats: Promise<ScanStats>;
  #runner: ScanRunner;
  #ok: (s: ScanStats) => void;
  #fail: (e: unknown) => void;
  #iterated = false;

  /** @internal */
  constructor(runner: ScanRunner) {
    let ok!: (s: ScanStats) => void;
    let fail!: (e: unknown) => void;
    this.stats = new Promise<ScanStats>((resolve, reject) => ((ok = resolve), (fail = reject)));
    this.stats.catch(() => undefined); // the iterator throws it too
    this.#runner = runner;
    this.#ok = ok;
    this.#fail = fail;
  }

  #open<T>(arrow: boolean, as: (b: WireScanBatch | Uint8Array) => T): ScanIterator<T> {
    if (this.#iterated) throw new TimelakeError("INVALID_ARGUMENT", "timelake: a Scan is read once; call table.scan again");
    this.#iterated = true;
    const runner = this.#runner; // not this: a run holds no reference to the Scan
    const run = new Run<T>((each) => runner(arrow, (b) => each(as(b))), this.#ok, this.#fail);
    return new ScanIterator(run);
  }

  [Symbol.asyncIterator](): AsyncIterator<ColumnBatch> {
    return this.#open(false, (b) => fromWire(b as WireScanBatch));
  }

  /** The rows as objects keyed by column name, values as in the batches. */
  async *rows(): AsyncGenerator<Record<string, ScanValue>, void, undefined> {
    for await (const b of this) {
      const cols = Object.entries(b.columns);
      for (let r = 0; r < b.length; r++) {
        const o: Record<string, ScanValue> = {};
        for (const [name, vals] of cols) o[name] = vals[r] as ScanValue;
        yield o;
      }
    }
  }

  /**
   * The rows as an Arrow IPC stream (application/vnd.apache.arrow.stream),
   * for apache-arrow's tableFromIPC, DuckDB-Wasm or parquet-wasm: the
   * scan's columns (timestamptz as timestamp[us, tz=UTC], long int64, int
   * int32, double, float, bool, utf8; each with its Iceberg field id as the
   * field metadata PARQUET:field_id), a record batch per scan batch. The
   * Go core encodes it (package arrowipc); no Arrow library runs here.
   */
  async arrow(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let n = 0;
    const it = this.#open(true, (b) => b as Uint8Array);
    for (let r = await it.next(); !r.done; r = await it.next()) {
      chunks.push(r.value);
      n += r.value.byteLength;
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }

  /**
   * The Arrow IPC stream of arrow() as a ReadableStream, a chunk per batch
   * (the first with the schema), so a Worker can answer with it without
   * holding the result: `new Response(scan.arrowStream())`. Cancelling it
   * stops the scan.
   */
  arrowStream(): ReadableStream<Uint8Array> {
    const it = this.#open(true, (b) => b as Uint8Array);
    return new ReadableStream<Uint8Array>({
      async pull(ctl) {
        const r = await it.next();
        if (r.done) ctl.close();
        else ctl.enqueue(r.value);
      },
      async cancel() {
        await it.return();
      },
    });
  }
}
