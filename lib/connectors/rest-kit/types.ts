// What a SaaS destination declares to the REST kit (define.ts): how it authenticates, where each
// kind of write goes and what its body looks like, how many records and bytes a request may carry,
// how fast it may be called, and how to read each record's result and the vendor's errors out of a
// response. Everything else (outbound policy, timeouts, batching, retries, logs, secret masking) is
// the kit's, so a vendor is one small reviewed file. See docs/connectors.md, "REST destination kit".
import type { ConnectorDefinition, JsonSchema, RateLimitUnit, Row, Stream, WriteAction, WriteRecord } from "../types";
import type { HttpMethod } from "@/lib/net/http";
import type { ClientCredentials, JwtBearer } from "./oauth";

/** How the credential travels. The configuration field named here must be declared `secret`. */
export type AuthScheme =
  /** `Authorization: Bearer <token>` */
  | { kind: "bearer"; field: string }
  /** `<header>: <prefix><token>`, e.g. `Api-Key: <key>` or `Authorization: Klaviyo-API-Key <key>` */
  | { kind: "header"; header: string; field: string; prefix?: string }
  /** HTTP Basic with the secret as password and a fixed user name, or the one a configuration field holds. */
  | { kind: "basic"; field: string; username: string | { field: string } }
  /** OAuth 2.0 client credentials: a Bearer token from the vendor's token endpoint (oauth.ts). */
  | ClientCredentials
  /** A signed JWT assertion (RFC 7523) from a service account key, exchanged for a Bearer token (oauth.ts). */
  | JwtBearer;

/** One request, relative to the configured base URL (`path` starts with `/`). */
export interface RestRequest {
  method: Exclude<HttpMethod, "OPTIONS" | "HEAD">;
  path: string;
  query?: Record<string, string | string[]>;
  /** JSON-serialised (form-encoded when `encoding` is "form"); absent for GET and bodiless deletes. */
  body?: unknown;
  /** "form": the body as application/x-www-form-urlencoded with bracketed keys (form.ts). Default JSON. */
  encoding?: "json" | "form";
  /** Headers of this request alone (an idempotency key). */
  headers?: Record<string, string>;
}

/** A response as the vendor hooks see it: status, parsed JSON body (undefined when not JSON), headers kept. */
export interface RestResponse {
  status: number;
  body: unknown;
  /** Lowercase names; the usual ones plus the definition's `rateLimitHeaders`. */
  headers: Record<string, string>;
}

/** What a vendor said about one record of a request. */
export type RecordResult =
  | { ok: true; detail?: unknown }
  | { ok: false; error: string; retryable?: boolean; detail?: unknown };

/** What every hook gets: the configuration (decrypted) and the stream written to. */
export interface RestContext {
  config: Row;
  stream: Stream;
  /** What the endpoint's `prepare` read for this write (e.g. the rows a key column has). */
  prepared?: unknown;
}

/** Authenticated requests for hooks; each throws ConnectorError unless it answers 2xx. */
export interface RestCalls {
  get(path: string, query?: Record<string, string>): Promise<RestResponse>;
  send(request: RestRequest): Promise<RestResponse>;
  signal?: AbortSignal;
}

/** One kind of write (upsert, insert, update or delete) of a vendor. */
export interface WriteEndpoint {
  /**
   * The record's element of the request body (also what its log shows and what is counted against
   * the byte limit). Throw a ConnectorError for a record that cannot be sent: it fails alone.
   */
  item(record: WriteRecord, ctx: RestContext): unknown;
  /** The request carrying `items` (at most the definition's maxRecords, within maxBytes). */
  request(items: unknown[], ctx: RestContext): RestRequest;
  /**
   * Each record's result, in the order of `items`, read from a 2xx response (207 included).
   * Undefined: the status decides for every record of the request.
   */
  results?(response: RestResponse, items: unknown[], ctx: RestContext): RecordResult[] | undefined;
  /**
   * For APIs that answer "accepted" and report later (asynchronous import jobs): instead of
   * `results`, follow the job with `ctx.get` until the records' results are known. A ConnectorError
   * thrown here fails the request's records as retryable (what was sent is an idempotent upsert).
   */
  settle?(response: RestResponse, items: unknown[], ctx: RestContext & RestCalls): Promise<RecordResult[] | undefined>;
  /**
   * For APIs addressed by position (a spreadsheet's rows): read what `item` and `request` need
   * before the write, once per write call; the result is `ctx.prepared`. A failure here fails the
   * write's records (retryable when the vendor's answer was).
   */
  prepare?(ctx: RestContext & RestCalls, records: WriteRecord[]): Promise<unknown>;
  /**
   * This endpoint's own record limit, when lower than the definition's (e.g. deletes); a function
   * when it depends on the stream (a vendor with a bulk endpoint for one object and not another).
   */
  maxRecords?: number | ((ctx: RestContext) => number);
}

/** A stream the vendor offers: fields as a JSON Schema, and the fields records are matched on. */
export interface RestStream {
  name: string;
  json_schema: JsonSchema;
  primary_key?: string[];
}

export interface RestDiscoverContext extends Omit<RestContext, "stream">, RestCalls {}

export interface RestDestinationSpec {
  /** name, title, icon, docs and the connection specification (fields.ts has the shared fields). */
  definition: Omit<ConnectorDefinition, "connectorType" | "streamType" | "writeModes" | "secretTargetFields"> & {
    /** Fields besides base_url that say where the credential goes (e.g. a Mailchimp data center). */
    secretTargetFields?: string[];
  };
  /**
   * The vendor's API root; the `base_url` field defaults to it (tests point it at an emulator). A
   * function when it follows from the configuration (a data center named in the API key); it throws
   * ConnectorError when it cannot tell.
   */
  baseUrl: string | ((config: Row) => string);
  /**
   * The connector's typed settings parser: takes a configuration as the specification accepts it
   * (the reference's field names or our earlier ones) and returns it with the fields the hooks and
   * `auth` read set, so nothing downstream knows two spellings. Keeps every key it was given (the
   * secrets are found by the specification's paths). Absent: the configuration as it is.
   */
  settings?: (config: Row) => Row;
  auth: AuthScheme;
  /** Headers every request carries (an API version, a JSON:API content type). */
  headers?: Record<string, string>;
  /** Largest request: records, and bytes of the JSON body. */
  limits: { maxRecords: number; maxBytes?: number };
  /** The vendor's published request rate, enforced by the engine's shared budget. */
  rate: { limit: number; unit: RateLimitUnit; concurrency: number };
  writes: Partial<Record<WriteAction, WriteEndpoint>>;
  /**
   * A cheap authenticated request that writes nothing; a 2xx passes, or what `passes` accepts (an
   * API without a read endpoint may answer an empty write with 400 once the key is accepted).
   * `describe` turns a passing answer into the sentence shown.
   */
  check: {
    request(config: Row): RestRequest;
    passes?(response: RestResponse): boolean;
    describe?(response: RestResponse, config: Row): string;
  };
  discover(ctx: RestDiscoverContext): Promise<RestStream[]>;
  /** The vendor's error sentence out of a non-2xx body (default: the body's start). */
  errorText?(response: RestResponse): string | undefined;
  /** Statuses retried besides 408, 429 and 5xx. */
  retryableStatuses?: number[];
  /** Throttling a vendor signals otherwise than with 429 (a 403 with a limit code): retried like a 429. */
  throttled?(response: RestResponse): boolean;
  /** Response headers to keep for `retryAfter` (lowercase), e.g. x-ratelimit-reset. */
  rateLimitHeaders?: string[];
  /**
   * Seconds to wait before retrying a throttled request when it carries no Retry-After: from the
   * vendor's rate-limit headers, or its documented penalty. Undefined: the engine's backoff.
   */
  retryAfter?(response: RestResponse): number | undefined;
}
