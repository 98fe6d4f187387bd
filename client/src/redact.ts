/**
 * Secrets scrubbed from error messages: the client's side of the Go package
 * redact (the bridge scrubs what the core says; this scrubs what the client
 * builds itself from a server's answer, s3Store's errors above all). A
 * server or proxy that refuses a request may echo it back — headers, query,
 * form body — so a secret is found in every form it travels in, and in
 * mixtures of them:
 *
 *   - as it is;
 *   - percent-encoded, hex in either case, "+" or "%20" for a space, and
 *     encoded again (%252B);
 *   - JSON- or Go-escaped: \" \\ \/ \n, \u00e9 (Python's ASCII JSON), a
 *     UTF-16 pair for a character beyond the BMP, \U0001f511, \x1f, and
 *     escaped again (\\\");
 *   - base64 (standard or URL alphabet, padded or not) of the secret, and of
 *     CLIENT_ID:SECRET as HTTP Basic authentication sends it.
 *
 * Secrets shorter than MIN_SECRET_LENGTH are not kept: they would blank
 * ordinary words.
 */

export const MASK = "[redacted]";
export const MIN_SECRET_LENGTH = 4;

const utf8 = new TextEncoder();

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** A hex digit in either case, as a pattern. */
function hexDigit(d: string): string {
  return /[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0").split("").map(hexDigit).join("");
}

const SHORT: Record<string, string> = { '"': '"', "\\": "\\\\", "/": "/", "\n": "n", "\t": "t", "\r": "r", "\b": "b", "\f": "f", "'": "'" };

/** Every spelling of one character (a code point) as a pattern. */
function spellings(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const bytes = [...utf8.encode(ch)];
  const alts = [escapeRegExp(ch)];
  alts.push(bytes.map((b) => `%(?:25)*${hex(b, 2)}`).join(""));
  if (ch === " ") alts.push("\\+", "%(?:25)*2[bB]");
  if (SHORT[ch] !== undefined) alts.push(`\\\\+${SHORT[ch]}`);
  const units = cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp];
  alts.push(units.map((u) => `\\\\+u${hex(u, 4)}`).join(""));
  alts.push(`\\\\+U${hex(cp, 8)}`);
  alts.push(bytes.map((b) => `\\\\+x${hex(b, 2)}`).join(""));
  return `(?:${alts.join("|")})`;
}

function base64(s: string): string[] {
  let bin = "";
  for (const b of utf8.encode(s)) bin += String.fromCharCode(b);
  const std = btoa(bin);
  const url = std.replace(/\+/g, "-").replace(/\//g, "_");
  return [std, std.replace(/=+$/, ""), url, url.replace(/=+$/, "")];
}

/** A set of secrets to scrub; secrets are only ever added. */
export class Secrets {
  #secrets = new Map<string, RegExp>();
  #literals = new Set<string>();

  /** Keeps each secret (undefined, empty and short values are ignored). */
  add(...values: (string | undefined | null)[]): void {
    for (const v of values) {
      if (typeof v !== "string" || [...v].length < MIN_SECRET_LENGTH || this.#secrets.has(v)) continue;
      this.#secrets.set(v, new RegExp([...v].map(spellings).join(""), "g"));
      for (const b of base64(v)) this.#literals.add(b);
    }
  }

  /** Keeps an OAuth2 credential CLIENT_ID:SECRET: the secret, and the base64 of the whole (HTTP Basic). */
  addCredential(credential: string | undefined): void {
    if (!credential) return;
    const i = credential.indexOf(":");
    if (i < 0) return this.add(credential);
    const secret = credential.slice(i + 1);
    this.add(secret);
    if ([...secret].length >= MIN_SECRET_LENGTH) for (const b of base64(credential)) this.#literals.add(b);
  }

  /** text with every form of every secret replaced by MASK. */
  scrub(text: string): string {
    // Longest first: a secret holding another is masked whole; padded
    // base64 before the unpadded form, its prefix.
    for (const l of [...this.#literals].sort((a, b) => b.length - a.length)) text = text.split(l).join(MASK);
    for (const [, re] of [...this.#secrets].sort((a, b) => b[0].length - a[0].length)) text = text.replace(re, MASK);
    return text;
  }
}

/**
 * Every secret the client was given (catalog tokens and credentials, S3
 * keys): errors coming out of the WebAssembly module are scrubbed of them
 * once more (fromWasm), whatever store or catalog built them.
 */
export const clientSecrets = new Secrets();
