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

/** A value as latest() gives it: long → bigint, timestamptz → ISO 8601 string with microseconds, null → null. */
export type ScanValue = string | number | bigint | boolean | null;

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
    rows: n("rows"),
    stopped: j["stopped"] === true,
  };
}

/** Runs the scan: each batch goes to each; resolves with the stats JSON. */
export type ScanRunner = (each: (b: ColumnBatch) => Promise<boolean>) => Promise<string>;

type Waiter = { resolve: (r: IteratorResult<ColumnBatch>) => void; reject: (e: unknown) => void };

/** One run of a scan: the hand-over between the core and the consumer. Holds no reference to its iterator. */
class Run {
  #buffered: ColumnBatch | undefined;
  #waiter: Waiter | undefined;
  #resume: ((more: boolean) => void) | undefined;
  #ended = false;
  #error: unknown;
  #failed = false;
  #done: Promise<void> | undefined;

  constructor(
    readonly runner: ScanRunner,
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

  #deliver(b: ColumnBatch): Promise<boolean> {
    this.#buffered = b;
    this.#settle();
    return new Promise<boolean>((r) => (this.#resume = r));
  }

  #settle(): void {
    const w = this.#waiter;
    if (!w) return;
    if (this.#buffered) {
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

  next(): Promise<IteratorResult<ColumnBatch>> {
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
  typeof FinalizationRegistry === "function" ? new FinalizationRegistry<Run>((run) => void run.stop()) : undefined;

class ScanIterator implements AsyncIterator<ColumnBatch> {
  #run: Run;
  #tail: Promise<unknown> = Promise.resolve();
  constructor(run: Run) {
    this.#run = run;
    abandoned?.register(this, run, this);
  }
  next(): Promise<IteratorResult<ColumnBatch>> {
    const p = this.#tail.then(() => this.#run.next()); // next() calls in a row, not at once
    this.#tail = p.catch(() => undefined);
    return p;
  }
  async return(): Promise<IteratorResult<ColumnBatch>> {
    abandoned?.unregister(this);
    await this.#run.stop();
    return { value: undefined, done: true };
  }
}

/**
 * A table's rows passing a scan's filters, sorted by (series…, time),
 * deduplicated unless raw. Iterate it once: `for await (const batch of
 * scan)` or `for await (const row of scan.rows())`. The scan starts at the
 * first batch asked for and holds the instance's queue (other operations
 * wait) until it ends or the loop is left.
 */
export class Scan implements AsyncIterable<ColumnBatch> {
  /** Resolves when the scan ends (completed, or stopped early); rejects with its error. */
  readonly stats: Promise<ScanStats>;
  #run: Run;
  #iterated = false;

  /** @internal */
  constructor(runner: ScanRunner) {
    let ok!: (s: ScanStats) => void;
    let fail!: (e: unknown) => void;
    this.stats = new Promise<ScanStats>((resolve, reject) => ((ok = resolve), (fail = reject)));
    this.stats.catch(() => undefined); // the iterator throws it too
    this.#run = new Run(runner, ok, fail);
  }

  [Symbol.asyncIterator](): AsyncIterator<ColumnBatch> {
    if (this.#iterated) throw new TimelakeError("INVALID_ARGUMENT", "timelake: a Scan is iterated once; call table.scan again");
    this.#iterated = true;
    return new ScanIterator(this.#run);
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
}
