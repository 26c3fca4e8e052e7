// HTTP webhook destination: one JSON request per record, or one request with a JSON array per
// batch. Any 2xx is success; every record's log keeps its request (method, URL, body; never the
// headers) and the response.
import { createHmac } from "node:crypto";
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { mapLimit } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { numberField, secondsToMs, stringField, stringMap } from "../shared/config";
import { safeCheck } from "../shared/errors";
import { batchOutcomes, describeExchange, outcomeFromExchange, sendHttp, type HttpMethod } from "../shared/http";
import { httpDestinationDefinition } from "./definition";

interface HttpSettings {
  url: string;
  method: Exclude<HttpMethod, "OPTIONS" | "HEAD">;
  headers: Record<string, string>;
  hmacSecret?: string;
  timeoutMs: number;
}

function settings(config: Row): HttpSettings {
  return {
    url: stringField(config, "destination_url"),
    method: stringField(config, "method", "POST").toUpperCase() as HttpSettings["method"],
    headers: stringMap(config, "headers"),
    hmacSecret: typeof config.hmac_secret === "string" && config.hmac_secret !== "" ? config.hmac_secret : undefined,
    timeoutMs: secondsToMs(config, "timeout", 30),
  };
}

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** GET cannot carry a body, so the payload's fields become query parameters. */
function withQuery(url: string, payload: unknown): string {
  const u = new URL(url);
  if (payload && typeof payload === "object" && !Array.isArray(payload)) {
    for (const [k, v] of Object.entries(payload)) {
      u.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
    }
  } else {
    u.searchParams.set("payload", JSON.stringify(payload));
  }
  return u.toString();
}

function send(s: HttpSettings, payload: unknown, signal?: AbortSignal) {
  const body = s.method === "GET" ? "" : JSON.stringify(payload);
  const headers: Record<string, string> = { ...s.headers };
  const hasContentType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
  if (s.method !== "GET" && !hasContentType) headers["content-type"] = "application/json";
  // Signs exactly the bytes sent (the empty string for GET).
  if (s.hmacSecret) headers["X-Signature-256"] = signature(s.hmacSecret, body);
  return sendHttp({
    url: s.method === "GET" ? withQuery(s.url, payload) : s.url,
    method: s.method,
    headers,
    body: s.method === "GET" ? undefined : body,
    timeoutMs: s.timeoutMs,
    signal,
    secretHeaders: Object.keys(s.headers),
  });
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  if (records.length === 0) return [];
  const s = settings(config);
  if (options.batch) {
    const exchange = await send(
      s,
      records.map((r) => r.payload),
      options.signal,
    );
    // The receiver answered for the whole array: every record shares the outcome; each log shows
    // the record's own element of the array.
    // A batch of one: the log shows the body as sent (a one-element array).
    if (records.length === 1) return [outcomeFromExchange(records[0].key, exchange)];
    return batchOutcomes(exchange, records);
  }
  const concurrency = Math.max(1, options.stream.request_rate_concurrency ?? 1);
  return mapLimit(records, concurrency, async (r) => outcomeFromExchange(r.key, await send(s, r.payload, options.signal)));
}

/** OPTIONS reaches the endpoint without delivering data; any answer below 500 except 401/403 passes. */
async function check(config: Row): Promise<CheckResult> {
  return safeCheck(httpDestinationDefinition, config, async () => {
    const s = settings(config);
    const exchange = await sendHttp({
      url: s.url,
      method: "OPTIONS",
      headers: s.headers,
      timeoutMs: s.timeoutMs,
      secretHeaders: Object.keys(s.headers),
    });
    if (exchange.failure) return { ok: false, details: describeExchange(exchange) };
    if (exchange.status === 401 || exchange.status === 403) {
      return { ok: false, details: `${describeExchange(exchange)} The endpoint rejected the request: check the headers.` };
    }
    if (exchange.status >= 500) return { ok: false, details: describeExchange(exchange) };
    return { ok: true, details: `Reached ${new URL(s.url).host} (HTTP ${exchange.status} to OPTIONS).` };
  });
}

async function discover(config: Row): Promise<Catalog> {
  return buildCatalog(
    [
      {
        name: stringField(config, "stream_name", "webhook"),
        action: "create",
        url: stringField(config, "destination_url"),
        json_schema: { type: "object", additionalProperties: true },
        batch_support: true,
        batch_size: numberField(config, "batch_size", 100),
        request_method: settings(config).method,
      },
    ],
    // Any JSON body goes: the mapping names the fields (the reference's HTTP catalog is schemaless too).
    { request_rate_limit: 600, request_rate_limit_unit: "minute", request_rate_concurrency: 4, schema_mode: "schemaless" },
  );
}

export const httpDestination: DestinationConnector = {
  definition: httpDestinationDefinition,
  check,
  discover,
  write,
};
