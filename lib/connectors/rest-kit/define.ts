// The REST destination kit: a DestinationConnector from a RestDestinationSpec (types.ts). Check,
// discover and write are the kit's; the vendor supplies the request shapes and how to read answers.
// Requests go through shared/http.ts (network policy, guarded DNS, timeouts); the engine's Loader
// retries what comes back retryable, honouring retryAfterSeconds, and bisects a request that failed
// as a whole, so a vendor without per-record results still gets its bad record isolated.
import type { WriteMode } from "@/lib/sync-rules/write-mode";
import type { Catalog, CheckResult, ConnectorDefinition, DestinationConnector, Row, WriteAction, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { describeExchange, isSuccess } from "@/lib/net/http";
import { redact, secretValues } from "../shared/secrets";
import { exactJson } from "../shared/values";
import { planRequests, prepare, type Prepared } from "./batches";
import { TOKEN_UNAVAILABLE } from "./oauth";
import { credentialTexts, renewAuth, RestCallError, restCall, restClient, responseOf, sendRest, type RestClient } from "./client";
import { failureText, requestOutcomes } from "./outcomes";
import { restRecord } from "./values";
import type { RecordResult, RestCalls, RestContext, RestDestinationSpec, RestResponse, WriteEndpoint } from "./types";

/**
 * The sync write modes a vendor's endpoints allow (docs/write-modes.md). Update and insert modes
 * need an endpoint of their own: through an upsert, "update only" could create and "insert only"
 * could overwrite a record the sync never delivered.
 */
export function writeModesOf(writes: RestDestinationSpec["writes"]): WriteMode[] {
  const modes: WriteMode[] = [];
  if (writes.upsert) modes.push("upsert");
  if (writes.update) modes.push("update");
  if (writes.insert) modes.push("insert");
  if (writes.upsert && writes.delete) modes.push("mirror");
  return modes;
}

/**
 * The endpoint a record's action goes to: its own, else the upsert (a stream without a primary key
 * gets inserts and updates even in upsert mode).
 */
function endpointFor(writes: RestDestinationSpec["writes"], action: WriteAction): WriteEndpoint | undefined {
  if (action === "delete") return writes.delete;
  if (action === "upsert") return writes.upsert ?? undefined;
  return writes[action] ?? writes.upsert;
}

const failed = (record: WriteRecord, error: string): WriteOutcome => ({ key: record.key, ok: false, error, retryable: false });

export function defineRestDestination(spec: RestDestinationSpec): DestinationConnector {
  const { secretTargetFields = [], ...rest } = spec.definition;
  const definition: ConnectorDefinition = {
    ...rest,
    connectorType: "destination",
    streamType: "dynamic",
    writeModes: writeModesOf(spec.writes),
    secretTargetFields: ["base_url", ...secretTargetFields],
  };

  function calls(client: RestClient, config: Row, signal?: AbortSignal): RestCalls {
    const send = restCall(spec, client, [...secretValues(config, definition), ...credentialTexts(client)], signal);
    return { send, get: (path, query) => send({ method: "GET", path, query }), signal };
  }

  async function writeGroup(client: RestClient, endpoint: WriteEndpoint, records: WriteRecord[], base: RestContext, options: WriteOptions): Promise<WriteOutcome[]> {
    let ctx = base;
    if (endpoint.prepare) {
      try {
        ctx = { ...base, prepared: await endpoint.prepare({ ...base, ...calls(client, base.config, options.signal) }, records) };
      } catch (err) {
        if (!(err instanceof ConnectorError)) throw err;
        const retryable = err instanceof RestCallError && err.retryable;
        const wait = err instanceof RestCallError && err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {};
        return records.map((r) => ({ ...failed(r, err.message), retryable, ...wait, ...(err instanceof RestCallError ? { status: err.status } : {}) }));
      }
    }
    const outcomes: WriteOutcome[] = [];
    const prepared: Prepared<WriteRecord>[] = [];
    for (const record of records) {
      try {
        prepared.push(prepare(record, endpoint.item(restRecord(record, ctx.stream, spec.definition.title), ctx)));
      } catch (err) {
        if (!(err instanceof ConnectorError)) throw err;
        outcomes.push(failed(record, err.message));
      }
    }
    const empty = endpoint.request([], ctx).body;
    const overhead = empty === undefined ? 0 : Buffer.byteLength(exactJson(empty));
    const own = typeof endpoint.maxRecords === "function" ? endpoint.maxRecords(ctx) : endpoint.maxRecords;
    const maxRecords = options.batch ? Math.min(spec.limits.maxRecords, own ?? Number.POSITIVE_INFINITY) : 1;
    const plan = planRequests(prepared, maxRecords, spec.limits.maxBytes, overhead);
    for (const p of plan.tooBig) {
      outcomes.push(failed(p.entry, `The record is ${p.size} bytes as JSON; ${spec.definition.title} takes at most ${spec.limits.maxBytes} bytes per request.`));
    }
    // Requests of one chunk go one after another: the engine's budget and concurrency count chunks.
    for (const group of plan.requests) {
      const items = group.map((p) => p.item);
      const exchange = await sendRest(spec, client, endpoint.request(items, ctx), options.signal);
      const results = isSuccess(exchange) ? await readResults(client, endpoint, responseOf(exchange), items, ctx, options.signal) : undefined;
      outcomes.push(...requestOutcomes(spec, exchange, group, results));
    }
    return outcomes;
  }

  /** The records' results out of a 2xx answer: read at once, or settled by following a job. */
  async function readResults(client: RestClient, endpoint: WriteEndpoint, response: RestResponse, items: unknown[], ctx: RestContext, signal?: AbortSignal) {
    if (!endpoint.settle) return endpoint.results?.(response, items, ctx);
    try {
      return await endpoint.settle(response, items, { ...ctx, ...calls(client, ctx.config, signal) });
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      return items.map((): RecordResult => ({ ok: false, error: err.message, retryable: true }));
    }
  }

  const settings = (config: Row): Row => spec.settings?.(config) ?? config;

  async function write(given: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
    if (records.length === 0) return [];
    const config = settings(given);
    const secrets = secretValues(config, definition);
    let client: RestClient;
    try {
      client = await restClient(spec, config);
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      // A token endpoint that timed out or was busy may answer next time; a refusal will not.
      const retryable = err.code === TOKEN_UNAVAILABLE;
      return records.map((r) => ({ ...failed(r, redact(err.message, secrets)), retryable }));
    }
    secrets.push(...credentialTexts(client));
    const ctx: RestContext = { config, stream: options.stream };
    const byEndpoint = new Map<WriteEndpoint, WriteRecord[]>();
    const outcomes: WriteOutcome[] = [];
    for (const record of records) {
      const endpoint = endpointFor(spec.writes, record.action);
      if (!endpoint) {
        outcomes.push(failed(record, `${spec.definition.title} cannot ${record.action} records through this connector.`));
        continue;
      }
      const group = byEndpoint.get(endpoint);
      if (group) group.push(record);
      else byEndpoint.set(endpoint, [record]);
    }
    for (const [endpoint, group] of byEndpoint) outcomes.push(...(await writeGroup(client, endpoint, group, ctx, options)));
    // An OAuth token the API refused (expired session) is dropped: the retry fetches a new one.
    if (outcomes.some((o) => o.status === 401) && renewAuth(spec, client, config)) {
      for (const o of outcomes) if (o.status === 401) o.retryable = true;
    }
    // A vendor may echo what it was sent, the credential included: never let it reach a record.
    for (const o of outcomes) if (o.error) o.error = redact(o.error, secrets);
    return outcomes;
  }

  async function check(given: Row): Promise<CheckResult> {
    const config = settings(given);
    return safeCheck(definition, config, async () => {
      const client = await restClient(spec, config);
      const exchange = await sendRest(spec, client, spec.check.request(config));
      const response = responseOf(exchange);
      const hidden = (text: string) => redact(text, credentialTexts(client));
      if (exchange.failure) return { ok: false, details: hidden(describeExchange(exchange)) };
      if (exchange.status === 401 || exchange.status === 403) {
        return { ok: false, details: hidden(`${spec.definition.title} rejected the credentials. ${failureText(spec, exchange, response)}`) };
      }
      const passes = isSuccess(exchange) || (spec.check.passes?.(response) ?? false);
      if (!passes) return { ok: false, details: hidden(failureText(spec, exchange, response)) };
      return { ok: true, details: spec.check.describe?.(response, config) ?? `Connected to ${spec.definition.title}.` };
    });
  }

  async function discover(given: Row): Promise<Catalog> {
    const config = settings(given);
    const client = await restClient(spec, config);
    let streams;
    try {
      streams = await spec.discover({ config, ...calls(client, config) });
    } catch (err) {
      throw err instanceof ConnectorError ? err : new ConnectorError(redact(errorMessage(err), secretValues(config, definition)));
    }
    const method = spec.writes.upsert?.request([], { config, stream: { name: streams[0]?.name ?? "", url: "", json_schema: {}, batch_support: true, batch_size: 1, request_method: "POST" } }).method ?? "POST";
    return buildCatalog(
      streams.map((s) => ({
        name: s.name,
        action: "create" as const,
        url: client.baseUrl,
        json_schema: s.json_schema,
        batch_support: spec.limits.maxRecords > 1,
        batch_size: spec.limits.maxRecords,
        request_method: method,
        ...(s.primary_key ? { primary_key: s.primary_key } : {}),
      })),
      {
        request_rate_limit: spec.rate.limit,
        request_rate_limit_unit: spec.rate.unit,
        request_rate_concurrency: spec.rate.concurrency,
      },
    );
  }

  return { definition, check, discover, write };
}
