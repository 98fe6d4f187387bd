/**
 * AWS Signature Version 4, header signing, with WebCrypto only (so it runs
 * unchanged in Workers, Node, Deno, Bun and browsers). Pure: the caller gives
 * the time; nothing is sent.
 *
 *   const { headers } = await signRequest({
 *     method: "GET", path: "/bucket/metadata/v1.metadata.json", query: [],
 *     headers: [["host", "127.0.0.1:9000"]],
 *     region: "us-east-1", service: "s3", credentials, date: new Date(),
 *   });
 *   // headers: authorization, x-amz-date, x-amz-content-sha256 (and x-amz-security-token)
 *
 * S3 flavour: the path is URI-encoded once (each segment; "/" kept) and never
 * normalized, as S3 wants; tested against AWS's published SigV4 test suite
 * (client/test/sigv4/).
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) carry a session token. */
  sessionToken?: string | undefined;
}

export interface SigningInput {
  method: string;
  /** The path, not encoded ("/bucket/a b/ሴ"); see encodePath. */
  path: string;
  /** Query parameters, not encoded, in any order. */
  query: [string, string][];
  /** Headers to sign, host included; a name may repeat (values are joined with ","). */
  headers: [string, string][];
  /** The body's SHA-256 in hex; computed from body when absent. */
  payloadHash?: string;
  body?: Uint8Array | string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  date: Date;
  /** Adds (and signs) x-amz-content-sha256; S3 requires it. Default true. */
  signPayloadHeader?: boolean;
  /** Adds x-amz-security-token after signing instead of signing it (rare). */
  omitSessionToken?: boolean;
}

export interface Signed {
  /** Headers to add to the request: authorization, x-amz-date, and the others named above. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

const enc = new TextEncoder();

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (upper case). */
export function uriEncode(s: string): string {
  let out = "";
  for (const b of enc.encode(s)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** The path as sent and signed: each segment uriEncoded, the "/" between them kept. */
export function encodePath(path: string): string {
  return path.split("/").map(uriEncode).join("/");
}

/** 20150830T123600Z */
export function amzDate(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

function hex(b: ArrayBuffer): string {
  return Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
}

function bytes(x: Uint8Array | string): Uint8Array<ArrayBuffer> {
  return (typeof x === "string" ? enc.encode(x) : new Uint8Array(x)) as Uint8Array<ArrayBuffer>;
}

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", bytes(data)));
}

async function hmac(key: Uint8Array | string, data: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", bytes(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, bytes(data)));
}

/** Signs the request: the headers to add, and the intermediate strings for tests. */
export async function signRequest(r: SigningInput): Promise<Signed> {
  const date = amzDate(r.date);
  const day = date.slice(0, 8);
  const payloadHash = r.payloadHash ?? (await sha256Hex(r.body ?? ""));
  const added: Record<string, string> = { "x-amz-date": date };
  if (r.signPayloadHeader ?? true) added["x-amz-content-sha256"] = payloadHash;
  const token = r.credentials.sessionToken;
  if (token && !r.omitSessionToken) added["x-amz-security-token"] = token;

  // Canonical headers: lower-case names, sorted; values trimmed, inner runs
  // of white space made one space; a repeated name's values joined by ",".
  const byName = new Map<string, string[]>();
  for (const [name, value] of [...r.headers, ...Object.entries(added)]) {
    const n = name.toLowerCase();
    const v = value.trim().replace(/\s+/g, " ");
    byName.set(n, [...(byName.get(n) ?? []), v]);
  }
  const names = [...byName.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${byName.get(n)!.join(",")}\n`).join("");
  const signedHeaders = names.join(";");

  const canonicalQuery = r.query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");

  const canonicalRequest = [r.method, encodePath(r.path), canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join("\n");
  const scope = `${day}/${r.region}/${r.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", date, scope, await sha256Hex(canonicalRequest)].join("\n");

  const kDate = await hmac("AWS4" + r.credentials.secretAccessKey, day);
  const kRegion = await hmac(kDate, r.region);
  const kService = await hmac(kRegion, r.service);
  const kSigning = await hmac(kService, "aws4_request");
  const signature = hex((await hmac(kSigning, stringToSign)).buffer as ArrayBuffer);

  const headers: Record<string, string> = {
    ...added,
    authorization: `AWS4-HMAC-SHA256 Credential=${r.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
  if (token && r.omitSessionToken) headers["x-amz-security-token"] = token;
  return { headers, canonicalRequest, stringToSign, signature };
}
