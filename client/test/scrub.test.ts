// Servers that echo each refused request (headers, query, body) back in a
// 4xx/5xx answer: an S3 endpoint (x-amz-security-token among the headers)
// and a REST catalog (the OAuth2 form body with client_secret, the bearer
// token). No error the client reports holds a secret in any spelling:
// raw, percent-encoded, JSON-escaped, base64.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { openTable, restCatalog, TimelakeError } from "../src/node.js";
import { Secrets } from "../src/redact.js";
import { S3Error, s3Store } from "../src/stores/s3.js";

// Secrets that change under every encoding: "+", "/", "=", a quote, a space, non-ASCII.
const awsSecret = 'wJalrXUtnFEMI/K7MDENG+bPxRfi"CYEXAMPLEKEY=';
const sessionToken = 'FwoGZXIvYXdzE+session/tökén "quoted" ==';
const clientId = "timelake-js";
const clientSecret = "supersecretAB+cd/ef==";
const catalogToken = 'tok "quoted" ünïcode/+=';

/** Every spelling of secret that no message may hold. */
function forms(secret: string, id = ""): string[] {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const out = [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ x: secret }).toString().slice(2), // a form body: "+" for a space
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")),
    b64(secret),
  ];
  if (id) out.push(b64(`${id}:${secret}`));
  return out;
}

const allForms = [...forms(awsSecret), ...forms(sessionToken), ...forms(clientSecret, clientId), ...forms(catalogToken)];

function assertClean(what: string, message: string): void {
  assert.ok(message.includes("[redacted]"), `${what}: the echo did not reach the error (the test would prove nothing): ${message}`);
  for (const f of allForms) assert.ok(!message.includes(f), `${what}: the error holds ${JSON.stringify(f)}: ${message}`);
}

/** The request as an echoing server repeats it: raw, JSON, percent-encoded. */
async function dump(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`).join("; ");
  return `${req.method} ${req.url} ${headers}; body ${body}; json ${JSON.stringify(req.headers)} ${JSON.stringify(body)}; encoded ${encodeURIComponent(headers)}`;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = createServer((req, res) => void handler(req, res).catch(() => res.destroy()));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => srv.close(() => r())) };
}

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

test("Secrets.scrub: every form of a secret, the text around it kept", () => {
  const s = new Secrets();
  s.add(awsSecret, sessionToken, "abc");
  s.addCredential(`${clientId}:${clientSecret}`);
  for (const f of [...forms(awsSecret), ...forms(sessionToken), ...forms(clientSecret, clientId)]) {
    assert.equal(s.scrub(`before ${f} after`), "before [redacted] after", f);
  }
  assert.equal(s.scrub("abc stays, so does a+b %zz \\u00e9"), "abc stays, so does a+b %zz \\u00e9");
});

for (const status of [403, 500]) {
  test(`s3Store: an endpoint echoing the request in a ${status}: no operation's error holds the session token or secret key`, async () => {
    const srv = await serve(async (req, res) => {
      const d = await dump(req);
      res.writeHead(status, { "content-type": "application/xml" });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${xmlEscape(d)}</Message>` +
        `<RequestId>${xmlEscape(String(req.headers["x-amz-security-token"]))}</RequestId></Error>`);
    });
    try {
      const st = s3Store({
        bucket: "echo-bucket", prefix: "tables/m", endpoint: srv.url, region: "us-east-1",
        credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: awsSecret, sessionToken },
        maxAttempts: 1,
      });
      const ops: [string, () => Promise<unknown>][] = [
        ["get", () => st.get("metadata/v1.metadata.json")],
        ["getRange", () => st.getRange("data/a.parquet", 0, 10)],
        ["put", () => st.put("data/a.parquet", new Uint8Array([1]))],
        ["putIfAbsent", () => st.putIfAbsent("metadata/v2.metadata.json", new Uint8Array([1]))],
        ["list", () => st.list("metadata/")],
        ["delete", () => st.delete(["data/a.parquet"])],
      ];
      for (const [op, run] of ops) {
        const err = await run().then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof S3Error, `${op}: ${String(err)}`);
        assert.equal(err.status, status);
        assert.equal(err.s3Code, "AccessDenied");
        assertClean(op, err.message);
        assertClean(`${op} request id`, `[redacted] ${err.requestId ?? ""}`);
      }
      // Through the WebAssembly core: opening the table reports the store's error, as clean.
      const err = await openTable(st).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof TimelakeError && err.code === "STORE_ERROR", String(err));
      assertClean("openTable", err.message);
    } finally {
      await srv.close();
    }
  });
}

test("restCatalog: a catalog echoing the OAuth2 request and the bearer token: openTable's error holds neither secret", async () => {
  const srv = await serve(async (req, res) => {
    const d = await dump(req);
    res.setHeader("content-type", "application/json");
    if (req.url?.startsWith("/v1/config")) {
      res.end("{}");
      return;
    }
    if (req.url?.startsWith("/v1/oauth/tokens")) {
      res.writeHead(401);
      res.end(JSON.stringify({ error: "invalid_client", error_description: `refused ${d}` }));
      return;
    }
    res.writeHead(403);
    res.end(JSON.stringify({ error: { message: `refused ${d}`, type: `NotAuthorizedException ${String(req.headers.authorization)}`, code: 403 } }));
  });
  try {
    for (const cat of [
      restCatalog({ uri: srv.url, credential: `${clientId}:${clientSecret}` }),
      restCatalog({ uri: srv.url, token: catalogToken }),
    ]) {
      const err = await openTable(cat, "ns.t").then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof TimelakeError && err.code === "CATALOG_AUTH", String(err));
      assertClean("openTable", err.message);
    }
  } finally {
    await srv.close();
  }
});
