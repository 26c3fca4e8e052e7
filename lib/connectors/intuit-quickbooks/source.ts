// The IntuitQuickBooks source: a model is a QuickBooks query (SELECT * FROM Customer [WHERE …]
// [LIMIT n] [OFFSET m]), read in pages of up to 1000 entities with STARTPOSITION/MAXRESULTS; each
// entity becomes a row with nested objects flattened to dotted columns (MetaData.LastUpdatedTime)
// and lists left out, as the reference shapes them. Incremental reads filter and order on the
// cursor column in the query itself. Discovery samples the entities the reference offers.
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { fingerprinted, previewOf, rebatch, schemaOf } from "../shared/api-source";
import { quickbooksSettings, quickbooksSourceDefinition, type QuickbooksSettings } from "./definition";
import { issuedSecrets, MAX_PAGE_ROWS, runQuery } from "./api";
import { JsonNumber } from "../shared/values";

/** The entities the reference's discovery lists. */
export const QUICKBOOKS_ENTITIES = ["Account", "Customer", "Employee", "Invoice", "TimeActivity"] as const;
/** Entities sampled per entity to type its columns. */
const SAMPLE_ROWS = 50;
/** Every entity has these, whether or not the company has any yet. */
const BASE_COLUMNS: Row = { Id: "", SyncToken: "", "MetaData.CreateTime": "", "MetaData.LastUpdatedTime": "" };

/** The configured secrets and the tokens Intuit issued for them (in no field, but an answer may echo them). */
function secretTexts(config: Row): string[] {
  let issued: string[] = [];
  try {
    issued = issuedSecrets(quickbooksSettings(config));
  } catch {
    // Settings that do not parse never reached Intuit: nothing was issued.
  }
  return [...secretValues(config, quickbooksSourceDefinition), ...issued];
}

function scrub(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretTexts(config)), (err as { code?: string }).code);
}

async function scrubbed<T>(config: Row, fn: (s: QuickbooksSettings) => Promise<T>): Promise<T> {
  try {
    return await fn(quickbooksSettings(config));
  } catch (err) {
    throw scrub(config, err);
  }
}

/** An entity as a row: nested objects become dotted columns, lists are left out. */
export function flatten(entity: Row, prefix = "", out: Row = {}): Row {
  for (const [key, value] of Object.entries(entity)) {
    const column = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value)) continue;
    // A JsonNumber (an exact number out of the answer) is a value, not a nested object.
    if (value !== null && typeof value === "object" && !(value instanceof JsonNumber)) flatten(value as Row, column, out);
    else out[column] = value;
  }
  return out;
}

export interface ModelQuery {
  /** The statement without LIMIT/OFFSET (paging adds STARTPOSITION/MAXRESULTS). */
  statement: string;
  entity: string;
  /** Rows read at most (the query's LIMIT). */
  limit?: number;
  /** Rows skipped first (the query's OFFSET). */
  offset: number;
}

const COLUMN = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

/** Reads a model query; throws ConnectorError when it is not one QuickBooks query this source runs. */
export function parseModelQuery(query: string): ModelQuery {
  const text = query.trim().replace(/;+\s*$/, "");
  const from = /^select\s+[\s\S]+?\s+from\s+([A-Za-z]+)\b/i.exec(text);
  if (!from) throw new ConnectorError("The query must be a QuickBooks query: SELECT * FROM <entity> [WHERE …], e.g. SELECT * FROM Customer.");
  if (text.length > 8000) throw new ConnectorError("The query is longer than 8000 characters.");
  if (text.includes(";")) throw new ConnectorError("The query must be one statement.");
  if (/\b(startposition|maxresults)\b/i.test(text)) throw new ConnectorError("Leave STARTPOSITION and MAXRESULTS out: the read pages by itself (LIMIT and OFFSET are taken).");
  const limit = /\blimit\s+(\d+)/i.exec(text)?.[1];
  const offset = /\boffset\s+(\d+)/i.exec(text)?.[1];
  const statement = text.replace(/\blimit\s+\d+/i, "").replace(/\boffset\s+\d+/i, "").replace(/\s+/g, " ").trim();
  return { statement, entity: from[1], limit: limit !== undefined ? Number(limit) : undefined, offset: offset !== undefined ? Number(offset) : 0 };
}

/** The statement of an incremental read: rows at or after the cursor value, in the cursor's order. */
export function incrementalStatement(model: ModelQuery, options: Pick<ReadOptions, "cursorField" | "cursorValue">): string {
  const field = options.cursorField;
  if (!field) return model.statement;
  if (!COLUMN.test(field)) throw new ConnectorError(`The cursor field "${field}" is not a QuickBooks property (e.g. MetaData.LastUpdatedTime).`);
  if (/\borderby\b/i.test(model.statement)) throw new ConnectorError("Leave ORDERBY out of an incremental model: the read orders by the cursor field.");
  const value = options.cursorValue;
  const where = value === undefined || value === null ? "" : ` ${/\bwhere\b/i.test(model.statement) ? "AND" : "WHERE"} ${field} >= '${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  return `${model.statement}${where} ORDERBY ${field}`;
}

/** The query's rows page by page (STARTPOSITION counts from 1), at most `limit` of them. */
async function* entityPages(s: QuickbooksSettings, statement: string, start: number, limit: number | undefined, signal?: AbortSignal): AsyncGenerator<Row[]> {
  let read = 0;
  for (let page = 0; limit === undefined || read < limit; page++) {
    if (page >= s.maxPages) throw new ConnectorError(`The query has more than ${s.maxPages} pages of ${MAX_PAGE_ROWS} rows (max_pages); the read was stopped.`, "too_many_pages");
    const size = Math.min(MAX_PAGE_ROWS, limit === undefined ? MAX_PAGE_ROWS : limit - read);
    const { rows } = await runQuery(s, `${statement} STARTPOSITION ${start + read + 1} MAXRESULTS ${size}`, signal);
    if (rows.length > 0) yield rows.slice(0, size).map((r) => flatten(r));
    read += rows.length;
    if (rows.length < size) return;
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(quickbooksSourceDefinition, config, () =>
    scrubbed(config, async (s) => {
      await runQuery(s, "SELECT * FROM Customer STARTPOSITION 1 MAXRESULTS 1", signal);
      return { ok: true, details: `Connected to QuickBooks Online (${config.environment}): the company answered a Customer query.` };
    }),
  );
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return scrubbed(config, async (s) => {
    const streams: Stream[] = [];
    for (const entity of QUICKBOOKS_ENTITIES) {
      const { rows } = await runQuery(s, `SELECT * FROM ${entity} STARTPOSITION 1 MAXRESULTS ${SAMPLE_ROWS}`, signal);
      const sample = rows.length > 0 ? rows.map((r) => flatten(r)) : [BASE_COLUMNS];
      streams.push({ name: entity, action: "fetch", url: `SELECT * FROM ${entity}`, json_schema: schemaOf(sample), batch_support: false, batch_size: 0, request_method: "GET" });
    }
    // The reference's catalog: Intuit allows 500 requests a minute and 10 at once per company.
    return buildCatalog(streams, { request_rate_limit: 500, request_rate_limit_unit: "minute", request_rate_concurrency: 10 });
  });
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const model = parseModelQuery(sql);
  return scrubbed(config, async (s) => {
    const n = Math.max(0, Math.min(Math.floor(limit), model.limit ?? Infinity));
    const rows: Row[] = [];
    if (n > 0) for await (const page of entityPages(s, model.statement, model.offset, n, signal)) rows.push(...page);
    return previewOf(rows);
  });
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const s = quickbooksSettings(config);
    const model = parseModelQuery(options.query);
    const statement = incrementalStatement(model, options);
    yield* rebatch(entityPages(s, statement, model.offset, model.limit, options.signal), options.batchSize);
  } catch (err) {
    throw scrub(config, err);
  }
}

function readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncIterable<FingerprintedBatch> {
  return fingerprinted(read(config, options), options.fingerprint);
}

export const quickbooksSource: SourceConnector = {
  definition: quickbooksSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void parseModelQuery(q),
  read,
  readFingerprinted,
};
