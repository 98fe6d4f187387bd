/**
 * Two functions the Go side (wasm/settle.go) calls instead of making a
 * js.FuncOf per Promise: each FuncOf is a call out to JavaScript to make a
 * wrapper, a map entry in Go, and a value Go's collector must finalize. With
 * these the bridge keeps one long-lived callback and names each wait by a
 * number. JavaScript written here rather than built by Go because workerd
 * forbids making functions from strings.
 *
 * wasm/settle_test.go defines the same two for the Go tests (which run the
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
