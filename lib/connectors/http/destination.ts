// HTTP webhook destination: one JSON request per record, or one request with a JSON array per
// batch. Any 2xx is success; every record's log keeps its request (method, URL, body; never the
// headers) and the response. Each kind of write has its own method and URL (template): targets.ts.
// Records carry idempotency keys (the engine's delivery ledger, since a webhook call is not
// idempotent): a request of one record sends its key as Idempotency-Key; a batch sends a key of its
// own there and, up to ~120 records, the records' keys in Idempotency-Keys.
import { createHash, createHmac } from "node:crypto";
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { mapLimit } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { numberField, secondsToMs, stringField, stringMap } from "../shared/config";
import { ConnectorError, safeCheck } from "../shared/errors";
import { describeExchange, sendHttp } from "@/lib/net/http";
import { batchOutcomes, outcomeFromExchange } from "../shared/http-outcomes";
import { exactJson, scalarText } from "../shared/values";
import { httpDestinationDefinition } from "./definition";
import { renderUrl, requestTargets, type RequestTargets, type WriteMethod } from "./targets";

interface HttpSettings {
  url: string;
  method: WriteMethod;
  /** Per write action: method and URL (template). */
  targets: RequestTargets;
  headers: Record<string, string>;
  hmacSecret?: string;
  timeoutMs: number;
}

function settings(config: Row): HttpSettings {
  const url = stringField(config, "destination_url");
  const method = stringField(config, "method", "POST").toUpperCase() as WriteMethod;
  return {
    url,
    method,
    targets: requestTargets(config, { method, url }),
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
      u.searchParams.set(k, scalarText(v));
    }
  } else {
    u.searchParams.set("payload", exactJson(payload));
  }
  return u.toString();
}

/** The headers that let a receiver drop a repeated delivery; none for records without keys. */
export function idempotencyHeaders(records: WriteRecord[]): Record<string, string> {
  const keys = records.map((r) => r.idempotencyKey);
  if (keys.length === 0 || keys.some((k) => k === undefined)) return {};
  if (keys.length === 1) return { "Idempotency-Key": keys[0] as string };
  // The batch's key follows from its records' keys: a retried request of the same records repeats it.
  const joined = keys.join(",");
  const batchKey = createHash("sha256").update(joined).digest("hex").slice(0, 32);
  // Receivers cap request headers (Node 16 KB, many proxies 8 KB in all) and answer 431 past it, so
  // a big batch would fail whole: its records' keys go along only while they stay small.
  if (joined.length > MAX_RECORD_KEYS_HEADER) return { "Idempotency-Key": batchKey };
  return { "Idempotency-Key": batchKey, "Idempotency-Keys": joined };
}

/** Longest Idempotency-Keys value sent: 4 KB, about 120 records' keys. */
export const MAX_RECORD_KEYS_HEADER = 4096;

/** Where one request goes: its method and its URL, rendered. */
interface Target {
  method: WriteMethod;
  url: string;
}

function send(s: HttpSettings, to: Target, payload: unknown, records: WriteRecord[], signal?: AbortSignal) {
  const body = to.method === "GET" ? "" : exactJson(payload);
  const idempotency = idempotencyHeaders(records);
  // The engine's keys replace configured headers of the same names.
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(s.headers).filter(([h]) => !(Object.keys(idempotency).length > 0 && /^idempotency-keys?$/i.test(h))),
  );
  Object.assign(headers, idempotency);
  const hasContentType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
  if (to.method !== "GET" && !hasContentType) headers["content-type"] = "application/json";
  // Signs exactly the bytes sent (the empty string for GET).
  if (s.hmacSecret) headers["X-Signature-256"] = signature(s.hmacSecret, body);
  return sendHttp({
    url: to.method === "GET" ? withQuery(to.url, payload) : to.url,
    method: to.method,
    headers,
    body: to.method === "GET" ? undefined : body,
    timeoutMs: s.timeoutMs,
    signal,
    secretHeaders: Object.keys(s.headers),
  });
}

/** The record's target; a template that cannot render fails the record alone, unsent. */
function targetOf(s: HttpSettings, record: WriteRecord): Target | WriteOutcome {
  const target = s.targets[record.action];
  try {
    return { method: target.method, url: renderUrl(target, record.payload) };
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    return { key: record.key, ok: false, error: err.message, retryable: false };
  }
}

const isOutcome = (t: Target | WriteOutcome): t is WriteOutcome => "key" in t;

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  if (records.length === 0) return [];
  const s = settings(config);
  const outcomes: WriteOutcome[] = [];
  // Records that share a method and URL (all of them, without templates) share a request in batch mode.
  const groups = new Map<string, { to: Target; records: WriteRecord[] }>();
  const single: { to: Target; record: WriteRecord }[] = [];
  for (const record of records) {
    const to = targetOf(s, record);
    if (isOutcome(to)) outcomes.push(to);
    else if (!options.batch) single.push({ to, record });
    else {
      const id = `${to.method} ${to.url}`;
      const group = groups.get(id) ?? { to, records: [] };
      group.records.push(record);
      groups.set(id, group);
    }
  }
  for (const { to, records: group } of groups.values()) {
    const exchange = await send(
      s,
      to,
      group.map((r) => r.payload),
      group,
      options.signal,
    );
    // The receiver answered for the whole array: every record shares the outcome; each log shows
    // the record's own element of the array.
    // A batch of one: the log shows the body as sent (a one-element array).
    if (group.length === 1) outcomes.push(outcomeFromExchange(group[0].key, exchange));
    else outcomes.push(...batchOutcomes(exchange, group));
  }
  if (single.length > 0) {
    const concurrency = Math.max(1, options.stream.request_rate_concurrency ?? 1);
    outcomes.push(...(await mapLimit(single, concurrency, async ({ to, record }) => outcomeFromExchange(record.key, await send(s, to, record.payload, [record], options.signal)))));
  }
  return outcomes;
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
