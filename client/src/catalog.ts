/**
 * restCatalog: an Iceberg REST catalog (R2 Data Catalog, Polaris, Nessie,
 * Iceberg's own server, …) that createTable/openTable write tables through.
 * The Go core speaks the protocol; this side only moves its HTTP requests
 * over fetch. The token and client secret stay in private fields (never
 * enumerable, never in an error message: the core scrubs them).
 */
import { TimelakeError } from "./errors.js";
import { clientSecrets } from "./redact.js";
import type { WasmApi } from "./runtime.js";

export interface RestCatalogOptions {
  /** The catalog's base URI; requests go to `${uri}/v1/…`. */
  uri: string;
  /** The warehouse parameter of GET /v1/config (R2 Data Catalog: ACCOUNTID_BUCKET). */
  warehouse?: string;
  /** A bearer token (R2 Data Catalog: an API token). */
  token?: string;
  /** "CLIENT_ID:SECRET" for the OAuth2 client-credentials flow (POST `${uri}/v1/oauth/tokens`). */
  credential?: string;
  /** The OAuth2 scope; default "catalog". */
  scope?: string;
  /** The token endpoint; default `${uri}/v1/oauth/tokens`. */
  oauthUri?: string;
  /** Default globalThis.fetch (looked up at each request). */
  fetch?: typeof fetch;
}

/** The transport the bridge calls (wasm/jstransport.go). */
export type WireTransport = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Uint8Array | null,
) => Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }>;

/** A catalog to create and open tables in: see restCatalog. */
export class Catalog {
  readonly uri: string;
  readonly warehouse: string | undefined;
  readonly #spec: string;
  readonly #transport: WireTransport;
  #open: { generation: number; handle: Promise<number> } | undefined;

  /** @internal Use restCatalog(options). */
  constructor(options: RestCatalogOptions) {
    if (typeof options?.uri !== "string" || options.uri === "") {
      throw new TimelakeError("INVALID_ARGUMENT", "timelake: restCatalog needs { uri }");
    }
    if (options.token && options.credential) {
      throw new TimelakeError("INVALID_ARGUMENT", "timelake: restCatalog takes a token or a credential, not both");
    }
    clientSecrets.add(options.token);
    clientSecrets.addCredential(options.credential);
    this.uri = options.uri.replace(/\/+$/, "");
    this.warehouse = options.warehouse;
    this.#spec = JSON.stringify({
      uri: options.uri,
      warehouse: options.warehouse ?? "",
      token: options.token ?? "",
      credential: options.credential ?? "",
      scope: options.scope ?? "",
      oauthUri: options.oauthUri ?? "",
    });
    this.#transport = fetchTransport(options.fetch);
  }

  /** @internal The catalog's handle in the instance of this generation (opened once per instance). */
  handle(api: WasmApi, generation: number): Promise<number> {
    if (this.#open?.generation !== generation) {
      const handle = api.openCatalog(this.#spec, this.#transport);
      handle.catch(() => (this.#open = undefined));
      this.#open = { generation, handle };
    }
    return this.#open.handle;
  }

  toJSON(): { uri: string; warehouse: string | undefined } {
    return { uri: this.uri, warehouse: this.warehouse };
  }
}

/** A REST catalog; nothing is sent until a table is created or opened. */
export function restCatalog(options: RestCatalogOptions): Catalog {
  return new Catalog(options);
}

/**
 * The bridge's transport over fetch. Redirects are followed for GET and
 * HEAD only (a redirected commit must not be resent silently). A failed
 * fetch rejects with its message and cause, never the headers.
 */
function fetchTransport(given: typeof fetch | undefined): WireTransport {
  return async (method, url, headers, body) => {
    const f = given ?? globalThis.fetch;
    let res: Response;
    try {
      res = await f(url, {
        method,
        headers,
        ...(body === null ? {} : { body: body as Uint8Array<ArrayBuffer> }),
        redirect: method === "GET" || method === "HEAD" ? "follow" : "manual",
      });
    } catch (e) {
      const err = e as { message?: unknown; cause?: { message?: unknown; code?: unknown } };
      const cause = err.cause ? `: ${String(err.cause.code ?? err.cause.message ?? "")}` : "";
      throw new Error(`${String(err.message ?? e)}${cause}`);
    }
    const h: Record<string, string> = {};
    res.headers.forEach((v, k) => (h[k] = v));
    const b = method === "HEAD" ? new Uint8Array() : new Uint8Array(await res.arrayBuffer());
    return { status: res.status, headers: h, body: b };
  };
}
