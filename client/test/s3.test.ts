// s3Store: the Store conformance suite against the local S3 server
// (scripts/s3server.sh; skipped without one), coded errors from it, and the
// request shapes and retries against a scripted fetch.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { S3Error, s3Store, type S3StoreOptions } from "../src/stores/s3.js";
import { cases } from "./conformance.js";

const env = process.env;
const server = env.TIMELAKE_S3_BUCKET && env.AWS_ENDPOINT_URL ? env : undefined;
const skip = server ? false : "no S3 server: run scripts/test-client.sh (it starts scripts/s3server.sh)";

function serverOptions(prefix = `ts/${randomBytes(6).toString("hex")}`): S3StoreOptions {
  return {
    bucket: env.TIMELAKE_S3_BUCKET!,
    prefix,
    endpoint: env.AWS_ENDPOINT_URL!,
    region: env.AWS_REGION ?? "us-east-1",
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  };
}

for (const [name, run] of cases) {
  test(`s3Store (local server): ${name}`, { skip }, () => run(s3Store(serverOptions())));
}

test("s3Store (local server): list pages past 1,000 keys; delete in batches", { skip }, async () => {
  const s = s3Store(serverOptions());
  const keys = Array.from({ length: 1003 }, (_, i) => `data/f${String(i).padStart(4, "0")}`);
  for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => s.put(k, new Uint8Array([1]))));
  const got = await s.list("data/");
  assert.deepEqual(got.map((o) => o.key), keys);
  await s.delete(keys);
  assert.deepEqual(await s.list("data/"), []);
});

async function rejects(p: Promise<unknown>, want: { status?: number; s3Code?: string; key: string }, secret: string, what: string): Promise<S3Error> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof S3Error, `${what}: ${String(e)} is not an S3Error`);
    assert.equal(e.code, "STORE_ERROR", what);
    assert.equal(e.key, want.key, what);
    if (want.status !== undefined) assert.equal(e.status, want.status, `${what}: ${e.message}`);
    if (want.s3Code !== undefined) assert.equal(e.s3Code, want.s3Code, `${what}: ${e.message}`);
    assert.ok(e.message.includes(want.key), `${what}: ${e.message} does not name the key`);
    assert.ok(!e.message.includes(secret), `${what}: the message carries the secret`);
    return e;
  }
  assert.fail(`${what}: resolved`);
}

test("s3Store (local server): wrong secret, missing bucket, wrong region are coded errors naming the key", { skip }, async () => {
  const good = serverOptions();
  await s3Store(good).put("metadata/v1.metadata.json", new TextEncoder().encode("{}"));
  const secret = "wrong-secret-0123456789abcdef";
  const bad = s3Store({ ...good, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: secret } });
  await rejects(bad.get("metadata/v1.metadata.json"), { status: 403, s3Code: "SignatureDoesNotMatch", key: "metadata/v1.metadata.json" }, secret, "wrong secret, get");
  await rejects(bad.putIfAbsent("metadata/v2.metadata.json", new Uint8Array(1)), { status: 403, key: "metadata/v2.metadata.json" }, secret, "wrong secret, putIfAbsent");
  await rejects(bad.list("metadata/"), { status: 403, key: "metadata/" }, secret, "wrong secret, list");
  const nob = s3Store({ ...good, bucket: "no-such-bucket-timelake" });
  const e = await rejects(nob.get("metadata/v1.metadata.json"), { status: 404, s3Code: "NoSuchBucket", key: "metadata/v1.metadata.json" }, env.AWS_SECRET_ACCESS_KEY!, "missing bucket, get");
  assert.match(e.message, /bucket does not exist/);
  await rejects(nob.getRange("metadata/v1.metadata.json", 0, 0), { status: 404, s3Code: "NoSuchBucket", key: "metadata/v1.metadata.json" }, env.AWS_SECRET_ACCESS_KEY!, "missing bucket, getRange(0,0)");
  const region = s3Store({ ...good, region: "eu-central-1" });
  const r = await rejects(region.get("metadata/v1.metadata.json"), { key: "metadata/v1.metadata.json" }, env.AWS_SECRET_ACCESS_KEY!, "wrong region, get");
  assert.ok(r.status >= 400 && r.status < 500, r.message);
});

// A scripted server: answers is called for every request; the log keeps them.
function scripted(answer: (req: Request, n: number) => Response | Promise<Response>) {
  const log: Request[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    log.push(req);
    return answer(req, log.length);
  }) as typeof globalThis.fetch;
  return { fetch, log };
}

const xmlError = (status: number, code: string) =>
  new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>m</Message><RequestId>R1</RequestId></Error>`, { status });

const fixed = {
  bucket: "bkt",
  prefix: "t/m",
  region: "eu-west-1",
  credentials: { accessKeyId: "AKID", secretAccessKey: "SECRET-KEY", sessionToken: "TOKEN" },
  now: () => new Date("2026-11-29T10:00:00Z"),
  sleep: async () => {},
};

test("s3Store: virtual-hosted on AWS by default, path-style with an endpoint; signed with the token", async () => {
  const { fetch, log } = scripted(() => new Response("x"));
  await s3Store({ ...fixed, fetch }).get("data/a b.parquet");
  await s3Store({ ...fixed, fetch, endpoint: "http://127.0.0.1:9000" }).get("data/a b.parquet");
  assert.equal(log[0]!.url, "https://bkt.s3.eu-west-1.amazonaws.com/t/m/data/a%20b.parquet");
  assert.equal(log[1]!.url, "http://127.0.0.1:9000/bkt/t/m/data/a%20b.parquet");
  for (const r of log) {
    assert.equal(r.headers.get("x-amz-date"), "20261129T100000Z");
    assert.equal(r.headers.get("x-amz-security-token"), "TOKEN");
    assert.match(r.headers.get("authorization")!, /^AWS4-HMAC-SHA256 Credential=AKID\/20261129\/eu-west-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/);
  }
});

test("s3Store: getRange sends Range; 416 and short answers are RANGE", async () => {
  const { fetch, log } = scripted((req, n) => (n === 1 ? new Response("234", { status: 206 }) : n === 2 ? new Response("89", { status: 206 }) : xmlError(416, "InvalidRange")));
  const s = s3Store({ ...fixed, fetch });
  assert.equal(new TextDecoder().decode((await s.getRange("r", 2, 3))!), "234");
  assert.equal(log[0]!.headers.get("range"), "bytes=2-4");
  await assert.rejects(s.getRange("r", 8, 5), (e: any) => e.code === "RANGE");
  await assert.rejects(s.getRange("r", 20, 5), (e: any) => e.code === "RANGE");
});

test("s3Store: get with maxBytes refuses by Content-Length without reading; a chunked answer is cut at the limit", async () => {
  // A body that counts what was pulled from it.
  let pulled = 0;
  const stream = (chunks: number, size: number) =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= chunks) return c.close();
        pulled++;
        c.enqueue(new Uint8Array(size));
      },
    });
  const declared = scripted(() => new Response(stream(100, 1000), { status: 200, headers: { "content-length": "100000" } }));
  await assert.rejects(s3Store({ ...fixed, fetch: declared.fetch }).get("m", { maxBytes: 99_999 }), (e: any) => {
    assert.equal(e.code, "TOO_LARGE");
    assert.match(e.message, /"m" has 100000 bytes, the limit is 99999/);
    return true;
  });
  assert.ok(pulled <= 1, `${pulled} chunks read of a body refused by its Content-Length`);

  pulled = 0;
  const chunked = scripted(() => new Response(stream(100, 1000), { status: 200 })); // no Content-Length
  await assert.rejects(s3Store({ ...fixed, fetch: chunked.fetch }).get("m", { maxBytes: 4500 }), (e: any) => e.code === "TOO_LARGE" && /more than 4500 bytes/.test(e.message));
  assert.ok(pulled <= 6, `${pulled} chunks of 1000 read for a limit of 4500`);

  pulled = 0;
  const fits = scripted(() => new Response(stream(4, 1000), { status: 200 }));
  assert.equal((await s3Store({ ...fixed, fetch: fits.fetch }).get("m", { maxBytes: 4000 }))!.length, 4000);
});

test("s3Store: retries 5xx and network errors with backoff, never 403", async () => {
  let calls = 0;
  const flaky = scripted(() => {
    calls++;
    if (calls === 1) throw new TypeError("fetch failed");
    if (calls === 2) return xmlError(503, "SlowDown");
    return new Response("ok");
  });
  assert.equal(new TextDecoder().decode((await s3Store({ ...fixed, fetch: flaky.fetch }).get("k"))!), "ok");
  assert.equal(flaky.log.length, 3);

  const denied = scripted(() => xmlError(403, "AccessDenied"));
  const e = await rejects(s3Store({ ...fixed, fetch: denied.fetch }).put("k", new Uint8Array(1)), { status: 403, s3Code: "AccessDenied", key: "k" }, "SECRET-KEY", "403");
  assert.match(e.message, /request id R1/);
  assert.equal(denied.log.length, 1, "a 403 was retried");

  const down = scripted(() => xmlError(500, "InternalError"));
  await rejects(s3Store({ ...fixed, fetch: down.fetch, maxAttempts: 3 }).get("k"), { status: 500, key: "k" }, "SECRET-KEY", "500s");
  assert.equal(down.log.length, 3);
});

test("s3Store: putIfAbsent — If-None-Match, 412 false, 409 retried, a lost answer read back", async () => {
  const body = new TextEncoder().encode("ours");
  const exists = scripted(() => xmlError(412, "PreconditionFailed"));
  assert.equal(await s3Store({ ...fixed, fetch: exists.fetch }).putIfAbsent("v", body), false);
  assert.equal(exists.log[0]!.headers.get("if-none-match"), "*");
  assert.match(exists.log[0]!.headers.get("authorization")!, /SignedHeaders=host;if-none-match;/);

  const conflict = scripted((_, n) => (n <= 2 ? xmlError(409, "ConditionalRequestConflict") : new Response(null, { status: 200 })));
  assert.equal(await s3Store({ ...fixed, fetch: conflict.fetch }).putIfAbsent("v", body), true);
  assert.equal(conflict.log.length, 3);

  // The first PUT lands but its answer is lost; the retry meets 412; the GET finds our bytes.
  const lost = (stored: string) =>
    scripted((req, n) => {
      if (n === 1) throw new TypeError("socket hang up");
      if (req.method === "PUT") return xmlError(412, "PreconditionFailed");
      return new Response(stored);
    });
  assert.equal(await s3Store({ ...fixed, fetch: lost("ours").fetch }).putIfAbsent("v", body), true);
  assert.equal(await s3Store({ ...fixed, fetch: lost("theirs").fetch }).putIfAbsent("v", body), false);
});

test("s3Store: delete posts DeleteObjects with a SHA-256 checksum, 1,000 keys a request; per-key errors name the key", async () => {
  const { fetch, log } = scripted(async (req) => {
    const xml = await req.text();
    return new Response(xml.includes("t/m/k1000") ? `<DeleteResult><Error><Key>t/m/k1000</Key><Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>` : `<DeleteResult/>`);
  });
  const keys = Array.from({ length: 1001 }, (_, i) => `k${i}`);
  const e = await rejects(s3Store({ ...fixed, fetch }).delete(keys), { s3Code: "AccessDenied", key: "k1000" }, "SECRET-KEY", "delete");
  assert.ok(e);
  assert.equal(log.length, 2);
  assert.equal(new URL(log[0]!.url).search, "?delete=");
  assert.ok(log[0]!.headers.get("x-amz-checksum-sha256"));
});

test("s3Store: list follows continuation tokens and unescapes keys", async () => {
  const page1 = `<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>tok/1+=</NextContinuationToken><Contents><Key>t/m/data/b&amp;c</Key><Size>3</Size><LastModified>2026-11-29T10:00:00.000Z</LastModified></Contents></ListBucketResult>`;
  const page2 = `<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>t/m/data/a</Key><Size>1</Size><LastModified>2026-11-29T09:00:00.000Z</LastModified></Contents></ListBucketResult>`;
  const { fetch, log } = scripted((_, n) => new Response(n === 1 ? page1 : page2));
  const got = await s3Store({ ...fixed, fetch }).list("data/");
  assert.deepEqual(got, [
    { key: "data/a", size: 1, lastModified: Date.parse("2026-11-29T09:00:00Z") },
    { key: "data/b&c", size: 3, lastModified: Date.parse("2026-11-29T10:00:00Z") },
  ]);
  assert.equal(new URL(log[1]!.url).searchParams.get("continuation-token"), "tok/1+=");
  assert.equal(new URL(log[0]!.url).searchParams.get("prefix"), "t/m/data/");
});
