/**
 * Functions the Go side (wasm/settle.go, wasm/jsstore.go) calls to cross
 * the bridge in fewer, larger steps. Each js.FuncOf is a call out to
 * JavaScript to make a wrapper, a map entry in Go, and a value Go's collector
 * must finalize; so is every JavaScript object or string Go holds. With
 * these the bridge keeps one long-lived callback and names each wait by a
 * number, and a listing comes over as two values. Written here rather than
 * built by Go because workerd forbids making functions from strings.
 *
 * wasm/settle_test.go defines the same for the Go tests (which run the
 * module without this client); keep them alike.
 */

type Settled = (id: number, ok: boolean, value: unknown) => void;

/**
 * When p is a thenable (an object with a then method), subscribes cb to it
 * and returns true; cb(id, true, value) on fulfilment, cb(id, false, reason)
 * on rejection. Anything else returns false: a plain value is its own result.
 * A then getter or method that throws throws here, as p.then would.
 */
export function settleHook(cb: Settled, id: number, p: unknown): boolean {
  if (p === null || typeof p !== "object") return false;
  const then = (p as { then?: unknown }).then;
  if (typeof then !== "function") return false;
  then.call(
    p,
    (v: unknown) => cb(id, true, v),
    (e: unknown) => cb(id, false, e),
  );
  return true;
}

/** A Promise with its resolve and reject, for the Promise each exported call returns. */
export function deferredHook(): { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void } {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

/**
 * A store's list answer in two transfers instead of three JavaScript values
 * per entry (each a value the Go side must track and finalize: a listing
 * of 4,000 objects cost ~50 ms of the Go collector's finalizer work): the
 * keys joined by "\n", and per entry [size, has lastModified, lastModified
 * in ms] as a Float64Array's bytes. Null when any entry is not a plain
 * {key: string, size: number, lastModified?: number | Date} or a key holds
 * "\n": the Go side then reads entry by entry and reports what is wrong.
 */
export function listHook(v: unknown): [string, Uint8Array] | null {
  if (!Array.isArray(v)) return null;
  const keys: string[] = new Array(v.length);
  const nums = new Float64Array(v.length * 3);
  for (let i = 0; i < v.length; i++) {
    const e = v[i] as { key?: unknown; size?: unknown; lastModified?: unknown } | null;
    if (e === null || typeof e !== "object") return null;
    const { key, size, lastModified: lm } = e;
    if (typeof key !== "string" || typeof size !== "number" || key.includes("\n")) return null;
    keys[i] = key;
    nums[3 * i] = size;
    if (typeof lm === "number") {
      nums[3 * i + 1] = 1;
      nums[3 * i + 2] = lm;
    } else if (lm instanceof Date) {
      nums[3 * i + 1] = 1;
      nums[3 * i + 2] = lm.getTime();
    }
  }
  return [keys.join("\n"), new Uint8Array(nums.buffer)];
}
