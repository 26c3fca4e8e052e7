// The Http source: a JSON API read page by page (pages.ts), its records as rows. Check and discovery
// read the first page (discovery types its columns from the JSON values), a preview the first page
// of the model's query; an incremental read drops rows below the cursor (and, with
// cursor_value_param, asks the API to). Errors are scrubbed of every configured secret.
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { credentialTexts, redact, secretValues } from "../shared/secrets";
import { fingerprinted, previewOf, rebatch, schemaOf } from "../shared/api-source";
import { httpSourceDefinition, httpSourceSettings, type HttpSourceSettings } from "./definition";
import { pages } from "./pages";
import { JsonNumber } from "../shared/values";

/** Rows discovery types columns from. */
const SAMPLE_ROWS = 200;
const MAX_QUERY_LENGTH = 65_536;

/** The configured secrets and what an API may echo of each header (a bare token, a Basic pair). */
function secretTexts(config: Row): string[] {
  return secretValues(config, httpSourceDefinition).flatMap(credentialTexts);
}

function scrub(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretTexts(config)), (err as { code?: string }).code);
}

async function scrubbed<T>(config: Row, fn: (s: HttpSourceSettings) => Promise<T>): Promise<T> {
  try {
    return await fn(httpSourceSettings(config));
  } catch (err) {
    throw scrub(config, err);
  }
}

async function firstPage(s: HttpSourceSettings, signal?: AbortSignal, query?: string): Promise<Row[]> {
  for await (const rows of pages(s, { pages: 1, signal, query })) return rows;
  return [];
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(httpSourceDefinition, config, () =>
    scrubbed(config, async (s) => {
      const rows = await firstPage(s, signal);
      return { ok: true, details: `Connected to ${new URL(s.url).host}: the first page holds ${rows.length} record${rows.length === 1 ? "" : "s"}.` };
    }),
  );
}

/** The stream's name: the URL path's last segment (orders for /v1/orders), else "records". */
function streamName(s: HttpSourceSettings): string {
  const segment = new URL(s.url).pathname.split("/").filter(Boolean).pop();
  return segment ? decodeURIComponent(segment) : "records";
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return scrubbed(config, async (s) => {
    const rows = (await firstPage(s, signal)).slice(0, SAMPLE_ROWS);
    return buildCatalog([
      { name: streamName(s), action: "fetch", url: s.url, json_schema: schemaOf(rows), batch_support: false, batch_size: 0, request_method: s.method },
    ]);
  });
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  return scrubbed(config, async (s) => previewOf((await firstPage(s, signal, sql)).slice(0, Math.max(0, Math.floor(limit)))));
}

function checkQuery(sql: string): void {
  if (sql.length > MAX_QUERY_LENGTH) throw new ConnectorError(`The query is longer than ${MAX_QUERY_LENGTH} characters.`);
}

/** Orders two cursor values: as numbers when both are, else as text (ISO dates order so). */
function compareCursor(value: unknown, bound: string): number {
  const text = typeof value === "string" || value instanceof JsonNumber ? String(value) : JSON.stringify(value);
  const a = Number(text);
  const b = Number(bound);
  if (text.trim() !== "" && bound.trim() !== "" && Number.isFinite(a) && Number.isFinite(b)) return a - b;
  return text < bound ? -1 : text > bound ? 1 : 0;
}

/** The pages' rows at or above the cursor value (rows without the cursor column are kept: nothing says they are older). */
async function* incremental(rows: AsyncIterable<Row[]>, options: ReadOptions): AsyncGenerator<Row[]> {
  const field = options.cursorField;
  const bound = options.cursorValue;
  for await (const page of rows) {
    if (!field || bound === undefined || bound === null) yield page;
    else yield page.filter((r) => r[field] === undefined || r[field] === null || compareCursor(r[field], bound) >= 0);
  }
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const s = httpSourceSettings(config);
    checkQuery(options.query);
    const query = s.sampleQuery && options.query.trim() !== "" ? options.query : undefined;
    yield* rebatch(incremental(pages(s, { query, cursorValue: options.cursorValue, signal: options.signal }), options), options.batchSize);
  } catch (err) {
    throw scrub(config, err);
  }
}

function readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncIterable<FingerprintedBatch> {
  return fingerprinted(read(config, options), options.fingerprint);
}

export const httpSource: SourceConnector = {
  definition: httpSourceDefinition,
  check,
  discover,
  query,
  checkQuery,
  read,
  readFingerprinted,
};
