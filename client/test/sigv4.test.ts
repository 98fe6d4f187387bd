// signRequest against AWS's published SigV4 test suite (test/sigv4/, see its
// README for the source): canonical request, string to sign and signature.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { amzDate, encodePath, signRequest, uriEncode } from "../src/stores/sigv4.js";

// dist/test/sigv4.test.js → client/test/sigv4
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "sigv4");

interface Context {
  credentials: { access_key_id: string; secret_access_key: string; token?: string };
  region: string;
  service: string;
  sign_body: boolean;
  timestamp: string;
  omit_session_token?: boolean;
}

/** Parses request.txt: "METHOD URI HTTP/1.1", headers (folded lines continue a value), blank line, body. */
function parseRequest(text: string) {
  const [head, ...rest] = text.split(/\n\n/);
  const lines = head!.split("\n");
  const first = lines.shift()!;
  const method = first.slice(0, first.indexOf(" "));
  const uri = first.slice(first.indexOf(" ") + 1, first.lastIndexOf(" "));
  const headers: [string, string][] = [];
  for (const l of lines) {
    if (l === "") continue;
    if (/^\s/.test(l)) headers[headers.length - 1]![1] += " " + l.trim();
    else headers.push([l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1)]);
  }
  const q = uri.indexOf("?");
  const rawPath = q < 0 ? uri : uri.slice(0, q);
  const query: [string, string][] =
    q < 0
      ? []
      : uri
          .slice(q + 1)
          .split("&")
          .filter((p) => p !== "")
          .map((p) => {
            const i = p.indexOf("=");
            return (i < 0 ? [p, ""] : [p.slice(0, i), p.slice(i + 1)]).map(decodeURIComponent) as [string, string];
          });
  return { method, path: decodeURIComponent(rawPath), query, headers, body: rest.join("\n\n") };
}

const cases = fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, "request.txt")));

test("the vectors are there", () => assert.ok(cases.length >= 20, `${cases.length} cases in ${dir}`));

for (const name of cases) {
  test(`SigV4 test suite: ${name}`, async () => {
    const read = (f: string) => fs.readFileSync(path.join(dir, name, f), "utf8");
    const ctx = JSON.parse(read("context.json")) as Context;
    const req = parseRequest(read("request.txt"));
    const signed = await signRequest({
      ...req,
      region: ctx.region,
      service: ctx.service,
      credentials: { accessKeyId: ctx.credentials.access_key_id, secretAccessKey: ctx.credentials.secret_access_key, sessionToken: ctx.credentials.token },
      date: new Date(ctx.timestamp),
      signPayloadHeader: ctx.sign_body,
      omitSessionToken: ctx.omit_session_token ?? false,
    });
    assert.equal(signed.canonicalRequest, read("header-canonical-request.txt"), "canonical request");
    assert.equal(signed.stringToSign, read("header-string-to-sign.txt"), "string to sign");
    assert.equal(signed.signature, read("header-signature.txt").trim(), "signature");
    assert.match(signed.headers.authorization!, new RegExp(`Signature=${signed.signature}$`));
    if (ctx.credentials.token) assert.equal(signed.headers["x-amz-security-token"], ctx.credentials.token);
  });
}

test("uriEncode, encodePath and amzDate", () => {
  assert.equal(uriEncode("a b+c/é~"), "a%20b%2Bc%2F%C3%A9~");
  assert.equal(encodePath("/bucket/data/ts_day=2026-11-29/x y.parquet"), "/bucket/data/ts_day%3D2026-11-29/x%20y.parquet");
  assert.equal(amzDate(new Date("2015-08-30T12:36:00.123Z")), "20150830T123600Z");
});
