/**
 * s3Store: a Store over an S3-compatible bucket (AWS S3, R2's S3 endpoint,
 * MinIO, versitygw, …) with `fetch` and WebCrypto only, so the same code runs
 * in Workers, Node, Deno, Bun and browsers.
 *
 *   const store = s3Store({
 *     bucket: "metrics", prefix: "tables/cpu",
 *     endpoint: "https://<account>.r2.cloudflarestorage.com", region: "auto",
 *     credentials: { accessKeyId, secretAccessKey },
 *   });
 *
 * Requests are signed with SigV4 (sigv4.ts). The conditional create is a PUT
 * with "If-None-Match: *": 412 means the key exists (false), 409
 * ConditionalRequestConflict is retried. 5xx answers and network errors are
 * retried with jittered exponential backoff; other 4xx never are. A
 * putIfAbsent whose answer was lost and whose retry meets 412 reads the object
 * back: our own bytes mean the write was ours. delete is DeleteObjects (with
 * an x-amz-checksum-sha256, since WebCrypto has no MD5), list is
 * ListObjectsV2, page by page.
 *
 * Errors are S3Errors (code STORE_ERROR, or RANGE / BAD_KEY) naming the
 * operation, the key and the server's answer (status, S3 code, message,
 * request id), never a credential: a server or proxy that echoes the request
 * in its answer would show the session token (x-amz-security-token), so the
 * answer's text is scrubbed of the secret key and session token in every
 * form (redact.ts).
 */
import { StoreError, storeError } from "../errors.js";
import { clientSecrets, Secrets } from "../redact.js";
import { checkKey, checkPrefix, overLimit, tooLarge, type GetOptions, type Store, type StoreObject } from "../store.js";
import { siblingPrefix } from "./sibling.js";
import { encodePath, sha256Hex, signRequest, uriEncode, type AwsCredentials } from "./sigv4.js";

export type { AwsCredentials, SigningInput, Signed } from "./sigv4.js";
export { signRequest } from "./sigv4.js";

export interface S3StoreOptions {
  bucket: string;
  /** The table's folder in the bucket ("tables/metrics"); no leading or trailing "/". */
  prefix?: string;
  /** Base URL of the server; default https://s3.<region>.amazonaws.com. */
  endpoint?: string;
  /** Signing region; default us-east-1 ("auto" for R2). */
  region?: string;
  /** Keys, or a function giving them (called for every request, so they may rotate). */
  credentials: AwsCredentials | (() => AwsCredentials | Promise<AwsCredentials>);
  /** <endpoint>/<bucket>/key instead of <bucket>.<endpoint>/key. Default: true when an endpoint is given. */
  forcePathStyle?: boolean;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** The signing clock; default () => new Date(). */
  now?: () => Date;
  /** Tries per request (default 5). */
  maxAttempts?: number;
  /** Waits between tries (default setTimeout); tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
  /** The table location written into its metadata; default s3://bucket/prefix. */
  location?: string;
}

export interface S3Store extends Store {
  readonly location: string;
}

/** A request the server refused, or that got no answer (status 0). */
export class S3Error extends StoreError {
  override name = "S3Error";
  readonly status: number;
  readonly s3Code: string | undefined;
  readonly requestId: string | undefined;
  constructor(
    message: string,
    key: string,
    answer: { status: number; s3Code?: string | undefined; requestId?: string | undefined },
    cause?: unknown,
  ) {
    super("STORE_ERROR", message, key, cause === undefined ? undefined : { cause });
    this.status = answer.status;
    this.s3Code = answer.s3Code;
    this.requestId = answer.requestId;
  }
}

const HINTS: Record<string, string> = {
  NoSuchBucket: "the bucket does not exist (check bucket and endpoint)",
  InvalidAccessKeyId: "check the access key id",
  XAdminUserNotFound: "check the access key id",
  SignatureDoesNotMatch: "check the secret access key (and the clock)",
  AuthorizationHeaderMalformed: "check the region",
  PermanentRedirect: "check the region and endpoint",
  ExpiredToken: "check the session token",
  InvalidToken: "check the session token",
  RequestTimeTooSkewed: "the clock differs from the server's",
};

/** The text of the first <tag>…</tag> in xml, unescaped. */
function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m ? unescapeXML(m[1]!) : undefined;
}

function unescapeXML(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#x[0-9a-fA-F]+|#\d+);/g, (_, e: string) =>
    e === "amp" ? "&" : e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : e === "apos" ? "'"
      : String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
  );
}

function escapeXML(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

function base64(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Jittered exponential backoff before try n (n ≥ 1): 50 ms × 2^(n-1), at most 2 s, between half and all of it. */
function backoff(n: number): number {
  const d = Math.min(50 * 2 ** (n - 1), 2000);
  return d / 2 + Math.random() * (d / 2);
}

interface Req {
  method: "GET" | "HEAD" | "PUT" | "POST";
  key: string; // table-relative, "" for bucket-level requests
  query?: [string, string][];
  headers?: Record<string, string>;
  body?: Uint8Array;
}

export function s3Store(options: S3StoreOptions): S3Store {
  const { bucket } = options;
  if (typeof bucket !== "string" || !/^[a-z0-9][a-z0-9.\-_]{2,254}$/.test(bucket)) {
    throw storeError("BAD_KEY", `s3Store: bucket ${JSON.stringify(bucket)} is not a bucket name`);
  }
  const prefix = (options.prefix ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix !== "") checkKey(prefix);
  const base = prefix === "" ? "" : prefix + "/";
  const region = options.region || "us-east-1";
  const endpoint = new URL(options.endpoint || `https://s3.${region}.amazonaws.com`);
  const pathStyle = options.forcePathStyle ?? options.endpoint !== undefined;
  const doFetch = options.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
  const now = options.now ?? (() => new Date());
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const sleep = options.sleep ?? defaultSleep;
  const creds = options.credentials;
  const given = typeof creds === "function" ? creds : () => creds;
  // The keys of every request are kept to scrub this store's errors (and,
  // through clientSecrets, any error the client reports).
  const secrets = new Secrets();
  const getCreds = async (): Promise<AwsCredentials> => {
    const c = await given();
    secrets.add(c?.secretAccessKey, c?.sessionToken);
    clientSecrets.add(c?.secretAccessKey, c?.sessionToken);
    return c;
  };
  if (typeof creds !== "function") {
    secrets.add(creds?.secretAccessKey, creds?.sessionToken);
    clientSecrets.add(creds?.secretAccessKey, creds?.sessionToken);
  }
  const location = options.location || `s3://${bucket}${prefix ? "/" + prefix : ""}`;
  const origin = pathStyle ? `${endpoint.protocol}//${endpoint.host}` : `${endpoint.protocol}//${bucket}.${endpoint.host}`;
  const host = pathStyle ? endpoint.host : `${bucket}.${endpoint.host}`;
  const objectURI = (key: string) => `s3://${bucket}/${base}${key}`;

  /** One signed request, without retries. */
  async function once(r: Req, payloadHash: string): Promise<Response> {
    const path = (pathStyle ? `/${bucket}/` : "/") + (r.key === "" ? "" : base + r.key);
    const query = r.query ?? [];
    const headers = r.headers ?? {};
    const signed = await signRequest({
      method: r.method,
      path,
      query,
      headers: [["host", host], ...Object.entries(headers)],
      payloadHash,
      region,
      service: "s3",
      credentials: await getCreds(),
      date: now(),
    });
    const qs = query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join("&");
    const url = origin + encodePath(path) + (qs ? "?" + qs : "");
    return doFetch(url, {
      method: r.method,
      headers: { ...headers, ...signed.headers },
      ...(r.body ? { body: r.body as Uint8Array<ArrayBuffer> } : {}),
    });
  }

  async function errorOf(op: string, key: string, res: Response): Promise<S3Error> {
    const xml = res.status === 304 || res.headers.get("content-length") === "0" ? "" : await res.text().catch(() => "");
    const clean = (v: string | undefined) => (v === undefined ? undefined : secrets.scrub(v));
    const s3Code = clean(tag(xml, "Code"));
    const msg = clean(tag(xml, "Message"));
    const requestId = clean(tag(xml, "RequestId") ?? res.headers.get("x-amz-request-id") ?? undefined);
    const hint = (s3Code && HINTS[s3Code]) || (res.status === 403 ? "the credentials may not be allowed this operation on this prefix" : "");
    const message =
      `s3Store ${op} ${JSON.stringify(key)} (${objectURI(key)}): ${res.status}` +
      (s3Code ? ` ${s3Code}` : "") +
      (msg ? `: ${msg}` : s3Code ? "" : ` ${secrets.scrub(res.statusText)}`) +
      (requestId ? ` (request id ${requestId})` : "") +
      (hint ? `; ${hint}` : "");
    return new S3Error(message, key, { status: res.status, s3Code, requestId });
  }

  function networkError(op: string, key: string, e: unknown): S3Error {
    const why = secrets.scrub(e instanceof Error ? e.message : String(e));
    return new S3Error(`s3Store ${op} ${JSON.stringify(key)} (${objectURI(key)}): no answer: ${why}`, key, { status: 0 }, e);
  }

  /**
   * Sends with retries on 5xx and network errors. Returns the first answer
   * below 500; throws an S3Error when every try failed.
   */
  async function send(op: string, r: Req): Promise<Response> {
    const payloadHash = await sha256Hex(r.body ?? new Uint8Array(0));
    let last: S3Error | undefined;
    for (let n = 0; n < maxAttempts; n++) {
      if (n > 0) await sleep(backoff(n));
      let res: Response;
      try {
        res = await once(r, payloadHash);
      } catch (e) {
        last = networkError(op, r.key, e);
        continue;
      }
      if (res.status < 500) return res;
      last = await errorOf(op, r.key, res);
    }
    throw last!;
  }

  async function bodyOf(op: string, key: string, res: Response): Promise<Uint8Array> {
    try {
      return new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw networkError(op, key, e);
    }
  }

  /**
   * The body of a get with maxBytes: refused by its Content-Length before
   * any of it is read; without one (a chunked answer), read as a stream and
   * refused as soon as it passes the limit.
   */
  async function limitedBodyOf(key: string, res: Response, options: GetOptions): Promise<Uint8Array> {
    const max = options.maxBytes!;
    const declared = res.headers.get("content-length");
    if (declared !== null && overLimit(Number(declared), options)) {
      await res.body?.cancel().catch(() => {});
      throw tooLarge(key, Number(declared), max);
    }
    if (declared !== null || !res.body) return bodyOf("get", key, res);
    const parts: Uint8Array[] = [];
    let n = 0;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.length;
        if (n > max) {
          await reader.cancel().catch(() => {});
          throw storeError("TOO_LARGE", `object larger than the limit: ${JSON.stringify(key)} has more than ${max} bytes (the rest was not read), the limit is ${max}`, key);
        }
        parts.push(value);
      }
    } catch (e) {
      if (e instanceof StoreError) throw e;
      throw networkError("get", key, e);
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /** null for NoSuchKey; throws for any other refusal. */
  async function getObject(op: string, key: string, headers?: Record<string, string>): Promise<Response | null> {
    const res = await send(op, { method: "GET", key, ...(headers ? { headers } : {}) });
    if (res.ok) return res;
    const err = await errorOf(op, key, res);
    if (res.status === 404 && err.s3Code === "NoSuchKey") return null;
    if (res.status === 416) {
      throw storeError("RANGE", `s3Store ${op} ${JSON.stringify(key)}: ${headers?.range} past the end of the object`, key);
    }
    throw err;
  }

  return {
    location,
    sibling: (loc: string) => {
      const p = siblingPrefix(location, prefix, loc);
      return p === undefined ? undefined : s3Store({ ...options, prefix: p, location: loc });
    },
    async get(key, options) {
      checkKey(key);
      const res = await getObject("get", key);
      if (!res) return null;
      if (options?.maxBytes === undefined) return bodyOf("get", key, res);
      return limitedBodyOf(key, res, options);
    },

    async getRange(key, offset, length) {
      checkKey(key);
      const past = (size: number | string) =>
        storeError("RANGE", `s3Store getRange ${JSON.stringify(key)}: ${offset}+${length} past the end (${size} bytes)`, key);
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) throw past("?");
      if (length === 0) {
        // HTTP has no empty range: ask for the size. HEAD has no body to tell
        // a missing key from a missing bucket, so a 404 asks again with GET.
        const res = await send("getRange", { method: "HEAD", key });
        if (res.status === 404) {
          const again = await getObject("getRange", key);
          if (!again) return null;
          await again.body?.cancel();
          const size = Number(again.headers.get("content-length"));
          if (offset > size) throw past(size);
          return new Uint8Array(0);
        }
        if (!res.ok) throw await errorOf("getRange", key, res);
        const size = Number(res.headers.get("content-length"));
        if (offset > size) throw past(size);
        return new Uint8Array(0);
      }
      const res = await getObject("getRange", key, { range: `bytes=${offset}-${offset + length - 1}` });
      if (!res) return null;
      let b = await bodyOf("getRange", key, res);
      if (res.status === 200) b = b.subarray(offset, offset + length); // a server that ignored Range
      if (b.length !== length) throw past(res.headers.get("content-range")?.split("/")[1] ?? "fewer");
      return b;
    },

    async put(key, data) {
      checkKey(key);
      const res = await send("put", { method: "PUT", key, body: data });
      if (!res.ok) throw await errorOf("put", key, res);
      await res.body?.cancel();
    },

    async putIfAbsent(key, data) {
      checkKey(key);
      const payloadHash = await sha256Hex(data);
      let uncertain = false; // an earlier try may have written the object
      let last: S3Error | undefined;
      for (let n = 0; n < maxAttempts; n++) {
        if (n > 0) await sleep(backoff(n));
        let res: Response;
        try {
          res = await once({ method: "PUT", key, body: data, headers: { "if-none-match": "*" } }, payloadHash);
        } catch (e) {
          uncertain = true;
          last = networkError("putIfAbsent", key, e);
          continue;
        }
        if (res.ok) {
          await res.body?.cancel();
          return true;
        }
        if (res.status === 412) {
          await res.body?.cancel();
          if (!uncertain) return false;
          const got = await this.get(key);
          return got !== null && got.length === data.length && got.every((b, i) => b === data[i]);
        }
        last = await errorOf("putIfAbsent", key, res);
        if (res.status >= 500) uncertain = true;
        else if (res.status !== 409) throw last; // 409 ConditionalRequestConflict: nothing written, try again
      }
      throw last!;
    },

    async delete(keys) {
      for (const k of keys) checkKey(k);
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        const xml =
          `<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>` +
          batch.map((k) => `<Object><Key>${escapeXML(base + k)}</Key></Object>`).join("") +
          `</Delete>`;
        const body = new TextEncoder().encode(xml);
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
        const res = await send("delete", {
          method: "POST",
          key: "",
          query: [["delete", ""]],
          headers: { "content-type": "application/xml", "x-amz-checksum-sha256": base64(digest), "x-amz-sdk-checksum-algorithm": "SHA256" },
          body,
        });
        if (!res.ok) {
          const e = await errorOf("delete", batch[0]!, res);
          throw e;
        }
        const text = await res.text();
        for (const m of text.matchAll(/<Error>([\s\S]*?)<\/Error>/g)) {
          const code = secrets.scrub(tag(m[1]!, "Code") ?? "");
          if (code === "NoSuchKey") continue;
          const full = tag(m[1]!, "Key") ?? "";
          const key = full.startsWith(base) ? full.slice(base.length) : full;
          throw new S3Error(`s3Store delete ${JSON.stringify(key)} (${objectURI(key)}): ${code}: ${secrets.scrub(tag(m[1]!, "Message") ?? "")}`, key, { status: 200, s3Code: code });
        }
      }
    },

    async list(p) {
      checkPrefix(p);
      const out: StoreObject[] = [];
      let token: string | undefined;
      do {
        const query: [string, string][] = [["list-type", "2"], ["prefix", base + p]];
        if (token) query.push(["continuation-token", token]);
        const res = await send("list", { method: "GET", key: "", query });
        if (!res.ok) {
          const e = await errorOf("list", p, res);
          throw e;
        }
        const xml = await res.text();
        for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
          const k = tag(m[1]!, "Key") ?? "";
          if (!k.startsWith(base)) continue;
          out.push({ key: k.slice(base.length), size: Number(tag(m[1]!, "Size") ?? "0"), lastModified: Date.parse(tag(m[1]!, "LastModified") ?? "") });
        }
        token = tag(xml, "IsTruncated") === "true" ? tag(xml, "NextContinuationToken") : undefined;
      } while (token);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
